//===- LocalMemory.h - Did a rewrite add local memory? ----------*- C++ -*-===//
//
// The check that --list-options --effects reports and the agent prunes on
// (issue 15 item 2): a rewrite that makes a kernel keep data in local memory
// (an array the compiler can no longer index with constants, register
// spills) is a regression one timing run may not show. ptxas reports the
// stack frame and spill bytes; the PTX itself shows the ld.local/st.local
// instructions, with or without ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_CODEGEN_LOCALMEMORY_H
#define ASTRA_CODEGEN_LOCALMEMORY_H

#include "astra/Codegen/PtxStats.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace astra {

/// What the PTX of one kernel shows, before ptxas.
struct PtxLocalUse {
  unsigned DepotBytes = 0; ///< `.local ... __local_depotN[bytes]`
  unsigned Accesses = 0;   ///< ld.local and st.local instructions
};

/// One kernel's local memory.
struct LocalMemoryUse {
  bool Measured = false; ///< ptxas ran: the byte counts are meaningful
  unsigned StackBytes = 0, SpillStoreBytes = 0, SpillLoadBytes = 0;
  PtxLocalUse Ptx;
};

/// The local depot and ld/st.local instructions in the body of `.entry`
/// \p Entry (mangled) of \p Ptx; zeros when there is no such entry.
PtxLocalUse scanPtxLocalUse(llvm::StringRef Ptx, llvm::StringRef Entry);

/// \p Entry's use in \p Ptx; the byte counts from \p Ptxas (ptxas's report
/// for the entry) when given.
LocalMemoryUse getLocalMemoryUse(llvm::StringRef Ptx, llvm::StringRef Entry,
                                 const KernelResources *Ptxas);

/// What grew from \p Before to \p After ("stack frame bytes 0 -> 64");
/// empty when nothing did. When ptxas measured both, its stack and spill
/// bytes decide (it may keep in registers a small array that the PTX puts in
/// local memory); else the PTX's depot bytes and ld/st.local count do
/// ("PTX ld/st.local 0 -> 12").
std::string describeLocalMemoryGrowth(const LocalMemoryUse &Before,
                                      const LocalMemoryUse &After);

} // namespace astra

#endif // ASTRA_CODEGEN_LOCALMEMORY_H
