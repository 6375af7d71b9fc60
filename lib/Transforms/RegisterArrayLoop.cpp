//===- RegisterArrayLoop.cpp - Loops that index a local array -------------===//
#include "RegisterArrayLoop.h"
#include "Dataflow.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Whether \p E is a compile-time integer: its value in \p Value when the
/// template the rewrite sees already fixes it.
bool isCompileTimeInt(ASTContext &Ctx, const Expr *E,
                      std::optional<int64_t> &Value) {
  Value.reset();
  if (!E->isValueDependent()) {
    std::optional<APSInt> V = E->getIntegerConstantExpr(Ctx);
    if (!V || V->getSignificantBits() > 40)
      return false;
    Value = V->getSExtValue();
    return true;
  }
  // Dependent: constant in each instantiation when every name in it is.
  if (isa<CallExpr, CXXDependentScopeMemberExpr, MemberExpr>(E))
    return false;
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = R->getDecl();
    if (isa<NonTypeTemplateParmDecl, EnumConstantDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    std::optional<int64_t> Ignored;
    return V && V->getInit() &&
           (V->isConstexpr() || V->getType().isConstQualified()) &&
           isCompileTimeInt(Ctx, V->getInit(), Ignored);
  }
  if (isa<DependentScopeDeclRefExpr>(E))
    return true; // Traits<T>::value
  for (const Stmt *C : E->children()) {
    std::optional<int64_t> Ignored;
    const auto *CE = dyn_cast_or_null<Expr>(C);
    if (!CE || !isCompileTimeInt(Ctx, CE, Ignored))
      return false;
  }
  return true;
}

const VarDecl *refTo(const Expr *E) {
  const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}

/// The local variable whose array \p E subscripts (`v[j]`, `p.h[j]`,
/// `m[r][j]`), or null.
const VarDecl *localArrayOf(const ArraySubscriptExpr *E) {
  const Expr *Base = E->getBase()->IgnoreParenImpCasts();
  if (!Base->getType()->isArrayType())
    return nullptr; // a pointer: the data is elsewhere
  while (true) {
    if (const auto *M = dyn_cast<MemberExpr>(Base)) {
      if (M->isArrow())
        return nullptr;
      Base = M->getBase()->IgnoreParenImpCasts();
    } else if (const auto *S = dyn_cast<ArraySubscriptExpr>(Base)) {
      Base = S->getBase()->IgnoreParenImpCasts();
    } else {
      break;
    }
  }
  const VarDecl *V = refTo(Base);
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType() || V->hasAttr<CUDASharedAttr>())
    return nullptr;
  return V;
}

const VarDecl *findIndexedArray(const Stmt *S, const VarDecl *Var) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (const auto *E = dyn_cast<ArraySubscriptExpr>(S))
    if (const VarDecl *A = localArrayOf(E))
      if (!findRefs(E->getIdx(), Var).empty())
        return A;
  for (const Stmt *C : S->children())
    if (const VarDecl *A = findIndexedArray(C, Var))
      return A;
  return nullptr;
}

/// Iterations of `i = A; i Op B; i += S`, or none when the loop never ends
/// or runs the other way.
std::optional<int64_t> countTrips(BinaryOperatorKind Op, int64_t A, int64_t B,
                                  int64_t S) {
  if (S == 0)
    return std::nullopt;
  bool Up = Op == BO_LT || Op == BO_LE || (Op == BO_NE && S > 0);
  if (Up != (S > 0))
    return std::nullopt; // runs away from the bound
  int64_t Dist = Up ? B - A : A - B, Stride = S > 0 ? S : -S;
  switch (Op) {
  case BO_LT:
  case BO_GT:
    return Dist <= 0 ? 0 : (Dist + Stride - 1) / Stride;
  case BO_LE:
  case BO_GE:
    return Dist < 0 ? 0 : Dist / Stride + 1;
  case BO_NE:
    if (Dist < 0 || Dist % Stride)
      return std::nullopt;
    return Dist / Stride;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<RegisterArrayLoop> findRegisterArrayLoop(ASTContext &Ctx,
                                                       const Stmt *Loop) {
  const auto *F = dyn_cast<ForStmt>(Loop);
  const auto *DS = F ? dyn_cast_or_null<DeclStmt>(F->getInit()) : nullptr;
  if (!DS || !DS->isSingleDecl())
    return std::nullopt;
  RegisterArrayLoop R;
  R.Var = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!R.Var || !R.Var->getInit() || !R.Var->getType()->isIntegerType())
    return std::nullopt;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Cond || !Cond->isComparisonOp() || refTo(Cond->getLHS()) != R.Var)
    return std::nullopt;
  std::optional<int64_t> Start, Bound, Step;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (!U->isIncrementDecrementOp() || refTo(U->getSubExpr()) != R.Var)
      return std::nullopt;
    Step = U->isIncrementOp() ? 1 : -1;
  } else if (const auto *A = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    if ((A->getOpcode() != BO_AddAssign && A->getOpcode() != BO_SubAssign) ||
        refTo(A->getLHS()) != R.Var ||
        !isCompileTimeInt(Ctx, A->getRHS(), Step))
      return std::nullopt;
    if (Step && A->getOpcode() == BO_SubAssign)
      Step = -*Step;
  } else {
    return std::nullopt;
  }
  if (!isCompileTimeInt(Ctx, R.Var->getInit(), Start) ||
      !isCompileTimeInt(Ctx, Cond->getRHS(), Bound))
    return std::nullopt;
  for (const DeclRefExpr *Use : findRefs(F->getBody(), R.Var))
    if (classifyUse(Ctx, Use) != UseKind::Read)
      return std::nullopt; // the body moves the variable: no fixed trip count
  R.Array = findIndexedArray(F->getBody(), R.Var);
  if (!R.Array)
    return std::nullopt;
  if (Start && Bound && Step) {
    R.TripCount = countTrips(Cond->getOpcode(), *Start, *Bound, *Step);
    if (!R.TripCount)
      return std::nullopt;
  }
  return R;
}

UnrollFactor chooseUnrollFactor(const RegisterArrayLoop *RA,
                                std::optional<int64_t> Given, bool Manual) {
  constexpr int64_t MaxFull = 64; // as manual mode's largest factor
  UnrollFactor C;
  C.Factor = Given.value_or(4);
  if (!RA)
    return C;
  bool Known = RA->TripCount.has_value();
  std::string Array = "'" + RA->Array->getName().str() + "'";
  std::string Loop =
      (Known ? "the loop runs " + std::to_string(*RA->TripCount) + " times"
             : std::string("the loop runs a template-constant number of "
                           "times")) +
      " and indexes the local array " + Array + " with '" +
      RA->Var->getName().str() + "'";
  if (Given) {
    if (Known && *Given >= *RA->TripCount)
      return C;
    std::string Default = !Manual ? " (the default unrolls fully)"
                          : Known ? " (the default unrolls by the trip count)"
                                  : "";
    C.Risk = "factor " + std::to_string(*Given) + " may put " + Array +
             " in local memory: " + Loop +
             ", and an unroll that does not cover every iteration leaves "
             "the index a run-time value" +
             Default;
    return C;
  }
  if (Known && *RA->TripCount < 2)
    return C; // nothing to unroll
  std::string Registers =
      ", every index is a constant and " + Array + " can stay in registers";
  if (!Manual && (!Known || *RA->TripCount <= MaxFull)) {
    C.Factor = 0;
    C.Why = "full: " + Loop + "; unrolled fully" + Registers;
  } else if (Manual && Known && *RA->TripCount <= MaxFull) {
    C.Factor = *RA->TripCount;
    C.Why = "factor " + std::to_string(C.Factor) + ": " + Loop +
            "; unrolled by the trip count" + Registers;
  } else {
    std::string Cannot =
        Known ? "too many iterations to unroll fully (at most " +
                    std::to_string(MaxFull) + ")"
              : std::string("a trip count manual unrolling cannot use");
    C.Why = C.Risk = "factor " + std::to_string(C.Factor) + ": " + Loop + ", " +
                     Cannot +
                     "; a partial unroll leaves the index a run-time value, "
                     "which may put " +
                     Array + " in local memory";
  }
  return C;
}

} // namespace astra
