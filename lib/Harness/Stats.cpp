//===- Stats.cpp - Medians, confidence intervals, the acceptance rule -----===//
#include "astra/Harness/Stats.h"
#include <algorithm>
#include <cmath>
#include <vector>

using namespace llvm;

namespace astra {

double median(ArrayRef<double> Samples) {
  if (Samples.empty())
    return 0;
  std::vector<double> S(Samples.begin(), Samples.end());
  std::sort(S.begin(), S.end());
  size_t N = S.size();
  return N % 2 ? S[N / 2] : (S[N / 2 - 1] + S[N / 2]) / 2;
}

double MedianCI::relHalfWidth() const {
  if (Median <= 0)
    return INFINITY;
  return (Hi - Lo) / (2 * Median);
}

/// P(Binomial(N, 1/2) <= K), summed in log space (stable for large N).
static double binomialHalfCdf(size_t N, size_t K) {
  double LogHalfN = -double(N) * std::log(2.0);
  double Sum = 0;
  double LogC = 0; // log C(N, 0)
  for (size_t I = 0; I <= K && I <= N; ++I) {
    if (I > 0)
      LogC += std::log(double(N - I + 1)) - std::log(double(I));
    Sum += std::exp(LogC + LogHalfN);
  }
  return std::min(Sum, 1.0);
}

MedianCI medianCI(ArrayRef<double> Samples, double Level) {
  MedianCI R;
  R.N = Samples.size();
  if (Samples.empty())
    return R;
  std::vector<double> S(Samples.begin(), Samples.end());
  std::sort(S.begin(), S.end());
  size_t N = S.size();
  R.Median = N % 2 ? S[N / 2] : (S[N / 2 - 1] + S[N / 2]) / 2;
  double Tail = (1 - Level) / 2;
  // Largest 1-based K with P(Bin <= K-1) <= Tail; the interval is
  // [S[K-1], S[N-K]] and covers with probability 1 - 2 P(Bin <= K-1).
  size_t Best = 0;
  double BestTail = 0;
  for (size_t K = 1; K <= (N + 1) / 2; ++K) {
    double P = binomialHalfCdf(N, K - 1);
    if (P > Tail)
      break;
    Best = K;
    BestTail = P;
  }
  if (Best == 0) {
    R.Lo = S.front();
    R.Hi = S.back();
    R.Coverage = 1 - 2 * binomialHalfCdf(N, 0);
    R.Exact = false;
    return R;
  }
  R.Lo = S[Best - 1];
  R.Hi = S[N - Best];
  R.Coverage = 1 - 2 * BestTail;
  R.Exact = true;
  return R;
}

double controlNoise(const MedianCI &Control) {
  if (Control.N == 0)
    return 0;
  return std::max({0.0, Control.Hi - 1, 1 - Control.Lo});
}

double acceptanceMargin(const MedianCI &Control, double MinGain) {
  return std::max(MinGain, controlNoise(Control));
}

Verdict judgeSpeedup(const MedianCI &Speedup, const MedianCI &Control,
                     double MinGain) {
  double M = acceptanceMargin(Control, MinGain);
  if (Speedup.N == 0)
    return Verdict::NoChange;
  if (Speedup.Lo > 1 + M)
    return Verdict::Faster;
  if (Speedup.Hi < 1 - M)
    return Verdict::Slower;
  return Verdict::NoChange;
}

bool StoppingRule::shouldStop(ArrayRef<double> Speedups,
                              ArrayRef<double> Controls, double Seconds) const {
  size_t N = Speedups.size();
  if (N < MinRounds || (Cycle && N % Cycle))
    return false;
  if (N >= MaxRounds || Seconds > TimeBudget)
    return true;
  return medianCI(Speedups).relHalfWidth() <= TargetHalfWidth &&
         medianCI(Controls).relHalfWidth() <= TargetHalfWidth;
}

} // namespace astra
