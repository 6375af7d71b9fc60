//===- Dataflow.h - Uses and invariance of variables ------------*- C++ -*-===//
//
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_DATAFLOW_H
#define ASTRA_LIB_TRANSFORMS_DATAFLOW_H

#include "astra/Frontend/VarUses.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>
#include <vector>

namespace astra {

/// Every variable reference inside \p S, in source order.
std::vector<const clang::DeclRefExpr *> findAllRefs(const clang::Stmt *S);

/// Every reference to \p V inside \p S, in source order.
std::vector<const clang::DeclRefExpr *> findRefs(const clang::Stmt *S,
                                                 const clang::VarDecl *V);

/// Which local variables and parameters of a function may change while a
/// statement (a loop) runs: written inside it, or escaped anywhere in the
/// function (their address is taken, so any store may change them). Both
/// facts come from VarUses.
class ChangedVars {
public:
  ChangedVars(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn,
              const clang::Stmt *Region);
  bool mayChange(const clang::VarDecl *V) const {
    return InRegion.isModified(V) || InFunction.Escaped.count(V);
  }
  /// Whether \p V is declared inside the region (fresh each iteration).
  bool isDeclaredInside(const clang::VarDecl *V) const;

private:
  const clang::SourceManager &SM;
  clang::SourceRange Region;
  VarUses InRegion;   ///< writes inside the region
  VarUses InFunction; ///< escapes anywhere in the function
};

/// Whether \p E has the same value on every iteration of the region that
/// \p CV describes and can be evaluated before it without side effects:
/// literals, unchanged variables declared outside it, `threadIdx.x` and
/// friends, arithmetic and casts on those, and calls to pure math library
/// functions. Integer division is refused unless \p AllowIntDivision (it is
/// undefined for a zero divisor, so it must not be evaluated ahead of where
/// the program evaluates it). On failure \p Why names the first offending
/// part.
bool isInvariant(clang::ASTContext &Ctx, const clang::Expr *E,
                 const ChangedVars &CV, std::string &Why,
                 bool AllowIntDivision = false);

/// Whether \p Name is a side-effect-free CUDA math function (float or double
/// flavour, intrinsics included).
bool isPureMathFunction(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_DATAFLOW_H
