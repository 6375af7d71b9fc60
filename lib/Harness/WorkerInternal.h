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

struct WorkerJob {
  std::string SpecPath, Kernel;
  std::string OrigPtx, CandPtx;     ///< PTX text
  std::string OrigEntry, CandEntry; ///< mangled entry names
  std::vector<WorkerShape> Shapes;
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
