//===- Parse.cpp - Parse a CUDA file and run code on its AST --------------===//
#include "astra/Frontend/Parse.h"
#include "astra/Support/ClangInvocation.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/FrontendAction.h"

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
class CallbackConsumer : public ASTConsumer {
public:
  CallbackConsumer(function_ref<Error(ASTContext &)> Fn, Error &Result,
                   DiagnosticsEngine &Diags)
      : Fn(Fn), Result(Result), Diags(Diags) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    // Do not hand a broken AST to the caller.
    if (Diags.hasErrorOccurred())
      return;
    Result = Fn(Ctx);
  }

private:
  function_ref<Error(ASTContext &)> Fn;
  Error &Result;
  DiagnosticsEngine &Diags;
};

class CallbackAction : public ASTFrontendAction {
public:
  CallbackAction(function_ref<Error(ASTContext &)> Fn, Error &Result)
      : Fn(Fn), Result(Result) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<CallbackConsumer>(Fn, Result, CI.getDiagnostics());
  }

private:
  function_ref<Error(ASTContext &)> Fn;
  Error &Result;
};
} // namespace

Error withParsedAST(const CompileSetup &Setup, StringRef FileName,
                    StringRef Code, function_ref<Error(ASTContext &)> Fn) {
  auto CIOrErr = createCudaCompiler(Setup, FileName, Code);
  if (!CIOrErr)
    return CIOrErr.takeError();
  Error Result = Error::success();
  CallbackAction Action(Fn, Result);
  if (Error E = runCompilerAction(**CIOrErr, Action, FileName)) {
    consumeError(std::move(Result));
    return E;
  }
  return Result;
}

} // namespace astra
