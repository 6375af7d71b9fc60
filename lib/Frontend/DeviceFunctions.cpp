//===- DeviceFunctions.cpp - Device functions the kernels reach -----------===//
//
// A kernel template's body as written does not say which function a
// function-pointer template parameter calls (`ACT_FN(x)`), and calls with
// template-dependent arguments are not resolved there. So each kernel is
// walked twice: its body as written (what every instantiation reaches, named
// by the kernel's source name), then the body of each instantiation, where
// Clang has resolved every call (what that instantiation reaches, named by
// it). Functions are recorded by their pattern: the body a rewrite edits.
//
// What a body runs is more than its calls: the constructors of what it
// constructs (with their member initialisers, in-class ones included), the
// destructors of its locals and temporaries, the calls a range-based for
// makes, default arguments, and the body of a lambda written elsewhere that
// it calls. A call through a pointer has no callee to follow: it is kept
// for the rewrites to refuse (DeviceReach::IndirectCalls).
//
//===----------------------------------------------------------------------===//
#include "astra/Frontend/DeviceFunctions.h"
#include "ModelSource.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <optional>

using namespace llvm;
using namespace clang;

namespace astra {

std::string getFunctionSelector(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    if (RD->isLambda()) {
      const SourceManager &SM = FD->getASTContext().getSourceManager();
      SourceLocation L = SM.getExpansionLoc(RD->getLocation());
      return "(lambda at " + std::to_string(SM.getSpellingLineNumber(L)) + ":" +
             std::to_string(SM.getSpellingColumnNumber(L)) +
             ")::" + FD->getNameAsString();
    }
    return RD->getNameAsString() + "::" + FD->getNameAsString();
  }
  return FD->getNameAsString();
}

std::string getInstantiationName(const FunctionDecl *Spec) {
  ModelSource Src(Spec->getASTContext(), "");
  return Spec->getNameAsString() + "<" +
         join(getTemplateArgs(Src, Spec), ", ") + ">";
}

namespace {

/// The functions a body runs: what it calls (for an unresolved call, every
/// candidate), functions it passes by name, the constructors and destructors
/// it runs; and what it evaluates that is written elsewhere (in-class member
/// initialisers, default arguments) and the calls with no callee.
class CalleeFinder : public RecursiveASTVisitor<CalleeFinder> {
public:
  explicit CalleeFinder(ASTContext &Ctx) : Ctx(Ctx) {}
  /// Implicit code runs too: a range-based for's begin/end/++ calls, the
  /// constructor calls of member initialisers, lambdas' classes.
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *FD = C->getDirectCallee()) {
      add(FD);
      return true;
    }
    const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
    const auto *OE = dyn_cast<OverloadExpr>(Callee);
    if (!OE) {
      // A dependent callee is resolved in each instantiation, which is
      // walked too; a pseudo-destructor runs nothing.
      if (!C->isTypeDependent() && !Callee->isTypeDependent() &&
          !Callee->isValueDependent() &&
          !isa<CXXPseudoDestructorExpr>(Callee) &&
          !is_contained(IndirectCalls, C))
        IndirectCalls.push_back(C);
      return true;
    }
    for (const NamedDecl *ND : OE->decls()) {
      ND = ND->getUnderlyingDecl();
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(ND))
        add(FT->getTemplatedDecl());
      else if (const auto *FD = dyn_cast<FunctionDecl>(ND))
        add(FD);
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    if (const auto *FD = dyn_cast<FunctionDecl>(D->getDecl()))
      add(FD);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    if (const CXXConstructorDecl *Ctor = E->getConstructor())
      if (!Ctor->isTrivial())
        add(Ctor);
    return true;
  }
  bool VisitCXXInheritedCtorInitExpr(CXXInheritedCtorInitExpr *E) {
    add(E->getConstructor());
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (!isa<ParmVarDecl>(V) && !V->getType()->isDependentType() &&
        !V->getType()->isReferenceType())
      addDestructor(V->getType());
    return true;
  }
  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *E) {
    if (const CXXDestructorDecl *D = E->getTemporary()->getDestructor())
      add(D);
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    if (!E->getDestroyedType().isNull() &&
        !E->getDestroyedType()->isDependentType())
      addDestructor(E->getDestroyedType());
    return true;
  }
  bool TraverseCXXDefaultArgExpr(CXXDefaultArgExpr *E) {
    return elsewhere(E->getExpr());
  }
  bool TraverseCXXDefaultInitExpr(CXXDefaultInitExpr *E) {
    return elsewhere(E->getExpr());
  }

  /// Traverses what running \p Fn evaluates: its body, a constructor's
  /// member initialisers (implicit ones included), and for a destructor the
  /// destructors of the members and bases it destroys.
  void traverseFunction(const FunctionDecl *Fn) {
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn))
      for (const CXXCtorInitializer *I : Ctor->inits())
        TraverseStmt(I->getInit());
    if (const auto *Dtor = dyn_cast<CXXDestructorDecl>(Fn)) {
      const CXXRecordDecl *RD = Dtor->getParent();
      for (const FieldDecl *F : RD->fields())
        if (!F->getType()->isReferenceType())
          addDestructor(F->getType());
      for (const CXXBaseSpecifier &B : RD->bases())
        addDestructor(B.getType());
    }
    TraverseStmt(Fn->getBody());
  }

  std::vector<const FunctionDecl *> Found;
  std::vector<const Expr *> Elsewhere;
  std::vector<const CallExpr *> IndirectCalls;

private:
  void add(const FunctionDecl *FD) {
    if (FD && !is_contained(Found, FD))
      Found.push_back(FD);
  }
  /// The destructor that ends an object of type \p T, if it does anything.
  void addDestructor(QualType T) {
    const auto *RD = Ctx.getBaseElementType(T)->getAsCXXRecordDecl();
    if (RD && RD->hasDefinition() && !RD->hasTrivialDestructor())
      add(RD->getDestructor());
  }
  bool elsewhere(Expr *E) {
    if (!E || is_contained(Elsewhere, E))
      return true;
    Elsewhere.push_back(E);
    return TraverseStmt(E);
  }

  ASTContext &Ctx;
};

class GraphBuilder {
public:
  explicit GraphBuilder(ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  void addKernel(const FunctionDecl *K);
  DeviceReach take() {
    Reach.Functions = std::move(Out);
    return std::move(Reach);
  }

private:
  /// Walks the functions \p Body reaches on behalf of kernel \p Kernel,
  /// shown as \p Label; \p Own is the index of \p Body's record (none for
  /// the kernel).
  void reach(const FunctionDecl *Body, StringRef Kernel, StringRef Label,
             DenseSet<const FunctionDecl *> &Seen,
             std::optional<size_t> Own = std::nullopt);
  DeviceFunction &record(const FunctionDecl *Fn, StringRef Kernel,
                         StringRef Label);
  /// Functions named by the template arguments of \p Spec.
  void addTemplateArguments(const FunctionDecl *Spec, StringRef Kernel,
                            StringRef Label);
  bool isUserCode(const FunctionDecl *FD) const {
    return !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
  }
  /// Whether \p D is written inside \p Fn's text.
  bool isWrittenIn(const Decl *D, const FunctionDecl *Fn) const {
    SourceRange R = Fn->getSourceRange();
    return R.isValid() && SM.isPointWithin(SM.getExpansionLoc(D->getLocation()),
                                           SM.getExpansionLoc(R.getBegin()),
                                           SM.getExpansionLoc(R.getEnd()));
  }
  /// Whether the lambda \p RD is written in the body being walked, the
  /// kernel, or a function already recorded: a scan of that one sees it.
  bool isLambdaSeen(const CXXRecordDecl *RD, const FunctionDecl *Body) const;

  ASTContext &Ctx;
  const SourceManager &SM;
  std::vector<DeviceFunction> Out;
  DeviceReach Reach;
  DenseMap<const FunctionDecl *, size_t> Index;
  /// The kernel being walked (its pattern).
  const FunctionDecl *Root = nullptr;
};

} // namespace

DeviceFunction &GraphBuilder::record(const FunctionDecl *Fn, StringRef Kernel,
                                     StringRef Label) {
  auto [It, New] = Index.try_emplace(Fn, Out.size());
  if (New) {
    DeviceFunction DF;
    DF.Fn = Fn;
    DF.Name = getFunctionSelector(Fn);
    DF.InMainFile =
        SM.isWrittenInMainFile(SM.getExpansionLoc(Fn->getLocation()));
    Out.push_back(std::move(DF));
  }
  DeviceFunction &DF = Out[It->second];
  if (!is_contained(DF.Kernels, Kernel))
    DF.Kernels.push_back(Kernel.str());
  // A kernel's body reaching it covers all of its instantiations.
  if (!is_contained(DF.ReachedFrom, Kernel) &&
      !is_contained(DF.ReachedFrom, Label))
    DF.ReachedFrom.push_back(Label.str());
  return DF;
}

bool GraphBuilder::isLambdaSeen(const CXXRecordDecl *RD,
                                const FunctionDecl *Body) const {
  if (isWrittenIn(RD, Body) || (Root && isWrittenIn(RD, Root)))
    return true;
  for (const auto &[Fn, I] : Index)
    if (Fn->hasBody() && isWrittenIn(RD, Fn))
      return true;
  return false;
}

static void appendNew(std::vector<const Expr *> &To,
                      ArrayRef<const Expr *> From) {
  for (const Expr *E : From)
    if (!is_contained(To, E))
      To.push_back(E);
}

void GraphBuilder::reach(const FunctionDecl *Body, StringRef Kernel,
                         StringRef Label, DenseSet<const FunctionDecl *> &Seen,
                         std::optional<size_t> Own) {
  CalleeFinder F(Ctx);
  F.traverseFunction(Body);
  appendNew(Own ? Out[*Own].Elsewhere : Reach.Elsewhere, F.Elsewhere);
  for (const CallExpr *C : F.IndirectCalls)
    if (!is_contained(Reach.IndirectCalls, C))
      Reach.IndirectCalls.push_back(C);
  for (const FunctionDecl *Callee : F.Found) {
    // An instantiation keeps its own (resolved) body; the pattern is what
    // is recorded.
    // A lambda's body is part of the function that writes it, when that is
    // scanned too; one written elsewhere (a device lambda of the host code
    // passed to a kernel template) is recorded.
    const FunctionDecl *Def = Callee->getDefinition();
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Def);
    if (!Def || !Def->hasAttr<CUDADeviceAttr>() ||
        Def->hasAttr<CUDAGlobalAttr>() || !isUserCode(Def) ||
        (MD && MD->getParent()->isLambda() &&
         isLambdaSeen(MD->getParent(), Body)) ||
        !Seen.insert(Def).second)
      continue;
    const FunctionDecl *Pattern = Def->getTemplateInstantiationPattern();
    record(Pattern ? Pattern : Def, Kernel, Label);
    reach(Def, Kernel, Label, Seen, Index.lookup(Pattern ? Pattern : Def));
  }
}

void GraphBuilder::addTemplateArguments(const FunctionDecl *Spec,
                                        StringRef Kernel, StringRef Label) {
  const TemplateArgumentList *Args = Spec->getTemplateSpecializationArgs();
  const FunctionTemplateDecl *T = Spec->getPrimaryTemplate();
  if (!Args || !T)
    return;
  const TemplateParameterList *Params = T->getTemplateParameters();
  for (unsigned I = 0; I < Args->size() && I < Params->size(); ++I) {
    if ((*Args)[I].getKind() != TemplateArgument::Declaration)
      continue;
    const auto *FD = dyn_cast<FunctionDecl>((*Args)[I].getAsDecl());
    if (!FD || !isUserCode(FD))
      continue;
    // With a body, the walk has found it if the instantiation calls it.
    const FunctionDecl *Def = FD->getDefinition();
    if (const FunctionDecl *Pattern =
            Def ? Def->getTemplateInstantiationPattern() : nullptr)
      Def = Pattern;
    if (Def && !Index.count(Def))
      continue;
    DeviceFunction &DF =
        record(Def ? Def : FD->getCanonicalDecl(), Kernel, Label);
    DF.HasBody = Def != nullptr;
    if (DF.TemplateParam.empty())
      DF.TemplateParam = Params->getParam(I)->getNameAsString();
  }
}

void GraphBuilder::addKernel(const FunctionDecl *K) {
  Root = K;
  std::string Name = K->getNameAsString();
  DenseSet<const FunctionDecl *> Seen{K};
  reach(K, Name, Name, Seen);
  for (const FunctionDecl *Spec : getInstantiations(K)) {
    TemplateSpecializationKind TSK = Spec->getTemplateSpecializationKind();
    if (TSK == TSK_ExplicitSpecialization || TSK == TSK_Undeclared ||
        !Spec->hasBody())
      continue;
    std::string Label = getInstantiationName(Spec);
    DenseSet<const FunctionDecl *> SpecSeen{Spec};
    reach(Spec, Name, Label, SpecSeen);
    addTemplateArguments(Spec, Name, Label);
  }
}

std::vector<DeviceFunction> findDeviceFunctions(ASTContext &Ctx) {
  GraphBuilder G(Ctx);
  for (const FunctionDecl *K : findKernels(Ctx))
    G.addKernel(K);
  return G.take().Functions;
}

std::vector<DeviceFunction> findDeviceFunctions(const FunctionDecl *Kernel) {
  return findDeviceReach(Kernel).Functions;
}

DeviceReach findDeviceReach(const FunctionDecl *Kernel) {
  GraphBuilder G(Kernel->getASTContext());
  G.addKernel(Kernel);
  return G.take();
}

} // namespace astra
