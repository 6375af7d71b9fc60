//===- VarUses.h - What a statement does to the variables it names -*- C++
//-*-===//
//
// The one write analysis of variables the kernel model and the rewrites
// share: which variables a statement assigns, increments or takes the
// address of, the values it assigns them, and which escape (a use that is
// neither a read nor a write, so that any store may change them).
// Flow-insensitive: a variable assigned anywhere in the statement counts as
// assigned everywhere in it.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_VARUSES_H
#define ASTRA_FRONTEND_VARUSES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace astra {

/// How an expression naming a variable is used.
enum class UseKind {
  Read,   ///< its value is loaded
  Write,  ///< assigned, compound-assigned, incremented or decremented
  Escape, ///< address taken, bound to a reference, or something not analysed
};
/// How the reference \p E is used, from its parents in \p Ctx.
UseKind classifyUse(clang::ASTContext &Ctx, const clang::Expr *E);

/// Whether \p V is a const, non-volatile scalar (`constexpr int VecW`,
/// `T *const p`): no well-formed program changes one (writing it is
/// ill-formed, through a pointer undefined), so taking its address or naming
/// it where no expression reads it (an array bound in a type: `T v[VecW]`)
/// neither modifies it nor lets it escape.
bool isConstScalar(const clang::VarDecl *V);

/// Values assigned to the variables of a statement (usually a function
/// body), flow-insensitively. Built-in and overloaded operators count alike.
struct VarUses {
  /// Right-hand sides assigned (`=`, `op=`) to each variable.
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::Expr *, 2>>
      Assigned;
  /// Variables assigned, incremented, or whose address is taken (a const
  /// scalar only in AddressTaken: isConstScalar).
  llvm::SmallPtrSet<const clang::VarDecl *, 16> Modified;
  llvm::SmallPtrSet<const clang::VarDecl *, 16> AddressTaken;
  /// Local variables with a use that classifyUse calls an escape: their
  /// address is taken, they are bound to a reference, passed on as an
  /// lvalue, captured by reference by a lambda (explicitly or by `[&]`: the
  /// lambda may change it wherever it is called), ... Filled by
  /// collectEscapes only (it needs the parent map).
  llvm::SmallPtrSet<const clang::VarDecl *, 16> Escaped;

  VarUses() = default;
  explicit VarUses(const clang::Stmt *S) { collect(S); }
  /// Adds the writes of \p S.
  void collect(const clang::Stmt *S);
  /// Adds the escapes of \p S.
  void collectEscapes(clang::ASTContext &Ctx, const clang::Stmt *S);
  bool isModified(const clang::VarDecl *V) const { return Modified.count(V); }
};

/// Follows a local variable that \p W never sees modified to its
/// initialiser, repeatedly; the result without parentheses, implicit nodes
/// and integer casts. Parameters and globals are not followed.
const clang::Expr *resolveValue(const clang::Expr *E, const VarUses &W);

} // namespace astra

#endif // ASTRA_FRONTEND_VARUSES_H
