//===- VerifyMode.cpp - --verify: run a candidate on the GPU --------------===//
//
//   astra-opt --verify file.cu [--spec s.json] --candidate other.cu
//   astra-opt --verify --apply=<rewrite> file.cu [--spec s.json]
//   astra-opt --verify file.cu [--spec s.json]          (control run)
//
// The original is file.cu as it is on disk; the candidate is --candidate,
// else the file after --apply, else the original itself (a control run that
// measures the harness's own noise). Prints one table per kernel and writes
// --report. Exit 0 when it ran, whatever the verdict; 2 without a GPU.
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Agent/Loop.h"
#include "astra/Agent/Plan.h"
#include "astra/Codegen/Backend.h"
#include "astra/Frontend/KernelSource.h"
#include "astra/Harness/Spec.h"
#include "astra/Harness/Verify.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace astra {

static cl::opt<bool> Verify("verify",
                            cl::desc("Run the candidate against the original "
                                     "on the GPU: correctness, then timing"),
                            cl::cat(AstraCategory));
static cl::opt<std::string>
    CandidateFile("candidate",
                  cl::desc("--verify: the candidate .cu file (default: the "
                           "input after --apply, else the input itself)"),
                  cl::value_desc("file"), cl::cat(AstraCategory));
static cl::opt<std::string> CandidateLaunch(
    "candidate-launch",
    cl::desc("--verify: the candidate's own launch, e.g. B=512,grid-x-div=8 "
             "(default: that of the --apply=launch steps; the original runs "
             "the spec's)"),
    cl::value_desc("overrides"), cl::cat(AstraCategory));
static cl::opt<double>
    ShapeTime("shape-time",
              cl::desc("--verify: timing budget per shape in seconds "
                       "(default 1)"),
              cl::init(1.0), cl::cat(AstraCategory));
static cl::opt<std::string> HarnessWorker("harness-worker", cl::Hidden,
                                          cl::desc("(internal) run a job"),
                                          cl::cat(AstraCategory));

std::optional<int> runHarnessWorkerIfRequested() {
  if (HarnessWorker.empty())
    return std::nullopt;
  return runHarnessWorker(HarnessWorker);
}

Error runVerifyMode(const CompileSetup &Setup, const InputSource &In,
                    bool &Handled) {
  Handled = Verify;
  if (!Verify)
    return Error::success();
  // --spec (shared with --check-spec); default: <file>.astra.json.
  std::string Spec = SpecFile.empty() ? defaultSpecPath(In.FileName)
                                      : SpecFile.getValue();
  Expected<LaunchSpecFile> SF = parseSpecFile(Spec);
  if (!SF)
    return SF.takeError();

  // The original as read (before --apply); the candidate from --candidate, else the
  // (possibly rewritten) input.
  const std::string &OrigCode = In.Original;
  std::string CandName = In.FileName, CandCode = In.Code;
  if (!CandidateFile.empty()) {
    Expected<std::unique_ptr<MemoryBuffer>> C = readInputFile(CandidateFile);
    if (!C)
      return C.takeError();
    CandName = CandidateFile;
    CandCode = (*C)->getBuffer().str();
  }
  // The launch the --apply steps give the candidate (the `launch` rewrite).
  Expected<LaunchOverrides> Launch = launchOverridesOf(In.Applied);
  if (!Launch)
    return Launch.takeError();
  if (CandidateLaunch.getNumOccurrences()) {
    Launch = LaunchOverrides::parse(CandidateLaunch);
    if (!Launch)
      return Launch.takeError();
  }
  bool Control =
      CandidateFile.empty() && CandCode == OrigCode && Launch->empty();

  std::vector<std::string> Names;
  for (const KernelSpec &K : SF->Kernels)
    if (KernelNames.empty() ||
        llvm::is_contained(KernelNames, K.Kernel))
      Names.push_back(K.Kernel);
  if (Names.empty())
    return makeInputError(Spec + ": none of the --kernel names is in the "
                                 "spec");
  // A candidate run as another instantiation (template-arg) compiles it too.
  std::vector<std::string> CandNames = Names;
  // So does one whose small launches run its copy (small-entry).
  for (const KernelSpec &K : SF->Kernels) {
    if (!is_contained(Names, K.Kernel))
      continue;
    for (auto Name : {candidateKernelName, smallKernelName}) {
      Expected<std::string> N = Name(K, *Launch);
      if (!N)
        consumeError(N.takeError()); // the harness reports it
      else if (!N->empty())
        CandNames = withKernel(CandNames, *N);
    }
  }

  // Compiled once for all kernels, after the first worker started.
  std::optional<std::pair<std::string, std::string>> Ptx;
  auto MakePtx = [&](std::string &O, std::string &C) -> Error {
    if (!Ptx) {
      Expected<std::string> OP =
          emitPtx(Setup, In.FileName, withInstantiations(OrigCode, Names));
      if (!OP)
        return OP.takeError();
      std::string CP = *OP;
      if (!Control) {
        Expected<std::string> R =
            emitPtx(Setup, CandName, withInstantiations(CandCode, CandNames));
        if (!R)
          return R.takeError();
        CP = std::move(*R);
      }
      Ptx.emplace(std::move(*OP), std::move(CP));
    }
    O = Ptx->first;
    C = Ptx->second;
    return Error::success();
  };
  // Which compiler made the PTX both sides run, and with which flags.
  outs() << describeBackend(Setup) << "\n";
  json::Value Backend = backendToJSON(Setup);

  json::Array Reports;
  for (const std::string &Name : Names) {
    VerifyOptions Opts;
    Opts.SpecPath = Spec;
    Opts.Kernel = Name;
    Opts.OriginalFile = In.FileName;
    Opts.CandidateFile = CandName;
    Opts.IsControlRun = Control;
    // The --apply=launch steps that select this kernel (or every kernel).
    Opts.Launch = *Launch;
    if (CandidateLaunch.getNumOccurrences() == 0) {
      const KernelSpec *K = SF->find(Name);
      Expected<LaunchOverrides> Own = launchOverridesOf(
          In.Applied, K ? K->baseName() : StringRef(Name));
      if (!Own)
        return Own.takeError();
      Opts.Launch = *Own;
    }
    Opts.TimeoutSeconds = HarnessTimeout;
    Opts.TimeBudget = ShapeTime;
    Opts.EdgeShapes = !NoEdgeShapes;
    Opts.KeepDir = HarnessKeep;
    Opts.MakePtx = MakePtx;
    Expected<VerifyResult> R = verifyCandidate(Opts);
    if (!R)
      return R.takeError();
    printVerifyTable(outs(), *R);
    if (Names.size() > 1)
      outs() << "\n";
    outs().flush();
    json::Value J = toJSON(*R);
    if (json::Object *O = J.getAsObject())
      (*O)["backend"] = Backend;
    Reports.push_back(std::move(J));
  }
  if (!ReportFile.empty()) {
    json::Value V = Reports.size() == 1
                        ? std::move(Reports[0])
                        : json::Value(json::Object{
                              {"kernels", std::move(Reports)}});
    std::string Text;
    raw_string_ostream(Text) << formatv("{0:2}", V) << "\n";
    if (Error E = writeFileAtomically(ReportFile, Text))
      return E;
  }
  return Error::success();
}

} // namespace astra
