//===- VectorizeLoadsLanes.h - Lane forms of a pack's values ----*- C++ -*-===//
//
// Private to lib/Transforms: the lane algebra that the widened form
// (VectorizeLoadsWiden*.cpp) and the pairs form (VectorizeLoadsPairs*.cpp)
// share. A value of a body run once per pack of W consecutive elements is
// the same for every element (Inv), the pack's first value plus the lane
// (Aff), or anything else (Var). The forms supply what a variable is; the
// rules for arithmetic, casts, calls and multiples of W live here.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSLANES_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSLANES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>
#include <vector>

namespace astra {
namespace vectorize {

/// How a value varies over the lanes of a pack.
enum class Lane { Inv = 0, Aff = 1, Var = 2 };

class LaneAlgebra {
public:
  explicit LaneAlgebra(clang::ASTContext &Ctx) : LaneCtx(Ctx) {}
  virtual ~LaneAlgebra();

  virtual Lane formOf(const clang::Expr *E) = 0;
  /// Whether \p E can be evaluated before the loop, the same for every
  /// thread that shares it (a guard term).
  virtual bool isGuardEvaluable(const clang::Expr *E) const = 0;
  /// Whether \p E is the element index itself (>= 0), directly or through
  /// copies.
  virtual bool isIndexCopy(const clang::Expr *E) const = 0;
  /// \p E as the guard writes it.
  virtual std::string guardText(const clang::Expr *E) = 0;
  /// Records that the guard must check `D % W == 0`.
  virtual void requireDivisible(const std::string &D) = 0;
  /// The value the body variable \p VD holds when it can be followed, else
  /// null; sets \p IsIndex for the element index.
  virtual const clang::Expr *valueOf(const clang::VarDecl *VD,
                                     bool &IsIndex) const = 0;
  /// \p E seen through what the form substitutes (callee parameters).
  virtual const clang::Expr *resolve(const clang::Expr *E) const { return E; }

  /// `L Op R` with an arithmetic (not assignment) operator Op.
  Lane formOfArithmetic(const clang::Expr *E, clang::BinaryOperatorKind Op,
                        const clang::Expr *L, const clang::Expr *R);
  /// A cast: an index stays Aff through casts to integers at least as wide.
  Lane formOfCast(const clang::CastExpr *C);
  /// Any other expression: shared when it has no effect (a library math
  /// call, a conversion) and all its parts are shared.
  Lane formOfOther(const clang::Expr *E);
  /// Whether \p E is a multiple of W at lane 0, given \p Conds: run-time
  /// values that must be multiples of W (the guard then checks them).
  bool isMultipleOfWidth(const clang::Expr *E, std::vector<std::string> &Conds,
                         unsigned Depth = 0);

protected:
  clang::ASTContext &LaneCtx;
};

} // namespace vectorize
} // namespace astra

#endif
