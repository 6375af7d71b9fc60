//===- WorkerPhases.h - Where a worker's wall time goes ---------*- C++ -*-===//
//
// Accumulated seconds per phase of one worker process (driver start, reading
// the session's reference, input generation, uploads, kernel runs,
// downloads, element comparison, timing rounds), printed on the worker's log
// as one `worker phases:` line when ASTRA_WORKER_PHASES is set. It is how the
// cost of an evaluation is measured (docs/harness.md, "Evaluation session").
// Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_WORKERPHASES_H
#define ASTRA_LIB_HARNESS_WORKERPHASES_H

#include <chrono>
#include <string>

namespace astra {
namespace worker {

enum class Phase {
  Init,
  LoadModules,
  RefIO,
  InputGen,
  Upload,
  Run,
  Download,
  Compare,
  Timing,
  Count
};

/// Adds the time until it is destroyed to \p P (one process, one thread).
class ScopedPhase {
public:
  explicit ScopedPhase(Phase P);
  ~ScopedPhase();
  ScopedPhase(const ScopedPhase &) = delete;
  ScopedPhase &operator=(const ScopedPhase &) = delete;

private:
  Phase P;
  std::chrono::steady_clock::time_point Start;
};

/// `init 0.41 s, ref-io 1.20 s, ...` over the phases seen, plus `other`
/// (of \p TotalSeconds, what no phase covers).
std::string describePhases(double TotalSeconds);

} // namespace worker
} // namespace astra

#endif // ASTRA_LIB_HARNESS_WORKERPHASES_H
