//===- VectorizeLoadsUtil.h - AST helpers of vectorize-loads ----*- C++ -*-===//
// Private to lib/Transforms: small facts about expressions and variables of a
// kernel that the vectorize-loads analysis needs.
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSUTIL_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSUTIL_H

#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

namespace astra {
namespace vectorize {

/// Whether \p E is `threadIdx.d` (Builtin "threadIdx"), etc.; sets \p Dim.
bool matchBuiltin(const clang::Expr *E, llvm::StringRef Builtin, char &Dim);
/// Whether \p E mentions \p VD.
bool mentions(const clang::Stmt *S, const clang::VarDecl *VD);
/// The variables \p S mentions.
void collectVars(const clang::Stmt *S,
                 llvm::SmallPtrSetImpl<const clang::VarDecl *> &Out);

/// Which thread/block indices a value depends on.
enum DepBits : unsigned {
  DepTid = 1,      ///< threadIdx.<dim> (shifted by the dimension)
  DepBid = 8,      ///< blockIdx.<dim>
  DepUnknown = 64, ///< a variable whose address escapes
};
inline unsigned depBit(unsigned Base, char Dim) { return Base << (Dim - 'x'); }

class DependenceInfo {
public:
  explicit DependenceInfo(const VarUses &W) : Writes(W) {}
  /// The DepBits of \p E, following local variables to their values.
  unsigned get(const clang::Expr *E);

private:
  unsigned getVar(const clang::VarDecl *VD);
  const VarUses &Writes;
  llvm::DenseMap<const clang::VarDecl *, unsigned> Cache;
};

/// Whether a call of \p Name is a barrier or a warp collective: it must
/// see every thread's original iterations.
bool isBarrierOrCollective(llvm::StringRef Name);

/// Every identifier written in the source of \p K (names a rewrite must not
/// reuse for its locals).
llvm::StringSet<> collectIdentifiers(clang::ASTContext &Ctx,
                                     const clang::FunctionDecl *K);

/// How the expression \p Par (the parent of \p A, parentheses skipped)
/// uses \p A: assigned (`A = v`, also through a class's `operator=`, as
/// `__half` and `__nv_bfloat16` are), updated (`A += v`, `++A`), or neither.
enum class WriteKind { None, Assign, Update };
WriteKind writeOf(const clang::Stmt *Par, const clang::Expr *A);

} // namespace vectorize
} // namespace astra

#endif
