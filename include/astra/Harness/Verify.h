//===- Verify.h - Run a candidate against the original on the GPU -*- C++ -*-===//
//
// The harness's entry point (design section 6, docs/harness.md). The parent
// process never touches CUDA: verifyCandidate() writes a job (JSON) and runs
// `astra-opt --harness-worker <job>` as a child, which loads the driver,
// checks correctness on every shape and times the spec's shapes. A trap, a
// hang or a crash ends the child, not the tool, and refuses the candidate
// with that reason.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_VERIFY_H
#define ASTRA_HARNESS_VERIFY_H

#include "astra/Harness/Stats.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace astra {

struct KernelSpec;
struct LaunchSpecFile;

/// Why a candidate is refused. The names (reasonName) are stable: tests and
/// reports match them.
enum class Reason {
  None,
  Trap,                ///< illegal address, misaligned access, ... in a kernel
  Hang,                ///< no result within the time limit
  Crash,               ///< the worker died (signal) outside a kernel
  DoesNotLoad,         ///< PTX does not JIT, or the kernel is missing
  LaunchFailed,        ///< the launch is refused (resources)
  DeviceSideLaunch,    ///< launches device work that outlives the timed region
  OutOfBoundsWrite,    ///< guard bytes around a buffer changed
  WritesInput,         ///< an `in` buffer changed
  UnwrittenOutput,     ///< output elements the original writes kept the poison
  Nondeterministic,    ///< two runs on the same inputs differ
  NanMismatch,         ///< NaN where the original has none, or the reverse
  WrongResult,         ///< beyond tolerance (or not bit-equal for integers)
  BelowPhysicalFloor,  ///< timed faster than bytes written / peak bandwidth
};
llvm::StringRef reasonName(Reason R);
Reason parseReason(llvm::StringRef Name);

struct DeviceInfo {
  std::string Name;
  int CcMajor = 0, CcMinor = 0;
  int SMs = 0;
  int64_t L2Bytes = 0;
  int64_t TotalMem = 0;
  int DriverVersion = 0;
  /// From the memory clock and bus width (0 when the driver does not say).
  double PeakDramGBs = 0;
  /// A large device-to-device copy, bytes read + written per second.
  double CopyGBs = 0;
};

struct TimingResult {
  double OrigUs = 0, CandUs = 0; ///< medians per launch
  MedianCI Speedup;              ///< per-round original / candidate
  MedianCI Control;              ///< per-round original / original
  SpeedVerdict Verdict = SpeedVerdict::NoChange;
  double Margin = 0;             ///< the acceptance margin used
  unsigned Rounds = 0, Batch = 1, Copies = 1;
  double Bytes = 0;              ///< bytes per launch: ResolvedLaunch::MinBytes
  double FloorUs = 0;            ///< physical floor per launch
  double OrigGBs = 0, CandGBs = 0;
  double OrigPctCopy = 0, CandPctCopy = 0;
};

struct ShapeResult {
  std::string Shape; ///< "T=1, d=4096"
  bool Generated = false;
  /// The worker got to this shape (it stops at the first refusal).
  bool Checked = false;
  bool Correct = false;
  /// Not run: the original itself misbehaves on this generated shape, or
  /// its inputs cannot be generated (the text says which).
  std::string Dropped;
  unsigned Cases = 0;
  std::optional<TimingResult> Timing;
};

struct VerifyResult {
  DeviceInfo Device;
  /// "faster", "no-significant-change", "slower" or "refused".
  std::string Verdict;
  Reason Why = Reason::None;
  std::string Detail; ///< the evidence for a refusal
  std::vector<ShapeResult> Shapes;
  std::vector<std::string> Notes;
  /// Geometric mean of the timed shapes' median speedups (1 when none).
  double GeoMeanSpeedup = 1;
  /// The control's median over the timed shapes (median of medians).
  double ControlMedian = 1;
  double WorkerSeconds = 0, WallSeconds = 0;
  bool IsControlRun = false;
  std::string KernelName, OriginalFile, CandidateFile;
};

struct VerifyOptions {
  std::string SpecPath;
  /// The spec's kernel (as written there); empty: the spec's only kernel.
  std::string Kernel;
  std::string OriginalFile, CandidateFile; ///< for the report
  std::string OriginalPtx, CandidatePtx;   ///< PTX text
  /// The candidate is the original itself (a control run).
  bool IsControlRun = false;
  /// Whole-worker time limit; a candidate that runs past it hangs.
  unsigned TimeoutSeconds = 300;
  /// Extra shapes derived from the spec's (edge cases); on by default.
  bool EdgeShapes = true;
  /// Minimum accepted gain (the 1% of the acceptance rule).
  double MinGain = 0.01;
  /// Timing budget per shape in seconds (the sampler stops earlier once
  /// the interval is tight).
  double TimeBudget = 1.0;
  /// Target relative half width of the speedup interval.
  double TargetHalfWidth = 0.005;
  /// Keep the worker's files (job, PTX, log) here instead of a temp dir.
  std::string KeepDir;
  /// When set, called after the worker has started (so the driver starts
  /// while this compiles) to fill in OriginalPtx and CandidatePtx.
  std::function<llvm::Error(std::string &OrigPtx, std::string &CandPtx)>
      MakePtx;
};

/// Runs the candidate against the original. Errors: no device (exit 2), a
/// spec the original does not satisfy (exit 1), internal failures (3). A
/// refused candidate is a result, not an error.
llvm::Expected<VerifyResult> verifyCandidate(const VerifyOptions &Opts);

/// The mangled `.entry` name in \p Ptx of the kernel a spec names
/// ("rmsnorm", "act_and_mul<__half>"), matched by demangling.
llvm::Expected<std::string> findPtxEntry(llvm::StringRef Ptx,
                                         llvm::StringRef SpecName);

/// Device functions \p Ptx declares but does not define whose names show a
/// device-side launch (dynamic parallelism).
std::vector<std::string> findDeviceSideLaunches(llvm::StringRef Ptx);

llvm::json::Value toJSON(const VerifyResult &R);
llvm::json::Value toJSON(const DeviceInfo &D);
llvm::json::Value toJSON(const ShapeResult &S);
llvm::json::Value toJSON(const MedianCI &C);
bool fromJSON(const llvm::json::Value &V, VerifyResult &R, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, DeviceInfo &D, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, ShapeResult &S, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, TimingResult &T, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, MedianCI &C, llvm::json::Path P);

/// The human table: one line per shape, then the verdict.
void printVerifyTable(llvm::raw_ostream &OS, const VerifyResult &R);

/// The child side: `astra-opt --harness-worker <job.json>`. Writes the
/// result JSON named in the job; returns the process exit code.
int runHarnessWorker(llvm::StringRef JobPath);

} // namespace astra

#endif // ASTRA_HARNESS_VERIFY_H
