//===- Parse.cpp - Parse a CUDA file and run code on its AST --------------===//
#include "astra/Frontend/Parse.h"
#include "astra/Frontend/DeviceSlice.h"
#include "astra/Frontend/NvccRepairs.h"
#include "astra/Frontend/RecoveredAST.h"
#include "astra/Support/ClangInvocation.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
/// What one parse found: nothing wrong (Fn ran), headers to repair, host
/// bodies to cut, errors outside the kernels (Fn ran on the recovered AST),
/// or errors that must be reported.
struct ParseOutcome {
  bool Repair = false;
  std::optional<std::vector<HostCut>> Cuts;
  bool Recovered = false;
  DiagLoc FirstErrorLoc;
  std::string FirstError;
  unsigned NumErrors = 0;
};

/// What the consumer needs to decide the outcome of one parse.
struct ParseContext {
  function_ref<Error(ASTContext &)> Fn;
  bool AllowRecovered;
  const ErrorRecorder *Recorder = nullptr;
  const RepairCollector *Repairs = nullptr;
  Error *Result = nullptr;
  ParseOutcome Outcome;
};

class CallbackConsumer : public ASTConsumer {
public:
  explicit CallbackConsumer(ParseContext &PC) : PC(PC) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    ArrayRef<RecordedError> Errors = PC.Recorder->getErrors();
    if (Errors.empty()) {
      *PC.Result = PC.Fn(Ctx);
      return;
    }
    // Do not hand a broken AST to the caller: repair the headers, or see
    // whether only host code is broken, or whether the kernels are intact.
    ParseOutcome &O = PC.Outcome;
    if (countNewRepairs(PC.Repairs->getProposals())) {
      O.Repair = true;
      return;
    }
    O.Cuts = planHostCuts(Ctx, Errors);
    if (O.Cuts || !PC.AllowRecovered || !kernelsOutsideErrors(Ctx, Errors))
      return;
    O.Recovered = true;
    O.FirstErrorLoc = describeLoc(Ctx.getSourceManager(), Errors[0].Loc);
    O.FirstError = Errors[0].Message;
    O.NumErrors = Errors.size();
    *PC.Result = PC.Fn(Ctx);
  }

private:
  ParseContext &PC;
};

class CallbackAction : public ASTFrontendAction {
public:
  explicit CallbackAction(ParseContext &PC) : PC(PC) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<CallbackConsumer>(PC);
  }

private:
  ParseContext &PC;
};

/// Repairs and cuts are made at most this many rounds over (cutting a body
/// can break a caller with a deduced return type, which is cut next; a
/// repaired header can show the next error in it).
constexpr unsigned MaxRounds = 16;

/// Parses \p Code, repairing headers (NvccRepairs.h) and cutting host bodies
/// that do not compile, and calls \p Fn on the AST that compiles, or, with
/// \p AllowRecovered, on the AST Clang recovered when the errors left lie
/// outside the kernels; \p Compiled receives the code that was parsed.
Error parseDeviceSide(const CompileSetup &Setup, StringRef FileName,
                      StringRef Code, function_ref<Error(ASTContext &)> Fn,
                      bool AllowRecovered, std::string &Compiled) {
  Compiled = Code.str();
  std::vector<HostCut> AllCuts;
  for (unsigned Round = 0;; ++Round) {
    std::string Diags;
    raw_string_ostream DiagOS(Diags);
    auto CIOrErr = createCudaCompiler(Setup, FileName, Compiled, DiagOS);
    if (!CIOrErr)
      return CIOrErr.takeError();
    CompilerInstance &CI = **CIOrErr;
    auto *Repairs = new RepairCollector(std::unique_ptr<DiagnosticConsumer>(
        CI.getDiagnostics().takeClient().release()));
    auto *Recorder =
        new ErrorRecorder(std::unique_ptr<DiagnosticConsumer>(Repairs));
    CI.getDiagnostics().setClient(Recorder, /*ShouldOwnClient=*/true);

    Error Result = Error::success();
    ParseContext PC{Fn, AllowRecovered, Recorder, Repairs, &Result, {}};
    CallbackAction Action(PC);
    Error E = runCompilerAction(CI, Action, FileName);
    const ParseOutcome &O = PC.Outcome;
    if (!E || O.Recovered) {
      noteRepairs(Setup);
      if (!E)
        errs() << Diags;
      warnHostCuts(Setup, FileName, AllCuts);
      if (O.Recovered)
        warnRecoveredAST(Setup, FileName, O.FirstErrorLoc, O.FirstError,
                         O.NumErrors);
      consumeError(std::move(E));
      return Result;
    }
    consumeError(std::move(Result));
    bool Retry = Round + 1 < MaxRounds && (O.Repair || O.Cuts);
    if (!Retry) {
      noteRepairs(Setup);
      errs() << Diags;
      return E;
    }
    consumeError(std::move(E));
    if (O.Repair) {
      adoptRepairs(Repairs->getProposals());
      continue;
    }
    Compiled = applyHostCuts(Compiled, *O.Cuts);
    AllCuts.insert(AllCuts.end(), O.Cuts->begin(), O.Cuts->end());
  }
}
} // namespace

Error withParsedAST(const CompileSetup &Setup, StringRef FileName,
                    StringRef Code, function_ref<Error(ASTContext &)> Fn) {
  std::string Compiled;
  return parseDeviceSide(Setup, FileName, Code, Fn, /*AllowRecovered=*/true,
                         Compiled);
}

Expected<std::string> sliceOutHostErrors(const CompileSetup &Setup,
                                         StringRef FileName, StringRef Code) {
  std::string Compiled;
  if (Error E = parseDeviceSide(
          Setup, FileName, Code, [](ASTContext &) { return Error::success(); },
          /*AllowRecovered=*/false, Compiled))
    return std::move(E);
  return Compiled;
}

} // namespace astra
