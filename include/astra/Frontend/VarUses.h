//===- VarUses.h - What a statement does to the variables it names -*- C++
//-*-===//
//
// The one write analysis of variables the kernel model and the rewrites
// share: which variables a statement assigns, increments or takes the
// address of, and the values it assigns them. Flow-insensitive: a variable
// assigned anywhere in the statement counts as assigned everywhere in it.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_VARUSES_H
#define ASTRA_FRONTEND_VARUSES_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace astra {

/// Values assigned to the variables of a statement (usually a function
/// body), flow-insensitively. Built-in and overloaded operators count alike.
struct VarUses {
  /// Right-hand sides assigned (`=`, `op=`) to each variable.
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::Expr *, 2>>
      Assigned;
  /// Variables assigned, incremented, or whose address is taken.
  llvm::SmallPtrSet<const clang::VarDecl *, 16> Modified;
  llvm::SmallPtrSet<const clang::VarDecl *, 16> AddressTaken;

  VarUses() = default;
  explicit VarUses(const clang::Stmt *S) { collect(S); }
  /// Adds the writes of \p S.
  void collect(const clang::Stmt *S);
  bool isModified(const clang::VarDecl *V) const { return Modified.count(V); }
};

/// Follows a local variable that \p W never sees modified to its
/// initialiser, repeatedly; the result without parentheses, implicit nodes
/// and integer casts. Parameters and globals are not followed.
const clang::Expr *resolveValue(const clang::Expr *E, const VarUses &W);

} // namespace astra

#endif // ASTRA_FRONTEND_VARUSES_H
