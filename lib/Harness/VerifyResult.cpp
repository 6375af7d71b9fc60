//===- VerifyResult.cpp - The verdict of a result from its shapes ---------===//
#include "astra/Harness/VerifyResult.h"
#include <cmath>

using namespace llvm;

namespace astra {

/// "T=128, d=11008" -> "T=128,d=11008".
static std::string compactShape(StringRef Shape) {
  std::string Out;
  for (char C : Shape)
    if (C != ' ')
      Out += C;
  return Out;
}

void judgeResult(VerifyResult &R) {
  R.FasterShapes.clear();
  R.SlowerShapes.clear();
  std::vector<double> Logs, Controls;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Timing)
      continue;
    Logs.push_back(std::log(S.Timing->Speedup.Median));
    Controls.push_back(S.Timing->Control.Median);
    if (S.Timing->Verdict == Verdict::Faster)
      R.FasterShapes.push_back(compactShape(S.Shape));
    else if (S.Timing->Verdict == Verdict::Slower)
      R.SlowerShapes.push_back(compactShape(S.Shape));
  }
  double Sum = 0;
  for (double L : Logs)
    Sum += L;
  R.GeoMeanSpeedup = Logs.empty() ? 1 : std::exp(Sum / Logs.size());
  R.ControlMedian = Controls.empty() ? 1 : median(Controls);
  if (R.Verdict == Verdict::Refused)
    return;
  bool AnyFaster = !R.FasterShapes.empty(), AnySlower = !R.SlowerShapes.empty();
  R.Verdict = AnyFaster && AnySlower ? Verdict::Mixed
              : AnySlower            ? Verdict::Slower
              : AnyFaster            ? Verdict::Faster
                                     : Verdict::NoChange;
}

} // namespace astra
