//===- ReadOnlyCacheWrites.h - What a kernel may write ----------*- C++ -*-===//
//
// Private to lib/Transforms: read-only-cache's scan for writes to memory that
// its pointer tracking does not see (ReadOnlyCacheWrites.cpp): stores through
// pointers that are not the kernel's parameters, atomics, and stores inside
// the device functions the kernel calls.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_READONLYCACHEWRITES_H
#define ASTRA_LIB_TRANSFORMS_READONLYCACHEWRITES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>

namespace astra {

/// A write the kernel may make to memory other than its tracked pointers,
/// its local arrays and shared memory.
struct UntrackedWrite {
  const clang::Stmt *At = nullptr; ///< null: none found
  std::string Why;                 ///< what it is, for a message
};

/// The first write of \p Kernel that may reach global memory through
/// something other than \p Tracked (the pointer parameters and their local
/// copies, whose own uses PointerTracker classifies): a store through
/// another pointer (a struct member, a global) or to a `__device__` array, an
/// atomic or other call that gets such a pointer, or a device function that
/// writes memory other than through the tracked pointers passed to it.
UntrackedWrite
findUntrackedWrite(clang::ASTContext &Ctx, const clang::FunctionDecl *Kernel,
                   const llvm::SmallPtrSet<const clang::VarDecl *, 8> &Tracked);

/// Where \p FD, or a function it calls, may write through its pointer
/// parameter \p Index (a `const T *` one too, after a const_cast or a
/// C-style cast); null when nowhere or when \p FD has no body here.
const clang::Stmt *findWriteThroughParam(clang::ASTContext &Ctx,
                                         const clang::FunctionDecl *FD,
                                         unsigned Index);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_READONLYCACHEWRITES_H
