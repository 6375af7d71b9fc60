//===- ExprMatch.cpp - Matching expressions of CUDA code ------------------===//
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace llvm;

namespace astra {

const Expr *stripIntCasts(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
    if (!Cast || !Cast->getType()->isIntegerType())
      return E;
    E = Cast->getSubExpr();
  }
  return E;
}

const Expr *stripParens(const Expr *E) {
  E = E->IgnoreImplicit();
  while (const auto *P = dyn_cast<ParenExpr>(E))
    E = P->getSubExpr()->IgnoreImplicit();
  return E;
}

const Expr *stripCasts(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(Next))
      Next = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

bool matchBinary(const Expr *E, BinaryOperatorKind &Op, const Expr *&LHS,
                 const Expr *&RHS) {
  E = E->IgnoreParens();
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    Op = BO->getOpcode();
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    return true;
  }
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
  if (!OC || OC->getNumArgs() != 2 || !OC->isInfixBinaryOp())
    return false;
  Op = BinaryOperator::getOverloadedOpcode(OC->getOperator());
  LHS = OC->getArg(0);
  RHS = OC->getArg(1);
  return true;
}

bool matchUnary(const Expr *E, UnaryOperatorKind &Op, const Expr *&Sub) {
  E = E->IgnoreParens();
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    Op = UO->getOpcode();
    Sub = UO->getSubExpr();
    return true;
  }
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
  if (!OC || OC->getNumArgs() < 1 || OC->getNumArgs() > 2)
    return false;
  OverloadedOperatorKind K = OC->getOperator();
  bool Postfix = OC->getNumArgs() == 2;
  if (Postfix && K != OO_PlusPlus && K != OO_MinusMinus)
    return false;
  // One argument is also a call of a functor or lambda with no arguments
  // (`f()`) or `x->`: no unary operator (getOverloadedOpcode would trap).
  if (!Postfix && K != OO_Plus && K != OO_Minus && K != OO_Star &&
      K != OO_Amp && K != OO_Tilde && K != OO_Exclaim && K != OO_PlusPlus &&
      K != OO_MinusMinus && K != OO_Coawait)
    return false;
  Op = UnaryOperator::getOverloadedOpcode(K, Postfix);
  Sub = OC->getArg(0);
  return true;
}

std::optional<CudaBuiltin> matchCudaBuiltin(const Expr *E) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
    E = PO->getSyntacticForm()->IgnoreParens();
  const Expr *Base = nullptr;
  StringRef Field;
  if (const auto *MP = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = MP->getBaseExpr();
    Field = MP->getPropertyDecl()->getName();
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    Base = ME->getBase();
    Field = ME->getMemberDecl()->getName();
  }
  if (!Base)
    return std::nullopt;
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE || (Field != "x" && Field != "y" && Field != "z"))
    return std::nullopt;
  StringRef Var = DRE->getDecl()->getName();
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
      Var != "gridDim")
    return std::nullopt;
  return CudaBuiltin{Var.str(), Field[0], DRE};
}

std::string getBuiltinVarName(const Expr *E) {
  std::optional<CudaBuiltin> B = matchCudaBuiltin(stripCasts(E));
  return B ? B->str() : "";
}

const VarDecl *getReferencedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripCasts(E)))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

const VarDecl *getIndexVar(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripIntCasts(E)))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

std::string getCalleeName(const CallExpr *Call) {
  if (const FunctionDecl *FD = Call->getDirectCallee())
    return FD->getDeclName().getAsString();
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *OE = dyn_cast<OverloadExpr>(Callee))
    return OE->getName().getAsString();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
    return DRE->getDecl()->getDeclName().getAsString();
  return "";
}

} // namespace astra
