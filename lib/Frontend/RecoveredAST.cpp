//===- RecoveredAST.cpp - Work on an AST Clang recovered from errors ------===//
#include "astra/Frontend/RecoveredAST.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
/// The function bodies as written (templates once, not per instantiation),
/// as file ranges, kernels apart.
class FunctionBodies : public RecursiveASTVisitor<FunctionBodies> {
public:
  explicit FunctionBodies(const SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitLambdaBodies() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || !FD->getBody())
      return true;
    SourceRange R = FD->getBody()->getSourceRange();
    SourceLocation B = SM.getExpansionLoc(R.getBegin());
    SourceLocation E = SM.getExpansionLoc(R.getEnd());
    if (SM.getFileID(B) != SM.getFileID(E))
      return true;
    (FD->hasAttr<CUDAGlobalAttr>() ? Kernels : Others).push_back({B, E});
    return true;
  }

  bool inKernel(SourceLocation L) const { return contains(Kernels, L); }
  bool inOtherFunction(SourceLocation L) const { return contains(Others, L); }

private:
  using Ranges = std::vector<std::pair<SourceLocation, SourceLocation>>;
  bool contains(const Ranges &Rs, SourceLocation L) const {
    auto [FID, Off] = SM.getDecomposedLoc(SM.getExpansionLoc(L));
    for (const auto &[B, E] : Rs) {
      auto [BF, BOff] = SM.getDecomposedLoc(B);
      if (BF == FID && BOff <= Off && Off <= SM.getFileOffset(E))
        return true;
    }
    return false;
  }
  const SourceManager &SM;
  Ranges Kernels, Others;
};
} // namespace

bool kernelsOutsideErrors(ASTContext &Ctx, ArrayRef<RecordedError> Errors) {
  FunctionBodies F(Ctx.getSourceManager());
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const RecordedError &E : Errors) {
    // A compile that stopped, an error without a location or outside any
    // function body (a declaration, a type, a syntax error at file scope)
    // leaves an AST that cannot be trusted anywhere.
    if (E.Fatal || E.Loc.isInvalid() || F.inKernel(E.Loc) ||
        !F.inOtherFunction(E.Loc))
      return false;
    for (SourceLocation L : E.InstantiatedAt)
      if (L.isValid() && F.inKernel(L))
        return false;
  }
  return true;
}

DiagLoc describeLoc(const SourceManager &SM, SourceLocation Loc) {
  if (Loc.isInvalid())
    return {};
  PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(Loc));
  if (P.isInvalid())
    return {};
  return {P.getFilename(), P.getLine(), P.getColumn()};
}

void warnRecoveredAST(const CompileSetup &Setup, StringRef FileName,
                      const DiagLoc &FirstLoc, StringRef FirstError,
                      unsigned NumErrors) {
  if (is_contained(Setup.ExtraArgs, "-w"))
    return;
  std::string Msg;
  raw_string_ostream OS(Msg);
  OS << "Clang rejects this file outside its kernels (";
  if (FirstLoc.Line)
    OS << FirstLoc.File << ":" << FirstLoc.Line << ":" << FirstLoc.Col << ": ";
  OS << "error: " << FirstError;
  if (NumErrors > 1)
    OS << "; " << NumErrors << " errors in all";
  OS << "); the kernels are modelled and rewritten from Clang's recovered "
        "AST; compile with --backend=nvcc";
  static std::mutex Lock;
  static StringSet<> Shown;
  std::lock_guard<std::mutex> Guard(Lock);
  if (!Shown.insert(FileName.str() + "\n" + Msg).second)
    return;
  printDiag(errs(), DiagLoc{FileName.str()}, "warning", Msg);
}

} // namespace astra
