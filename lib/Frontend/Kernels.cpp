//===- Kernels.cpp - Find kernels and loops in the AST --------------------===//
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace astra {

namespace {
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  KernelFinder(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  /// Only the main file's declarations can hold its kernels: the headers'
  /// (tens of thousands, deserialized from the precompiled preamble when
  /// one is used) are not walked.
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        !SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    if (FD->isTemplateInstantiation())
      return true;
    if (!SM.isWrittenInMainFile(SM.getExpansionLoc(FD->getLocation())))
      return true;
    Kernels.push_back(FD);
    return true;
  }

  const SourceManager &SM;
  std::vector<const FunctionDecl *> Kernels;
};

class LoopCollector : public RecursiveASTVisitor<LoopCollector> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitForStmt(ForStmt *S) { return add(S); }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) { return add(S); }
  bool VisitWhileStmt(WhileStmt *S) { return add(S); }
  bool VisitDoStmt(DoStmt *S) { return add(S); }
  bool add(const Stmt *S) {
    Loops.push_back(S);
    return true;
  }
  std::vector<const Stmt *> Loops;
};
} // namespace

std::vector<const FunctionDecl *> findKernels(ASTContext &Ctx) {
  KernelFinder F(Ctx);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  return F.Kernels;
}

std::vector<const Stmt *> collectLoops(const Stmt *Body) {
  LoopCollector C;
  if (Body)
    C.TraverseStmt(const_cast<Stmt *>(Body));
  return C.Loops;
}

std::string makeLoopId(llvm::StringRef Kernel, unsigned Index) {
  return (Kernel + ":L" + llvm::Twine(Index)).str();
}

std::vector<const FunctionDecl *>
getInstantiations(const FunctionDecl *Kernel) {
  std::vector<const FunctionDecl *> Result;
  if (const FunctionTemplateDecl *T = Kernel->getDescribedFunctionTemplate())
    for (const FunctionDecl *Spec : T->specializations())
      Result.push_back(Spec);
  return Result;
}

} // namespace astra
