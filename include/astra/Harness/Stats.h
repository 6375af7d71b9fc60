//===- Stats.h - Medians, confidence intervals, the acceptance rule -*- C++ -*-===//
//
// The timing protocol's statistics (design section 6, docs/harness.md):
// a distribution-free confidence interval for the median from order
// statistics (no normality assumption, deterministic), and the rule that
// turns a speedup interval and the original-vs-original control into a
// verdict.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_STATS_H
#define ASTRA_HARNESS_STATS_H

#include "astra/Harness/Verdict.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstddef>

namespace astra {

/// The median of \p Samples (mean of the two middle values for an even
/// count); 0 for none.
double median(llvm::ArrayRef<double> Samples);

struct MedianCI {
  double Median = 0;
  double Lo = 0;
  double Hi = 0;
  size_t N = 0;
  /// The interval's actual coverage (>= the requested level when Exact).
  double Coverage = 0;
  /// False when there are too few samples for the requested level; the
  /// interval is then [min, max].
  bool Exact = false;

  /// (Hi - Lo) / (2 * Median): the stopping criterion of the sampler.
  double relHalfWidth() const;
};

/// The median of \p Samples with a distribution-free confidence interval:
/// [x(k), x(n-k+1)] of the sorted samples with the largest k such that
/// P(Binomial(n, 1/2) <= k-1) <= (1-Level)/2.
MedianCI medianCI(llvm::ArrayRef<double> Samples, double Level = 0.95);

/// How far the control (original against itself) strays from 1.00x: the
/// larger distance of its interval's ends from 1 (0 when it holds 1 tightly).
double controlNoise(const MedianCI &Control);

/// The acceptance threshold: max(MinGain, the control's noise).
double acceptanceMargin(const MedianCI &Control, double MinGain = 0.01);

/// Faster only when the speedup interval's lower bound beats 1 + margin;
/// Slower when its upper bound is under 1 - margin; NoChange otherwise
/// (never Mixed or Refused).
Verdict judgeSpeedup(const MedianCI &Speedup, const MedianCI &Control,
                     double MinGain = 0.01);

/// When the timing rounds stop (kept apart from the measurement, as NVBench
/// keeps its stopping criteria): only after whole cycles of the rotating
/// orders and at least MinRounds; then at MaxRounds, past the time budget,
/// or once both the speedup's and the control's intervals are within
/// TargetHalfWidth of their medians.
struct StoppingRule {
  unsigned MinRounds = 12, MaxRounds = 600;
  unsigned Cycle = 6; ///< rounds per cycle of the orders
  double TimeBudget = 1.0;
  double TargetHalfWidth = 0.005;

  bool shouldStop(llvm::ArrayRef<double> Speedups,
                  llvm::ArrayRef<double> Controls, double Seconds) const;
};

} // namespace astra

#endif // ASTRA_HARNESS_STATS_H
