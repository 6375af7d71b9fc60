//===- VectorizeLoadsPairsInline.cpp - Calls the pairs form inlines -------===//
//
// A call statement of a pairs-form body to a user device function that
// receives a pointer: which functions can be inlined per lane (defined in
// the input file, returning void, a straight-line body, parameters by value,
// template type parameters read from the arguments' types, no names besides
// its parameters and locals), and the mapping of parameters to arguments the
// analysis follows. See VectorizeLoadsPairs.cpp.
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsPairs.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {
/// The callee's template type parameter that \p T is (through cv), or null.
const TemplateTypeParmDecl *getTypeParm(QualType T) {
  const auto *TT = T->getAs<TemplateTypeParmType>();
  return TT ? TT->getDecl() : nullptr;
}

std::string printType(ASTContext &Ctx, QualType T) {
  return T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
}

} // namespace

bool PairsAnalyzer::inlineCall(const Stmt *S, const CallExpr *C) {
  Candidate = true;
  std::string Name = getCalleeName(C);
  auto No = [&](const Twine &Why) {
    return refuse(C->getBeginLoc(), "the body calls '" + Name +
                                        "' with a pointer, which the "
                                        "pairs form inlines only " +
                                        Why);
  };
  InlinedCall In;
  In.Call = C;
  const FunctionDecl *Pattern = nullptr;
  if (const FunctionDecl *FD = C->getDirectCallee()) {
    Pattern = FD->getTemplateInstantiationPattern();
    if (!Pattern)
      Pattern = FD;
    if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
      if (const FunctionTemplateDecl *FT =
              Pattern->getDescribedFunctionTemplate()) {
        const TemplateParameterList *TPL = FT->getTemplateParameters();
        for (unsigned I = 0; I < TPL->size() && I < Args->size(); ++I)
          if (Args->get(I).getKind() == TemplateArgument::Type)
            In.TypeArgs[TPL->getParam(I)] =
                printType(Ctx, Args->get(I).getAsType());
      }
  } else if (const auto *OE = dyn_cast<OverloadExpr>(
                 C->getCallee()->IgnoreParenImpCasts())) {
    if (OE->getNumDecls() != 1)
      return No("when exactly one function of that name is declared");
    const NamedDecl *ND = (*OE->decls_begin())->getUnderlyingDecl();
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(ND))
      Pattern = FT->getTemplatedDecl();
    else
      Pattern = dyn_cast<FunctionDecl>(ND);
    // Deduce each template type parameter from an argument: `T *p` or
    // `T v`.
    if (Pattern && Pattern->getNumParams() == C->getNumArgs())
      for (unsigned I = 0; I < C->getNumArgs(); ++I) {
        QualType PT = Pattern->getParamDecl(I)->getType();
        QualType AT = C->getArg(I)->getType();
        const TemplateTypeParmDecl *TP = nullptr;
        std::string Text;
        if (const auto *Ptr = PT->getAs<PointerType>()) {
          TP = getTypeParm(Ptr->getPointeeType());
          if (TP && AT->isPointerType())
            Text = printType(Ctx, AT->getPointeeType());
        } else if ((TP = getTypeParm(PT)) && !AT->isDependentType() &&
                   !AT.isNull()) {
          Text = printType(Ctx, AT);
        } else if ((TP = getTypeParm(PT)) &&
                   AT->getAs<TemplateTypeParmType>()) {
          Text = printType(Ctx, AT);
        }
        if (!TP)
          continue;
        if (Text.empty())
          return No("when its template parameters can be read from the "
                    "arguments' types");
        auto [It, New] = In.TypeArgs.try_emplace(TP, Text);
        if (!New && It->second != Text)
          return No("when its template parameters can be read from the "
                    "arguments' types");
      }
  }
  if (!Pattern || !Pattern->doesThisDeclarationHaveABody())
    return No("when its definition is in the input file");
  if (!SM.isWrittenInMainFile(SM.getFileLoc(Pattern->getLocation())) ||
      Pattern->getBody()->getBeginLoc().isMacroID())
    return No("when its definition is in the input file");
  if (Pattern->isVariadic() || Pattern->getNumParams() != C->getNumArgs())
    return No("when every parameter gets an argument");
  if (!Pattern->getReturnType()->isVoidType())
    return No("when it returns void");
  if (const FunctionTemplateDecl *FT = Pattern->getDescribedFunctionTemplate())
    for (const NamedDecl *TP : *FT->getTemplateParameters())
      if (!In.TypeArgs.count(TP))
        return No("when its template parameters are types read from the "
                  "arguments");
  for (const ParmVarDecl *P : Pattern->parameters()) {
    QualType T = P->getType();
    if (T->isReferenceType() || (!T->isDependentType() && !T->isScalarType()))
      return No("when its parameters are scalars or pointers passed by value");
  }
  // Names the body refers to must mean the same inside the kernel.
  struct Refs : RecursiveASTVisitor<Refs> {
    const FunctionDecl *F;
    const VarDecl *Outside = nullptr;
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD->getDeclContext() != F && !Outside)
          Outside = VD;
      return true;
    }
  } R;
  R.F = Pattern;
  R.TraverseStmt(Pattern->getBody());
  if (R.Outside)
    return No("when its body uses only its parameters and locals (it uses '" +
              R.Outside->getName() + "')");
  const auto *CB = dyn_cast<CompoundStmt>(Pattern->getBody());
  if (!CB)
    return No("when it has a body");
  In.Callee = Pattern;
  unsigned Index = Calls.size();
  Calls.push_back(In);
  CallOf[S] = Index;
  // The arguments: checked and scanned as kernel expressions.
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    if (!checkExpr(C->getArg(I), C, false))
      return false;
    ParamArg[Pattern->getParamDecl(I)] = C->getArg(I);
    ParamIndex[Pattern->getParamDecl(I)] = I;
  }
  for (const Stmt *CS : CB->body()) {
    if (isa<ReturnStmt>(CS))
      return refuse(CS->getBeginLoc(), "'" + Name + "' returns early");
    if (!scanStatement(CS, &Calls[Index]))
      return false;
  }
  return Reason.empty();
}

} // namespace vectorize
} // namespace astra
