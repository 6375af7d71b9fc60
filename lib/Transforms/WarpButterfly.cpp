//===- WarpButterfly.cpp - A warp's xor butterfly over a value ------------===//
//
// `for (o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);`
// leaves in every lane the sum of the warp's 32 values: at each step a lane
// adds the value of the lane whose id differs in one bit, so after the five
// bits every lane has added every other lane once. Only this full form
// counts: a shorter list of offsets, a partial mask or width, or a
// `__shfl_down_sync` (which leaves the total in lane 0 alone) combines
// fewer lanes. register-cache and vectorize-loads rely on it as a
// combination over the block when the block's x dimension is one warp
// (PerThreadValues.cpp).
//
//===----------------------------------------------------------------------===//
#include "WarpButterfly.h"
#include "Dataflow.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include <set>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

std::optional<int64_t> evalInt(ASTContext &Ctx, const Expr *E) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

/// The offsets `for (o = I; cond; step)` visits, when \p O is its index,
/// the condition compares it with a constant and the step doubles or
/// halves it.
std::optional<std::set<int64_t>> offsets(ASTContext &Ctx, const ForStmt *F,
                                         const VarDecl *O) {
  std::optional<int64_t> Start = evalInt(Ctx, O->getInit());
  BinaryOperatorKind Cmp, Step;
  const Expr *L, *R;
  if (!Start || !F->getCond() || !F->getInc() ||
      !matchBinary(F->getCond(), Cmp, L, R))
    return std::nullopt;
  bool Swapped = getReferencedVar(R) == O;
  if (Swapped)
    std::swap(L, R);
  std::optional<int64_t> Bound = evalInt(Ctx, R);
  if (getReferencedVar(L) != O || !Bound)
    return std::nullopt;
  if (Swapped)
    Cmp = BinaryOperator::reverseComparisonOp(Cmp);
  // o /= 2, o >>= 1, o *= 2, o <<= 1, or o = o / 2 ...
  const Expr *SL, *SR;
  if (!matchBinary(F->getInc(), Step, SL, SR) || getReferencedVar(SL) != O)
    return std::nullopt;
  if (Step == BO_Assign) {
    const Expr *AL;
    if (!matchBinary(SR->IgnoreParenImpCasts(), Step, AL, SR) ||
        getReferencedVar(AL) != O)
      return std::nullopt;
  } else if (BinaryOperator::isCompoundAssignmentOp(Step)) {
    Step = BinaryOperator::getOpForCompoundAssignment(Step);
  } else {
    return std::nullopt;
  }
  std::optional<int64_t> By = evalInt(Ctx, SR);
  if (!By)
    return std::nullopt;
  std::set<int64_t> Seen;
  for (int64_t X = *Start, N = 0; N < 40; ++N) {
    bool Go = Cmp == BO_GT   ? X > *Bound
              : Cmp == BO_GE ? X >= *Bound
              : Cmp == BO_LT ? X < *Bound
              : Cmp == BO_LE ? X <= *Bound
              : Cmp == BO_NE ? X != *Bound
                             : false;
    if (!Go)
      return Seen;
    Seen.insert(X);
    if (Step == BO_Div && *By == 2)
      X /= 2;
    else if (Step == BO_Shr && *By == 1)
      X >>= 1;
    else if (Step == BO_Mul && *By == 2)
      X *= 2;
    else if (Step == BO_Shl && *By == 1)
      X <<= 1;
    else
      return std::nullopt;
  }
  return std::nullopt; // does not end
}

/// Whether \p E is `__shfl_xor_sync(0xffffffff, V, O[, 32])`.
bool isFullXorShuffle(ASTContext &Ctx, const Expr *E, const VarDecl *V,
                      const VarDecl *O) {
  const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  if (!C || getCalleeName(C) != "__shfl_xor_sync" ||
      (C->getNumArgs() != 3 && C->getNumArgs() != 4))
    return false;
  std::optional<int64_t> Mask = evalInt(Ctx, C->getArg(0));
  if (!Mask || (*Mask & 0xffffffff) != 0xffffffff)
    return false;
  if (C->getNumArgs() == 4) {
    std::optional<int64_t> Width = evalInt(Ctx, C->getArg(3));
    if (!Width || *Width != 32)
      return false;
  }
  const auto *Val = dyn_cast<DeclRefExpr>(C->getArg(1)->IgnoreParenImpCasts());
  return Val && Val->getDecl() == V && getReferencedVar(C->getArg(2)) == O;
}

bool hasJump(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitStmt(Stmt *X) {
      Found |= isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt,
                   IndirectGotoStmt, CXXThrowExpr>(X);
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

bool hasGoto(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitStmt(Stmt *X) {
      Found |= isa<GotoStmt, IndirectGotoStmt>(X);
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

} // namespace

std::optional<TreeOp> matchButterfly(ASTContext &Ctx, const Stmt *S,
                                     const VarDecl *V) {
  if (const auto *A = dyn_cast<AttributedStmt>(S))
    S = A->getSubStmt();
  const auto *F = dyn_cast<ForStmt>(S);
  const auto *Init = F ? dyn_cast_or_null<DeclStmt>(F->getInit()) : nullptr;
  const auto *O = Init && Init->isSingleDecl()
                      ? dyn_cast<VarDecl>(Init->getSingleDecl())
                      : nullptr;
  if (!O || !O->getType()->isIntegerType())
    return std::nullopt;
  std::optional<std::set<int64_t>> Offs = offsets(Ctx, F, O);
  if (!Offs || *Offs != std::set<int64_t>{1, 2, 4, 8, 16})
    return std::nullopt;
  const Stmt *Body = F->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    Body = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *Top = dyn_cast_or_null<Expr>(Body);
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!Top || !matchBinary(Top->IgnoreParenImpCasts(), Op, L, R) ||
      getReferencedVar(L) != V || findRefs(Body, O).size() != 1)
    return std::nullopt;
  // v += x
  if (Op == BO_AddAssign)
    return isFullXorShuffle(Ctx, R, V, O) ? std::optional(TreeOp::Sum)
                                          : std::nullopt;
  if (Op != BO_Assign)
    return std::nullopt;
  // v = v + x, v = x + v, v = fmaxf(v, x), v = min(x, v), ...
  const Expr *Val = R->IgnoreParenImpCasts();
  const Expr *A = nullptr, *B = nullptr;
  std::optional<TreeOp> T;
  if (matchBinary(Val, Op, A, B) && Op == BO_Add) {
    T = TreeOp::Sum;
  } else if (const auto *C = dyn_cast<CallExpr>(Val);
             C && C->getNumArgs() == 2) {
    std::string Callee = getCalleeName(C);
    StringRef N = Callee;
    N.consume_front("std::");
    N.consume_front("::");
    if (N == "fmaxf" || N == "fmax" || N == "max")
      T = TreeOp::Max;
    if (N == "fminf" || N == "fmin" || N == "min")
      T = TreeOp::Min;
    A = C->getArg(0);
    B = C->getArg(1);
  }
  if (!T)
    return std::nullopt;
  if (getReferencedVar(B) == V)
    std::swap(A, B);
  const auto *ARef = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
  if (!ARef || ARef->getDecl() != V || !isFullXorShuffle(Ctx, B, V, O))
    return std::nullopt;
  return T;
}

const Stmt *findButterflyAfter(ASTContext &Ctx, const FunctionDecl *K,
                               const Stmt *Loop, const VarDecl *V, TreeOp &Op) {
  if (hasGoto(K->getBody()))
    return nullptr;
  const Stmt *Held = Loop;
  const Stmt *P = getParentStmt(Ctx, Loop);
  if (P && isa<AttributedStmt>(P)) {
    Held = P;
    P = getParentStmt(Ctx, P);
  }
  const auto *CS = dyn_cast_or_null<CompoundStmt>(P);
  if (!CS)
    return nullptr;
  bool After = false;
  for (const Stmt *S : CS->body()) {
    if (S == Held) {
      After = true;
      continue;
    }
    if (!After)
      continue;
    if (std::optional<TreeOp> T = matchButterfly(Ctx, S, V)) {
      Op = *T;
      return S;
    }
    if (hasJump(S))
      return nullptr;
  }
  return nullptr;
}

} // namespace astra
