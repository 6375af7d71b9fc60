//===- Worker.cpp - The harness's child process ---------------------------===//
//
// `astra-opt --harness-worker <job.json>`: the only process that initialises
// CUDA. It starts the driver while the parent is still compiling (it waits
// for the job file to appear), loads the original, the candidate and a second
// copy of the original (the control) from PTX, checks correctness on every
// shape of the job and times the spec's shapes. See docs/harness.md for the
// protocol; the result is a JSON file (status + VerifyResult).
//
// The parts: WorkerDevice (driver, context, modules, buffers, launches),
// Compare (element comparison), Correctness (the test cases), Timing (the
// rounds and their stopping rule).
//
//===----------------------------------------------------------------------===//
#include "Worker.h"
#include "WorkerPhases.h"
#include "astra/Harness/Verify.h"
#include "astra/Support/Output.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {
namespace worker {

bool Worker::loadJob(const WorkerJob &J) {
  JobPtr = &J;
  Expected<LaunchSpecFile> SF = parseSpecFile(job().SpecPath);
  if (!SF) {
    Out.Status = WorkerStatus::Error;
    Out.Message = errorText(SF.takeError());
    return false;
  }
  SpecFile = std::move(*SF);
  K = job().Kernel.empty() && SpecFile->Kernels.size() == 1
          ? &SpecFile->Kernels[0]
          : SpecFile->find(job().Kernel);
  if (!K) {
    Out.Status = WorkerStatus::Error;
    Out.Message = "kernel '" + job().Kernel + "' is not in " + job().SpecPath;
    return false;
  }
  if (J.Mode == WorkerMode::Reference) {
    Reference.emplace();
    Reference->Shapes.resize(J.Shapes.size());
  } else if (J.Mode == WorkerMode::Candidate) {
    ScopedPhase P(Phase::RefIO);
    Expected<RefIndex> RI = readRefIndex(J.RefDir);
    if (!RI || RI->Shapes.size() != J.Shapes.size()) {
      Out.Status = WorkerStatus::Error;
      Out.Message = RI ? "the session's reference does not match the job"
                       : errorText(RI.takeError());
      Out.Who = Party::Harness;
      return false;
    }
    Reference = std::move(*RI);
    std::vector<std::string> Prefixes;
    for (const RefShape &S : Reference->Shapes)
      for (const RefCase &C : S.Cases)
        Prefixes.push_back(C.Prefix);
    Prefetch = std::make_unique<RefPrefetcher>(J.RefDir, std::move(Prefixes),
                                               K->Args.size());
  }
  const std::string *const Ptx[3] = {&J.OrigPtx, &J.CandPtx, &J.OrigPtx};
  const std::string *const Entry[3] = {&J.OrigEntry, &J.CandEntry,
                                       &J.OrigEntry};
  ScopedPhase P(Phase::LoadModules);
  return loadModules(Ptx, Entry, J.CandSmallEntry);
}

void Worker::run() {
  VerifyResult &R = Out.Result;
  R.Shapes.resize(job().Shapes.size());
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    R.Shapes[I].Shape = job().Shapes[I].shape().str();
    R.Shapes[I].Generated = job().Shapes[I].Generated;
  }
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    Out.FailedShape = int(I);
    if (!checkShape(I, R.Shapes[I]))
      return;
    if (!R.Shapes[I].Dropped.empty() && !job().Shapes[I].Generated) {
      Out.Status = WorkerStatus::Error;
      Out.Message = "the original kernel fails on the spec's shape " +
                    R.Shapes[I].Shape + ": " + R.Shapes[I].Dropped;
      return;
    }
  }
  if (job().Mode == WorkerMode::Reference) {
    // The original's cases are stored; the candidates time themselves.
    Out.FailedShape = -1;
    if (Error E = writeRefIndex(job().RefDir, *Reference)) {
      Out.Status = WorkerStatus::Error;
      Out.Who = Party::Harness;
      Out.Message = errorText(std::move(E));
    }
    return;
  }
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    Out.FailedShape = int(I);
    if (job().Shapes[I].Timed && !timeShape(I, R.Shapes[I]))
      return;
  }
  Out.FailedShape = -1;
}

} // namespace worker

int runHarnessWorker(StringRef JobPath) {
  auto Start = worker::Clock::now();
  std::string ResultPath = resultPathFor(JobPath);
  auto Finish = [&](WorkerOutcome &O) {
    O.Result.WorkerSeconds = worker::secondsSince(Start);
    if (getenv("ASTRA_WORKER_PHASES"))
      errs() << "worker phases: "
             << worker::describePhases(O.Result.WorkerSeconds) << "\n";
    if (Error E = writeFileAtomically(ResultPath, O.toJSONText()))
      return reportError(std::move(E), "astra-opt worker");
    return 0;
  };
  WorkerOutcome Early;
  Expected<const cu::Api *> Api = cu::load();
  if (!Api) {
    Early.Status = WorkerStatus::NoDevice;
    Early.Message = errorText(Api.takeError());
    return Finish(Early);
  }
  // The driver starts (and the copy bandwidth is measured) while the parent
  // still compiles the original and the candidate; then the job arrives.
  worker::Worker W(**Api);
  W.Out.Progress = [](Party Who, const std::string &Msg) {
    errs() << progressLine(Who, Msg) << "\n";
    errs().flush();
  };
  W.Out.Progress(Party::Harness, "starting the CUDA driver");
  bool Started;
  {
    worker::ScopedPhase P(worker::Phase::Init);
    Started = W.init();
  }
  if (Started) {
    Expected<WorkerJob> Job = waitForJob(JobPath);
    if (!Job) {
      W.Out.Status = WorkerStatus::Error;
      W.Out.Message = errorText(Job.takeError());
      return Finish(W.Out);
    }
    if (W.loadJob(*Job))
      W.run();
  }
  if (W.F) {
    W.Out.Status = W.F->Who == Party::Candidate  ? WorkerStatus::Refused
                   : W.F->Who == Party::Original ? WorkerStatus::OriginalFails
                                                 : WorkerStatus::Error;
    W.Out.Who = W.F->Who;
    W.Out.Sticky = W.F->Sticky;
    W.Out.Result.Why = W.F->Why;
    W.Out.Message = (partyName(W.F->Who) + ": " + W.F->Msg).str();
    W.Out.Result.Detail = W.F->Msg;
  }
  return Finish(W.Out);
}

} // namespace astra
