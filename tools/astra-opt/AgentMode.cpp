//===- AgentMode.cpp - --agent-rewrite: find, prove and keep faster kernels
//===//
//
//   astra-opt --agent-rewrite in.cu [--spec s.json] [--kernel=NAME]
//             [-o out.cu | --in-place] [--report r.json] [--plan p.json]
//             [--diff] [--budget=N] [--time-budget=4m] [--beam-width=3]
//             [--depth=3] [--gpus=all|0,1] [--allow-regression] [--dry-run]
//             [--agent=search|llm|hybrid] [--llm-* (LlmOptions.cpp)]
//
// Without a GPU: exit 2 before any work (--dry-run lists what would be
// tried instead). Ctrl-C stops the search, leaves the input untouched and
// writes the report so far (exit 130).
//
//===----------------------------------------------------------------------===//
#include "LlmOptions.h"
#include "Modes.h"
#include "astra/Agent/Report.h"
#include "astra/Agent/Run.h"
#include "astra/Codegen/Backend.h"
#include "astra/Harness/Session.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "astra/Support/UnifiedDiff.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <atomic>
#include <csignal>
#include <limits>
#include <mutex>

using namespace llvm;

namespace astra {

static cl::opt<bool> AgentRewrite(
    "agent-rewrite",
    cl::desc("Search the rewrite catalogue for faster versions of the "
             "spec's kernels, prove them on the GPU, keep the best"),
    cl::cat(AstraCategory));
static cl::opt<std::string>
    AgentName("agent",
              cl::desc("--agent-rewrite: the agent: search (the catalogue, "
                       "offline), llm (a language model proposes plans or "
                       "new kernel bodies) or hybrid (the model chooses "
                       "rewrites, the search tunes them); see --llm-*"),
              cl::init("search"), cl::cat(AstraCategory));
static cl::opt<unsigned>
    Budget("budget",
           cl::desc("--agent-rewrite: candidates judged on the GPU per "
                    "kernel (default 40)"),
           cl::init(40), cl::cat(AstraCategory));
static cl::opt<std::string> TimeBudget(
    "time-budget",
    cl::desc("--agent-rewrite: search time per kernel, e.g. 90s, 4m, 1h "
             "(default 4m; the winner's re-verification comes on top)"),
    cl::init("4m"), cl::cat(AstraCategory));
static cl::opt<unsigned>
    BeamWidth("beam-width",
              cl::desc("--agent-rewrite: plans extended per round (default "
                       "3)"),
              cl::init(3), cl::cat(AstraCategory));
static cl::opt<unsigned>
    Depth("depth",
          cl::desc("--agent-rewrite: most rewrites in one plan, launch steps "
                   "not counted (default 3)"),
          cl::init(3), cl::cat(AstraCategory));
static cl::opt<std::string>
    Gpus("gpus",
         cl::desc("--agent-rewrite: GPUs to judge candidates on, one worker "
                  "each: all, or ordinals 0,1,... (default 0)"),
         cl::init("0"), cl::cat(AstraCategory));
static cl::opt<bool> AllowRegression(
    "allow-regression",
    cl::desc("--agent-rewrite: keep a mixed candidate (faster on some "
             "shapes, slower on others) when its geomean is faster"),
    cl::cat(AstraCategory));
static cl::opt<std::string>
    PlanOut("plan",
            cl::desc("--agent-rewrite: write the winning plans (JSON) for "
                     "--apply-plan"),
            cl::value_desc("file"), cl::cat(AstraCategory));
static cl::opt<bool>
    ShowDiff("diff",
             cl::desc("--agent-rewrite: print a unified diff of the result "
                      "(to stdout, instead of the file unless -o is given)"),
             cl::cat(AstraCategory));
static cl::opt<bool>
    DryRun("dry-run",
           cl::desc("--agent-rewrite: list what would be tried; needs no GPU"),
           cl::cat(AstraCategory));
static cl::opt<bool> NoPrune(
    "no-prune",
    cl::desc("--agent-rewrite: judge candidates that add local memory or "
             "register spills (pruned by default)"),
    cl::cat(AstraCategory));
static cl::opt<std::string> AgentReplay(
    "agent-replay",
    cl::desc("--agent-rewrite: take verdicts from an earlier run's --report "
             "instead of a GPU (deterministic; for tests and audits; no time "
             "limit unless --time-budget is given)"),
    cl::value_desc("report.json"), cl::cat(AstraCategory));

static std::atomic<bool> Interrupted{false};
static void onInterrupt(int) { Interrupted = true; }

/// "90", "90s", "4m", "1h" in seconds.
static Expected<double> parseDuration(StringRef Text) {
  StringRef T = Text.trim();
  double Scale = 1;
  if (T.consume_back("h"))
    Scale = 3600;
  else if (T.consume_back("m"))
    Scale = 60;
  else
    T.consume_back("s");
  double V;
  if (T.getAsDouble(V) || V <= 0)
    return makeInputError("--time-budget=" + Text +
                          ": expected a positive duration such as 90s, 4m "
                          "or 1h");
  return V * Scale;
}

/// GPU ordinals from --gpus. "all" counts the driver's GPUs without
/// initialising CUDA here (CUDA_VISIBLE_DEVICES, else /proc/driver/nvidia).
static Expected<std::vector<int>> parseGpus(StringRef Text) {
  std::vector<int> Out;
  if (Text == "all") {
    unsigned N = 0;
    if (std::optional<std::string> V =
            sys::Process::GetEnv("CUDA_VISIBLE_DEVICES")) {
      SmallVector<StringRef, 8> Parts;
      StringRef(*V).split(Parts, ',', -1, /*KeepEmpty=*/false);
      N = Parts.size();
    } else {
      std::error_code EC;
      for (sys::fs::directory_iterator I("/proc/driver/nvidia/gpus", EC), E;
           I != E && !EC; I.increment(EC))
        ++N;
    }
    for (unsigned I = 0; I < std::max(N, 1u); ++I)
      Out.push_back(I);
    return Out;
  }
  SmallVector<StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (StringRef P : Parts) {
    int G;
    if (P.trim().getAsInteger(10, G) || G < 0)
      return makeInputError("--gpus=" + Text +
                            ": expected 'all' or GPU ordinals such as 0,1");
    if (!llvm::is_contained(Out, G))
      Out.push_back(G);
  }
  return Out;
}

/// --dry-run: the kernels and the first round of candidates.
static Error printDryRun(const CompileSetup &Setup, const InputSource &In,
                         StringRef Spec) {
  Expected<LaunchSpecFile> SF = parseSpecFile(Spec);
  if (!SF)
    return SF.takeError();
  outs() << "astra-opt --agent-rewrite would search " << In.FileName
         << " (spec " << Spec << "), per kernel at most " << Budget
         << " candidates judged on the GPU within " << TimeBudget
         << ", beam width " << BeamWidth << ", depth " << Depth << ":\n";
  for (const KernelSpec &K : SF->Kernels) {
    if (!KernelNames.empty() && !llvm::is_contained(KernelNames, K.Kernel))
      continue;
    Expected<std::vector<RewriteOption>> Opts =
        enumerateRewrites(Setup, In.FileName, In.Code, K.baseName());
    if (!Opts)
      return Opts.takeError();
    // As the search agent does: assuming no aliasing only with spec noalias.
    llvm::erase_if(*Opts, [&](const RewriteOption &O) {
      auto It = O.Params.Values.find("assume-noalias");
      return It != O.Params.Values.end() && It->second != "0" && !K.NoAlias;
    });
    outs() << "\n"
           << K.Kernel << ": " << Opts->size() << " first-round candidate(s)";
    outs() << (Opts->empty() ? " (no rewrite applies)\n" : "\n");
    // The search tries each rewrite and site with its default values first
    // and tunes the other values of what paid.
    for (bool Defaults : {true, false})
      for (const RewriteOption &O : *Opts)
        if (O.Params.Values.empty() == Defaults)
          outs() << "  " << formatRewriteParams(O.Params) << "  -- " << O.Detail
                 << (O.ChangesRounding ? " [changes rounding]" : "")
                 << (Defaults ? "" : " [tuned after its default]") << "\n";
    for (const std::string &Step :
         tunableLaunchSteps(Setup, In.FileName, In.Code, K, K.baseName()))
      outs() << "  " << Step << "  -- a launch the spec declares tunable"
             << (StringRef(Step).contains("template-arg=")
                     ? " (a new instantiation of the kernel template)"
                     : "")
             << "\n";
  }
  outs() << "\nEach is compiled to PTX here and judged on the GPU; the best "
            "are extended with further rewrites, and only a candidate that "
            "passes the full correctness protocol and is measured faster is "
            "kept.\n";
  return Error::success();
}

Error runAgentMode(const CompileSetup &SetupIn, const InputSource &In,
                   bool &Handled) {
  Handled = AgentRewrite;
  if (!AgentRewrite)
    return Error::success();
  if (In.FileName == "<stdin>.cu" && SpecFile.empty())
    return makeInputError("--agent-rewrite on stdin needs --spec");
  if (AgentName != "search" && AgentName != "llm" && AgentName != "hybrid")
    return makeInputError("--agent=" + AgentName +
                          ": unknown agent; known: search, llm, hybrid");
  Expected<double> Seconds = parseDuration(TimeBudget);
  if (!Seconds)
    return Seconds.takeError();
  Expected<std::vector<int>> GpuList = parseGpus(Gpus);
  if (!GpuList)
    return GpuList.takeError();
  if (Budget == 0 || BeamWidth == 0 || Depth == 0)
    return makeInputError("--budget, --beam-width and --depth must be at "
                          "least 1");
  std::string Spec =
      SpecFile.empty() ? defaultSpecPath(In.FileName) : SpecFile.getValue();
  CompileSetup Setup = SetupIn;
  Setup.ReusePreamble = true;
  // From here on Ctrl-C stops the search cleanly instead of killing it.
  // After an interrupt the handler stays: `timeout` and a shell pass one
  // Ctrl-C on to the whole process group as well, and that second SIGINT
  // may arrive only after the run has stopped, while it writes the report;
  // under the default action it would kill the process (CI saw exit 254
  // from a loaded machine's llm-interrupt test).
  auto *OldHandler = std::signal(SIGINT, onInterrupt);
  llvm::scope_exit Restore([&] {
    if (!Interrupted)
      std::signal(SIGINT, OldHandler);
  });
  if (DryRun && AgentName != "search")
    return printLlmDryRun(Setup, In.FileName, In.Code, Spec, AgentName,
                          KernelNames);
  if (DryRun)
    return printDryRun(Setup, In, Spec);
  // No GPU: say so before any work.
  if (AgentReplay.empty())
    if (Error E = checkGpuPresent()) {
      errs() << "astra-opt: note: --agent-rewrite --dry-run lists what "
                "would be tried without a GPU\n";
      return E;
    }

  AgentOptions AO;
  AO.FileName = In.FileName;
  AO.Code = In.Code;
  AO.SpecPath = Spec;
  AO.Kernels = KernelNames;
  AO.AgentName = AgentName;
  AO.Search.BeamWidth = BeamWidth;
  AO.Search.MaxDepth = Depth;
  AO.AllowRegression = AllowRegression;
  AO.Loop.Budget = Budget;
  // A replay judges nothing on a GPU, so its wall time says nothing of
  // the recorded run's: with a time limit, a loaded machine would stop it
  // earlier than one at rest. The recording's own budget of candidates
  // bounds it; --time-budget, when given, still applies.
  AO.Loop.TimeBudget =
      !AgentReplay.empty() && TimeBudget.getNumOccurrences() == 0
          ? std::numeric_limits<double>::infinity()
          : *Seconds;
  AO.Loop.Prune = !NoPrune;
  AO.Loop.Ptxas = findCudaTool("ptxas", Setup.CudaPath);
  AO.Loop.Interrupted = &Interrupted;
  static std::mutex ProgressLock;
  AO.Loop.Progress = [](StringRef Line) {
    std::lock_guard<std::mutex> L(ProgressLock);
    errs() << "astra-opt: " << Line << "\n";
  };
  if (AgentName != "search") {
    auto F = makeLlmAgentFactory(Setup, AgentName, Spec, ReportFile,
                                 AO.Search, AO.Loop.Progress, &Interrupted);
    if (!F)
      return F.takeError();
    AO.MakeAgent = std::move(*F);
  }
  std::string KeepDir = HarnessKeep;
  AO.MakeEvaluator =
      [&](const KernelSpec &K,
          StringRef OrigPtx) -> Expected<std::unique_ptr<Evaluator>> {
    if (!AgentReplay.empty())
      return createReplayEvaluator(AgentReplay, K.Kernel);
    SessionOptions SO;
    SO.SpecPath = Spec;
    SO.Kernel = K.Kernel;
    SO.OriginalFile = In.FileName;
    SO.OriginalPtx = OrigPtx.str();
    SO.TimeoutSeconds = HarnessTimeout;
    SO.EdgeShapes = !NoEdgeShapes;
    SO.Gpus = *GpuList;
    if (!KeepDir.empty())
      SO.WorkDir = KeepDir + "/" + K.baseName().str();
    Expected<std::unique_ptr<EvalSession>> S = EvalSession::create(SO);
    if (!S)
      return S.takeError();
    return createHarnessEvaluator(std::move(*S));
  };

  // The compiler of every candidate's PTX, named in the reports.
  std::string BackendLine = describeBackend(Setup);
  AO.Loop.Progress(BackendLine);
  Expected<AgentResult> R = runAgent(Setup, AO);
  if (!R)
    return R.takeError();

  // The report first: it is wanted most when something below fails.
  if (!ReportFile.empty()) {
    std::string J;
    json::Value Report = reportToJSON(*R);
    if (json::Object *O = Report.getAsObject())
      (*O)["backend"] = backendToJSON(Setup);
    raw_string_ostream(J) << formatv("{0:2}", Report) << "\n";
    if (Error E = writeFileAtomically(ReportFile, J))
      return E;
    SmallString<128> Md(ReportFile);
    sys::path::replace_extension(Md, "md");
    if (Md == ReportFile)
      Md += ".md";
    std::string M;
    raw_string_ostream MS(M);
    printReportMarkdown(MS, *R);
    // The backend line goes under the title.
    size_t Title = M.find("\n\n");
    M.insert(Title == std::string::npos ? M.size() : Title + 2,
             "B" + BackendLine.substr(1) + "\n\n");
    if (Error E = writeFileAtomically(Md, M))
      return E;
  }
  printRunSummary(errs(), *R);
  if (R->Interrupted) {
    errs() << "astra-opt: interrupted; the input is untouched"
           << (ReportFile.empty() ? "" : ", the report holds the run so far")
           << "\n";
    return makeInterruptedError("interrupted before the search finished");
  }
  if (!PlanOut.empty()) {
    std::string P;
    raw_string_ostream(P) << formatv("{0:2}", toJSON(R->Plan)) << "\n";
    if (Error E = writeFileAtomically(PlanOut, P))
      return E;
  }
  if (ShowDiff) {
    outs() << unifiedDiff(In.Code, R->OutputCode, "a/" + In.FileName,
                          "b/" + In.FileName);
    if (OutputFile == "-" && !InPlace)
      return Error::success();
  }
  if (InPlace && !R->Changed)
    return Error::success(); // nothing to write, no backup needed
  return writeResult(In.Code, R->OutputCode);
}

} // namespace astra
