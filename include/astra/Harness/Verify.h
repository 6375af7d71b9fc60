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

#include "astra/Harness/PtxScan.h"
#include "astra/Harness/Stats.h"
#include "astra/Harness/Verdict.h"
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
  /// Faster, NoChange or Slower (judgeSpeedup).
  astra::Verdict Verdict = astra::Verdict::NoChange;
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
  astra::Verdict Verdict = astra::Verdict::NoChange;
  /// The timed shapes judged faster (slower) beyond the margin, written
  /// without spaces ("T=128,d=11008"); both non-empty: Mixed.
  std::vector<std::string> FasterShapes, SlowerShapes;
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

/// Warnings for the report: one per module-scope `.global` variable that
/// \p CandPtx stores to and \p OrigPtx does not.
std::vector<std::string> globalStateNotes(llvm::StringRef OrigPtx,
                                          llvm::StringRef CandPtx);

/// Fills in the verdict of a result from its timed shapes: the geometric
/// mean, the control's median, FasterShapes and SlowerShapes, and (unless
/// refused) Faster, Slower, Mixed (both) or NoChange.
void judgeResult(VerifyResult &R);

/// Generated edge shapes for \p K (docs/harness.md): from the spec's
/// smallest shape, each variable set in turn to 1, 3, 5, 7, 9, 15, 17, 97,
/// keeping those that resolve, are new, and stay small.
std::vector<std::pair<std::string, std::vector<std::pair<std::string, int64_t>>>>
deriveEdgeShapes(const KernelSpec &K);

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
/// The table's last word: "verdict: mixed: faster on T=128,d=11008 (1.61x);
/// slower on T=1,d=4096 (0.72x) (geometric-mean speedup ...)", "verdict:
/// refused: <reason>: <evidence>", ...
void printVerdictLine(llvm::raw_ostream &OS, const VerifyResult &R);

/// The child side: `astra-opt --harness-worker <job.json>`. Writes the
/// result JSON named in the job; returns the process exit code.
int runHarnessWorker(llvm::StringRef JobPath);

} // namespace astra

#endif // ASTRA_HARNESS_VERIFY_H
