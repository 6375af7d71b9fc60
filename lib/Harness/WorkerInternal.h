//===- WorkerInternal.h - The parent/worker protocol ------------*- C++ -*-===//
//
// The job the parent writes (JSON, atomically, so the worker never reads a
// half-written file) and the outcome the worker writes back beside it
// (`<job>.result.json`). Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_WORKERINTERNAL_H
#define ASTRA_LIB_HARNESS_WORKERINTERNAL_H

#include "astra/Harness/Verify.h"
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace astra {

struct WorkerShape {
  std::vector<std::pair<std::string, int64_t>> Vars;
  bool Generated = false;
  bool Timed = false;
};

struct WorkerJob {
  std::string SpecPath, Kernel;
  std::string OrigPtx, CandPtx;     ///< PTX text
  std::string OrigEntry, CandEntry; ///< mangled entry names
  std::vector<WorkerShape> Shapes;
  double TimeBudget = 1.0, TargetHalfWidth = 0.005, MinGain = 0.01;
};

struct WorkerOutcome {
  /// ok | refused | original-fails | no-device | error
  std::string Status;
  std::string Message;
  std::string Who; ///< who failed: original, candidate, harness
  bool Sticky = false;
  /// The job shape being checked when it failed; -1 for none.
  int FailedShape = -1;
  VerifyResult Result;
  std::function<void(const std::string &)> Progress = [](const std::string &) {
  };
  std::string toJSONText() const;
};

std::string jobToJSONText(const WorkerJob &J);
/// Waits (polling) until \p Path exists, then parses it. Gives up when the
/// parent process is gone or after 10 minutes.
llvm::Expected<WorkerJob> waitForJob(llvm::StringRef Path);
llvm::Expected<WorkerOutcome> readOutcome(llvm::StringRef Path);
std::string resultPathFor(llvm::StringRef JobPath);

} // namespace astra

#endif
