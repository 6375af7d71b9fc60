//===- VectorizeLoadsLanes.cpp - Lane forms of a pack's values ------------===//
//
// `i / d` is Inv and `i % d` Aff only for the index itself (>= 0, a multiple
// of W at lane 0) and d a multiple of W: no multiple of d then lies inside a
// pack. A constant d counts when it is a multiple of every width (16).
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsLanes.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

LaneAlgebra::~LaneAlgebra() = default;

static bool isIntegral(const Expr *E) {
  return E->getType()->isIntegerType() && !E->isTypeDependent();
}

/// Whether the constant \p E (if it is one) is a non-zero multiple of 16.
static std::optional<bool> isWideConstant(ASTContext &Ctx, const Expr *E) {
  Expr::EvalResult C;
  if (E->isValueDependent() || !E->EvaluateAsInt(C, Ctx))
    return std::nullopt;
  return C.Val.getInt() != 0 && C.Val.getInt().srem(16) == 0;
}

Lane LaneAlgebra::formOfArithmetic(const Expr *E, BinaryOperatorKind Op,
                                   const Expr *LHS, const Expr *RHS) {
  Lane L = formOf(LHS), R = formOf(RHS);
  if (L == Lane::Inv && R == Lane::Inv)
    return Lane::Inv;
  if (!isIntegral(E) || L == Lane::Var || R == Lane::Var)
    return Lane::Var;
  if (Op == BO_Add && (L == Lane::Inv || R == Lane::Inv))
    return Lane::Aff;
  if (Op == BO_Sub && R == Lane::Inv)
    return Lane::Aff;
  if ((Op == BO_Div || Op == BO_Rem) && R == Lane::Inv && isIndexCopy(LHS) &&
      isGuardEvaluable(RHS)) {
    if (std::optional<bool> Wide = isWideConstant(LaneCtx, RHS)) {
      if (!*Wide)
        return Lane::Var;
    } else {
      requireDivisible(guardText(stripIntCasts(RHS)));
    }
    return Op == BO_Div ? Lane::Inv : Lane::Aff;
  }
  return Lane::Var;
}

Lane LaneAlgebra::formOfCast(const CastExpr *C) {
  Lane L = formOf(C->getSubExpr());
  if (L != Lane::Aff)
    return L;
  const Expr *Sub = C->getSubExpr();
  // Same width: `v + lane` modulo 2^n stays so. Wider: only from a signed
  // value (whose overflow the original may not have); an unsigned one that
  // wraps within the pack (`i - 1` at i == 0) would not be `v + lane` once
  // zero-extended.
  uint64_t To = LaneCtx.getTypeSize(C->getType()),
           From = LaneCtx.getTypeSize(Sub->getType());
  if (isIntegral(C) && isIntegral(Sub) &&
      (To == From ||
       (To > From && Sub->getType()->isSignedIntegerOrEnumerationType())))
    return Lane::Aff;
  return Lane::Var;
}

/// A library function whose one call may stand for every lane's: it
/// returns a value, takes no pointer or non-const reference (printf,
/// atomics and memcpy write or print once per call) and reads no clock.
static bool isPureLibraryCall(const FunctionDecl *FD) {
  std::string Name = FD->getNameAsString();
  StringRef N = Name;
  if (!isLibraryFunction(FD) || FD->getReturnType()->isVoidType() ||
      N.starts_with("atomic") || N.contains("clock") || N.contains("timer") ||
      N.contains("rand"))
    return false;
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if (T->isPointerType() ||
        (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()))
      return false;
  }
  return !FD->isVariadic();
}

Lane LaneAlgebra::formOfOther(const Expr *E) {
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    bool Pure = isa<CXXMemberCallExpr>(C)
                    ? isa_and_nonnull<CXXConversionDecl>(FD)
                    : FD && isPureLibraryCall(FD);
    if (!Pure)
      return Lane::Var;
  }
  auto Shared = [&](const Expr *X) {
    return formOf(X) == Lane::Inv ? Lane::Inv : Lane::Var;
  };
  Lane L = Lane::Inv;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      L = std::max(L, Shared(CE));
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    L = std::max(L, Shared(MC->getImplicitObjectArgument()));
  return L;
}

bool LaneAlgebra::isMultipleOfWidth(const Expr *E,
                                    std::vector<std::string> &Conds,
                                    unsigned Depth) {
  E = stripIntCasts(resolve(E));
  if (Depth > 6 || !E)
    return false;
  // A failed alternative leaves no conditions behind: `a * b + c` with c
  // not a multiple of W must not make the guard ask for b.
  size_t Before = Conds.size();
  auto Undo = [&](bool OK) {
    if (!OK)
      Conds.resize(Before);
    return OK;
  };
  if (const VarDecl *VD = getIndexVar(E)) {
    bool IsIndex = false;
    const Expr *V = valueOf(VD, IsIndex);
    return IsIndex || (V && isMultipleOfWidth(V, Conds, Depth + 1));
  }
  // Only 0 among the constants: W is known once every group is.
  Expr::EvalResult Val;
  if (!E->isValueDependent() && E->EvaluateAsInt(Val, LaneCtx))
    return Val.Val.getInt() == 0;
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!matchBinary(E, Op, L, R))
    return false;
  auto Divisible = [&](const Expr *F) {
    if (std::optional<bool> Wide = isWideConstant(LaneCtx, F))
      return *Wide;
    if (!isGuardEvaluable(F))
      return false;
    Conds.push_back(guardText(stripIntCasts(F)));
    return true;
  };
  switch (Op) {
  case BO_Mul:
    return Undo(isMultipleOfWidth(L, Conds, Depth + 1)) ||
           Undo(isMultipleOfWidth(R, Conds, Depth + 1)) || Divisible(R) ||
           Divisible(L);
  case BO_Rem:
    return Undo(isMultipleOfWidth(L, Conds, Depth + 1) && Divisible(R));
  case BO_Add:
  case BO_Sub:
    return Undo(isMultipleOfWidth(L, Conds, Depth + 1) &&
                isMultipleOfWidth(R, Conds, Depth + 1));
  default:
    return false;
  }
}

} // namespace vectorize
} // namespace astra
