//===- KernelReplacement.cpp - A kernel's source, and checks on new ones --===//
#include "astra/Frontend/KernelReplacement.h"
#include "astra/Frontend/DeviceSlice.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Support/ClangInvocation.h"
#include "astra/Support/Error.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
/// The whole declaration of \p F (its template, when it has one) as file
/// offsets of the main file; std::nullopt when it is not written there.
std::optional<std::pair<unsigned, unsigned>>
mainFileRange(ASTContext &Ctx, const FunctionDecl *F) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Decl *Whole = F;
  if (const FunctionTemplateDecl *T = F->getDescribedFunctionTemplate())
    Whole = T;
  CharSourceRange R = CharSourceRange::getTokenRange(
      SM.getExpansionRange(Whole->getSourceRange()).getAsRange());
  R = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (R.isInvalid() || !SM.isInMainFile(R.getBegin()))
    return std::nullopt;
  return std::make_pair(SM.getFileOffset(R.getBegin()),
                        SM.getFileOffset(R.getEnd()));
}

const FunctionDecl *findKernel(ASTContext &Ctx, StringRef Name) {
  for (const FunctionDecl *K : findKernels(Ctx))
    if (K->getName() == Name)
      return K;
  return nullptr;
}

/// The pattern a call resolves to (a template's templated declaration).
const FunctionDecl *patternOf(const FunctionDecl *F) {
  if (const FunctionTemplateDecl *T = F->getPrimaryTemplate())
    F = T->getTemplatedDecl();
  if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
    F = P;
  const FunctionDecl *Def = nullptr;
  if (F->hasBody(Def))
    return Def;
  return F;
}

/// Functions called from a body, including those of template instantiations.
class CalleeCollector : public RecursiveASTVisitor<CalleeCollector> {
public:
  std::vector<const FunctionDecl *> Found;
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *F = C->getDirectCallee())
      Found.push_back(patternOf(F));
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    if (const FunctionDecl *F = C->getConstructor())
      Found.push_back(patternOf(F));
    return true;
  }
};

/// What a replacement must keep: template parameters and parameter types,
/// canonical (names of template parameters do not matter).
struct Signature {
  std::vector<std::string> TemplateParams, Params, ParamsAsWritten;
  bool operator==(const Signature &O) const {
    return TemplateParams == O.TemplateParams && Params == O.Params;
  }
};
Signature signatureOf(const FunctionDecl *K) {
  Signature S;
  if (const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate())
    for (const NamedDecl *P : *T->getTemplateParameters()) {
      std::string Pack = P->isParameterPack() ? "..." : "";
      if (isa<TemplateTypeParmDecl>(P))
        S.TemplateParams.push_back("typename" + Pack);
      else if (const auto *N = dyn_cast<NonTypeTemplateParmDecl>(P))
        S.TemplateParams.push_back(
            N->getType().getCanonicalType().getAsString() + Pack);
      else
        S.TemplateParams.push_back("template" + Pack);
    }
  for (const ParmVarDecl *P : K->parameters()) {
    S.Params.push_back(P->getType().getCanonicalType().getAsString());
    S.ParamsAsWritten.push_back(P->getType().getAsString());
  }
  return S;
}

std::string describe(const Signature &S) {
  std::string T = S.TemplateParams.empty()
                      ? ""
                      : "template <" + join(S.TemplateParams, ", ") + "> ";
  return T + "(" + join(S.ParamsAsWritten, ", ") + ")";
}

/// Runs \p Fn on the AST of \p Code even when it has errors; \p Diags gets
/// the diagnostics, \p Errors where they are.
class CapturingConsumer : public ASTConsumer {
public:
  CapturingConsumer(function_ref<void(ASTContext &)> Fn) : Fn(Fn) {}
  void HandleTranslationUnit(ASTContext &Ctx) override { Fn(Ctx); }

private:
  function_ref<void(ASTContext &)> Fn;
};
class CapturingAction : public ASTFrontendAction {
public:
  CapturingAction(function_ref<void(ASTContext &)> Fn) : Fn(Fn) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<CapturingConsumer>(Fn);
  }

private:
  function_ref<void(ASTContext &)> Fn;
};

/// The forbidden constructs in the replacement's declarations.
class ReplacementVisitor : public RecursiveASTVisitor<ReplacementVisitor> {
public:
  std::vector<std::string> Problems;
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    Problems.push_back("it launches a kernel from device code");
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    StringRef N = E->getDecl()->getName();
    if (N.starts_with("cuda"))
      Problems.push_back(("it calls the CUDA runtime (" + N + ")").str());
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (StringRef(V->getType().getAsString()).contains("cudaStream"))
      Problems.push_back("it uses streams (" + V->getNameAsString() + ")");
    return true;
  }
};
} // namespace

Expected<std::string> extractKernelSource(const CompileSetup &Setup,
                                          StringRef FileName, StringRef Code,
                                          StringRef Kernel) {
  // Offsets of everything to show, by start (source order, no repeats).
  std::map<unsigned, unsigned> Ranges;
  bool Found = false;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) {
    const FunctionDecl *K = findKernel(Ctx, Kernel);
    if (!K)
      return Error::success();
    Found = true;
    SmallPtrSet<const FunctionDecl *, 16> Seen;
    std::vector<const FunctionDecl *> Work{K};
    for (const FunctionDecl *I : getInstantiations(K))
      Work.push_back(I);
    while (!Work.empty()) {
      const FunctionDecl *F = Work.back();
      Work.pop_back();
      if (!Seen.insert(F).second)
        continue;
      const FunctionDecl *P = patternOf(F);
      if (!P->hasBody())
        continue;
      std::optional<std::pair<unsigned, unsigned>> R = mainFileRange(Ctx, P);
      if (!R)
        continue; // a header's or the toolkit's
      Ranges[R->first] = std::max(Ranges[R->first], R->second);
      CalleeCollector CC;
      CC.TraverseDecl(const_cast<FunctionDecl *>(F));
      if (F != P)
        CC.TraverseDecl(const_cast<FunctionDecl *>(P));
      for (const FunctionDecl *C : CC.Found)
        Work.push_back(C);
    }
    return Error::success();
  });
  if (E)
    return std::move(E);
  if (!Found)
    return makeInputError(DiagLoc{FileName.str()},
                          "no kernel '" + Kernel + "' in the file");
  std::string Out;
  unsigned Covered = 0;
  for (auto [B, End] : Ranges) {
    if (B < Covered)
      continue; // nested (a lambda's or a local class's range)
    if (!Out.empty())
      Out += "\n\n";
    Out += Code.slice(B, End).str();
    Covered = End;
  }
  return Out;
}

Error checkReplacement(const CompileSetup &Setup, StringRef FileName,
                       StringRef Code, StringRef Kernel, StringRef NewSource) {
  // The kernel as it is: where it is and what it takes.
  std::optional<std::pair<unsigned, unsigned>> Range;
  Signature Old;
  if (Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) {
        if (const FunctionDecl *K = findKernel(Ctx, Kernel)) {
          Range = mainFileRange(Ctx, K);
          Old = signatureOf(K);
        }
        return Error::success();
      }))
    return E;
  if (!Range)
    return makeInputError("no kernel '" + Kernel + "' written in the file");
  std::string New = (Code.take_front(Range->first) + NewSource +
                     Code.drop_front(Range->second))
                        .str();
  unsigned Begin = Range->first, End = Begin + NewSource.size();

  std::string Diags;
  raw_string_ostream DiagOS(Diags);
  Expected<std::unique_ptr<CompilerInstance>> CI =
      createCudaCompiler(Setup, FileName, New, DiagOS);
  if (!CI)
    return CI.takeError();
  auto *Recorder = new ErrorRecorder(std::unique_ptr<DiagnosticConsumer>(
      (*CI)->getDiagnostics().takeClient().release()));
  (*CI)->getDiagnostics().setClient(Recorder, /*ShouldOwnClient=*/true);
  std::vector<std::string> Problems;
  bool ErrorInside = false;
  CapturingAction Action([&](ASTContext &Ctx) {
    const SourceManager &SM = Ctx.getSourceManager();
    auto Inside = [&](SourceLocation L) {
      if (L.isInvalid())
        return false;
      L = SM.getExpansionLoc(L);
      if (!SM.isInMainFile(L))
        return false;
      unsigned Off = SM.getFileOffset(L);
      return Off >= Begin && Off < End;
    };
    for (const RecordedError &RE : Recorder->getErrors())
      ErrorInside |= Inside(RE.Loc) || llvm::any_of(RE.InstantiatedAt, Inside);
    if (ErrorInside)
      return;
    const FunctionDecl *K = findKernel(Ctx, Kernel);
    if (!K || !Inside(K->getBeginLoc())) {
      Problems.push_back("it does not define the kernel '" + Kernel.str() +
                         "' (keep its name)");
    } else if (!(signatureOf(K) == Old)) {
      Problems.push_back("it changes the kernel's signature: it must stay " +
                         describe(Old) + ", not " + describe(signatureOf(K)));
    }
    // Everything the replacement declares.
    std::vector<Decl *> Work(Ctx.getTranslationUnitDecl()->decls_begin(),
                             Ctx.getTranslationUnitDecl()->decls_end());
    ReplacementVisitor V;
    while (!Work.empty()) {
      Decl *D = Work.back();
      Work.pop_back();
      if (auto *DC = dyn_cast<DeclContext>(D);
          DC && (isa<NamespaceDecl>(D) || isa<LinkageSpecDecl>(D))) {
        Work.insert(Work.end(), DC->decls_begin(), DC->decls_end());
        continue;
      }
      if (!Inside(D->getBeginLoc()) || D->isImplicit())
        continue;
      V.TraverseDecl(D);
      FunctionDecl *F = D->getAsFunction();
      if (F && F != K) {
        std::string Name = F->getNameAsString();
        if (F->hasAttr<CUDAGlobalAttr>())
          Problems.push_back("it adds another kernel (" + Name +
                             "); only the kernel itself and __device__ "
                             "helpers may be defined");
        else if (!F->hasAttr<CUDADeviceAttr>())
          Problems.push_back("it adds host code (" + Name +
                             "); helpers must be __device__ functions");
      } else if (auto *Var = dyn_cast<VarDecl>(D)) {
        if (Var->hasAttr<CUDADeviceAttr>() ||
            Var->hasAttr<CUDAConstantAttr>() ||
            Var->hasAttr<CUDASharedAttr>() || !Var->isConstexpr())
          Problems.push_back("it adds a global variable (" +
                             Var->getNameAsString() +
                             "); only constexpr constants may be added");
      }
    }
    for (std::string &P : V.Problems)
      if (!llvm::is_contained(Problems, P))
        Problems.push_back(std::move(P));
  });
  Error E = runCompilerAction(**CI, Action, FileName);
  if (E && ErrorInside) {
    consumeError(std::move(E));
    return makeInputError("it does not compile:\n" +
                          StringRef(Diags).take_front(6000).str());
  }
  // Errors outside the replacement are the file's own (host code Clang
  // rejects, cut out when compiling): not the replacement's to answer for.
  consumeError(std::move(E));
  if (!Problems.empty())
    return makeInputError("the replacement is not accepted: " +
                          join(Problems, "; "));
  return Error::success();
}

} // namespace astra
