//===- CoarsenAffine.cpp - Store indices that rise by one per thread ------===//
//
// See CoarsenAffine.h.
//
//===----------------------------------------------------------------------===//
#include "CoarsenAffine.h"
#include "astra/Frontend/ExprMatch.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

constexpr int Unknown = -1;

class SlopeOf {
public:
  SlopeOf(ASTContext &Ctx, const AffineScope &Scope, std::string &Why)
      : Ctx(Ctx), Scope(Scope), Why(Why) {}

  /// 0 (the same in every thread), 1 (U + threadIdx.x) or Unknown.
  int get(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 32)
      return fail("the index is too deep", E);
    int S = compute(E->IgnoreParens(), Depth);
    if (S == 1 && !isWideInteger(E->getType()))
      return fail("a per-thread part of the index has a type narrower than "
                  "32 bits or not an integer (a wrap could raise it)",
                  E);
    return S;
  }

private:
  ASTContext &Ctx;
  const AffineScope &Scope;
  std::string &Why;

  int fail(const Twine &W, const Expr *E) {
    if (Why.empty()) {
      Why = W.str();
      (void)E;
    }
    return Unknown;
  }

  bool isWideInteger(QualType T) const {
    if (T.isNull() || T->isDependentType() || !T->isIntegerType() ||
        T->isBooleanType())
      return false;
    return Ctx.getTypeSize(T) >= 32;
  }

  /// Both operands the same in every thread.
  int uniformOnly(ArrayRef<const Expr *> Ops, unsigned Depth) {
    for (const Expr *O : Ops) {
      int S = get(O, Depth + 1);
      if (S == Unknown)
        return Unknown;
      if (S != 0)
        return fail("a per-thread part of the index goes through an "
                    "operation other than + or - of a uniform value",
                    O);
    }
    return 0;
  }

  int compute(const Expr *E, unsigned Depth) {
    // Casts first: each is checked (a built-in access is reached through
    // them).
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      switch (CE->getCastKind()) {
      case CK_LValueToRValue:
      case CK_NoOp:
      case CK_IntegralCast:
        return get(CE->getSubExpr(), Depth + 1);
      default:
        return uniformOnly({CE->getSubExpr()}, Depth);
      }
    }
    if (std::string B = getBuiltinVarName(E); !B.empty()) {
      if (B == "threadIdx.x")
        return 1;
      if (StringRef(B).starts_with("blockIdx") ||
          StringRef(B).starts_with("gridDim"))
        return 0;
      return fail("the index reads " + B, E);
    }
    if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
        isa<UnaryExprOrTypeTraitExpr>(E))
      return 0;
    if (const auto *R = dyn_cast<DeclRefExpr>(E))
      return ofVar(R, Depth);
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      switch (B->getOpcode()) {
      case BO_Add: {
        int L = get(B->getLHS(), Depth + 1), Rt = get(B->getRHS(), Depth + 1);
        if (L == Unknown || Rt == Unknown)
          return Unknown;
        if (L + Rt > 1)
          return fail("the index adds threadIdx.x twice", E);
        return L + Rt;
      }
      case BO_Sub: {
        int L = get(B->getLHS(), Depth + 1), Rt = get(B->getRHS(), Depth + 1);
        if (L == Unknown || Rt == Unknown)
          return Unknown;
        if (Rt != 0)
          return fail("the index subtracts a per-thread value (it falls "
                      "with threadIdx.x)",
                      E);
        return L;
      }
      case BO_Mul:
      case BO_Div:
      case BO_Rem:
      case BO_Shl:
      case BO_Shr:
      case BO_And:
      case BO_Or:
      case BO_Xor:
        return uniformOnly({B->getLHS(), B->getRHS()}, Depth);
      default:
        return fail("the index holds an operator other than arithmetic", E);
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      switch (U->getOpcode()) {
      case UO_Plus:
        return get(U->getSubExpr(), Depth + 1);
      case UO_Minus:
      case UO_Not:
        return uniformOnly({U->getSubExpr()}, Depth);
      default:
        return fail("the index reads memory or changes a value", E);
      }
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      return uniformOnly({C->getCond(), C->getTrueExpr(), C->getFalseExpr()},
                         Depth);
    return fail("the index holds a load, call or other expression that is "
                "evaluated again after the loop",
                E);
  }

  int ofVar(const DeclRefExpr *R, unsigned Depth) {
    const auto *V = dyn_cast<VarDecl>(R->getDecl());
    if (!V)
      return fail("the index names something other than a variable", R);
    std::string Name = "'" + V->getNameAsString() + "'";
    if (Scope.CV.mayChange(V))
      return fail("the index reads " + Name + ", which the kernel changes", R);
    if (V->getType()->isReferenceType())
      return fail("the index reads the reference " + Name +
                      " (a load, evaluated again after the loop)",
                  R);
    if (isa<ParmVarDecl>(V) || Scope.Uniform.count(V))
      return 0;
    if (!Scope.PerThread.count(V))
      return fail("the index reads " + Name +
                      ", declared neither before the per-thread work nor at "
                      "its top level",
                  R);
    if (!V->getInit() || V->getInitStyle() != VarDecl::CInit)
      return fail("the index reads " + Name + ", which has no initialiser", R);
    int S = get(V->getInit(), Depth + 1);
    if (S == 1 && !isWideInteger(V->getType()))
      return fail("the index reads " + Name +
                      ", narrower than 32 bits or not an integer",
                  R);
    return S;
  }
};

} // namespace

bool risesByOnePerThread(ASTContext &Ctx, const Expr *Index,
                         const AffineScope &Scope, std::string &Why) {
  SlopeOf S(Ctx, Scope, Why);
  int Slope = S.get(Index);
  if (Slope == 0)
    Why = "the index does not depend on threadIdx.x (every copy stores to "
          "one element)";
  return Slope == 1;
}

} // namespace astra
