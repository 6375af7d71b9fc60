//===- Dataflow.cpp - Uses, changes and invariance of variables -----------===//
#include "Dataflow.h"
#include "SiteUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

ChangedVars::ChangedVars(ASTContext &Ctx, const FunctionDecl *Fn,
                         const Stmt *RegionStmt)
    : SM(Ctx.getSourceManager()), Region(RegionStmt->getSourceRange()),
      InRegion(RegionStmt) {
  InFunction.collectEscapes(Ctx, Fn->getBody());
}

bool ChangedVars::isDeclaredInside(const VarDecl *V) const {
  SourceLocation L = SM.getExpansionLoc(V->getLocation());
  return !SM.isBeforeInTranslationUnit(L,
                                       SM.getExpansionLoc(Region.getBegin())) &&
         !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Region.getEnd()), L);
}

//===----------------------------------------------------------------------===//
// Invariance
//===----------------------------------------------------------------------===//

bool isPureMathFunction(StringRef Name) {
  static const StringSet<> Pure = [] {
    StringSet<> S;
    for (StringRef Base :
         {"exp",   "exp2",  "exp10", "expm1", "log",   "log2",  "log10",
          "log1p", "sqrt",  "rsqrt", "cbrt",  "rcbrt", "sin",   "cos",
          "tan",   "sinh",  "cosh",  "tanh",  "asin",  "acos",  "atan",
          "atan2", "pow",   "fabs",  "fmin",  "fmax",  "floor", "ceil",
          "trunc", "round", "rint",  "fma",   "hypot", "erf",   "erfc",
          "sinpi", "cospi"}) {
      S.insert(Base);
      S.insert((Base + "f").str());
    }
    for (StringRef Intrinsic :
         {"__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
          "__cosf", "__tanf", "__powf", "__fdividef", "__frcp_rn", "__fsqrt_rn",
          "__frsqrt_rn", "__saturatef", "min", "max"})
      S.insert(Intrinsic);
    return S;
  }();
  return Pure.count(Name);
}

static std::string print(ASTContext &Ctx, const Stmt *S) {
  std::string Text;
  raw_string_ostream OS(Text);
  S->printPretty(OS, nullptr, PrintingPolicy(Ctx.getLangOpts()));
  return Text;
}

bool isInvariant(ASTContext &Ctx, const Expr *E, const ChangedVars &CV,
                 std::string &Why, bool AllowIntDivision) {
  E = E->IgnoreParens();
  auto Fail = [&](const Twine &Msg) {
    Why = Msg.str();
    return false;
  };
  auto All = [&](std::initializer_list<const Expr *> Subs) {
    for (const Expr *Sub : Subs)
      if (!isInvariant(Ctx, Sub, CV, Why, AllowIntDivision))
        return false;
    return true;
  };
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr>(E) ||
      matchCudaBuiltin(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return Fail("'" + D->getName() + "' is not a variable");
    if (V->getType()->isReferenceType())
      return Fail("'" + V->getName() + "' is a reference");
    if (!V->hasLocalStorage())
      return V->getType().isConstQualified() &&
                     !V->getType().isVolatileQualified()
                 ? true
                 : Fail("'" + V->getName() +
                        "' is a non-const global that the loop may change");
    if (CV.isDeclaredInside(V))
      return Fail("'" + V->getName() + "' is declared inside the loop");
    if (CV.mayChange(V))
      return Fail("'" + V->getName() +
                  "' is modified in the loop or has its address taken");
    return true;
  }
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    if (Cast->getCastKind() == CK_UserDefinedConversion ||
        Cast->getCastKind() == CK_ConstructorConversion ||
        (isa<ExplicitCastExpr>(E) && !E->getType()->isArithmeticType()))
      return Fail("'" + print(Ctx, E) + "' is not a plain arithmetic cast");
    return All({Cast->getSubExpr()});
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    switch (UO->getOpcode()) {
    case UO_Plus:
    case UO_Minus:
    case UO_Not:
    case UO_LNot:
      return All({UO->getSubExpr()});
    default:
      return Fail("'" + print(Ctx, E) + "' reads memory or has side effects");
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp() || BO->isCommaOp())
      return Fail("'" + print(Ctx, E) + "' has side effects");
    if ((BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Rem) &&
        !BO->getType()->isRealFloatingType() && !AllowIntDivision)
      return Fail("'" + print(Ctx, E) +
                  "' is an integer division (undefined for a zero divisor, so "
                  "it cannot be evaluated ahead)");
    return All({BO->getLHS(), BO->getRHS()});
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return All({CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr()});
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !isLibraryFunction(FD) || !isPureMathFunction(FD->getName()))
      return Fail("'" + print(Ctx, Call->getCallee()) +
                  "' is not a known side-effect-free math function");
    for (const Expr *Arg : Call->arguments())
      if (!All({Arg}))
        return false;
    return true;
  }
  if (isa<ArraySubscriptExpr, MemberExpr>(E))
    return Fail("'" + print(Ctx, E) + "' reads memory that may change");
  if (E->isTypeDependent() || E->isValueDependent())
    return Fail("'" + print(Ctx, E) + "' depends on a template parameter");
  return Fail("'" + print(Ctx, E) + "' is a " + E->getStmtClassName() +
              ", an expression the invariance check does not follow");
}

std::vector<const DeclRefExpr *> findAllRefs(const Stmt *S) {
  struct Collector : RecursiveASTVisitor<Collector> {
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      Refs.push_back(E);
      return true;
    }
  } C;
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.Refs;
}

std::vector<const DeclRefExpr *> findRefs(const Stmt *S, const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V = nullptr;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (E->getDecl() == V)
        Refs.push_back(E);
      return true;
    }
  } F;
  F.V = V;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Refs;
}
} // namespace astra
