//===- astra-opt.cpp - The astra-opt driver -------------------------------===//
//
// Loads the input, applies the requested rewrites in order, then runs the
// requested mode (print the model, emit PTX, verify, ...) or prints the
// rewritten file. Exit codes: 0 done, 1 bad input, 2 no GPU, 3 internal.
//
//===----------------------------------------------------------------------===//
#include "CommandLineErrors.h"
#include "Modes.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace astra;

static cl::list<std::string>
    Apply("apply",
          cl::desc("Apply a rewrite: <name>[:key=value,...]; keys kernel=, "
                   "loop= and function= select where (repeatable, applied "
                   "in order)"),
          cl::value_desc("rewrite"), cl::cat(AstraCategory));

static cl::opt<bool> PrintPaths(
    "print-paths",
    cl::desc("Print the Clang resource directory and CUDA toolkit in use"),
    cl::cat(AstraCategory));

static void printVersion(raw_ostream &OS) {
  OS << "astra-opt 0.1.0 (LLVM/Clang " LLVM_VERSION_STRING ")\n";
}

static std::string getRewritesHelp() {
  std::string S;
  raw_string_ostream OS(S);
  OS << "REWRITES (--apply=<name>[:key=value,...]):\n";
  for (const auto &R : getRewrites()) {
    OS << "  " << R->getName() << " - " << R->getDescription() << "\n";
    for (const ParamDesc &P : R->getParams())
      OS << "      " << P.Key << "=" << P.Default << "  " << P.Help << "\n";
  }
  OS << "  Every rewrite also takes kernel=<name> (its body and the device "
        "functions\n  only it reaches), loop=<kernel>:L<n>, or function=<name> "
        "(one device\n  function, whichever kernels call it).\n";
  return S;
}

/// One action per run: the modes exclude each other (--emit-ptx with
/// --ptx-stats is one action), and --apply is a step before a mode that
/// reads the rewritten file, not before one that starts from the original.
static Error checkModes(bool HasApply) {
  static const char *const Actions[][2] = {
      {"emit-ptx", "ptx-stats"}, {"list-rewrites", nullptr},
      {"print-kernel-model", nullptr}, {"emit-spec", "check-spec"},
      {"verify", nullptr}, {"agent-rewrite", nullptr},
      {"apply-plan", nullptr}};
  auto &Opts = cl::getRegisteredOptions();
  std::vector<std::string> Given;
  std::string First;
  for (const auto &A : Actions) {
    std::vector<std::string> Here;
    for (const char *Name : A)
      if (Name && Opts.count(Name) && Opts[Name]->getNumOccurrences())
        Here.push_back(std::string("--") + Name);
    if (!Here.empty())
      Given.push_back(join(Here, " "));
  }
  if (Given.size() > 1)
    return makeInputError("conflicting actions: " + join(Given, ", ") +
                          "; give one per run");
  if (HasApply && !Given.empty() &&
      (Given[0] == "--agent-rewrite" || Given[0] == "--apply-plan"))
    return makeInputError(Given[0] +
                          " starts from the input as it is; it cannot be "
                          "combined with --apply");
  return Error::success();
}

static Error run() {
  if (PrintPaths) {
    std::string Cuda = findCudaPath(CudaPathOpt);
    outs() << "resource-dir: " << findResourceDir() << "\n"
           << "cuda-path: " << (Cuda.empty() ? "(not found)" : Cuda) << "\n";
    return Error::success();
  }
  if (Error E = checkModes(Apply.getNumOccurrences() > 0))
    return E;
  if (InputFile.empty())
    return makeInputError("no input file (use '-' for stdin); see --help");
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(InputFile);
  if (!Buf)
    return Buf.takeError();
  if (InPlace && (InputFile == "-" || OutputFile != "-"))
    return makeInputError("--in-place needs an input file and no -o");
  InputSource In;
  In.FileName = InputFile == "-" ? "<stdin>.cu" : InputFile.getValue();
  In.Code = (*Buf)->getBuffer().str();
  In.Original = In.Code;

  Expected<CompileSetup> Setup = makeCompileSetup(In.FileName);
  if (!Setup)
    return Setup.takeError();
  // A rewritten file is parsed again (next rewrite, codegen, model, verify):
  // parse its headers once.
  Setup->ReusePreamble = !Apply.empty();

  for (const std::string &Spec : Apply) {
    Expected<RewriteParams> P = RewriteParams::parse(Spec);
    if (!P)
      return P.takeError();
    Expected<ApplyResult> R = applyRewrite(*Setup, In.FileName, In.Code, *P);
    if (!R)
      return R.takeError();
    for (const RewriteSite &S : R->Sites)
      if (S.Applicable && S.Selected && !S.Warning.empty())
        printDiag(errs(), S.Loc, "warning", S.Warning);
    In.Code = std::move(R->Code);
    In.Applied.push_back(Spec);
  }

  using ModeFn = Error (*)(const CompileSetup &, const InputSource &, bool &);
  static const ModeFn Modes[] = {runPtxMode,  runListMode,  runModelMode,
                                 runSpecMode, runVerifyMode, runAgentMode,
                                 runPlanMode};
  for (ModeFn Mode : Modes) {
    bool Handled = false;
    if (Error E = Mode(*Setup, In, Handled); E || Handled)
      return E;
  }
  if (Apply.empty())
    return makeInputError("nothing to do: give --apply, --emit-ptx, "
                          "--print-kernel-model, ... (see --help)");
  return writeResult((*Buf)->getBuffer(), In.Code);
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(AstraCategory);
  cl::SetVersionPrinter(printVersion);
  cl::AddExtraVersionPrinter([](raw_ostream &) {});
  // --help lists the rewrite catalogue after the options.
  static const std::string RewritesHelp = getRewritesHelp();
  static cl::extrahelp RewriteHelp(RewritesHelp);
  // llvm::cl's own messages are collected and reprinted Clang-style.
  std::string ClErrors;
  raw_string_ostream ClErrorStream(ClErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "astra-opt: rewrite CUDA kernels to make them faster, and prove "
          "each rewrite on a GPU\n",
          &ClErrorStream)) {
    errs() << formatCommandLineErrors("astra-opt", ClErrors);
    return static_cast<int>(ExitCode::BadInput);
  }
  if (std::optional<int> RC = runHarnessWorkerIfRequested())
    return *RC;
  return reportError(run(), "astra-opt");
}
