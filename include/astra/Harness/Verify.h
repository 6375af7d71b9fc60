//===- Verify.h - Run a candidate against the original on the GPU -*- C++
//-*-===//
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

// What callers of verifyCandidate also use; each declared in its own header.
#include "astra/Harness/HarnessWorker.h"
#include "astra/Harness/PtxScan.h"
#include "astra/Harness/Spec.h"
#include "astra/Harness/VerifyResult.h"
#include "astra/Harness/VerifyTable.h"
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

struct VerifyOptions {
  std::string SpecPath;
  /// The spec's kernel (as written there); empty: the spec's only kernel.
  std::string Kernel;
  std::string OriginalFile, CandidateFile; ///< for the report
  std::string OriginalPtx, CandidatePtx;   ///< PTX text
  /// The candidate's launch (the `launch` rewrite's contract); the original
  /// runs with the spec's.
  LaunchOverrides Launch;
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

} // namespace astra

#endif // ASTRA_HARNESS_VERIFY_H
