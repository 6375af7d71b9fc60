//===- VerifyTable.cpp - Verify results as the human table ----------------===//
#include "astra/Harness/VerifyTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

/// "T=128,d=11008 (1.61x), T=4,d=4096 (1.55x)": the timed shapes whose
/// verdict is \p V, with their median speedups.
static std::string shapesWith(const VerifyResult &R, Verdict V) {
  std::string Out;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Timing || S.Timing->Verdict != V)
      continue;
    if (!Out.empty())
      Out += ", ";
    for (char C : S.Shape)
      if (C != ' ')
        Out += C;
    Out += formatv(" ({0:f2}x)", S.Timing->Speedup.Median).str();
  }
  return Out;
}

void printVerdictLine(raw_ostream &OS, const VerifyResult &R) {
  std::string Mean = formatv("geometric-mean speedup {0:f3}x, control {1:f3}x",
                             R.GeoMeanSpeedup, R.ControlMedian)
                         .str();
  switch (R.Verdict) {
  case Verdict::Refused:
    OS << "verdict: refused: " << reasonName(R.Why) << ": " << R.Detail << "\n";
    return;
  case Verdict::Mixed:
    OS << "verdict: mixed: faster on " << shapesWith(R, Verdict::Faster)
       << "; slower on " << shapesWith(R, Verdict::Slower) << " (" << Mean
       << ")\n";
    return;
  case Verdict::Faster:
  case Verdict::Slower:
    OS << "verdict: " << verdictName(R.Verdict) << " (" << Mean << "; "
       << verdictName(R.Verdict) << " on " << shapesWith(R, R.Verdict) << ")\n";
    return;
  case Verdict::NoChange:
    OS << "verdict: " << verdictName(R.Verdict) << " (" << Mean << ")\n";
    return;
  }
}

void printVerifyTable(raw_ostream &OS, const VerifyResult &R) {
  const DeviceInfo &D = R.Device;
  OS << formatv("device: {0} (sm_{1}{2}, {3} SMs, L2 {4} MiB), copy "
                "bandwidth {5:f0} GB/s, peak DRAM {6:f0} GB/s\n",
                D.Name, D.CcMajor, D.CcMinor, D.SMs, D.L2Bytes >> 20, D.CopyGBs,
                D.PeakDramGBs);
  OS << "kernel: " << R.KernelName << "  original: " << R.OriginalFile
     << "  candidate: "
     << (R.IsControlRun ? "the original itself (control run)" : R.CandidateFile)
     << "\n";
  if (!R.Launch.empty())
    OS << "candidate launch: " << R.Launch
       << " (the original runs with the spec's launch)\n";
  OS << formatv("{0,-34} {1,-8} {2,10} {3,10} {4,-24} {5,8} {6,6} {7,-21}\n",
                "shape", "correct", "orig us", "cand us", "speedup [95% CI]",
                "GB/s", "%copy", "control [95% CI]");
  for (const ShapeResult &S : R.Shapes) {
    std::string Name = S.Shape + (S.Generated ? " (edge)" : "");
    std::string Correct = !S.Dropped.empty() ? "dropped"
                          : S.Correct        ? "yes"
                                             : "NO";
    if (!S.Timing) {
      // Generated shapes appear only when the candidate failed there.
      if (!S.Generated || (S.Checked && !S.Correct && S.Dropped.empty()))
        OS << formatv("{0,-34} {1,-8} {2,10}\n", Name, Correct,
                      S.Cases ? formatv("{0} cases", S.Cases).str() : "");
      continue;
    }
    const TimingResult &T = *S.Timing;
    OS << formatv("{0,-34} {1,-8} {2,10:f2} {3,10:f2} {4,-24} {5,8:f0} "
                  "{6,6:f1} {7,-21}\n",
                  Name, Correct, T.OrigUs, T.CandUs,
                  formatv("{0:f3}x [{1:f3},{2:f3}]", T.Speedup.Median,
                          T.Speedup.Lo, T.Speedup.Hi)
                      .str(),
                  T.CandGBs, T.CandPctCopy,
                  formatv("{0:f3} [{1:f3},{2:f3}]", T.Control.Median,
                          T.Control.Lo, T.Control.Hi)
                      .str());
  }
  unsigned Edge = 0, EdgeOk = 0, Dropped = 0, Unchecked = 0;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Generated)
      continue;
    ++Edge;
    EdgeOk += S.Correct;
    Dropped += !S.Dropped.empty();
    Unchecked += !S.Checked;
  }
  if (Edge)
    OS << formatv("edge shapes: {0} generated, {1} correct, {2} dropped "
                  "(not valid for the original), {3} not reached\n",
                  Edge, EdgeOk, Dropped, Unchecked);
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";
  printVerdictLine(OS, R);
  OS << formatv("harness time: {0:f2} s (worker {1:f2} s)\n", R.WallSeconds,
                R.WorkerSeconds);
}

} // namespace astra
