//===- WarpReduceMatch.cpp - Shared-memory tree reductions ----------------===//
#include "WarpReduceMatch.h"
#include "Dataflow.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {

const char *getTreeOpName(TreeOp Op) {
  switch (Op) {
  case TreeOp::Sum:
    return "sum";
  case TreeOp::Max:
    return "max";
  case TreeOp::Min:
    return "min";
  }
  llvm_unreachable("unknown tree op");
}

namespace {

bool isBuiltin(const Expr *E, StringRef Name) {
  return getBuiltinVarName(E) == Name;
}

bool isIntLiteral(const Expr *E, uint64_t V) {
  const auto *L = dyn_cast<IntegerLiteral>(stripCasts(E));
  return L && L->getValue() == V;
}

bool isCallTo(const Stmt *S, StringRef Name) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return C && getCalleeName(C) == Name && C->getNumArgs() == 0;
}

/// The statement holding \p S in its parent CompoundStmt, and that parent.
std::pair<const Stmt *, const CompoundStmt *> getInCompound(ASTContext &Ctx,
                                                            const Stmt *S) {
  DynTypedNodeList Ps = Ctx.getParents(*S);
  if (Ps.size() == 1)
    if (const auto *CS = Ps[0].get<CompoundStmt>())
      return {S, CS};
  return {S, nullptr};
}

/// Whether \p E converts something to an integer of fewer than 16 bits (or
/// bool) anywhere: the matchers look through casts, and such a cast changes
/// a stride or an index (from a review: `(unsigned char)s > 0` never holds
/// at 256, `v[(unsigned char)(tid + s)]` wraps).
bool hasNarrowCast(ASTContext &Ctx, const Expr *E) {
  if (!E)
    return false;
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    QualType T = C->getType();
    if (T->isIntegerType() && !T->isDependentType() &&
        (T->isBooleanType() || Ctx.getTypeSize(T) < 16))
      return true;
  }
  for (const Stmt *Ch : E->children())
    if (hasNarrowCast(Ctx, dyn_cast_or_null<Expr>(Ch)))
      return true;
  return false;
}

/// `a[tid]` (\p Plus false) or `a[tid + s]` / `a[s + tid]` (\p Plus true).
bool isElem(const Expr *E, const VarDecl *&Array, const VarDecl *S,
            const TidMatcher &IsTid, bool Plus) {
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(stripCasts(E));
  if (!Sub)
    return false;
  const VarDecl *A = getReferencedVar(Sub->getBase());
  if (!A || (Array && A != Array))
    return false;
  if (hasNarrowCast(IsTid.getContext(), Sub->getIdx()))
    return false;
  const Expr *Idx = stripIntCasts(Sub->getIdx());
  bool Ok;
  if (!Plus) {
    Ok = IsTid(Idx);
  } else {
    BinaryOperatorKind Op;
    const Expr *L, *R;
    Ok = matchBinary(Idx, Op, L, R) && Op == BO_Add &&
         ((IsTid(L) && getReferencedVar(R) == S) ||
          (IsTid(R) && getReferencedVar(L) == S));
  }
  if (Ok)
    Array = A;
  return Ok;
}

/// Why the max or min call \p Call (named \p Fn) may not be the function
/// that `Fn(a, b)` finds where the rewrite writes it: CUDA's, in the global
/// namespace, or fmax/fmin of any namespace (the same IEEE maxNum); empty
/// when it is.
std::string checkCombine(const CallExpr *Call, StringRef Fn) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !isLibraryFunction(FD))
    return "the tree step calls '" +
           (FD ? FD->getQualifiedNameAsString() : Fn.str()) +
           "', which is not CUDA's (the rewrite would call CUDA's)";
  if (Fn.starts_with("fmax") || Fn.starts_with("fmin") ||
      FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "";
  return "the tree step calls '" + FD->getQualifiedNameAsString() +
         "', not CUDA's '" + Fn.str() +
         "' (its result may depend on the order of its operands: a NaN or "
         "a -0.0 kept or not)";
}

} // namespace

bool isHalvingLoop(const Stmt *Loop) {
  const auto *F = dyn_cast<ForStmt>(Loop);
  if (!F || !F->getInc())
    return false;
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!matchBinary(F->getInc(), Op, L, R))
    return false;
  const VarDecl *S = getReferencedVar(L);
  if (!S)
    return false;
  if (Op == BO_ShrAssign)
    return isIntLiteral(R, 1);
  if (Op == BO_DivAssign)
    return isIntLiteral(R, 2);
  if (Op != BO_Assign)
    return false;
  const Expr *L2, *R2;
  return matchBinary(stripCasts(R), Op, L2, R2) && getReferencedVar(L2) == S &&
         ((Op == BO_Shr && isIntLiteral(R2, 1)) ||
          (Op == BO_Div && isIntLiteral(R2, 2)));
}

std::string matchTreeFrame(ASTContext &Ctx, const FunctionDecl *K,
                           const ForStmt *Loop, TreeFrame &F,
                           bool NeedBarrier) {
  F.Loop = Loop;
  const auto *Init = dyn_cast_or_null<DeclStmt>(Loop->getInit());
  const VarDecl *S = Init && Init->isSingleDecl()
                         ? dyn_cast<VarDecl>(Init->getSingleDecl())
                         : nullptr;
  if (!S || !S->getInit() || !S->getType()->isIntegerType())
    return "the loop does not declare its stride (expected `for (int s = "
           "blockDim.x / 2; s > 0; s >>= 1)`)";
  // From a review: the guard evaluates S0 as written, the loop starts from
  // it converted to the stride's type; an 8-bit stride turns blockDim.x / 2
  // = 256 into 0 (no tree at all), which the guard would not see.
  if (Ctx.getTypeSize(S->getType()) < 16)
    return "the stride '" + S->getNameAsString() + "' is a " +
           std::to_string(Ctx.getTypeSize(S->getType())) +
           "-bit integer, which may not hold the first stride";
  // Evaluated again by the guard: it must be pure.
  std::string Why;
  if (!isInvariant(Ctx, S->getInit(), ChangedVars(Ctx, K, Loop), Why,
                   /*AllowIntDivision=*/true))
    return "the first stride cannot be evaluated again by the guard: " + Why;
  F.Stride = S;
  F.FirstStride = getStmtText(Ctx, S->getInit());
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!Loop->getCond() || !matchBinary(Loop->getCond(), Op, L, R) ||
      !((getReferencedVar(L) == S && ((Op == BO_GT && isIntLiteral(R, 0)) ||
                                      (Op == BO_GE && isIntLiteral(R, 1)) ||
                                      (Op == BO_NE && isIntLiteral(R, 0)))) ||
        (getReferencedVar(R) == S && Op == BO_LT && isIntLiteral(L, 0))))
    return "the loop condition is not `s > 0`";
  if (hasNarrowCast(Ctx, Loop->getCond()) || hasNarrowCast(Ctx, Loop->getInc()))
    return "the loop's condition or step converts the stride to an integer "
           "of fewer than 16 bits";

  // Body: { if (tid < s [&& tid + s < blockDim.x]) a[tid] = ...; barrier }
  const auto *Body = dyn_cast<CompoundStmt>(Loop->getBody());
  if (!Body || Body->size() != 2 || !isa<IfStmt>(Body->body_front()) ||
      !isCallTo(Body->body_back(), "__syncthreads"))
    return "the loop body is not `if (tid < s) ...; __syncthreads();`";
  const auto *If = cast<IfStmt>(Body->body_front());
  if (If->getElse() || If->getInit() || If->getConditionVariable())
    return "the loop's if has an else branch or a declaration";
  TidMatcher IsTid(Ctx, K);
  auto IsTidLtS = [&](const Expr *E) {
    return matchBinary(E, Op, L, R) && Op == BO_LT && IsTid(L) &&
           getReferencedVar(R) == S;
  };
  auto IsPartnerInBlock = [&](const Expr *E) {
    const Expr *A, *B;
    return matchBinary(E, Op, L, R) && Op == BO_LT &&
           isBuiltin(R, "blockDim.x") &&
           matchBinary(stripIntCasts(L), Op, A, B) && Op == BO_Add &&
           ((IsTid(A) && getReferencedVar(B) == S) ||
            (IsTid(B) && getReferencedVar(A) == S));
  };
  const Expr *Cond = If->getCond();
  if (hasNarrowCast(Ctx, Cond))
    return "the condition converts to an integer of fewer than 16 bits";
  if (!IsTidLtS(Cond)) {
    const Expr *C1, *C2;
    if (!matchBinary(Cond, Op, C1, C2) || Op != BO_LAnd)
      return "the condition is not `tid < s` (tid: threadIdx.x)";
    if (IsTidLtS(C1) && IsPartnerInBlock(C2))
      F.BoundsCheck = true;
    else if (IsTidLtS(C2) && IsPartnerInBlock(C1))
      F.BoundsCheck = true;
    else
      return "the condition is not `tid < s` or `tid < s && tid + s < "
             "blockDim.x` (tid: threadIdx.x)";
  }
  F.Step = If;
  if (!NeedBarrier)
    return "";
  // The tree starts from a[0, blockDim.x) as the threads left it: a barrier
  // right before it.
  auto [Self, Parent] = getInCompound(Ctx, Loop);
  if (!Parent)
    return "the loop is not directly inside a { } block";
  const Stmt *Prev = nullptr;
  for (const Stmt *C : Parent->body()) {
    if (C == Self)
      break;
    Prev = C;
  }
  if (!Prev || !isCallTo(Prev, "__syncthreads"))
    return "no __syncthreads() right before the tree";
  return "";
}

std::string matchTree(ASTContext &Ctx, const FunctionDecl *K,
                      const ForStmt *Loop, TreeMatch &M, bool NeedBarrier) {
  M.Loop = Loop;
  TreeFrame F;
  std::string Why = matchTreeFrame(Ctx, K, Loop, F, NeedBarrier);
  if (!Why.empty())
    return Why;
  M.FirstStride = F.FirstStride;
  M.BoundsCheck = F.BoundsCheck;
  const VarDecl *S = F.Stride;
  TidMatcher IsTid(Ctx, K);
  BinaryOperatorKind Op;
  const Expr *Dst, *Src;
  const Stmt *Then = F.Step->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Then)) {
    if (CS->size() != 1)
      return "the tree step has " + std::to_string(CS->size()) +
             " statements; only a sum, max or min of one array is rewritten";
    Then = CS->body_front();
  }
  const auto *StepE = dyn_cast<Expr>(Then);
  if (!StepE || !matchBinary(StepE->IgnoreParenImpCasts(), Op, Dst, Src) ||
      !BinaryOperator::isAssignmentOp(Op))
    return "the tree step is not an assignment `a[tid] = ...`";
  if (Op != BO_Assign && Op != BO_AddAssign)
    return "the tree step combines with '" +
           BinaryOperator::getOpcodeStr(Op).str() +
           "'; only a sum, max or min is rewritten";
  const VarDecl *A = nullptr;
  if (!isElem(Dst, A, S, IsTid, false))
    return "the tree step does not store to a[tid]";
  if (Op == BO_AddAssign) {
    if (!isElem(Src, A, S, IsTid, true))
      return "the tree step does not add a[tid + s]";
    M.Op = TreeOp::Sum;
  } else if (const Expr * X, *Y;
             matchBinary(stripCasts(Src), Op, X, Y) && Op == BO_Add) {
    if (!((isElem(X, A, S, IsTid, false) && isElem(Y, A, S, IsTid, true)) ||
          (isElem(Y, A, S, IsTid, false) && isElem(X, A, S, IsTid, true))))
      return "the tree step does not add a[tid] and a[tid + s]";
    M.Op = TreeOp::Sum;
  } else {
    const auto *Call = dyn_cast<CallExpr>(stripCasts(Src));
    std::string Fn = Call ? getCalleeName(Call) : "";
    bool IsMax = Fn == "fmaxf" || Fn == "fmax" || Fn == "max";
    bool IsMin = Fn == "fminf" || Fn == "fmin" || Fn == "min";
    if (!IsMax && !IsMin)
      return "the tree step is not a sum, fmaxf/fmax/max or fminf/fmin/min";
    // From a review: the rewrite calls the function by its bare name, which
    // finds CUDA's. std::max or a function of the project's may be another
    // one: `(a < b) ? b : a` keeps a NaN or a -0.0 depending on the order
    // of its operands, which the shuffles change.
    Why = checkCombine(Call, Fn);
    if (!Why.empty())
      return Why;
    if (Call->getNumArgs() != 2 ||
        !((isElem(Call->getArg(0), A, S, IsTid, false) &&
           isElem(Call->getArg(1), A, S, IsTid, true)) ||
          (isElem(Call->getArg(1), A, S, IsTid, false) &&
           isElem(Call->getArg(0), A, S, IsTid, true))))
      return "the tree step does not combine a[tid] and a[tid + s]";
    M.Op = IsMax ? TreeOp::Max : TreeOp::Min;
    M.Combine = Fn;
  }
  M.Array = A;
  if (!A->hasAttr<CUDASharedAttr>())
    return "'" + A->getNameAsString() + "' is not a __shared__ array";
  QualType ET = Ctx.getAsArrayType(A->getType())
                    ? Ctx.getAsArrayType(A->getType())->getElementType()
                    : QualType();
  M.ElemType = getShuffleType(ET);
  if (M.ElemType.empty())
    return "'" + A->getNameAsString() +
           "' is not an array of 32- or 64-bit integers or floats (what "
           "warp shuffles move)";
  M.FloatElem = ET->isRealFloatingType();
  return "";
}

std::string getShuffleType(QualType T) {
  if (T.isNull() || T->isDependentType())
    return "";
  // The canonical type, spelled by its keywords: a typedef's name may mean
  // another type where the rewrite writes it (from a review).
  const auto *B = dyn_cast<BuiltinType>(T.getCanonicalType().getTypePtr());
  if (!B)
    return "";
  switch (B->getKind()) {
  case BuiltinType::Int:
    return "int";
  case BuiltinType::UInt:
    return "unsigned int";
  case BuiltinType::Long:
    return "long";
  case BuiltinType::ULong:
    return "unsigned long";
  case BuiltinType::LongLong:
    return "long long";
  case BuiltinType::ULongLong:
    return "unsigned long long";
  case BuiltinType::Float:
    return "float";
  case BuiltinType::Double:
    return "double";
  default:
    return "";
  }
}

TidMatcher::TidMatcher(ASTContext &Ctx, const FunctionDecl *K)
    : Ctx(Ctx), CV(Ctx, K, K->getBody()) {}

bool TidMatcher::operator()(const Expr *E) const {
  if (isBuiltin(E, "threadIdx.x"))
    return true;
  const VarDecl *V = getReferencedVar(E);
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
         isBuiltin(V->getInit(), "threadIdx.x") && !CV.mayChange(V);
}

const VarDecl *getTreeElemArray(const TidMatcher &IsTid, const Expr *E,
                                const VarDecl *S, bool Partner) {
  const VarDecl *A = nullptr;
  return isElem(E, A, S, IsTid, Partner) ? A : nullptr;
}

bool isTidElement(ASTContext &Ctx, const FunctionDecl *K, const Expr *E,
                  const VarDecl *Array) {
  const VarDecl *A = Array;
  return isElem(E, A, nullptr, TidMatcher(Ctx, K), false);
}

} // namespace astra
