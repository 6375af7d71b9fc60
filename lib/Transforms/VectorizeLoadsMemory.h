//===- VectorizeLoadsMemory.h - Memory around a per-thread region -*- C++ -*-//
//
// Private to lib/Transforms. The one-element-per-thread form of
// vectorize-loads (VectorizeLoadsThread.cpp) runs the per-element
// statements on other threads than the original; the statements around
// them stay with each thread. These helpers say what those statements do to
// memory (VectorizeLoadsMemory.cpp) and whether they stay right for any
// block size (VectorizeLoadsAnyBlock.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSMEMORY_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSMEMORY_H

#include "astra/Frontend/VarUses.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>

namespace astra {
namespace vectorize {

/// The memory a list of statements reads and writes, by the variable each
/// access starts from (a pointer parameter or global, an array, or a local
/// pointer followed to its value); null for an address the analysis cannot
/// follow.
struct MemoryUses {
  struct Use {
    bool Write = false;
    clang::SourceLocation Loc;
  };
  llvm::MapVector<const clang::VarDecl *, Use> ByRoot;
  clang::SourceLocation UnknownCall; ///< a call that may access any memory
};

/// Adds the memory accesses of \p Stmts to \p Out.
void scanMemory(const VarUses &Writes,
                llvm::ArrayRef<const clang::Stmt *> Stmts, MemoryUses &Out);

/// Why the statements \p Around (run by each thread for its original
/// index) may meet the memory of \p Region (run per pack, by other threads
/// than in the original): one writes what the other accesses. Empty if
/// they cannot; else \p Where is set.
std::string findMemoryClash(const VarUses &Writes,
                            llvm::ArrayRef<const clang::Stmt *> Region,
                            llvm::ArrayRef<const clang::Stmt *> Around,
                            clang::SourceLocation &Where);

/// Why the statements \p Around the per-element region of a per-block
/// index \p IV (`threadIdx.<ThreadDim>` alone) may act differently when the
/// block has fewer threads: a write to memory, or a call that may write it,
/// that not only thread 0 makes (`if (IV == 0)`), a warp collective, or
/// blockDim (whose value changes) anywhere in \p Kernel. Empty when they
/// act alike for any block of at least one thread; else \p Where is set.
std::string whyNotAnyBlock(const clang::FunctionDecl *Kernel,
                           const clang::VarDecl *IV, char ThreadDim,
                           const VarUses &Writes,
                           llvm::ArrayRef<const clang::Stmt *> Around,
                           clang::SourceLocation &Where);

/// Why a thread-partitioned loop (\p IV its variable, \p PartitionDeps
/// the DepBits of its partition) may not hand its elements to other
/// threads, as its packs do: an iteration that depends on the thread other
/// than through \p IV, a thread-dependent return before the loop, inline
/// assembly (VectorizeLoadsOwnership.cpp). Empty when none holds.
std::string whyNotReassignable(const clang::FunctionDecl *Kernel,
                               const clang::ForStmt *Loop,
                               const clang::VarDecl *IV, unsigned PartitionDeps,
                               clang::SourceLocation &Where);

/// Another statement of \p K that meets the memory \p Loop accesses (one of
/// them writing it) with no `__syncthreads()` between them on the way from
/// one to the other (VectorizeLoadsFences.cpp). Empty if there is none;
/// else \p Where is set.
std::string findUnfencedClash(const clang::FunctionDecl *K,
                              const clang::ForStmt *Loop,
                              clang::SourceLocation &Where);

/// The loop's own variables: its index \p IV and what its body declares.
void collectLoopVars(const clang::ForStmt *Loop, const clang::VarDecl *IV,
                     llvm::SmallPtrSetImpl<const clang::VarDecl *> &Out);

/// Whether \p F, a function of the user's code (not of a system header),
/// reads a thread or block builtin or holds assembly, itself or through the
/// functions it calls (VectorizeLoadsOwnership.cpp).
bool readsThreadState(const clang::FunctionDecl *F);

/// Why a block-stride loop (`for (i = threadIdx.x; i < n; i += blockDim.x)`,
/// \p IV its variable, \p Dim its dimension) of \p Kernel may not run
/// with a smaller block: the loop covers every element for any block, so
/// the rest must not care how many threads the block has. Refused: a loop
/// that is not a statement of the kernel's body, a dimension other than x,
/// blockDim.x read outside the loop's step, a body that depends on the
/// thread other than through \p IV or calls a barrier or warp collective,
/// and statements around that write memory not only on thread 0 or call a
/// warp collective. Empty when none holds; else \p Where is set.
std::string whyNotAnyBlockLoop(const clang::FunctionDecl *Kernel,
                               const clang::ForStmt *Loop,
                               const clang::VarDecl *IV, char Dim,
                               clang::SourceLocation &Where);

} // namespace vectorize
} // namespace astra

#endif
