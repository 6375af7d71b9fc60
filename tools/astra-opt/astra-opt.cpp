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
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace astra;

static cl::list<std::string>
    Apply("apply",
          cl::desc("Apply a rewrite: <name>[:key=value,...]; keys kernel= and "
                   "loop= select where (repeatable, applied in order)"),
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
  OS << "  Every rewrite also takes kernel=<name> and loop=<kernel>:L<n>.\n";
  return S;
}

static Error run() {
  if (PrintPaths) {
    std::string Cuda = findCudaPath(CudaPathOpt);
    outs() << "resource-dir: " << findResourceDir() << "\n"
           << "cuda-path: " << (Cuda.empty() ? "(not found)" : Cuda) << "\n";
    return Error::success();
  }
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
    In.Code = std::move(R->Code);
  }

  bool Handled = false;
  if (Error E = runPtxMode(*Setup, In, Handled))
    return E;
  if (Handled)
    return Error::success();
  if (Error E = runListMode(*Setup, In, Handled))
    return E;
  if (Handled)
    return Error::success();
  if (Error E = runModelMode(*Setup, In, Handled); E || Handled)
    return E;
  if (Error E = runSpecMode(*Setup, In, Handled); E || Handled)
    return E;
  if (Error E = runVerifyMode(*Setup, In, Handled); E || Handled)
    return E;
  if (Error E = runAgentMode(*Setup, In, Handled); E || Handled)
    return E;
  if (Error E = runPlanMode(*Setup, In, Handled); E || Handled)
    return E;

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
