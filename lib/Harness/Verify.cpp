//===- Verify.cpp - The parent side of the harness ------------------------===//
//
// Builds the job (kernel entries, shapes), runs the worker as a child
// process with a time limit, and turns its outcome into a verdict. The
// parent never loads the CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "WorkerInternal.h"
#include "astra/Harness/EdgeShapes.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Error.h"
#include "astra/Support/ErrorText.h"
#include "astra/Support/Output.h"
#include "astra/Support/Subprocess.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <algorithm>
#include <chrono>
#include <cmath>

using namespace llvm;

namespace astra {

//===-- The worker process --------------------------------------------------===//

namespace {

/// The last progress line of the worker's log.
std::pair<Party, std::string> lastPhase(StringRef Log) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log);
  if (!B)
    return {Party::None, ""};
  return lastProgress((*B)->getBuffer());
}

} // namespace

static std::string inDir(StringRef Dir, StringRef Name) {
  SmallString<128> P(Dir);
  sys::path::append(P, Name);
  return P.str().str();
}

/// The CUDA_VISIBLE_DEVICES entry of GPU ordinal \p Gpu as this process
/// counts it: when the caller restricted the GPUs ("2,3"), ordinal 1 is "3",
/// not the machine's GPU 1.
static std::string visibleDevice(int Gpu) {
  if (std::optional<std::string> V =
          sys::Process::GetEnv("CUDA_VISIBLE_DEVICES")) {
    SmallVector<StringRef, 8> Parts;
    StringRef(*V).split(Parts, ',', -1, /*KeepEmpty=*/false);
    if (unsigned(Gpu) < Parts.size())
      return Parts[Gpu].trim().str();
  }
  return std::to_string(Gpu);
}

Expected<Subprocess> startWorker(const WorkerRun &Run) {
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  if (Exe.empty())
    return makeInternalError("cannot find the astra-opt executable");
  SpawnOptions O;
  O.StdoutFile = O.StderrFile = inDir(Run.Dir, "worker.log");
  if (Run.Gpu >= 0)
    O.Env.push_back("CUDA_VISIBLE_DEVICES=" + visibleDevice(Run.Gpu));
  return Subprocess::spawn(
      {Exe, "--harness-worker=" + inDir(Run.Dir, "job.json")}, O);
}

std::vector<std::string> globalStateNotes(StringRef OrigPtx,
                                          StringRef CandPtx) {
  std::vector<std::string> Orig = findGlobalStores(OrigPtx), Notes;
  for (const std::string &G : findGlobalStores(CandPtx)) {
    if (is_contained(Orig, G))
      continue;
    std::string Shown = demangle(G);
    std::string Name = "'" + Shown + "'" + (Shown == G ? "" : " (" + G + ")");
    Notes.push_back("warning: the candidate stores to the device-global "
                    "variable " +
                    Name +
                    " and the original does not: state that outlives a "
                    "launch can make timed launches differ from checked ones "
                    "(a batch after the timed launches is checked)");
  }
  return Notes;
}

Expected<const KernelSpec *>
findSpecKernel(const LaunchSpecFile &SF, StringRef SpecPath, StringRef Kernel) {
  const KernelSpec *K = Kernel.empty() && SF.Kernels.size() == 1
                            ? &SF.Kernels[0]
                            : SF.find(Kernel);
  if (!K)
    return makeInputError(SpecPath + ": no kernel '" + Kernel +
                          "' in the spec");
  return K;
}

Error checkLaunchOverrides(const KernelSpec &K, const WorkerJob &Job) {
  if (Job.Launch.empty())
    return Error::success();
  for (const WorkerShape &WS : Job.Shapes) {
    if (WS.Generated)
      continue; // an edge shape it cannot run on refuses the candidate there
    Shape S = WS.shape();
    Expected<ResolvedLaunch> L = resolve(K, S);
    if (!L)
      return L.takeError();
    if (Error E = resolveCandidateLaunch(K, S, Job.Launch, *L))
      return E;
  }
  return Error::success();
}

Expected<std::string> findSmallEntry(const KernelSpec &K,
                                     const LaunchOverrides &O,
                                     StringRef CandPtx) {
  Expected<std::string> Name = smallKernelName(K, O);
  if (!Name || Name->empty())
    return Name;
  Expected<std::string> Entry = findPtxEntry(CandPtx, *Name);
  if (!Entry)
    return makeInputError(
        "the candidate's launch (" + O.str() + ") runs its entry " + *Name +
        " below " + Twine(O.MinThreads) +
        " threads (small-entry), but: " + errorText(Entry.takeError()) +
        "; apply keep-original:kernel=<the kernel> first in the plan");
  return Entry;
}

WorkerJob makeJob(StringRef SpecPath, const KernelSpec &K, bool EdgeShapes,
                  double TimeBudget, double TargetHalfWidth, double MinGain,
                  std::vector<std::string> *Notes) {
  WorkerJob Job;
  Job.SpecPath = SpecPath.str();
  Job.Kernel = K.Kernel;
  Job.TimeBudget = TimeBudget;
  Job.TargetHalfWidth = TargetHalfWidth;
  Job.MinGain = MinGain;
  for (const Shape &S : K.Shapes)
    Job.Shapes.push_back({S.vars(), false, true});
  if (EdgeShapes) {
    EdgeShapeSet Edges = deriveEdgeShapes(K);
    for (const Shape &S : Edges.Shapes)
      Job.Shapes.push_back({S.vars(), true, false});
    if (Notes)
      *Notes = Edges.notes();
  }
  return Job;
}

Expected<VerifyResult> runWorkerJob(WorkerJob &Job, const WorkerRun &Run,
                                    const VerifyResult &R, Subprocess Child) {
  std::string JobPath = inDir(Run.Dir, "job.json");
  std::string LogPath = inDir(Run.Dir, "worker.log");
  std::vector<std::string> DroppedByRetry;
  auto Refuse = [&](Reason Why, const Twine &Detail) {
    VerifyResult Out = R;
    Out.Verdict = Verdict::Refused;
    Out.Why = Why;
    Out.Detail = Detail.str();
    return Out;
  };
  for (unsigned Attempt = 0;; ++Attempt) {
    if (Attempt > 0) {
      Child.kill();
      sys::fs::remove(JobPath);
      sys::fs::remove(resultPathFor(JobPath));
      Expected<Subprocess> Next = startWorker(Run);
      if (!Next)
        return Next.takeError();
      Child = std::move(*Next);
    }
    if (Error E = writeFileAtomically(JobPath, jobToJSONText(Job)))
      return std::move(E);
    std::optional<ExitStatus> Status = Child.wait(Run.TimeoutSeconds);
    bool Finished = Status.has_value();
    if (!Finished)
      Child.kill();
    auto [PhaseParty, Phase] = lastPhase(LogPath);
    bool OrigPhase =
        PhaseParty == Party::Original || PhaseParty == Party::Control;
    if (!Finished) {
      if (OrigPhase)
        return makeInputError("the original kernel does not finish within " +
                              Twine(Run.TimeoutSeconds) + " s (" + Phase + ")");
      return Refuse(Reason::Hang,
                    "no result within the time limit of " +
                        Twine(Run.TimeoutSeconds) + " s, killed while " +
                        (Phase.empty() ? std::string("starting") : Phase));
    }
    Expected<WorkerOutcome> O = readOutcome(resultPathFor(JobPath));
    if (!O) {
      consumeError(O.takeError());
      std::string How = Status->describe();
      if (OrigPhase)
        return makeInternalError("the harness worker died (" + How +
                                 ") while " + Phase);
      return Refuse(Reason::Crash,
                    "the harness worker died (" + How + ") while " +
                        (Phase.empty() ? std::string("starting") : Phase));
    }
    WorkerOutcome &W = *O;
    if (W.Status == WorkerStatus::NoDevice)
      return makeDeviceError(W.Message);
    if (W.Status == WorkerStatus::OriginalFails && W.FailedShape >= 0 &&
        size_t(W.FailedShape) < Job.Shapes.size() &&
        Job.Shapes[W.FailedShape].Generated && Attempt < 4) {
      // The original traps on a generated edge shape: the shape is not
      // valid for this kernel. Run again without it.
      Shape S = Job.Shapes[W.FailedShape].shape();
      DroppedByRetry.push_back(S.str() + ": the original fails: " + W.Message);
      Job.Shapes.erase(Job.Shapes.begin() + W.FailedShape);
      continue;
    }
    if (W.Status == WorkerStatus::OriginalFails)
      return makeInputError("the original kernel fails: " + W.Message);
    if (W.Status == WorkerStatus::Error)
      return W.Who == Party::Harness ? makeInternalError(W.Message)
                                     : makeInputError(W.Message);
    VerifyResult Got = std::move(W.Result);
    Got.KernelName = R.KernelName;
    Got.OriginalFile = R.OriginalFile;
    Got.CandidateFile = R.CandidateFile;
    Got.IsControlRun = R.IsControlRun;
    Got.Launch = R.Launch;
    // Notes made before the worker ran (edge shapes skipped) come first.
    Got.Notes.insert(Got.Notes.begin(), R.Notes.begin(), R.Notes.end());
    for (const std::string &D : DroppedByRetry) {
      ShapeResult SR;
      SR.Shape = StringRef(D).split(':').first.str();
      SR.Generated = true;
      SR.Dropped = D;
      Got.Shapes.push_back(SR);
    }
    Got.Verdict = W.Status == WorkerStatus::Refused ? Verdict::Refused
                                                    : Verdict::NoChange;
    judgeResult(Got);
    return Got;
  }
}

Expected<VerifyResult> verifyCandidate(const VerifyOptions &Opts) {
  auto WallStart = std::chrono::steady_clock::now();
  Expected<LaunchSpecFile> SF = parseSpecFile(Opts.SpecPath);
  if (!SF)
    return SF.takeError();
  Expected<const KernelSpec *> FoundK =
      findSpecKernel(*SF, Opts.SpecPath, Opts.Kernel);
  if (!FoundK)
    return FoundK.takeError();
  const KernelSpec *K = *FoundK;

  VerifyResult R;
  R.KernelName = K->Kernel;
  R.OriginalFile = Opts.OriginalFile;
  R.CandidateFile = Opts.IsControlRun ? Opts.OriginalFile : Opts.CandidateFile;
  R.IsControlRun = Opts.IsControlRun;
  auto Wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         WallStart)
        .count();
  };

  // The working directory: the job, the worker's log and result.
  SmallString<128> Dir;
  bool Temp = Opts.KeepDir.empty();
  if (Temp) {
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("astra-harness", Dir))
      return makeInternalError("cannot create a temporary directory: " +
                               EC.message());
  } else {
    Dir = Opts.KeepDir;
    sys::fs::create_directories(Dir);
  }
  llvm::scope_exit RemoveDir([&] {
    if (Temp)
      sys::fs::remove_directories(Dir);
  });
  SmallString<128> JobPath(Dir), LogPath(Dir);
  sys::path::append(JobPath, "job.json");
  sys::path::append(LogPath, "worker.log");
  sys::fs::remove(JobPath);
  sys::fs::remove(resultPathFor(JobPath));

  WorkerJob Job = makeJob(Opts.SpecPath, *K, Opts.EdgeShapes, Opts.TimeBudget,
                          Opts.TargetHalfWidth, Opts.MinGain, &R.Notes);

  Job.Launch = Opts.Launch;
  R.Launch = Opts.Launch.str();
  if (Error E = checkLaunchOverrides(*K, Job))
    return std::move(E);
  Expected<std::string> CandKernel = candidateKernelName(*K, Opts.Launch);
  if (!CandKernel)
    return CandKernel.takeError();
  // Start the worker now: it starts the driver while the PTX is compiled.
  WorkerRun Run;
  Run.Dir = Dir.str().str();
  Run.TimeoutSeconds = Opts.TimeoutSeconds;
  Expected<Subprocess> Child = startWorker(Run);
  if (!Child)
    return Child.takeError();

  std::string OrigPtx = Opts.OriginalPtx, CandPtx = Opts.CandidatePtx;
  if (Opts.MakePtx)
    if (Error E = Opts.MakePtx(OrigPtx, CandPtx))
      return std::move(E);
  Expected<std::string> OrigEntry = findPtxEntry(OrigPtx, K->Kernel);
  if (!OrigEntry)
    return OrigEntry.takeError();
  auto Refuse = [&](Reason Why, const Twine &Detail) {
    R.Verdict = Verdict::Refused;
    R.Why = Why;
    R.Detail = Detail.str();
    R.WallSeconds = Wall();
    return R;
  };
  Expected<std::string> CandEntry = findPtxEntry(CandPtx, *CandKernel);
  if (!CandEntry)
    return Refuse(Reason::DoesNotLoad, toString(CandEntry.takeError()));
  // A bad small-entry is the caller's input error; a missing entry the
  // candidate's.
  if (Expected<std::string> N = smallKernelName(*K, Opts.Launch); !N)
    return N.takeError();
  Expected<std::string> SmallEntry = findSmallEntry(*K, Opts.Launch, CandPtx);
  if (!SmallEntry)
    return Refuse(Reason::DoesNotLoad, errorText(SmallEntry.takeError()));
  std::vector<std::string> Launches = findDeviceSideLaunches(CandPtx);
  if (!Launches.empty())
    return Refuse(Reason::DeviceSideLaunch,
                  "the candidate launches device-side work (calls " +
                      join(Launches, ", ") +
                      "): that work would outlive the timed region and "
                      "escape the checks; not allowed");

  std::vector<std::string> GlobalNotes = globalStateNotes(OrigPtx, CandPtx);
  if (*CandKernel != K->Kernel)
    GlobalNotes.push_back("the candidate runs as " + *CandKernel +
                          " (template-arg): a caller launches that "
                          "instantiation");
  if (!SmallEntry->empty())
    GlobalNotes.push_back("below " + std::to_string(Opts.Launch.MinThreads) +
                          " threads the candidate runs its entry " +
                          *smallKernelName(*K, Opts.Launch) +
                          " (small-entry): a caller launches that one there");
  Job.OrigPtx = OrigPtx;
  Job.CandPtx = CandPtx;
  Job.OrigEntry = *OrigEntry;
  Job.CandEntry = *CandEntry;
  Job.CandSmallEntry = *SmallEntry;

  Expected<VerifyResult> Got = runWorkerJob(Job, Run, R, std::move(*Child));
  if (!Got)
    return Got.takeError();
  Got->Notes.insert(Got->Notes.end(), GlobalNotes.begin(), GlobalNotes.end());
  Got->WallSeconds = Wall();
  return Got;
}

} // namespace astra
