//===- PtxStats.h - Resource usage of PTX kernels via ptxas -----*- C++ -*-===//
#ifndef ASTRA_CODEGEN_PTXSTATS_H
#define ASTRA_CODEGEN_PTXSTATS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace astra {

/// What ptxas reports for one kernel.
struct KernelResources {
  std::string Name; ///< mangled entry name
  unsigned Registers = 0;
  unsigned StackFrameBytes = 0;
  unsigned SpillStoreBytes = 0;
  unsigned SpillLoadBytes = 0;
  unsigned SharedBytes = 0;   ///< static shared memory
  unsigned ConstantBytes = 0; ///< cmem[0] (kernel parameters)
  unsigned Barriers = 0;
};

/// Parses the `ptxas -v` report (its stderr).
std::vector<KernelResources> parsePtxasReport(llvm::StringRef Report);

/// Assembles \p Ptx with \p Ptxas for \p Arch and returns each entry's
/// resources. Fails with the assembler's messages when ptxas rejects the PTX.
llvm::Expected<std::vector<KernelResources>>
runPtxas(llvm::StringRef Ptxas, llvm::StringRef Arch, llvm::StringRef Ptx);

/// A table: kernel (demangled), registers, stack, spills, shared memory.
void printResources(llvm::raw_ostream &OS,
                    const std::vector<KernelResources> &Kernels);

} // namespace astra

#endif
