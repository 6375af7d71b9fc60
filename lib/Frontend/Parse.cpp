//===- Parse.cpp - Parse a CUDA file and run code on its AST --------------===//
#include "astra/Frontend/Parse.h"
#include "astra/Frontend/DeviceSlice.h"
#include "astra/Support/ClangInvocation.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
/// What one parse found: nothing wrong (Fn ran), host bodies to cut, or
/// errors that must be reported.
struct ParseOutcome {
  std::optional<std::vector<HostCut>> Cuts;
};

class CallbackConsumer : public ASTConsumer {
public:
  CallbackConsumer(function_ref<Error(ASTContext &)> Fn, Error &Result,
                   const ErrorRecorder &Recorder, ParseOutcome &Outcome)
      : Fn(Fn), Result(Result), Recorder(Recorder), Outcome(Outcome) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    // Do not hand a broken AST to the caller; see whether only host code is
    // broken instead.
    if (!Recorder.getErrors().empty()) {
      Outcome.Cuts = planHostCuts(Ctx, Recorder.getErrors());
      return;
    }
    Result = Fn(Ctx);
  }

private:
  function_ref<Error(ASTContext &)> Fn;
  Error &Result;
  const ErrorRecorder &Recorder;
  ParseOutcome &Outcome;
};

class CallbackAction : public ASTFrontendAction {
public:
  CallbackAction(function_ref<Error(ASTContext &)> Fn, Error &Result,
                 const ErrorRecorder &Recorder, ParseOutcome &Outcome)
      : Fn(Fn), Result(Result), Recorder(Recorder), Outcome(Outcome) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<CallbackConsumer>(Fn, Result, Recorder, Outcome);
  }

private:
  function_ref<Error(ASTContext &)> Fn;
  Error &Result;
  const ErrorRecorder &Recorder;
  ParseOutcome &Outcome;
};

/// Host bodies are cut at most this many times over (cutting a body can
/// break a caller with a deduced return type, which is cut next).
constexpr unsigned MaxCutRounds = 8;

/// Parses \p Code, cutting host bodies that do not compile, and calls \p Fn
/// on the AST that compiles; \p Compiled receives the code that did.
Error parseDeviceSide(const CompileSetup &Setup, StringRef FileName,
                      StringRef Code, function_ref<Error(ASTContext &)> Fn,
                      std::string &Compiled) {
  Compiled = Code.str();
  std::vector<HostCut> AllCuts;
  for (unsigned Round = 0;; ++Round) {
    std::string Diags;
    raw_string_ostream DiagOS(Diags);
    auto CIOrErr = createCudaCompiler(Setup, FileName, Compiled, DiagOS);
    if (!CIOrErr)
      return CIOrErr.takeError();
    CompilerInstance &CI = **CIOrErr;
    auto *Recorder = new ErrorRecorder(std::unique_ptr<DiagnosticConsumer>(
        CI.getDiagnostics().takeClient().release()));
    CI.getDiagnostics().setClient(Recorder, /*ShouldOwnClient=*/true);

    Error Result = Error::success();
    ParseOutcome Outcome;
    CallbackAction Action(Fn, Result, *Recorder, Outcome);
    Error E = runCompilerAction(CI, Action, FileName);
    if (!E) {
      errs() << Diags;
      warnHostCuts(Setup, FileName, AllCuts);
      return Result;
    }
    consumeError(std::move(Result));
    if (!Outcome.Cuts || Round + 1 == MaxCutRounds) {
      errs() << Diags;
      return E;
    }
    consumeError(std::move(E));
    Compiled = applyHostCuts(Compiled, *Outcome.Cuts);
    AllCuts.insert(AllCuts.end(), Outcome.Cuts->begin(), Outcome.Cuts->end());
  }
}
} // namespace

Error withParsedAST(const CompileSetup &Setup, StringRef FileName,
                    StringRef Code, function_ref<Error(ASTContext &)> Fn) {
  std::string Compiled;
  return parseDeviceSide(Setup, FileName, Code, Fn, Compiled);
}

Expected<std::string> sliceOutHostErrors(const CompileSetup &Setup,
                                         StringRef FileName, StringRef Code) {
  std::string Compiled;
  if (Error E = parseDeviceSide(
          Setup, FileName, Code, [](ASTContext &) { return Error::success(); },
          Compiled))
    return std::move(E);
  return Compiled;
}

} // namespace astra
