//===- VarUses.cpp - What a statement does to the variables it names ------===//
#include "astra/Frontend/VarUses.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace astra {

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
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      assign(B->getLHS(), B->getRHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      assign(U->getSubExpr(), nullptr);
    if (U->getOpcode() == UO_AddrOf)
      if (const VarDecl *VD = getIndexVar(U->getSubExpr())) {
        W.Modified.insert(VD);
        W.AddressTaken.insert(VD);
      }
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    OverloadedOperatorKind K = C->getOperator();
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
