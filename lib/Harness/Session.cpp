//===- Session.cpp - Judge many candidates of one kernel ------------------===//
//
// create(): a worker in reference mode runs the original on every case of
// every shape and stores them (RefStore.h); the shapes it had to drop (the
// original fails there) leave the job for good. evaluate(): a worker in
// candidate mode per call, in the worker's own directory, on its GPU.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/Session.h"
#include "WorkerInternal.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Error.h"
#include "astra/Support/ErrorText.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include <dlfcn.h>

using namespace llvm;

namespace astra {

struct EvalSession::State {
  std::string WorkDir;
  bool RemoveWorkDir = false;
  WorkerJob Job; ///< the candidate-mode job, less the candidate
  std::optional<KernelSpec> Kernel; ///< the spec's kernel
  VerifyResult Names;               ///< kernel and file names for every result
  /// Shapes the reference run dropped because the original fails there.
  std::vector<ShapeResult> DroppedShapes;
  std::vector<std::string> ReferenceNotes;

  ~State() {
    if (RemoveWorkDir)
      sys::fs::remove_directories(WorkDir);
  }
  std::string dir(const Twine &Name) const {
    SmallString<128> P(WorkDir);
    sys::path::append(P, Name);
    return P.str().str();
  }
};

EvalSession::EvalSession(const SessionOptions &Opts)
    : Opts(Opts), St(std::make_unique<State>()) {}
EvalSession::~EvalSession() = default;

unsigned EvalSession::getWorkerCount() const {
  return Opts.Gpus.empty() ? 1 : Opts.Gpus.size();
}

StringRef EvalSession::getWorkDir() const { return St->WorkDir; }

static int gpuOf(const SessionOptions &O, unsigned Worker) {
  return O.Gpus.empty() ? -1 : O.Gpus[Worker];
}

/// A clean directory for one worker's job, log and result.
static Error freshDir(const std::string &Dir) {
  sys::fs::remove_directories(Dir);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeInternalError("cannot create " + Dir + ": " + EC.message());
  return Error::success();
}

Expected<std::unique_ptr<EvalSession>>
EvalSession::create(const SessionOptions &Opts) {
  if (Error E = checkGpuPresent())
    return std::move(E);
  Expected<LaunchSpecFile> SF = parseSpecFile(Opts.SpecPath);
  if (!SF)
    return SF.takeError();
  Expected<const KernelSpec *> FoundK =
      findSpecKernel(*SF, Opts.SpecPath, Opts.Kernel);
  if (!FoundK)
    return FoundK.takeError();
  const KernelSpec *K = *FoundK;
  Expected<std::string> OrigEntry = findPtxEntry(Opts.OriginalPtx, K->Kernel);
  if (!OrigEntry)
    return OrigEntry.takeError();

  std::unique_ptr<EvalSession> S(new EvalSession(Opts));
  State &St = *S->St;
  if (Opts.WorkDir.empty()) {
    SmallString<128> Dir;
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("astra-session", Dir))
      return makeInternalError("cannot create a temporary directory: " +
                               EC.message());
    St.WorkDir = Dir.str().str();
    St.RemoveWorkDir = true;
  } else {
    St.WorkDir = Opts.WorkDir;
    sys::fs::create_directories(St.WorkDir);
  }
  St.Kernel = *K;
  St.Names.KernelName = K->Kernel;
  St.Names.OriginalFile = Opts.OriginalFile;

  WorkerJob &Job = St.Job;
  Job = makeJob(Opts.SpecPath, *K, Opts.EdgeShapes, Opts.TimeBudget,
                Opts.TargetHalfWidth, Opts.MinGain, &St.ReferenceNotes);
  Job.Mode = WorkerMode::Reference;
  Job.RefDir = St.dir("reference");
  Job.OrigPtx = Job.CandPtx = Opts.OriginalPtx;
  Job.OrigEntry = Job.CandEntry = *OrigEntry;

  // The original's side of every case, once.
  WorkerRun Run;
  Run.Dir = St.dir("reference-run");
  Run.TimeoutSeconds = Opts.TimeoutSeconds;
  Run.Gpu = gpuOf(Opts, 0);
  if (Error E = freshDir(Run.Dir))
    return std::move(E);
  if (Error E = freshDir(Job.RefDir))
    return std::move(E);
  Expected<Subprocess> Child = startWorker(Run);
  if (!Child)
    return Child.takeError();
  Expected<VerifyResult> Ref =
      runWorkerJob(Job, Run, St.Names, std::move(*Child));
  if (!Ref)
    return Ref.takeError();
  if (Ref->Verdict == Verdict::Refused)
    return makeInputError("the original kernel fails in the session's "
                          "reference run: " +
                          reasonName(Ref->Why) + ": " + Ref->Detail);
  // Shapes past the job's were dropped by a rerun (runWorkerJob).
  for (size_t I = Job.Shapes.size(); I < Ref->Shapes.size(); ++I)
    St.DroppedShapes.push_back(Ref->Shapes[I]);
  for (const std::string &N : Ref->Notes)
    if (StringRef(N).starts_with("uninformative") ||
        StringRef(N).starts_with("the original is not deterministic"))
      St.ReferenceNotes.push_back(N);
  Job.Mode = WorkerMode::Candidate;
  return std::move(S);
}

Expected<VerifyResult> EvalSession::evaluate(StringRef CandidatePtx,
                                             StringRef Label, unsigned Worker,
                                             const LaunchOverrides &Launch) {
  auto Start = std::chrono::steady_clock::now();
  if (Worker >= getWorkerCount())
    return makeInternalError("no session worker " + Twine(Worker));
  const State &S = *St;
  VerifyResult Names = S.Names;
  Names.CandidateFile = Label.str();
  Names.Launch = Launch.str();
  auto Refuse = [&](Reason Why, const Twine &Detail) {
    VerifyResult R = Names;
    R.Verdict = Verdict::Refused;
    R.Why = Why;
    R.Detail = Detail.str();
    return R;
  };
  Expected<std::string> CandKernel = candidateKernelName(*S.Kernel, Launch);
  if (!CandKernel)
    return Refuse(Reason::LaunchFailed, errorText(CandKernel.takeError()));
  Expected<std::string> CandEntry = findPtxEntry(CandidatePtx, *CandKernel);
  if (!CandEntry)
    return Refuse(Reason::DoesNotLoad, toString(CandEntry.takeError()));
  if (Expected<std::string> N = smallKernelName(*S.Kernel, Launch); !N)
    return Refuse(Reason::LaunchFailed, errorText(N.takeError()));
  Expected<std::string> SmallEntry =
      findSmallEntry(*S.Kernel, Launch, CandidatePtx);
  if (!SmallEntry)
    return Refuse(Reason::DoesNotLoad, errorText(SmallEntry.takeError()));
  std::vector<std::string> Launches = findDeviceSideLaunches(CandidatePtx);
  if (!Launches.empty())
    return Refuse(Reason::DeviceSideLaunch,
                  "the candidate launches device-side work (calls " +
                      join(Launches, ", ") + "); not allowed");

  WorkerJob Job = S.Job;
  Job.Launch = Launch;
  if (Error E = checkLaunchOverrides(*S.Kernel, Job))
    return Refuse(Reason::LaunchFailed, errorText(std::move(E)));
  Job.CandPtx = CandidatePtx.str();
  Job.CandEntry = *CandEntry;
  Job.CandSmallEntry = *SmallEntry;
  WorkerRun Run;
  Run.Dir = S.dir("worker" + Twine(Worker));
  Run.TimeoutSeconds = Opts.TimeoutSeconds;
  Run.Gpu = gpuOf(Opts, Worker);
  if (Error E = freshDir(Run.Dir))
    return std::move(E);
  Expected<Subprocess> Child = startWorker(Run);
  if (!Child)
    return Child.takeError();
  Expected<VerifyResult> R = runWorkerJob(Job, Run, Names, std::move(*Child));
  if (!R)
    return R.takeError();
  R->Shapes.insert(R->Shapes.end(), S.DroppedShapes.begin(),
                   S.DroppedShapes.end());
  R->Notes.insert(R->Notes.begin(), S.ReferenceNotes.begin(),
                  S.ReferenceNotes.end());
  for (std::string &N : globalStateNotes(S.Job.OrigPtx, CandidatePtx))
    R->Notes.push_back(std::move(N));
  R->WallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return R;
}

Expected<VerifyResult> EvalSession::verifyFully(StringRef CandidatePtx,
                                                StringRef Label,
                                                const LaunchOverrides &Launch) {
  VerifyOptions V;
  V.Launch = Launch;
  V.SpecPath = Opts.SpecPath;
  V.Kernel = Opts.Kernel;
  V.OriginalFile = Opts.OriginalFile;
  V.CandidateFile = Label.str();
  V.OriginalPtx = Opts.OriginalPtx;
  V.CandidatePtx = CandidatePtx.str();
  V.TimeoutSeconds = Opts.TimeoutSeconds;
  V.EdgeShapes = Opts.EdgeShapes;
  V.MinGain = Opts.MinGain;
  V.TargetHalfWidth = Opts.TargetHalfWidth;
  V.TimeBudget = VerifyOptions().TimeBudget;
  return verifyCandidate(V);
}

Error checkGpuPresent() {
  const char *Env = std::getenv("ASTRA_CUDA_DRIVER");
  std::string Lib = Env && *Env ? Env : "libcuda.so.1";
  void *H = dlopen(Lib.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    return makeDeviceError("no CUDA driver: cannot load " + Lib + " (" +
                           (Why ? Why : "unknown reason") +
                           "); this mode needs a machine with an NVIDIA GPU "
                           "and its driver");
  }
  dlclose(H);
  return Error::success();
}

} // namespace astra
