//===- Worker.h - The harness worker: correctness, then timing --*- C++ -*-===//
//
// The worker's checks over a job's shapes, on a DeviceContext: correctness
// cases (Correctness.cpp) and timing rounds (Timing.cpp). Private to
// lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_WORKER_H
#define ASTRA_LIB_HARNESS_WORKER_H

#include "Compare.h"
#include "RefStore.h"
#include "WorkerDevice.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <map>
#include <memory>

namespace astra {
namespace worker {

class Worker : public DeviceContext {
public:
  using DeviceContext::DeviceContext;

  /// Parses the job's spec and loads the three modules.
  bool loadJob(const WorkerJob &J);
  /// Correctness over every shape, then timing of the timed shapes.
  void run();

private:
  const WorkerJob *JobPtr = nullptr;
  const WorkerJob &job() const { return *JobPtr; }
  std::optional<LaunchSpecFile> SpecFile;
  const KernelSpec *K = nullptr;
  bool OrigDeterministic = true;
  bool NominalNoted = false;
  /// The original's cases: built (reference mode) or loaded (candidate).
  std::optional<RefIndex> Reference;
  /// Candidate mode: the reference's cases, read one ahead.
  std::unique_ptr<RefPrefetcher> Prefetch;
  /// Inputs of each timed shape's first correctness case, reused for timing.
  std::map<size_t, std::vector<std::vector<uint8_t>>> TimingInputs;

  bool checkShape(size_t Index, ShapeResult &SR);
  /// One test case: 2 runs of the original and 2 of the candidate, on
  /// \p Bufs, with \p Side (same sizes) for the comparisons on the device.
  /// Returns false on a failure (F set) or a dropped shape (\p Dropped).
  bool runCase(const Shape &Sh, const ResolvedLaunch &L,
               const std::vector<DevBuf> &Bufs, const std::vector<DevBuf> &Side,
               const GenOptions &G, bool Generated, std::string &Dropped,
               bool &Regenerate, std::string &Where,
               std::vector<std::vector<uint8_t>> *Keep,
               llvm::StringRef CasePrefix);
  bool timeShape(size_t Index, ShapeResult &SR);
  /// After the timed rounds: every party's outputs in every copy against
  /// the reference \p RefDev (the original's two runs, on the device):
  /// bit-identical on the device, else element by element within the
  /// tolerance on the host. Party W's outputs of copy C are in the buffers
  /// of party SetOf(W, C); \p What names the launches that wrote them.
  bool
  checkTimedOutputs(const Shape &Sh, const ResolvedLaunch &L,
                    const std::vector<cu::DevicePtr> (&RefDev)[2],
                    const std::vector<std::vector<cu::DevicePtr>> (&Copies)[3],
                    unsigned Batch,
                    llvm::function_ref<int(int, unsigned)> SetOf,
                    llvm::StringRef What);
};

} // namespace worker
} // namespace astra

#endif // ASTRA_LIB_HARNESS_WORKER_H
