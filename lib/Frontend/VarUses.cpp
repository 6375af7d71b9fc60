//===- VarUses.cpp - What a statement does to the variables it names ------===//
#include "astra/Frontend/VarUses.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace astra {

bool isConstScalar(const VarDecl *V) {
  QualType T = V->getType();
  return T.isConstQualified() && !T.isVolatileQualified() && T->isScalarType();
}

namespace {
struct WriteCollector : RecursiveASTVisitor<WriteCollector> {
  VarUses &W;
  explicit WriteCollector(VarUses &W) : W(W) {}
  void assign(const Expr *LHS, const Expr *RHS) {
    if (const VarDecl *VD = getIndexVar(LHS)) {
      W.Modified.insert(VD);
      if (RHS)
        W.Assigned[VD].push_back(RHS);
    }
  }
  void addressTaken(const VarDecl *VD) {
    if (!isConstScalar(VD))
      W.Modified.insert(VD);
    W.AddressTaken.insert(VD);
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      assign(B->getLHS(), B->getRHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      assign(U->getSubExpr(), nullptr);
    if (U->getOpcode() == UO_AddrOf)
      if (const VarDecl *VD = getIndexVar(U->getSubExpr()))
        addressTaken(VD);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    OverloadedOperatorKind K = C->getOperator();
    if (K == OO_Amp && C->getNumArgs() == 1)
      if (const VarDecl *VD = getIndexVar(C->getArg(0)))
        addressTaken(VD);
    if (C->getNumArgs() >= 1 &&
        (C->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus))
      assign(C->getArg(0),
             C->getNumArgs() > 1 && K != OO_PlusPlus && K != OO_MinusMinus
                 ? C->getArg(1)
                 : nullptr);
    return true;
  }
};
} // namespace

UseKind classifyUse(ASTContext &Ctx, const Expr *E) {
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return UseKind::Escape;
    if (const auto *P = Parents[0].get<ParenExpr>()) {
      Cur = P;
      continue;
    }
    if (const auto *Cast = Parents[0].get<ImplicitCastExpr>()) {
      if (Cast->getCastKind() == CK_LValueToRValue)
        return UseKind::Read;
      if (Cast->getCastKind() == CK_NoOp) {
        Cur = Cast;
        continue;
      }
      return UseKind::Escape;
    }
    // An index is read by value (in template code it has no implicit load).
    if (const auto *Sub = Parents[0].get<ArraySubscriptExpr>())
      return Sub->getIdx() == Cur ? UseKind::Read : UseKind::Escape;
    if (const auto *UO = Parents[0].get<UnaryOperator>())
      return UO->isIncrementDecrementOp() ? UseKind::Write : UseKind::Escape;
    if (const auto *BO = Parents[0].get<BinaryOperator>())
      return BO->isAssignmentOp() && BO->getLHS() == Cur ? UseKind::Write
                                                         : UseKind::Escape;
    return UseKind::Escape;
  }
}

namespace {
struct EscapeCollector : RecursiveASTVisitor<EscapeCollector> {
  ASTContext &Ctx;
  VarUses &W;
  EscapeCollector(ASTContext &Ctx, VarUses &W) : Ctx(Ctx), W(W) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (V && V->hasLocalStorage() && !isConstScalar(V) &&
        classifyUse(Ctx, E) == UseKind::Escape)
      W.Escaped.insert(V);
    return true;
  }
  /// A capture by reference is no DeclRefExpr of the enclosing function
  /// (implicit ones are not even visited): the lambda's body may write the
  /// variable wherever the lambda is called, so it escapes.
  bool VisitLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          W.Escaped.insert(V);
    return true;
  }
};
} // namespace

void VarUses::collectEscapes(ASTContext &Ctx, const Stmt *S) {
  EscapeCollector C(Ctx, *this);
  C.TraverseStmt(const_cast<Stmt *>(S));
}

void VarUses::collect(const Stmt *S) {
  WriteCollector C(*this);
  C.TraverseStmt(const_cast<Stmt *>(S));
}

const Expr *resolveValue(const Expr *E, const VarUses &W) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const VarDecl *VD = getIndexVar(E);
    if (!VD || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
        !VD->getInit() || W.Modified.count(VD))
      break;
    E = VD->getInit();
  }
  return stripIntCasts(E);
}

} // namespace astra
