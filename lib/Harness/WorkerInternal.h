//===- WorkerInternal.h - The parent/worker protocol ------------*- C++ -*-===//
//
// The job the parent writes (JSON, atomically, so the worker never reads a
// half-written file) and the outcome the worker writes back beside it
// (`<job>.result.json`). Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_WORKERINTERNAL_H
#define ASTRA_LIB_HARNESS_WORKERINTERNAL_H

#include "astra/Harness/Spec.h"
#include "astra/Harness/Verify.h"
#include "astra/Support/Subprocess.h"
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace astra {

struct WorkerShape {
  std::vector<std::pair<std::string, int64_t>> Vars;
  bool Generated = false;
  bool Timed = false;
  /// Vars as a Shape.
  Shape shape() const;
};

/// What a worker does with its job.
enum class WorkerMode {
  Full,      ///< "full": the original's cases and the candidate's (--verify)
  Reference, ///< "reference": only the original's cases, stored in RefDir
  Candidate, ///< "candidate": the original's cases loaded from RefDir
};
llvm::StringRef workerModeName(WorkerMode M);
std::optional<WorkerMode> parseWorkerMode(llvm::StringRef Name);

struct WorkerJob {
  WorkerMode Mode = WorkerMode::Full;
  std::string RefDir; ///< Reference and Candidate modes
  std::string SpecPath, Kernel;
  std::string OrigPtx, CandPtx;     ///< PTX text
  std::string OrigEntry, CandEntry; ///< mangled entry names
  /// The candidate's entry below its min-threads bound (`small-entry=1`,
  /// smallKernelName); empty: CandEntry everywhere.
  std::string CandSmallEntry;
  std::vector<WorkerShape> Shapes;
  /// The candidate's launch overrides; the original runs the spec's launch.
  LaunchOverrides Launch;
  double TimeBudget = 1.0, TargetHalfWidth = 0.005, MinGain = 0.01;
};

/// How the worker ended.
enum class WorkerStatus {
  Ok,            ///< "ok": Result holds the checks and timings
  Refused,       ///< "refused": the candidate failed (Result.Why)
  OriginalFails, ///< "original-fails": the original (or control) failed
  NoDevice,      ///< "no-device": no driver or no GPU
  Error,         ///< "error": bad input or an internal failure (Who says)
};
llvm::StringRef workerStatusName(WorkerStatus S);
std::optional<WorkerStatus> parseWorkerStatus(llvm::StringRef Name);

/// Whose run a failure or a progress line belongs to.
enum class Party {
  None,      ///< "none": not a run (the spec, the job)
  Harness,   ///< "harness": the harness's own work (driver, copies)
  Original,  ///< "original"
  Candidate, ///< "candidate"
  Control,   ///< "control": the second copy of the original
};
llvm::StringRef partyName(Party P);
std::optional<Party> parseParty(llvm::StringRef Name);

struct WorkerOutcome {
  WorkerStatus Status = WorkerStatus::Ok;
  std::string Message;
  Party Who = Party::None; ///< who failed
  bool Sticky = false;
  /// The job shape being checked when it failed; -1 for none.
  int FailedShape = -1;
  VerifyResult Result;
  /// One line per phase, whose run it is and what it does.
  std::function<void(Party, const std::string &)> Progress =
      [](Party, const std::string &) {};
  std::string toJSONText() const;
};

std::string jobToJSONText(const WorkerJob &J);

/// The kernel \p Kernel of \p SF (its only one when empty).
llvm::Expected<const KernelSpec *> findSpecKernel(const LaunchSpecFile &SF,
                                                  llvm::StringRef SpecPath,
                                                  llvm::StringRef Kernel);

/// A job for \p K: its spec shapes (timed), then the generated edge shapes
/// when \p EdgeShapes (the edge candidates skipped as outside the spec's
/// domain go to \p Notes, with their reasons); no PTX yet.
WorkerJob makeJob(llvm::StringRef SpecPath, const KernelSpec &K,
                  bool EdgeShapes, double TimeBudget, double TargetHalfWidth,
                  double MinGain, std::vector<std::string> *Notes = nullptr);

/// Fails (input error) when \p Job's launch overrides do not resolve on
/// one of its spec shapes (docs/harness.md, "Launch overrides"): a variable
/// that is not tunable, a launch beyond the limits, other buffers.
llvm::Error checkLaunchOverrides(const KernelSpec &K, const WorkerJob &Job);
/// The mangled PTX entry of the candidate's small entry (smallKernelName)
/// in \p CandPtx; empty without `small-entry`. Errors: no such entry, or
/// smallKernelName's.
llvm::Expected<std::string> findSmallEntry(const KernelSpec &K,
                                           const LaunchOverrides &O,
                                           llvm::StringRef CandPtx);

/// Where and how a worker runs.
struct WorkerRun {
  std::string Dir; ///< the job, the worker's log and result (exists)
  unsigned TimeoutSeconds = 300;
  int Gpu = -1; ///< the GPU it sees (CUDA_VISIBLE_DEVICES); -1: inherited
};
/// Starts `astra-opt --harness-worker=<Dir>/job.json`; it starts the driver
/// and waits for the job to appear.
llvm::Expected<Subprocess> startWorker(const WorkerRun &Run);
/// Writes \p Job for \p Child (started with startWorker(Run)) and turns
/// its outcome into a result named as \p R: a refusal (hang, crash, the
/// worker's) is a result; errors are about the original, the device or the
/// harness. Generated shapes the original fails on are dropped from
/// Job.Shapes and the worker runs again.
llvm::Expected<VerifyResult> runWorkerJob(WorkerJob &Job, const WorkerRun &Run,
                                          const VerifyResult &R,
                                          Subprocess Child);
/// Waits (polling) until \p Path exists, then parses it. Gives up when the
/// parent process is gone or after 10 minutes.
llvm::Expected<WorkerJob> waitForJob(llvm::StringRef Path);
llvm::Expected<WorkerOutcome> readOutcome(llvm::StringRef Path);
std::string resultPathFor(llvm::StringRef JobPath);

/// A progress line of the worker's log: "astra-worker: <party>: <text>".
std::string progressLine(Party Who, llvm::StringRef Text);
/// The last progress line in the log text \p Log, parsed; {None, ""} when
/// there is none.
std::pair<Party, std::string> lastProgress(llvm::StringRef Log);

} // namespace astra

#endif
