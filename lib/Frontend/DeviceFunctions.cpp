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

using namespace llvm;
using namespace clang;

namespace astra {

std::string getFunctionSelector(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return MD->getParent()->getNameAsString() + "::" + FD->getNameAsString();
  return FD->getNameAsString();
}

std::string getInstantiationName(const FunctionDecl *Spec) {
  ModelSource Src(Spec->getASTContext(), "");
  return Spec->getNameAsString() + "<" +
         join(getTemplateArgs(Src, Spec), ", ") + ">";
}

namespace {

/// The functions a body names: what it calls (for an unresolved call, every
/// candidate) and functions it passes by name.
class CalleeFinder : public RecursiveASTVisitor<CalleeFinder> {
public:
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *FD = C->getDirectCallee()) {
      add(FD);
      return true;
    }
    const auto *OE =
        dyn_cast<OverloadExpr>(C->getCallee()->IgnoreParenImpCasts());
    if (!OE)
      return true;
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

  std::vector<const FunctionDecl *> Found;

private:
  void add(const FunctionDecl *FD) {
    if (!is_contained(Found, FD))
      Found.push_back(FD);
  }
};

class GraphBuilder {
public:
  explicit GraphBuilder(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}

  void addKernel(const FunctionDecl *K);
  std::vector<DeviceFunction> take() { return std::move(Out); }

private:
  /// Walks the functions \p Body reaches on behalf of kernel \p Kernel,
  /// shown as \p Label.
  void reach(const FunctionDecl *Body, StringRef Kernel, StringRef Label,
             DenseSet<const FunctionDecl *> &Seen);
  DeviceFunction &record(const FunctionDecl *Fn, StringRef Kernel,
                         StringRef Label);
  /// Functions named by the template arguments of \p Spec.
  void addTemplateArguments(const FunctionDecl *Spec, StringRef Kernel,
                            StringRef Label);
  bool isUserCode(const FunctionDecl *FD) const {
    return !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
  }

  const SourceManager &SM;
  std::vector<DeviceFunction> Out;
  DenseMap<const FunctionDecl *, size_t> Index;
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

void GraphBuilder::reach(const FunctionDecl *Body, StringRef Kernel,
                         StringRef Label,
                         DenseSet<const FunctionDecl *> &Seen) {
  CalleeFinder F;
  F.TraverseStmt(Body->getBody());
  for (const FunctionDecl *Callee : F.Found) {
    // An instantiation keeps its own (resolved) body; the pattern is what
    // is recorded.
    // A lambda's body is part of the function that writes it.
    const FunctionDecl *Def = Callee->getDefinition();
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Def);
    if (!Def || !Def->hasAttr<CUDADeviceAttr>() ||
        Def->hasAttr<CUDAGlobalAttr>() || !isUserCode(Def) ||
        (MD && MD->getParent()->isLambda()) || !Seen.insert(Def).second)
      continue;
    const FunctionDecl *Pattern = Def->getTemplateInstantiationPattern();
    record(Pattern ? Pattern : Def, Kernel, Label);
    reach(Def, Kernel, Label, Seen);
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
  return G.take();
}

std::vector<DeviceFunction> findDeviceFunctions(const FunctionDecl *Kernel) {
  GraphBuilder G(Kernel->getASTContext());
  G.addKernel(Kernel);
  return G.take();
}

} // namespace astra
