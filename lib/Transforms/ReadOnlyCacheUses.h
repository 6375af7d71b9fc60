//===- ReadOnlyCacheUses.h - What a kernel does with a pointer -*- C++ -*-===//
//
// Private to lib/Transforms: read-only-cache's walk over the uses of one
// pointer parameter (ReadOnlyCacheUses.cpp): its loads, its stores, and the
// first use that makes it not read-only.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H
#define ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"
#include <string>
#include <vector>

namespace astra {

/// Everything a kernel does with one pointer parameter.
struct PointerUses {
  std::vector<const clang::Expr *> Loads;  ///< `p[i]` / `*p` read as values
  std::vector<const clang::Expr *> Stores; ///< stored through
  /// Uses of the parameter itself that the rewrite renames to the alias.
  std::vector<const clang::DeclRefExpr *> Renames;
  std::string Blocker; ///< first use that makes it not read-only
  /// The local pointers derived from it.
  llvm::SmallPtrSet<const clang::VarDecl *, 4> Copies;
};

/// Follows the uses of one pointer parameter through pointer arithmetic,
/// address-of and copies into local pointer variables.
class PointerTracker {
public:
  PointerTracker(RewriteContext &RC, const clang::FunctionDecl *Kernel,
                 const clang::ParmVarDecl *Param);
  PointerUses Uses;

private:
  void collect(const clang::FunctionDecl *Kernel, const clang::VarDecl *V);
  void followPointer(const clang::Expr *E, const clang::DeclRefExpr *Root);
  void access(const clang::Expr *A, const clang::DeclRefExpr *Root);
  void block(const clang::Stmt *At, const llvm::Twine &Why);
  /// `'<text>' (<what it is>)` for a message: which use is meant.
  std::string describeUse(const clang::Stmt *S);
  /// `'<text>'`, shortened to a line.
  std::string quote(const clang::Stmt *S);
  const clang::Stmt *parentOf(const clang::Stmt *S,
                              const clang::Decl **D = nullptr);

  RewriteContext &RC;
  clang::ASTContext &Ctx;
  bool ConstPointee;
  /// The local pointers derived from the parameter (PointerOrigin); the
  /// walk follows those it reaches through the forms it understands.
  llvm::SmallPtrSet<const clang::VarDecl *, 4> Derived;
  llvm::SmallPtrSet<const clang::VarDecl *, 4> Visited;
};

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H
