//===- ModelSource.cpp - Source text and locations for the model ----------===//
#include "ModelSource.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace astra {

PrintingPolicy ModelSource::getPolicy() const {
  PrintingPolicy P = Ctx.getPrintingPolicy();
  P.SuppressTagKeyword = true;
  P.SuppressScope = false;
  P.Bool = true;
  return P;
}

static std::string collapseSpaces(llvm::StringRef S) {
  std::string Out;
  bool Space = false;
  for (char C : S.trim()) {
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\\') {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

std::string ModelSource::getText(SourceRange R) const {
  if (R.isInvalid())
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return "";
  bool Invalid = false;
  llvm::StringRef Text =
      Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  return Invalid ? "" : collapseSpaces(Text);
}

std::string ModelSource::getText(const Expr *E) const {
  if (!E)
    return "";
  std::string S = getText(E->getSourceRange());
  if (!S.empty())
    return S;
  llvm::raw_string_ostream OS(S);
  E->printPretty(OS, nullptr, getPolicy());
  return collapseSpaces(S);
}

std::string ModelSource::print(QualType T) const {
  return T.getAsString(getPolicy());
}

DiagLoc ModelSource::getLoc(SourceLocation Loc) const {
  DiagLoc D;
  if (Loc.isInvalid())
    return D;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation E = SM.getFileLoc(Loc);
  PresumedLoc P = SM.getPresumedLoc(E);
  if (P.isInvalid())
    return D;
  D.File = SM.isWrittenInMainFile(E) ? FileName : P.getFilename();
  D.Line = P.getLine();
  D.Col = P.getColumn();
  return D;
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
  Op = UnaryOperator::getOverloadedOpcode(K, Postfix);
  Sub = OC->getArg(0);
  return true;
}

std::string getBuiltinVarName(const Expr *E) {
  E = stripCasts(E);
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
    E = PO->getSyntacticForm()->IgnoreParens();
  const Expr *Base = nullptr;
  std::string Field;
  if (const auto *MP = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = MP->getBaseExpr();
    Field = MP->getPropertyDecl()->getName().str();
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    Base = ME->getBase();
    Field = ME->getMemberDecl()->getName().str();
  }
  if (Base) {
    Base = Base->IgnoreParenImpCasts();
    if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
      Base = OVE->getSourceExpr();
  }
  const auto *DRE =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  if (!DRE)
    return "";
  llvm::StringRef Var = DRE->getDecl()->getName();
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
      Var != "gridDim")
    return "";
  return (Var + "." + Field).str();
}

const VarDecl *getReferencedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripCasts(E)))
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
