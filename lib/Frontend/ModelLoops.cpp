//===- ModelLoops.cpp - Describe loops: induction variable, bounds, step --===//
#include "ModelBody.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

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

static std::optional<int64_t> evaluateInt(const ModelSource &Src,
                                          const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Src.getASTContext()))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

/// `iv op= k` for `iv = iv op k`.
static BinaryOperatorKind compoundOf(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_Add:
    return BO_AddAssign;
  case BO_Sub:
    return BO_SubAssign;
  case BO_Mul:
    return BO_MulAssign;
  case BO_Div:
    return BO_DivAssign;
  case BO_Shl:
    return BO_ShlAssign;
  case BO_Shr:
    return BO_ShrAssign;
  default:
    return BO_Comma;
  }
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
    else if (Op == BO_Shl && K >= 0 && K < 63 && std::abs(V) < (INT64_C(1) << 40))
      V <<= K;
    else
      return std::nullopt;
  }
  return std::nullopt;
}

static llvm::StringRef flipCompare(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT:
    return ">";
  case BO_LE:
    return ">=";
  case BO_GT:
    return "<";
  case BO_GE:
    return "<=";
  case BO_NE:
    return "!=";
  default:
    return "";
  }
}

namespace {
/// Builds a LoopInfo piece by piece.
class LoopDescriber {
public:
  LoopDescriber(const ModelSource &Src, LoopInfo &L, const VarDecl *&IV)
      : Src(Src), L(L), IV(IV) {}

  void init(const Stmt *S) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(S)) {
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl())) {
        IV = VD;
        InitExpr = VD->getInit();
      }
    } else if (const auto *E = dyn_cast_or_null<Expr>(S)) {
      BinaryOperatorKind Op;
      const Expr *LHS, *RHS;
      if (matchBinary(E, Op, LHS, RHS) && Op == BO_Assign)
        if (const VarDecl *V = getReferencedVar(LHS)) {
          IV = V;
          InitExpr = RHS;
        }
    }
    if (InitExpr)
      L.Init = Src.getText(InitExpr);
  }

  /// The variable a condition compares, without an induction variable yet.
  void condition(const Expr *Cond) {
    if (!Cond)
      return;
    L.Condition = Src.getText(Cond);
    BinaryOperatorKind Op;
    const Expr *LHS, *RHS;
    if (!matchBinary(Cond, Op, LHS, RHS) || !BinaryOperator::isComparisonOp(Op))
      return;
    const VarDecl *Left = getReferencedVar(LHS);
    const VarDecl *Right = getReferencedVar(RHS);
    if (Left && (!IV || Left == IV)) {
      IV = Left;
      BoundExpr = RHS;
      L.Compare = BinaryOperator::getOpcodeStr(Op).str();
    } else if (Right && (!IV || Right == IV)) {
      IV = Right;
      BoundExpr = LHS;
      L.Compare = flipCompare(Op).str();
    }
    if (BoundExpr)
      L.Bound = Src.getText(BoundExpr);
  }

  /// An increment of the induction variable; false when \p E is none.
  bool increment(const Expr *E) {
    if (!E || !IV)
      return false;
    UnaryOperatorKind UOp;
    BinaryOperatorKind BOp;
    const Expr *Sub, *LHS, *RHS;
    if (matchUnary(E, UOp, Sub) && getReferencedVar(Sub) == IV &&
        UnaryOperator::isIncrementDecrementOp(UOp)) {
      ConstStep = UnaryOperator::isIncrementOp(UOp) ? 1 : -1;
      L.Step = UnaryOperator::isIncrementOp(UOp) ? "1" : "-1";
      return true;
    }
    if (!matchBinary(E, BOp, LHS, RHS) || getReferencedVar(LHS) != IV)
      return false;
    if (BOp == BO_Assign) {
      // iv = iv + step, iv = iv * 2, iv = iv >> 1, ...
      BinaryOperatorKind Inner;
      const Expr *A, *B;
      if (!matchBinary(RHS, Inner, A, B) || getReferencedVar(A) != IV) {
        if (!matchBinary(RHS, Inner, A, B) || Inner != BO_Add ||
            getReferencedVar(B) != IV)
          return false;
        std::swap(A, B);
      }
      RHS = B;
      BOp = compoundOf(Inner);
    }
    if (BOp != BO_AddAssign && BOp != BO_SubAssign && BOp != BO_MulAssign &&
        BOp != BO_DivAssign && BOp != BO_ShlAssign && BOp != BO_ShrAssign)
      return false;
    StepExpr = RHS;
    std::string Text = Src.getText(RHS);
    bool Simple = llvm::all_of(Text, [](char C) {
      return isalnum((unsigned char)C) || C == '_' || C == '.';
    });
    std::string Operand = Simple ? Text : "(" + Text + ")";
    std::optional<int64_t> V = evaluateInt(Src, RHS);
    switch (BOp) {
    case BO_AddAssign:
      L.Step = Text;
      ConstStep = V;
      break;
    case BO_SubAssign:
      L.Step = "-" + Operand;
      if (V)
        ConstStep = -*V;
      break;
    default:
      // A geometric update: the step says how, e.g. "/2", ">>1", "*2".
      StepExpr = nullptr;
      L.Step = BinaryOperator::getOpcodeStr(
                   BinaryOperator::getOpForCompoundAssignment(BOp))
                   .str() +
               Operand;
      GeometricOp = BinaryOperator::getOpForCompoundAssignment(BOp);
      ConstStep = V;
      break;
    }
    return true;
  }

  void finish() {
    if (IV)
      L.InductionVar = IV->getName().str();
    L.Class = classify(StepExpr);
    std::optional<int64_t> I = evaluateInt(Src, InitExpr);
    std::optional<int64_t> B = evaluateInt(Src, BoundExpr);
    if (!I || !B || !ConstStep)
      return;
    if (GeometricOp)
      L.TripCount = simulateTripCount(*I, *B, *GeometricOp, *ConstStep,
                                      L.Compare);
    else
      L.TripCount = computeTripCount(*I, *B, *ConstStep, L.Compare);
  }

private:
  /// Follows a local variable to its initialiser (`int stride = ...;`).
  static const Expr *resolve(const Expr *E) {
    for (int Depth = 0; E && Depth < 4; ++Depth) {
      const VarDecl *V = getReferencedVar(E);
      if (!V || !V->isLocalVarDecl() || !V->getInit())
        return stripCasts(E);
      E = V->getInit();
    }
    return stripCasts(E);
  }

  static LoopClass classify(const Expr *Step) {
    Step = resolve(Step);
    if (!Step)
      return LoopClass::Plain;
    // Any one dimension: a threadIdx.y loop steps by blockDim.y, as
    // vectorize-loads sees it.
    std::optional<CudaBuiltin> S = matchCudaBuiltin(Step);
    if (S && S->Var == "blockDim")
      return LoopClass::BlockStride;
    BinaryOperatorKind Op;
    const Expr *A, *B;
    if (!matchBinary(Step, Op, A, B) || Op != BO_Mul)
      return LoopClass::Plain;
    std::optional<CudaBuiltin> X = matchCudaBuiltin(resolve(A));
    std::optional<CudaBuiltin> Y = matchCudaBuiltin(resolve(B));
    if (X && Y && X->Dim == Y->Dim &&
        ((X->Var == "blockDim" && Y->Var == "gridDim") ||
         (X->Var == "gridDim" && Y->Var == "blockDim")))
      return LoopClass::GridStride;
    return LoopClass::Plain;
  }

  const ModelSource &Src;
  LoopInfo &L;
  const VarDecl *&IV;
  const Expr *InitExpr = nullptr;
  const Expr *BoundExpr = nullptr;
  const Expr *StepExpr = nullptr;
  std::optional<int64_t> ConstStep;
  /// For `iv *= k`, `iv >>= k`, ...: the operator (BO_Mul, BO_Shr, ...).
  std::optional<BinaryOperatorKind> GeometricOp;
};
} // namespace

/// The last statements of a while/do body that increment \p IV.
static void findBodyIncrement(LoopDescriber &D, const Stmt *Body) {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS) {
    D.increment(dyn_cast_or_null<Expr>(Body));
    return;
  }
  for (const Stmt *S : CS->body())
    if (D.increment(dyn_cast<Expr>(S)))
      return;
}

LoopInfo describeLoop(const ModelSource &Src, const Stmt *S,
                      const VarDecl *&IV) {
  LoopInfo L;
  IV = nullptr;
  L.Loc = Src.getLoc(S->getBeginLoc());
  L.FromMacro = Src.isFromMacro(S->getBeginLoc());
  LoopDescriber D(Src, L, IV);
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    L.Kind = LoopKind::For;
    D.init(F->getInit());
    D.condition(F->getCond());
    D.increment(F->getInc());
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    L.Kind = LoopKind::While;
    D.condition(W->getCond());
    findBodyIncrement(D, W->getBody());
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    L.Kind = LoopKind::Do;
    D.condition(Do->getCond());
    findBodyIncrement(D, Do->getBody());
  } else if (const auto *R = dyn_cast<CXXForRangeStmt>(S)) {
    L.Kind = LoopKind::RangeFor;
    IV = R->getLoopVariable();
    L.Bound = Src.getText(R->getRangeInit());
  }
  D.finish();
  return L;
}

} // namespace astra
