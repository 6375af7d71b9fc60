//===- KernelSource.h - Source-level edits of whole kernels -----*- C++ -*-===//
//
// What the agent and the harness need of a kernel's source as a whole: the
// template instantiations a spec names made explicit in the compile unit, and
// a kernel's definition replaced by a new one (an LLM agent's candidate).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_KERNELSOURCE_H
#define ASTRA_FRONTEND_KERNELSOURCE_H

#include "astra/Support/CompileSetup.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace astra {

/// \p Code with every template instantiation in \p SpecNames
/// (`act_and_mul<__half>`) referenced from a host variable at the end, so the
/// device compile emits it. Names without template arguments add nothing.
std::string withInstantiations(llvm::StringRef Code,
                               llvm::ArrayRef<std::string> SpecNames);

/// \p Code with the definition of kernel \p Kernel (its source name; for a
/// template, the whole template declaration) replaced by \p NewSource.
/// Errors (exit 1) when the kernel is not defined in the main file.
llvm::Expected<std::string>
replaceKernelDefinition(const CompileSetup &Setup, llvm::StringRef FileName,
                        llvm::StringRef Code, llvm::StringRef Kernel,
                        llvm::StringRef NewSource);

} // namespace astra

#endif // ASTRA_FRONTEND_KERNELSOURCE_H
