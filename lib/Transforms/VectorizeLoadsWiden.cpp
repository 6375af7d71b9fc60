//===- VectorizeLoadsWiden.cpp - Lane forms of a widened body -------------===//
//
// What the widened form may assume, and why it is correct:
//
// - A pack holds the elements vecBase .. vecBase + W - 1, vecBase a multiple
//   of W and >= 0. In the vector code the index variable is bound to
//   vecBase, every Inv or Aff value declared by the body is computed once
//   from it (so it holds its lane-0 value), and a per-lane statement reads
//   an Aff value v as `(v + lane)`, a Var one as `v[lane]`: every lane sees
//   exactly the value its element had in the original.
// - `i / d` is Inv and `i % d` Aff only when d is a multiple of W (a guard
//   condition) and i is the index itself (>= 0): no multiple of d then lies
//   inside a pack.
// - Shared (Inv) statements run once per pack instead of once per element;
//   they write only variables the body declares, so they compute the same
//   values. Anything else (stores, atomics, calls of user functions) runs
//   once per lane.
// - A vector access covers W elements each of which the original accessed:
//   it is unconditional in its per-lane statement. Its index at lane 0 is a
//   multiple of W plus terms known before the loop, which the guard checks
//   together with the pointer's alignment.
// - A pointer that is stored is accessed in one way only (one vector offset,
//   or per lane, or through atomics): each element keeps its own order of
//   reads and writes. As in the plain form, different stored pointers are
//   assumed not to overlap other accessed ranges except element for element.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsWiden.h"
#include "SiteUtil.h"
#include "VectorizeLoadsWidenImpl.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

std::vector<const Stmt *> getSequence(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return std::vector<const Stmt *>(CS->body_begin(), CS->body_end());
  if (!S)
    return {};
  return {S};
}

Widener::Widener(ASTContext &Ctx, const FunctionDecl *K, const VarDecl *IV,
                 unsigned PartitionDeps, ArrayRef<const Stmt *> Region,
                 VecLoopPlan &Plan)
    : LaneAlgebra(Ctx), Ctx(Ctx), SM(Ctx.getSourceManager()), K(K), IV(IV),
      PartitionDeps(PartitionDeps), Region(Region.begin(), Region.end()),
      Plan(Plan) {
  KernelWrites.collect(K->getBody());
}

std::string Widener::text(SourceRange R) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM,
                              Ctx.getLangOpts())
      .str();
}

const Stmt *Widener::parent(const Stmt *S) const {
  DynTypedNodeList Ps = Ctx.getParents(*S);
  // A variable's initializer: its parent statement is the declaration's.
  while (!Ps.empty()) {
    if (const auto *P = Ps[0].get<Stmt>())
      return P;
    const auto *VD = Ps[0].get<VarDecl>();
    if (!VD)
      return nullptr;
    Ps = Ctx.getParents(*VD);
  }
  return nullptr;
}

static Lane join(Lane A, Lane B) { return std::max(A, B); }

Lane Widener::formOfVar(const VarDecl *VD) {
  if (VD == IV)
    return Lane::Aff;
  if (!RegionVars.count(VD))
    return Lane::Inv;
  auto It = Forms.find(VD);
  return It == Forms.end() ? Lane::Inv : It->second;
}

/// Whether \p E is the index itself, directly or through a body variable
/// that only copies it: a value known to be >= 0 and a multiple of W at
/// lane 0.
bool Widener::isIndexCopy(const Expr *E) const {
  const VarDecl *VD = getIndexVar(E);
  for (unsigned Depth = 0; VD && Depth < 4; ++Depth) {
    if (VD == IV)
      return true;
    if (!RegionVars.count(VD) || VarWritesIn.count(VD) ||
        AddressTaken.count(VD) || !VD->getInit())
      return false;
    VD = getIndexVar(VD->getInit());
  }
  return false;
}

std::string Widener::guardText(const Expr *E) {
  return text(E->getSourceRange());
}

void Widener::requireDivisible(const std::string &D) {
  if (!is_contained(Plan.DivisibleBy, D))
    Plan.DivisibleBy.push_back(D);
}

const Expr *Widener::valueOf(const VarDecl *VD, bool &IsIndex) const {
  IsIndex = VD == IV;
  if (IsIndex || !RegionVars.count(VD) || VarWritesIn.count(VD))
    return nullptr;
  return VD->getInit();
}

Lane Widener::formOf(const Expr *E) {
  if (!E)
    return Lane::Inv;
  E = E->IgnoreParens();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      return formOfVar(VD);
    return Lane::Inv;
  }
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          CXXNullPtrLiteralExpr, UnaryExprOrTypeTraitExpr, MSPropertyRefExpr,
          PseudoObjectExpr>(E))
    return Lane::Inv;
  if (const auto *C = dyn_cast<CastExpr>(E))
    return formOfCast(C);
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    if (PackOf.count(A))
      return Lane::Var;
    Lane L = join(formOf(A->getBase()), formOf(A->getIdx()));
    if (L != Lane::Inv)
      return Lane::Var;
    // An element every lane reads: shared, unless the body stores through
    // the same pointer.
    const VarDecl *P = getIndexVar(A->getBase());
    if (!P || RegionVars.count(P))
      return Lane::Var;
    for (const ArraySubscriptExpr *S : Subscripts)
      if (getIndexVar(S->getBase()) == P) {
        const Stmt *Par = parent(S);
        while (Par && isa<ParenExpr>(Par))
          Par = parent(Par);
        const auto *B = dyn_cast_or_null<BinaryOperator>(Par);
        const auto *U = dyn_cast_or_null<UnaryOperator>(Par);
        if ((B && B->isAssignmentOp() && B->getLHS()->IgnoreParens() == S) ||
            (U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)))
          return Lane::Var;
      }
    return Lane::Inv;
  }
  BinaryOperatorKind Op;
  const Expr *LHS, *RHS;
  if (matchBinary(E, Op, LHS, RHS)) {
    if (BinaryOperator::isAssignmentOp(Op)) {
      // Shared only as a write of a shared body variable with a shared value.
      const VarDecl *VD = getIndexVar(LHS);
      if (VD && RegionVars.count(VD) && formOfVar(VD) == Lane::Inv &&
          formOf(RHS) == Lane::Inv)
        return Lane::Inv;
      return Lane::Var;
    }
    return formOfArithmetic(E, Op, LHS, RHS);
  }
  UnaryOperatorKind UOp;
  const Expr *Sub;
  if (matchUnary(E, UOp, Sub)) {
    if (UnaryOperator::isIncrementDecrementOp(UOp)) {
      const VarDecl *VD = getIndexVar(Sub);
      return VD && RegionVars.count(VD) && formOfVar(VD) == Lane::Inv
                 ? Lane::Inv
                 : Lane::Var;
    }
    if (UOp == UO_Deref || UOp == UO_AddrOf)
      return Lane::Var;
    return formOf(Sub) == Lane::Inv ? Lane::Inv : Lane::Var;
  }
  return formOfOther(E);
}

bool Widener::isGuardEvaluable(const Expr *E) const {
  struct Check : RecursiveASTVisitor<Check> {
    const Widener &W;
    bool OK = true;
    explicit Check(const Widener &W) : W(W) {}
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD == W.IV || W.RegionVars.count(VD))
          OK = false;
      return OK;
    }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) { return OK = false; }
    bool VisitCallExpr(CallExpr *) { return OK = false; }
    bool VisitBinaryOperator(BinaryOperator *B) {
      return OK = OK && !B->isAssignmentOp();
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      return OK = OK && !U->isIncrementDecrementOp();
    }
  } C(*this);
  C.TraverseStmt(const_cast<Expr *>(E));
  return C.OK;
}

/// Whether the write \p W runs only on some lanes' paths: under a branch or
/// loop whose condition is not shared.
bool Widener::isControlled(const Expr *W) {
  const Stmt *Child = W;
  for (const Stmt *P = parent(W); P; Child = P, P = parent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Child != If->getCond() && formOf(If->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (Child != F->getInit() && formOf(F->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *Wh = dyn_cast<WhileStmt>(P)) {
      if (formOf(Wh->getCond()) != Lane::Inv)
        return true;
    } else if (isa<DoStmt, SwitchStmt>(P)) {
      return true;
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (Child != CO->getCond() && formOf(CO->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (B->isLogicalOp() && Child == B->getRHS() &&
          formOf(B->getLHS()) != Lane::Inv)
        return true;
    }
    if (is_contained(Region, P))
      return false;
  }
  return false;
}

void Widener::computeForms() {
  for (unsigned Round = 0; Round < 32; ++Round) {
    bool Changed = false;
    for (const VarDecl *VD : RegionVars) {
      Lane Old = formOfVar(VD);
      if (Old == Lane::Var)
        continue;
      Lane New = VD->getInit() ? formOf(VD->getInit()) : Lane::Inv;
      QualType T = VD->getType();
      if (AddressTaken.count(VD) || !T->isScalarType())
        New = Lane::Var;
      auto It = VarWritesIn.find(VD);
      if (It != VarWritesIn.end() && New != Lane::Var) {
        New = New == Lane::Aff ? Lane::Var : Lane::Inv;
        for (auto [Write, Value] : It->second)
          if (isControlled(Write) || formOf(Value) != Lane::Inv)
            New = Lane::Var;
      }
      New = std::max(New, Old);
      if (New != Old) {
        Forms[VD] = New;
        Changed = true;
      }
    }
    if (!Changed)
      return;
  }
}

/// Structural statements keep their header and hold further statements:
/// blocks, and loops and branches whose header every lane shares.
bool Widener::isStructural(const Stmt *S) {
  if (isa<CompoundStmt>(S))
    return true;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (F->getCond() && formOf(F->getCond()) != Lane::Inv)
      return false;
    if (const auto *E = dyn_cast_or_null<Expr>(F->getInc()))
      if (formOf(E) != Lane::Inv)
        return false;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (formOfVar(VD) != Lane::Inv)
            return false;
    } else if (const auto *E = dyn_cast_or_null<Expr>(F->getInit())) {
      if (formOf(E) != Lane::Inv)
        return false;
    }
    return !F->getConditionVariable();
  }
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return !W->getConditionVariable() && formOf(W->getCond()) == Lane::Inv;
  if (const auto *If = dyn_cast<IfStmt>(S))
    return !If->getInit() && !If->getConditionVariable() &&
           !If->isConsteval() && formOf(If->getCond()) == Lane::Inv;
  return false;
}

void Widener::classify(ArrayRef<const Stmt *> Seq) {
  for (const Stmt *S : Seq) {
    if (!S || isa<NullStmt>(S))
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      bool Shared = all_of(DS->decls(), [&](const Decl *D) {
        const auto *VD = dyn_cast<VarDecl>(D);
        return VD && formOfVar(VD) != Lane::Var;
      });
      if (!Shared)
        Units.insert(S);
      continue;
    }
    if (isStructural(S)) {
      Structural.insert(S);
      if (const auto *F = dyn_cast<ForStmt>(S))
        classify(getSequence(F->getBody()));
      else if (const auto *W = dyn_cast<WhileStmt>(S))
        classify(getSequence(W->getBody()));
      else if (const auto *If = dyn_cast<IfStmt>(S)) {
        classify(getSequence(If->getThen()));
        classify(getSequence(If->getElse()));
      } else
        classify(getSequence(S));
      continue;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      if (formOf(E) == Lane::Inv)
        continue; // a shared statement
    Units.insert(S);
  }
}

} // namespace vectorize

std::string widenRegion(ASTContext &Ctx, const FunctionDecl *K,
                        const VarDecl *IV, unsigned PartitionDeps,
                        ArrayRef<const Stmt *> Region, VecLoopPlan &Plan,
                        SourceLocation &Where) {
  vectorize::Widener W(Ctx, K, IV, PartitionDeps, Region, Plan);
  return W.run(Where);
}

} // namespace astra
