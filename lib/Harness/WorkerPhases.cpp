//===- WorkerPhases.cpp - Where a worker's wall time goes -----------------===//
#include "WorkerPhases.h"
#include "llvm/Support/FormatVariadic.h"

namespace astra {
namespace worker {

namespace {
double Seconds[size_t(Phase::Count)];
/// Nesting depth: an inner phase's time is not counted twice.
unsigned Depth = 0;
double Inner = 0;

const char *phaseName(Phase P) {
  static const char *Names[] = {"init",     "load-modules", "ref-io",
                                "inputgen", "upload",       "run",
                                "download", "compare",      "timing"};
  return Names[size_t(P)];
}
} // namespace

ScopedPhase::ScopedPhase(Phase P)
    : P(P), Start(std::chrono::steady_clock::now()) {
  if (Depth++ == 0)
    Inner = 0;
}

ScopedPhase::~ScopedPhase() {
  double S =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (--Depth == 0) {
    Seconds[size_t(P)] += S - Inner;
  } else {
    Seconds[size_t(P)] += S;
    if (Depth == 1)
      Inner += S;
  }
}

std::string describePhases(double TotalSeconds) {
  std::string Out;
  double Sum = 0;
  for (size_t I = 0; I < size_t(Phase::Count); ++I) {
    if (Seconds[I] == 0)
      continue;
    Sum += Seconds[I];
    Out += llvm::formatv("{0} {1:F2} s, ", phaseName(Phase(I)), Seconds[I]);
  }
  Out += llvm::formatv("other {0:F2} s", TotalSeconds - Sum);
  return Out;
}

} // namespace worker
} // namespace astra
