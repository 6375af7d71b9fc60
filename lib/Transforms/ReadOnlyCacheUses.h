//===- ReadOnlyCacheUses.h - What a kernel does with a pointer -*- C++ -*-===//
//
// Private to lib/Transforms: read-only-cache's walk over the uses of one
// pointer parameter (ReadOnlyCacheUses.cpp): its loads, its stores, and the
// first use that makes it not read-only.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H
#define ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H

#include "ReadOnlyCacheWrites.h"
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

/// `assume-noalias`: the caller promises that no pointer argument overlaps a
/// buffer the kernel writes (read-only-cache, cache-hints; the agent passes 1
/// only with the spec's noalias).
ParamDesc getNoAliasParam();

/// The uses of every pointer parameter of a kernel, and what it writes:
/// whether a load through one parameter may meet a write of the kernel.
/// read-only-cache (`__ldg`) and cache-hints (`__ldcs`, an asm the compiler
/// may merge or move like a load of memory nothing writes) ask the same.
struct KernelPointerWrites {
  KernelPointerWrites(RewriteContext &RC, const clang::FunctionDecl *Kernel);
  /// Parameter index and its uses, for every named pointer parameter.
  std::vector<std::pair<unsigned, PointerUses>> Params;
  /// The parameters the kernel writes or uses in a way that may write.
  std::vector<std::string> Written;
  UntrackedWrite Untracked;
  const PointerUses *getUses(const clang::ParmVarDecl *P) const;
  /// Empty when loads through \p P (only read, PointerUses::Blocker empty)
  /// meet no write of the kernel: it is `__restrict__`, \p NoAlias (the
  /// caller's promise), or nothing else is written; else why they may.
  std::string whyMayAlias(RewriteContext &RC, const clang::ParmVarDecl *P,
                          bool NoAlias) const;
  /// Whether the verdict of whyMayAlias rests on \p NoAlias alone.
  bool needsNoAlias(const clang::ParmVarDecl *P) const;

private:
  const clang::FunctionDecl *Kernel;
};

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_READONLYCACHEUSES_H
