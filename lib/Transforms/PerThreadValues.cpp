//===- PerThreadValues.cpp - Where a loop's per-thread values go ---------===//
//
// A thread-partitioned loop leaves per-thread values behind: `sum` after
// `for (i = tid; i < n; i += blockDim.x) sum += x[i] * x[i];`. register-cache
// and vectorize-loads give each thread other elements (packs), so each
// thread's value changes; only a combination over every thread of the block
// with the operation that accumulated it stays the same. The combinations
// recognised:
//
// - the shared-memory tree (WarpReduceMatch.h)
//
//     partial[tid] = sum;            // the value, unconverted
//     __syncthreads();
//     for (s = blockDim.x / 2; s > 0; s >>= 1) { ... partial[tid] + ... }
//
//   of the same operation (a sum for `+=`, a max for `v = fmaxf(v, e)`),
//   with nothing after it reading more than partial[0] (checkLaterReads).
//   It covers every thread only for a power-of-two block whose half is its
//   first stride: that goes into the chain's guard;
// - loops `for (k = 0; k < blockDim.x; ++k) acc OP= partial[k];`;
// - atomicAdd/Max/Min of the same operation at an address uniform over the
//   block;
// - the full xor butterfly of a warp (WarpButterfly.h) right after the
//   loop, which leaves every lane the warp's value: the block's when
//   blockDim.x is 32, which goes into the guard.
//
// Any other read of the value (a thread's own use, `if (tid == 0) red[0] =
// sum;`, a `__shfl_down_sync` chain, a conversion before the tree) is
// refused. After a grid-partitioned loop (grid-stride) every read but an
// atomic at an address uniform over the grid is refused: a block's value
// depends on which elements the block owns.
//
//===----------------------------------------------------------------------===//
#include "PerThreadValues.h"
#include "Dataflow.h"
#include "RegisterCacheChecks.h"
#include "SiteUtil.h"
#include "WarpButterfly.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

std::string lineCol(const SourceManager &SM, SourceLocation L) {
  L = SM.getFileLoc(L);
  return std::to_string(SM.getSpellingLineNumber(L)) + ":" +
         std::to_string(SM.getSpellingColumnNumber(L));
}

/// \p E and the implicit nodes and parentheses above it: the expression
/// its parent \p Parent (null when not one statement) uses.
const Expr *climb(ASTContext &Ctx, const Expr *E, const Stmt *&Parent) {
  DynTypedNodeList Ps = Ctx.getParents(*E);
  while (Ps.size() == 1) {
    const auto *P = Ps[0].get<Expr>();
    if (!P ||
        !(isa<ParenExpr>(P) ||
          (isa<ImplicitCastExpr>(P) &&
           (cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp ||
            cast<ImplicitCastExpr>(P)->getCastKind() == CK_LValueToRValue))))
      break;
    E = P;
    Ps = Ctx.getParents(*E);
  }
  Parent = Ps.size() == 1 ? Ps[0].get<Stmt>() : nullptr;
  return E;
}

bool refersTo(const Expr *E, const VarDecl *V) {
  return !findRefs(E, V).empty();
}

/// The operation one statement of a loop body accumulates \p V with, for
/// the reference \p R to it; none when \p R is not part of an accumulation
/// `v += e`, `v -= e`, `++v`, `v = v + e`, `v = fmaxf(v, e)`, ....
std::optional<TreeOp> accumulation(ASTContext &Ctx, const DeclRefExpr *R,
                                   const VarDecl *V) {
  const Stmt *PS;
  const Expr *E = climb(Ctx, R, PS);
  const auto *P = dyn_cast_or_null<Expr>(PS);
  if (!P)
    return std::nullopt;
  BinaryOperatorKind Op;
  UnaryOperatorKind UOp;
  const Expr *L, *Rhs, *Sub;
  if (matchUnary(P, UOp, Sub) && Sub == E &&
      (UOp == UO_PreInc || UOp == UO_PostInc || UOp == UO_PreDec ||
       UOp == UO_PostDec))
    return TreeOp::Sum;
  if (matchBinary(P, Op, L, Rhs) && L == E &&
      BinaryOperator::isAssignmentOp(Op)) {
    if ((Op == BO_AddAssign || Op == BO_SubAssign) && !refersTo(Rhs, V))
      return TreeOp::Sum;
    if (Op != BO_Assign)
      return std::nullopt;
    // v = v + e, v = e + v, v = v - e, v = fmaxf(v, e), ...
    const Expr *Val = Rhs->IgnoreParenImpCasts();
    const Expr *A, *B;
    if (matchBinary(Val, Op, A, B) && (Op == BO_Add || Op == BO_Sub)) {
      if (getReferencedVar(A) == V && !refersTo(B, V))
        return TreeOp::Sum;
      if (Op == BO_Add && getReferencedVar(B) == V && !refersTo(A, V))
        return TreeOp::Sum;
      return std::nullopt;
    }
    if (const auto *C = dyn_cast<CallExpr>(Val)) {
      std::string Callee = getCalleeName(C);
      StringRef N = Callee;
      N.consume_front("std::");
      N.consume_front("::");
      std::optional<TreeOp> T;
      if (N == "fmaxf" || N == "fmax" || N == "max")
        T = TreeOp::Max;
      if (N == "fminf" || N == "fmin" || N == "min")
        T = TreeOp::Min;
      if (T && C->getNumArgs() == 2) {
        const Expr *A0 = C->getArg(0), *A1 = C->getArg(1);
        if ((getReferencedVar(A0) == V && !refersTo(A1, V)) ||
            (getReferencedVar(A1) == V && !refersTo(A0, V)))
          return T;
      }
    }
    return std::nullopt;
  }
  // A read on the right of the accumulation's own assignment.
  for (const Expr *S = P; S;) {
    if (matchBinary(S, Op, L, Rhs) && Op == BO_Assign &&
        getReferencedVar(L) == V) {
      const auto *LRef = dyn_cast<DeclRefExpr>(L->IgnoreParenImpCasts());
      return LRef ? accumulation(Ctx, LRef, V) : std::nullopt;
    }
    DynTypedNodeList Up = Ctx.getParents(*S);
    S = Up.size() == 1 ? Up[0].get<Expr>() : nullptr;
  }
  return std::nullopt;
}

/// Whether some loop holds \p S inside \p K's body.
bool isInLoop(ASTContext &Ctx, const Stmt *S) {
  for (DynTypedNodeList Up = Ctx.getParents(*S); Up.size() == 1;
       Up = Ctx.getParents(Up[0])) {
    const auto *P = Up[0].get<Stmt>();
    if (!P)
      return false;
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
      return true;
  }
  return false;
}

bool isSync(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return C && getCalleeName(C) == "__syncthreads";
}

/// The subscript \p R (through implicit casts) is the base of, or null.
const ArraySubscriptExpr *subscriptOf(ASTContext &Ctx, const DeclRefExpr *R) {
  DynTypedNodeList Ps = Ctx.getParents(*R);
  const Expr *Use = R;
  while (Ps.size() == 1 && Ps[0].get<ImplicitCastExpr>()) {
    Use = Ps[0].get<ImplicitCastExpr>();
    Ps = Ctx.getParents(*Use);
  }
  const auto *Sub = Ps.size() == 1 ? Ps[0].get<ArraySubscriptExpr>() : nullptr;
  return Sub && Sub->getBase() == Use ? Sub : nullptr;
}

/// Whether \p F is `for (int k = 0; k < blockDim.x; ++k) acc OP= a[k];`
/// and its operation.
std::optional<TreeOp> matchSequential(ASTContext &Ctx, const ForStmt *F,
                                      const VarDecl *A) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
  const auto *KV = Init && Init->isSingleDecl()
                       ? dyn_cast<VarDecl>(Init->getSingleDecl())
                       : nullptr;
  const auto *Zero =
      KV && KV->getInit()
          ? dyn_cast<IntegerLiteral>(KV->getInit()->IgnoreParenImpCasts())
          : nullptr;
  BinaryOperatorKind Op;
  UnaryOperatorKind UOp;
  const Expr *L, *R, *Sub;
  if (!Zero || Zero->getValue() != 0 || !F->getCond() || !F->getInc() ||
      !matchBinary(F->getCond(), Op, L, R) || Op != BO_LT ||
      getReferencedVar(L) != KV || getBuiltinVarName(R) != "blockDim.x" ||
      !matchUnary(F->getInc(), UOp, Sub) ||
      !(UOp == UO_PreInc || UOp == UO_PostInc) || getReferencedVar(Sub) != KV)
    return std::nullopt;
  const Stmt *Body = F->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    Body = CS->size() == 1 ? CS->body_front() : nullptr;
  // acc OP= a[k], the loop's index used only there.
  std::vector<const DeclRefExpr *> Elems = findRefs(Body, A),
                                   Ks = findRefs(Body, KV);
  if (!Body || Elems.size() != 1 || Ks.size() != 1)
    return std::nullopt;
  const ArraySubscriptExpr *ASub = subscriptOf(Ctx, Elems[0]);
  if (!ASub || getReferencedVar(ASub->getIdx()) != KV)
    return std::nullopt;
  const auto *Top = dyn_cast<Expr>(Body);
  if (!Top || !matchBinary(Top->IgnoreParenImpCasts(), Op, L, R) ||
      !BinaryOperator::isAssignmentOp(Op))
    return std::nullopt;
  const auto *AccRef = dyn_cast<DeclRefExpr>(L->IgnoreParenImpCasts());
  const auto *AccVar = AccRef ? dyn_cast<VarDecl>(AccRef->getDecl()) : nullptr;
  if (!AccVar || AccVar == A || AccVar == KV)
    return std::nullopt;
  return accumulation(Ctx, AccRef, AccVar);
}

/// The statement after \p Store (`a[tid] = v;`) and its barriers in their
/// { } block.
const Stmt *nextAfterBarriers(ASTContext &Ctx, const Stmt *Store) {
  DynTypedNodeList SP = Ctx.getParents(*Store);
  const auto *CS = SP.size() == 1 ? SP[0].get<CompoundStmt>() : nullptr;
  if (!CS)
    return nullptr;
  bool Found = false;
  for (const Stmt *S : CS->body()) {
    if (S == Store)
      Found = true;
    else if (Found && !isSync(S))
      return S;
  }
  return nullptr;
}

/// Where `a[tid] = v;` (\p Store) leads: a tree over the block of the
/// operation \p Acc, or loops summing a[0, blockDim.x) whole. Returns why
/// not ("-" when it is neither) or empty, adding the guard's conditions to
/// \p BlockConds.
std::string checkCombination(ASTContext &Ctx, const FunctionDecl *K,
                             const Expr *Store, const VarDecl *A, TreeOp Acc,
                             StringRef Name, const ForStmt *Loop,
                             const ForStmt *First,
                             std::vector<std::string> &BlockConds) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) { return lineCol(SM, S->getBeginLoc()); };
  auto AddConds = [&](std::vector<std::string> Conds) {
    for (std::string &C : Conds)
      if (!is_contained(BlockConds, C))
        BlockConds.push_back(std::move(C));
  };
  const Stmt *Next = nextAfterBarriers(Ctx, Store);
  if (!Next)
    return "-";
  auto Mismatch = [&](const Stmt *At, TreeOp Op) {
    return "line " + Line(At) + " takes the " + getTreeOpName(Op) + " of " +
           Name.str() + ", which the loop at line " + Line(Loop) +
           " accumulates by " + getTreeOpName(Acc) +
           " (the result depends on which elements each thread owns)";
  };
  // A tree: only a[0] is read after it, as it leaves the block's value.
  // After warp-reduce, the tree is the fallback of its shuffles, which
  // leave the same a[0] under a guard on the same block shape.
  TreeMatch M;
  const ForStmt *Tree = dyn_cast<ForStmt>(Next);
  const Stmt *Whole = Next;
  bool Fallback = false;
  if (const auto *If = dyn_cast<IfStmt>(Next);
      If && If->getElse() &&
      getStmtText(Ctx, If->getThen()).find("astra-opt warp-reduce:") !=
          std::string::npos) {
    const Stmt *Else = If->getElse();
    if (const auto *CS = dyn_cast<CompoundStmt>(Else); CS && CS->size() == 1)
      Else = CS->body_front();
    Tree = dyn_cast<ForStmt>(Else);
    Fallback = true;
  }
  if (Tree && matchTree(Ctx, K, Tree, M, !Fallback).empty() && M.Array == A) {
    if (Acc != M.Op)
      return Mismatch(Tree, M.Op);
    std::string Later =
        checkLaterReads(Ctx, K, A, SmallPtrSet<const Stmt *, 1>{Whole});
    if (!Later.empty())
      return Later;
    // The guard, computed before the chain, evaluates the first stride.
    const auto *SD =
        cast<VarDecl>(cast<DeclStmt>(Tree->getInit())->getSingleDecl());
    for (const DeclRefExpr *D : findAllRefs(SD->getInit()))
      if (const auto *DV = dyn_cast<VarDecl>(D->getDecl()))
        if (DV->hasLocalStorage() &&
            !SM.isBeforeInTranslationUnit(DV->getLocation(),
                                          First->getBeginLoc()))
          return "the tree at line " + Line(Tree) + " starts from '" +
                 DV->getNameAsString() +
                 "', declared after the chain begins (its guard needs "
                 "the first stride)";
    std::string S0 = "(" + M.FirstStride + ")";
    AddConds({"blockDim.y * blockDim.z == 1", "2 * " + S0 + " == blockDim.x",
              "(" + S0 + " & (" + S0 + " - 1)) == 0"});
    return "";
  }
  // Sequential: `[if (...)] { ... for (k = 0; k < blockDim.x; ++k) acc OP=
  // a[k]; ... }`; then every read of the array anywhere is such a loop's
  // (it holds per-thread values until the next `a[tid] = ...`), every
  // store a refill.
  const Stmt *Holder = Next;
  if (const auto *If = dyn_cast<IfStmt>(Next); If && !If->getElse())
    Holder = If->getThen();
  if (findRefs(Holder, A).empty())
    return "-";
  for (const DeclRefExpr *R : findRefs(K->getBody(), A)) {
    if (const ArraySubscriptExpr *Sub = subscriptOf(Ctx, R);
        Sub && isTidElement(Ctx, K, Sub, A)) {
      DynTypedNodeList SP = Ctx.getParents(*Sub);
      const auto *BO = SP.size() == 1 ? SP[0].get<BinaryOperator>() : nullptr;
      if (BO && BO->getOpcode() == BO_Assign && BO->getLHS() == Sub)
        continue; // a refill
    }
    const ForStmt *F = nullptr;
    for (DynTypedNodeList Up = Ctx.getParents(*R); Up.size() == 1 && !F;
         Up = Ctx.getParents(Up[0]))
      if (Up[0].get<FunctionDecl>())
        break;
      else
        F = Up[0].get<ForStmt>();
    std::optional<TreeOp> Op = F ? matchSequential(Ctx, F, A) : std::nullopt;
    if (!Op)
      return "line " + lineCol(SM, R->getBeginLoc()) + " uses '" +
             A->getNameAsString() + "', which holds the per-thread values of " +
             Name.str() +
             " (only a tree, or loops over all of a[0, blockDim.x), see the "
             "same value after the rewrite)";
    if (*Op != Acc)
      return Mismatch(F, *Op);
  }
  AddConds({"blockDim.y * blockDim.z == 1"});
  return "";
}

} // namespace

std::string checkPerThreadValues(ASTContext &Ctx, const FunctionDecl *K,
                                 ArrayRef<const ForStmt *> Loops,
                                 ArrayRef<const BodyFacts *> Facts, char Dim,
                                 bool Grid,
                                 std::vector<std::string> &BlockConds) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) { return lineCol(SM, S->getBeginLoc()); };
  auto Within = [&](SourceLocation L, const Stmt *S) {
    return SM.isPointWithin(L, S->getBeginLoc(), S->getEndLoc());
  };
  // Every run of the chain but the first may see values of the last.
  bool Rerun = isInLoop(Ctx, Loops.front());
  for (size_t LI = 0; LI < Loops.size(); ++LI) {
    const ForStmt *Loop = Loops[LI];
    for (const VarDecl *V : Facts[LI]->WrittenInBody) {
      if (Facts[LI]->DeclaredInBody.count(V))
        continue;
      std::string Name = "'" + V->getNameAsString() + "'";
      if (!V->hasLocalStorage())
        return "the loop at line " + Line(Loop) + " writes " + Name +
               ", which is not a local of the kernel";
      std::optional<TreeOp> Acc;
      bool Mixed = false;
      TreeOp FlyOp = TreeOp::Sum;
      const Stmt *Fly = findButterflyAfter(Ctx, K, Loop, V, FlyOp);
      // Reads outside the chain's loops (those inside later loops are
      // refused by checkChainCode).
      for (const DeclRefExpr *R : findRefs(K->getBody(), V)) {
        SourceLocation At = R->getBeginLoc();
        if (Within(At, Loop)) {
          std::optional<TreeOp> T = accumulation(Ctx, R, V);
          if (!T || (Acc && *Acc != *T))
            Mixed = true;
          else
            Acc = T;
          continue;
        }
        if (any_of(Loops, [&](const ForStmt *L) { return Within(At, L); })) {
          // A later loop's reads are refused by checkChainCode; an earlier
          // loop's see the last run's value.
          if (Rerun)
            return "line " + lineCol(SM, At) + " reads " + Name +
                   " in a loop of the chain, which the loop at line " +
                   Line(Loop) + " leaves per thread in the chain's last run";
          continue;
        }
        if (!Rerun && SM.isBeforeInTranslationUnit(At, Loop->getBeginLoc()))
          continue;
        // A full xor butterfly right after the loop: outside the loop and
        // the butterfly every lane holds the value of its warp, of the
        // block's x dimension when that is one warp.
        if (Fly &&
            (Within(At, Fly) ||
             !SM.isPointWithin(At, Loop->getBeginLoc(), Fly->getEndLoc()))) {
          if (Grid || Dim != 'x' || Mixed || !Acc)
            return "line " + lineCol(SM, At) + " uses " + Name +
                   " after the warp butterfly at line " + Line(Fly) +
                   ", which combines the values of one warp, not of every "
                   "thread the loop at line " +
                   Line(Loop) +
                   " gives elements (it needs one sum, max or min over "
                   "threadIdx.x in a block of 32 threads)";
          if (FlyOp != *Acc)
            return "line " + Line(Fly) + " takes the " + getTreeOpName(FlyOp) +
                   " of " + Name + ", which the loop at line " + Line(Loop) +
                   " accumulates by " + getTreeOpName(*Acc) +
                   " (the result depends on which elements each thread owns)";
          if (!is_contained(BlockConds, "blockDim.x == 32"))
            BlockConds.push_back("blockDim.x == 32");
          continue;
        }
        const Stmt *PS;
        const Expr *E = climb(Ctx, R, PS);
        const auto *P = dyn_cast_or_null<Expr>(PS);
        BinaryOperatorKind Op;
        const Expr *L, *Rhs;
        bool IsAssign = P && matchBinary(P, Op, L, Rhs) && Op == BO_Assign;
        if (IsAssign && L == E)
          continue; // a plain store to the variable reads nothing
        std::string Use = "line " + lineCol(SM, At) + " uses " + Name +
                          ", which the loop at line " + Line(Loop) +
                          " leaves per thread";
        // atomicAdd(p, v) (max, min) at an address the same for every
        // thread of the block (of the grid, for a grid-stride loop).
        if (const auto *Call = dyn_cast_or_null<CallExpr>(P);
            Call && Call->getNumArgs() == 2 && Call->getArg(1) == E && !Mixed &&
            Acc) {
          std::string N = getCalleeName(Call);
          std::optional<TreeOp> Op;
          if (N == "atomicAdd")
            Op = TreeOp::Sum;
          if (N == "atomicMax")
            Op = TreeOp::Max;
          if (N == "atomicMin")
            Op = TreeOp::Min;
          if (Op && *Op == *Acc &&
              !isThreadDependent(Call->getArg(0), 4,
                                 SmallPtrSet<const VarDecl *, 1>(), Grid))
            continue;
        }
        if (Grid)
          return Use + " (a grid-stride loop: the rewrite gives each thread "
                       "and block other elements, and a combination over the "
                       "grid is not recognised)";
        std::string OnlyTree =
            " (the rewrite gives each thread other elements: only `a[" +
            std::string("threadIdx.x] = ") + V->getNameAsString() +
            "; __syncthreads();` and a shared-memory tree over the block "
            "or a loop over all of a[0, blockDim.x) sees the same value; so "
            "does a full xor butterfly of the warp right after the loop, "
            "offsets 16 to 1 and mask 0xffffffff, when blockDim.x is 32)";
        const auto *Sub =
            IsAssign && Rhs == E
                ? dyn_cast<ArraySubscriptExpr>(L->IgnoreParenImpCasts())
                : nullptr;
        const VarDecl *A = Sub ? getReferencedVar(Sub->getBase()) : nullptr;
        if (!A || !A->hasAttr<CUDASharedAttr>() ||
            !isTidElement(Ctx, K, Sub, A))
          return Use + OnlyTree;
        if (Dim != 'x')
          return Use +
                 " (a tree over threadIdx.x; the chain runs over "
                 "threadIdx." +
                 std::string(1, Dim) + ")";
        if (Mixed || !Acc)
          return "the loop at line " + Line(Loop) + " changes " + Name +
                 " other than by one sum, max or min, whose combination "
                 "over the block the cached path leaves unchanged";
        std::string Why = checkCombination(Ctx, K, P, A, *Acc, Name, Loop,
                                           Loops.front(), BlockConds);
        if (!Why.empty())
          return Why == "-" ? Use + OnlyTree : Why;
      }
    }
  }
  return "";
}

} // namespace astra
