//===- VerifyResult.h - What a verification found ---------------*- C++ -*-===//
//
// The result of judging one candidate against the original (docs/harness.md):
// the device, per shape correctness and timing, the verdict with its reason
// and evidence, notes. Written by the worker, read back by the parent, and
// reported as JSON (VerifyJSON.cpp) or as a table (VerifyTable.h).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_VERIFYRESULT_H
#define ASTRA_HARNESS_VERIFYRESULT_H

#include "astra/Harness/Stats.h"
#include "astra/Harness/Verdict.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace astra {

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
  double Margin = 0; ///< the acceptance margin used
  unsigned Rounds = 0;
  unsigned Batch = 1; ///< launches per sample, each on its own copy
  double Bytes = 0;   ///< bytes per launch: ResolvedLaunch::MinBytes
  double FloorUs = 0; ///< physical floor per launch
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
  /// The candidate's launch overrides (LaunchOverrides::str()), empty when
  /// it runs with the spec's launch.
  std::string Launch;
};

/// Fills in the verdict of a result from its timed shapes: the geometric
/// mean, the control's median, FasterShapes and SlowerShapes, and (unless
/// refused) Faster, Slower, Mixed (both) or NoChange.
void judgeResult(VerifyResult &R);

llvm::json::Value toJSON(const VerifyResult &R);
llvm::json::Value toJSON(const DeviceInfo &D);
llvm::json::Value toJSON(const ShapeResult &S);
llvm::json::Value toJSON(const MedianCI &C);
bool fromJSON(const llvm::json::Value &V, VerifyResult &R, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, DeviceInfo &D, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, ShapeResult &S, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, TimingResult &T, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, MedianCI &C, llvm::json::Path P);

} // namespace astra

#endif // ASTRA_HARNESS_VERIFYRESULT_H
