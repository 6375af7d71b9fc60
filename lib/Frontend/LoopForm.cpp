//===- LoopForm.cpp - The shape of a loop header --------------------------===//
#include "astra/Frontend/LoopForm.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/Expr.h"

using namespace clang;

namespace astra {

std::optional<int64_t> computeTripCount(int64_t Init, int64_t Bound,
                                        int64_t Step, llvm::StringRef Cmp) {
  if (Step == 0)
    return std::nullopt;
  // Work on a distance that grows with the step.
  __int128 Dist = Step > 0 ? (__int128)Bound - Init : (__int128)Init - Bound;
  __int128 S = Step > 0 ? Step : -(__int128)Step;
  bool Up = Step > 0;
  __int128 N;
  if ((Up && Cmp == "<") || (!Up && Cmp == ">"))
    N = Dist <= 0 ? 0 : (Dist + S - 1) / S;
  else if ((Up && Cmp == "<=") || (!Up && Cmp == ">="))
    N = Dist < 0 ? 0 : Dist / S + 1;
  else if (Cmp == "!=")
    N = (Dist >= 0 && Dist % S == 0) ? Dist / S : -1;
  else
    return std::nullopt;
  if (N < 0 || N > INT64_MAX)
    return std::nullopt;
  return (int64_t)N;
}

static bool compare(int64_t A, int64_t B, llvm::StringRef Cmp) {
  if (Cmp == "<")
    return A < B;
  if (Cmp == "<=")
    return A <= B;
  if (Cmp == ">")
    return A > B;
  if (Cmp == ">=")
    return A >= B;
  return Cmp == "!=" && A != B;
}

std::optional<int64_t> simulateTripCount(int64_t Init, int64_t Bound,
                                         BinaryOperatorKind Op, int64_t K,
                                         llvm::StringRef Cmp) {
  const int64_t Limit = 4096;
  int64_t V = Init;
  for (int64_t N = 0; N <= Limit; ++N) {
    if (!compare(V, Bound, Cmp))
      return N;
    if (Op == BO_Mul && std::abs(V) < (INT64_C(1) << 40) && std::abs(K) < 1024)
      V *= K;
    else if (Op == BO_Div && K != 0)
      V /= K;
    else if (Op == BO_Shr && K >= 0 && K < 63)
      V >>= K;
    else if (Op == BO_Shl && K >= 0 && K < 63 &&
             std::abs(V) < (INT64_C(1) << 40))
      V <<= K;
    else
      return std::nullopt;
  }
  return std::nullopt;
}

/// The comparison `b Op a` written as `a Op' b`.
static BinaryOperatorKind flipCompare(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT:
    return BO_GT;
  case BO_LE:
    return BO_GE;
  case BO_GT:
    return BO_LT;
  case BO_GE:
    return BO_LE;
  default:
    return Op; // == and != are symmetric
  }
}

static std::optional<int64_t> evaluateInt(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

namespace {
/// Fills a LoopForm piece by piece: init, condition, update, then the
/// derived facts.
class FormMatcher {
public:
  FormMatcher(ASTContext &Ctx, const VarUses *Writes)
      : Ctx(Ctx), Writes(Writes) {}

  void init(const Stmt *S);
  void condition(const Expr *Cond);
  /// An update of the induction variable; false when \p E is none.
  bool update(const Expr *E);
  /// The first statement of a while/do body that updates the variable.
  void bodyUpdate(const Stmt *Body);
  LoopForm finish();

private:
  /// Whether \p E names the induction variable; notes an explicit cast.
  bool isIV(const Expr *E) {
    if (!F.IV || getIndexVar(E) != F.IV)
      return false;
    if (!isa<DeclRefExpr>(E->IgnoreParenImpCasts()))
      F.BareIV = false;
    return true;
  }
  void noteOperator(const Expr *E) {
    if (!isa<BinaryOperator, UnaryOperator>(E->IgnoreParens()))
      F.BuiltinOps = false;
  }
  const Expr *resolve(const Expr *E) const {
    return Writes ? resolveValue(E, *Writes) : stripIntCasts(E);
  }
  std::optional<CudaBuiltin> builtin(const Expr *E) const {
    return E ? matchCudaBuiltin(resolve(E)) : std::nullopt;
  }
  /// \p E is `A.d * B.d` or `B.d * A.d` (built-ins of one dimension d).
  bool isProduct(const Expr *E, llvm::StringRef A, llvm::StringRef B,
                 char &Dim) const;
  bool isInt(const Expr *E, int64_t V) const {
    std::optional<int64_t> I = evaluateInt(Ctx, E);
    return I && *I == V;
  }
  void classify();
  void partition();

  ASTContext &Ctx;
  const VarUses *Writes;
  LoopForm F;
};
} // namespace

void FormMatcher::init(const Stmt *S) {
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(S)) {
    if (!DS->isSingleDecl())
      return;
    if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl())) {
      F.IV = VD;
      F.Init = VD->getInit();
      F.DeclaresIV = true;
    }
    return;
  }
  const auto *E = dyn_cast_or_null<Expr>(S);
  BinaryOperatorKind Op;
  const Expr *LHS, *RHS;
  if (E && matchBinary(E, Op, LHS, RHS) && Op == BO_Assign)
    if (const VarDecl *V = getIndexVar(LHS)) {
      F.IV = V;
      F.Init = RHS;
    }
}

void FormMatcher::condition(const Expr *Cond) {
  BinaryOperatorKind Op;
  const Expr *LHS, *RHS;
  if (!Cond || !matchBinary(Cond->IgnoreParenImpCasts(), Op, LHS, RHS) ||
      !BinaryOperator::isComparisonOp(Op) || Op == BO_Cmp)
    return;
  const VarDecl *Left = getIndexVar(LHS);
  const VarDecl *Right = getIndexVar(RHS);
  if (Left && (!F.IV || Left == F.IV)) {
    F.IV = Left;
    isIV(LHS);
    F.Bound = RHS;
    F.Cmp = Op;
  } else if (Right && (!F.IV || Right == F.IV)) {
    F.IV = Right;
    isIV(RHS);
    F.Bound = LHS;
    F.Cmp = flipCompare(Op);
    F.BoundOnLeft = true;
  } else {
    return;
  }
  noteOperator(Cond->IgnoreParenImpCasts());
}

bool FormMatcher::update(const Expr *E) {
  if (!E || !F.IV)
    return false;
  UnaryOperatorKind UOp;
  BinaryOperatorKind BOp;
  const Expr *Sub, *LHS, *RHS;
  if (matchUnary(E, UOp, Sub) && UnaryOperator::isIncrementDecrementOp(UOp) &&
      isIV(Sub)) {
    F.Update = LoopUpdate::Increment;
    F.StepNegated = UnaryOperator::isDecrementOp(UOp);
    F.ConstStep = F.StepNegated ? -1 : 1;
    noteOperator(E);
    return true;
  }
  if (!matchBinary(E, BOp, LHS, RHS) || getIndexVar(LHS) != F.IV)
    return false;
  if (BOp == BO_Assign) {
    // i = i + s, i = s + i, i = i - s, i = i * k, i = i >> k, ...
    BinaryOperatorKind Inner;
    const Expr *A, *B;
    if (!matchBinary(RHS->IgnoreParenImpCasts(), Inner, A, B))
      return false;
    if (getIndexVar(A) != F.IV) {
      if (Inner != BO_Add || getIndexVar(B) != F.IV)
        return false;
      std::swap(A, B);
    }
    if (Inner == BO_Add || Inner == BO_Sub) {
      F.Update = LoopUpdate::Assign;
      F.StepNegated = Inner == BO_Sub;
    } else if (Inner == BO_Mul || Inner == BO_Div || Inner == BO_Shl ||
               Inner == BO_Shr) {
      F.Update = LoopUpdate::Geometric;
      F.GeometricOp = Inner;
    } else {
      return false;
    }
    isIV(A);
    noteOperator(RHS->IgnoreParenImpCasts());
    RHS = B;
  } else if (BOp == BO_AddAssign || BOp == BO_SubAssign) {
    F.Update = LoopUpdate::AddAssign;
    F.StepNegated = BOp == BO_SubAssign;
  } else if (BOp == BO_MulAssign || BOp == BO_DivAssign ||
             BOp == BO_ShlAssign || BOp == BO_ShrAssign) {
    F.Update = LoopUpdate::Geometric;
    F.GeometricOp = BinaryOperator::getOpForCompoundAssignment(BOp);
  } else {
    return false;
  }
  isIV(LHS);
  noteOperator(E);
  F.Step = RHS;
  F.ConstStep = evaluateInt(Ctx, RHS);
  if (F.ConstStep && F.StepNegated && F.Update != LoopUpdate::Geometric)
    F.ConstStep = -*F.ConstStep;
  return true;
}

void FormMatcher::bodyUpdate(const Stmt *Body) {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS) {
    update(dyn_cast_or_null<Expr>(Body));
    return;
  }
  for (const Stmt *S : CS->body())
    if (update(dyn_cast<Expr>(S)))
      return;
}

bool FormMatcher::isProduct(const Expr *E, llvm::StringRef A, llvm::StringRef B,
                            char &Dim) const {
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!E || !matchBinary(E, Op, L, R) || Op != BO_Mul)
    return false;
  std::optional<CudaBuiltin> X = builtin(L), Y = builtin(R);
  if (!X || !Y || X->Dim != Y->Dim ||
      !((X->Var == A && Y->Var == B) || (X->Var == B && Y->Var == A)))
    return false;
  Dim = X->Dim;
  return true;
}

void FormMatcher::classify() {
  if (!F.Step || F.Update == LoopUpdate::Geometric)
    return;
  const Expr *S = resolve(F.Step);
  std::optional<CudaBuiltin> B = matchCudaBuiltin(S);
  char Dim;
  if (B && B->Var == "blockDim") {
    F.Class = LoopClass::BlockStride;
    F.Dim = B->Dim;
  } else if (isProduct(S, "blockDim", "gridDim", Dim)) {
    F.Class = LoopClass::GridStride;
    F.Dim = Dim;
  }
}

void FormMatcher::partition() {
  if (!F.Init || !F.stepsUp())
    return;
  const Expr *Start = resolve(F.Init);
  const Expr *Step = F.Step ? resolve(F.Step) : nullptr;
  if (isInt(Start, 0) && (!Step || isInt(Step, 1))) {
    F.Partition = LoopPartition::Sequential;
    return;
  }
  std::optional<CudaBuiltin> T = matchCudaBuiltin(Start);
  if (T && T->Var == "threadIdx" && F.Class == LoopClass::BlockStride &&
      F.Dim == T->Dim) {
    F.Partition = LoopPartition::Block;
    return;
  }
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (F.Class != LoopClass::GridStride || !matchBinary(Start, Op, L, R) ||
      Op != BO_Add)
    return;
  for (auto [Tid, Base] : {std::pair(L, R), std::pair(R, L)}) {
    std::optional<CudaBuiltin> Idx = builtin(Tid);
    char Dim;
    if (Idx && Idx->Var == "threadIdx" && Idx->Dim == F.Dim &&
        isProduct(resolve(Base), "blockIdx", "blockDim", Dim) && Dim == F.Dim) {
      F.Partition = LoopPartition::Grid;
      return;
    }
  }
}

LoopForm FormMatcher::finish() {
  classify();
  partition();
  std::optional<int64_t> I = evaluateInt(Ctx, F.Init);
  std::optional<int64_t> B = evaluateInt(Ctx, F.Bound);
  if (!I || !B || !F.ConstStep || F.Cmp == BO_Comma)
    return F;
  llvm::StringRef Cmp = BinaryOperator::getOpcodeStr(F.Cmp);
  if (F.Update == LoopUpdate::Geometric)
    F.TripCount = simulateTripCount(*I, *B, F.GeometricOp, *F.ConstStep, Cmp);
  else if (F.Update != LoopUpdate::None)
    F.TripCount = computeTripCount(*I, *B, *F.ConstStep, Cmp);
  return F;
}

LoopForm analyzeLoopForm(ASTContext &Ctx, const Stmt *Loop,
                         const VarUses *Writes) {
  FormMatcher M(Ctx, Writes);
  if (const auto *For = dyn_cast<ForStmt>(Loop)) {
    M.init(For->getInit());
    M.condition(For->getCond());
    M.update(For->getInc());
  } else if (const auto *W = dyn_cast<WhileStmt>(Loop)) {
    M.condition(W->getCond());
    M.bodyUpdate(W->getBody());
  } else if (const auto *Do = dyn_cast<DoStmt>(Loop)) {
    M.condition(Do->getCond());
    M.bodyUpdate(Do->getBody());
  }
  return M.finish();
}

} // namespace astra
