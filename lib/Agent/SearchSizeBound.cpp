//===- SearchSizeBound.cpp - Launches bounded by a size ------------------===//
//
// A launch change rarely pays on every shape: a shrunk grid concentrates a
// small problem on a few SMs, a smaller block pays where two blocks of a
// long row kernel fit an SM and loses where the rows are few and long. The
// launch rewrite's `min-threads=N` makes a change only where the caller's
// launch (the spec's) has at least N threads, so the search re-proposes a
// plan whose measurements split that way. A plan mixed against the original
// (with a division or fold) gets N at its smallest faster shape above every
// slower one (faster shapes below run the original's launch too); a plan whose
// last step changes the launch is compared shape by shape with the plan it
// extends, and gets N at the split whose larger shapes gain most. N is a
// shape's thread count, rounded down to a power of two where that stays above
// the shapes below it (a size a caller can read). A mixed plan with a division
// is also proposed with a copy of the kernel for the launches below N
// (keep-original before the form that lets the launch divide, and the launch
// step's small-entry=1): one kernel per size range. A mixed plan without a
// division, slower only below the shapes it won, gets the copy below the
// bound (keep-original first, `small-entry=1` on its launch step or on a
// launch step of its own; boundMixedPlan). A winner whose
// re-verification came out mixed (--agent-rewrite re-verifies it in the
// composed file) gets the same split from that recheck's shapes
// (splitAfterRecheck): the whole plan from N on, the kernel as it was below.
//
//===----------------------------------------------------------------------===//
#include "SearchSizeBound.h"
#include "SearchLaunch.h"
#include "astra/Agent/Plan.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <optional>

using namespace llvm;

namespace astra {
namespace {

/// What a bounded launch must gain over the plan it extends (geometric mean
/// over the shapes) to be worth judging.
constexpr double MinGain = 1.005;

using ShapeThreadList = ArrayRef<std::pair<std::string, uint64_t>>;

std::optional<uint64_t> threadsOf(ShapeThreadList ShapeThreads,
                                  StringRef Shape) {
  for (const auto &[Name, Threads] : ShapeThreads)
    if (Name == Shape)
      return Threads;
  return std::nullopt;
}

/// Where a mixed result splits by launch size: the bound above every slower
/// shape, at the smallest faster one there (faster shapes below it give
/// their gain up: they run the original's launch or code), and the result's
/// geometric mean with the shapes below the bound at 1x.
struct SizeSplit {
  uint64_t Bound = 0;
  double Estimate = 1;
};

/// The split of \p R's timed spec shapes, or none when no faster shape lies
/// above every slower one or a shape's launch size is unknown. The bound is
/// rounded down to a power of two where that stays above the slower shapes.
std::optional<SizeSplit> splitByThreads(const VerifyResult &R,
                                        ShapeThreadList ShapeThreads) {
  std::vector<std::pair<uint64_t, const ShapeResult *>> Timed;
  uint64_t MinFaster = UINT64_MAX, MaxSlower = 0;
  for (const ShapeResult &S : R.Shapes) {
    if (S.Generated || !S.Timing)
      continue;
    std::optional<uint64_t> T = threadsOf(ShapeThreads, S.Shape);
    if (!T)
      return std::nullopt;
    Timed.push_back({*T, &S});
    if (S.Timing->Verdict == Verdict::Slower)
      MaxSlower = std::max(MaxSlower, *T);
  }
  for (auto [T, S] : Timed)
    if (S->Timing->Verdict == Verdict::Faster && T > MaxSlower)
      MinFaster = std::min(MinFaster, T);
  if (Timed.empty() || MinFaster == UINT64_MAX)
    return std::nullopt;
  SizeSplit Out;
  Out.Bound = uint64_t(1) << Log2_64(MinFaster);
  if (Out.Bound <= MaxSlower)
    Out.Bound = MinFaster;
  double LogSum = 0;
  for (auto [T, S] : Timed)
    if (T >= Out.Bound)
      LogSum += std::log(S->Timing->Speedup.Median);
  Out.Estimate = std::exp(LogSum / Timed.size());
  return Out;
}

const Evaluation *findJudged(const AgentContext &Ctx, StringRef Steps) {
  for (const Evaluation &H : *Ctx.History)
    if (H.Status == EvalStatus::Evaluated && H.Result &&
        H.Cand.ReplacementSource.empty() && formatSteps(H.Cand.Steps) == Steps)
      return &H;
  return nullptr;
}

/// Mixed against the original, with a division or fold anywhere in the plan.
void boundMixedDivision(const AgentContext &Ctx, const Evaluation &H,
                        const StringMap<double> &JudgedSpeedup,
                        std::vector<SizeBoundProposal> &Out) {
  if (H.Result->Verdict != Verdict::Mixed)
    return;
  auto Div = unboundedDivision(H.Cand.Steps);
  if (!Div)
    return;
  // The bound goes on the division's step and holds for the whole merged
  // launch: another step whose source edits hold at every size (a
  // variable, block=, a division) would disagree with it below the bound.
  for (size_t I = 0; I < H.Cand.Steps.size(); ++I) {
    if (I == Div->first || !StringRef(H.Cand.Steps[I]).starts_with("launch:"))
      continue;
    Expected<RewriteParams> Other = RewriteParams::parse(H.Cand.Steps[I]);
    if (!Other) {
      consumeError(Other.takeError());
      return;
    }
    if (launchStepEditsSource(*Other))
      return;
  }
  // Faster shapes below the bound (segment_mean_csr's single row) give
  // their gain up: they run the original's launch too.
  std::optional<SizeSplit> Split = splitByThreads(*H.Result, Ctx.ShapeThreads);
  if (!Split)
    return;
  RewriteParams P = Div->second;
  P.Values["min-threads"] = std::to_string(Split->Bound);
  SizeBoundProposal SP;
  if (Div->first == 0) {
    // The kernel takes the divided launch as it is (a grid-stride loop of
    // its own): the bounded division is the option, and no copy below the
    // bound (it would run the same code).
    SP.Option = formatRewriteParams(P);
  } else {
    SP.Base.assign(H.Cand.Steps.begin(), H.Cand.Steps.begin() + Div->first - 1);
    SP.Option = H.Cand.Steps[Div->first - 1];
    SP.Then = {formatRewriteParams(P)};
  }
  SP.Then.insert(SP.Then.end(), H.Cand.Steps.begin() + Div->first + 1,
                 H.Cand.Steps.end());
  auto B = JudgedSpeedup.find(formatSteps(SP.Base));
  SP.Gain = Split->Estimate / (B == JudgedSpeedup.end() ? 1.0 : B->second);
  SP.Rationale = "was mixed (slower on the smaller launches): the same plan "
                 "with the launch divided only from " +
                 std::to_string(Split->Bound) + " threads on";
  SP.From = &H;
  // The same, with the smaller launches running a copy of the kernel as it
  // was before the form that lets the launch divide (keep-original): the
  // form's registers and fallback then cost them nothing.
  Expected<RewriteParams> Form = RewriteParams::parse(SP.Option);
  if (!Form)
    consumeError(Form.takeError());
  else if (Div->first > 0 && !Form->Kernel.empty() &&
           Form->Name != "keep-original" &&
           none_of(H.Cand.Steps, [](const std::string &S) {
             return StringRef(S).starts_with("keep-original:");
           })) {
    // The copy is the option (its base was judged; the copy alone runs
    // nothing new), the form and the bounded launch follow.
    SizeBoundProposal Split = SP;
    Split.Option = "keep-original:kernel=" + Form->Kernel;
    P.Values["small-entry"] = "1";
    Split.Then = {SP.Option, formatRewriteParams(P)};
    Split.Then.insert(Split.Then.end(), SP.Then.begin() + 1, SP.Then.end());
    Split.Rationale += ", and below that the kernel as it was before " +
                       SP.Option + " (keep-original)";
    // Below the bound the plain one runs the form's fallback, which may cost
    // (registers); the copy runs the code before the form: tried first.
    Split.Gain *= 1.001;
    Out.push_back(std::move(Split));
  }
  Out.push_back(std::move(SP));
}

/// A last launch step that pays over the plan it extends on the larger
/// shapes only.
void boundLastLaunch(const AgentContext &Ctx, const Evaluation &H,
                     std::vector<SizeBoundProposal> &Out) {
  const std::vector<std::string> &Steps = H.Cand.Steps;
  if (Steps.empty() || !StringRef(Steps.back()).starts_with("launch:"))
    return;
  Expected<RewriteParams> P = RewriteParams::parse(Steps.back());
  if (!P) {
    consumeError(P.takeError());
    return;
  }
  if (P->Values.count("min-threads"))
    return;
  std::vector<std::string> Base(Steps.begin(), Steps.end() - 1);
  // One bound holds for all of a plan's launch steps (they merge into one
  // launch): below it the spec's launch, which is the base's only when the
  // base keeps the spec's launch.
  if (any_of(Base, [](const std::string &S) {
        return StringRef(S).starts_with("launch:");
      }))
    return;
  const Evaluation *B = nullptr;
  if (!Base.empty() && !(B = findJudged(Ctx, formatSteps(Base))))
    return;
  auto BaseMedian = [&](StringRef Shape) -> std::optional<double> {
    if (!B)
      return 1.0; // the original
    for (const ShapeResult &S : B->Result->Shapes)
      if (S.Shape == Shape && S.Timing)
        return S.Timing->Speedup.Median;
    return std::nullopt;
  };
  struct Point {
    uint64_t Threads;
    double Ratio;
  };
  std::vector<Point> Points;
  for (const ShapeResult &S : H.Result->Shapes) {
    if (S.Generated || !S.Timing)
      continue;
    std::optional<uint64_t> T = threadsOf(Ctx.ShapeThreads, S.Shape);
    std::optional<double> Was = BaseMedian(S.Shape);
    if (!T || !Was || *Was <= 0)
      return;
    Points.push_back({*T, S.Timing->Speedup.Median / *Was});
  }
  if (Points.size() < 2)
    return;
  llvm::stable_sort(Points, [](const Point &A, const Point &B) {
    return A.Threads < B.Threads;
  });
  // The split that gains most: the base's launch below the J-th smallest
  // launch, the change from it on (J = 0 is the plan as judged). A small
  // shape that the change sped up by a little is given up where the shapes
  // between it and the large ones lost more.
  std::vector<double> Suffix(Points.size() + 1, 0);
  for (size_t I = Points.size(); I-- > 0;)
    Suffix[I] = Suffix[I + 1] + std::log(Points[I].Ratio);
  size_t Best = 0;
  for (size_t J = 1; J < Points.size(); ++J)
    if (Points[J].Threads > Points[J - 1].Threads && Suffix[J] > Suffix[Best])
      Best = J;
  double Gain = std::exp(Suffix[Best] / Points.size());
  double OverJudged = std::exp((Suffix[Best] - Suffix[0]) / Points.size());
  if (Best == 0 || Gain < MinGain || OverJudged < MinGain)
    return; // the plan as judged, or no change at all, is about as good
  uint64_t Bound = uint64_t(1) << Log2_64(Points[Best].Threads);
  if (Bound <= Points[Best - 1].Threads)
    Bound = Points[Best].Threads;
  P->Values["min-threads"] = std::to_string(Bound);
  SizeBoundProposal SP;
  SP.Base = std::move(Base);
  SP.Option = formatRewriteParams(*P);
  SP.Gain = Gain;
  SP.Rationale = "against the plan it extends, the launch pays from " +
                 std::to_string(Bound) +
                 " threads on and not below: that launch only there";
  SP.From = &H;
  Out.push_back(std::move(SP));
}

/// Mixed against the original without a division: slower on the smaller
/// launches only (a tunable block that costs a single block's launch, a
/// form whose setup costs more than it saves on a few elements). The plan
/// from the bound on, the kernel as it was (keep-original) below.
void boundMixedPlan(const AgentContext &Ctx, const Evaluation &H,
                    std::vector<SizeBoundProposal> &Out) {
  if (H.Result->Verdict != Verdict::Mixed || unboundedDivision(H.Cand.Steps))
    return;
  double Estimate = 1;
  std::optional<std::vector<std::string>> Split = splitAfterRecheck(
      H.Cand.Steps, *H.Result, Ctx.ShapeThreads, Ctx.SourceKernel, Estimate);
  if (!Split)
    return;
  SizeBoundProposal SP;
  SP.Option = Split->front();
  SP.Then.assign(Split->begin() + 1, Split->end());
  SP.Gain = Estimate;
  SP.Rationale = "was mixed (slower on the smaller launches): the same plan "
                 "from the smallest faster launch on, and below that the "
                 "kernel as it was (keep-original)";
  SP.From = &H;
  Out.push_back(std::move(SP));
}

} // namespace

std::optional<std::vector<std::string>>
splitAfterRecheck(const std::vector<std::string> &Steps,
                  const VerifyResult &Recheck,
                  ArrayRef<std::pair<std::string, uint64_t>> ShapeThreads,
                  StringRef SourceKernel, double &Estimate) {
  if (Recheck.Verdict != Verdict::Mixed || SourceKernel.empty())
    return std::nullopt;
  std::optional<size_t> LaunchAt;
  for (size_t I = 0; I < Steps.size(); ++I) {
    StringRef S = Steps[I];
    if (S.starts_with("keep-original:"))
      return std::nullopt;
    if (!S.starts_with("launch:"))
      continue;
    if (LaunchAt)
      return std::nullopt; // which step would carry the bound is not clear
    LaunchAt = I;
  }
  RewriteParams P;
  if (LaunchAt) {
    Expected<RewriteParams> Parsed = RewriteParams::parse(Steps[*LaunchAt]);
    if (!Parsed) {
      consumeError(Parsed.takeError());
      return std::nullopt;
    }
    P = std::move(*Parsed);
    for (StringRef Key : {"min-threads", "small-entry", "template-arg"})
      if (P.Values.count(Key))
        return std::nullopt;
  } else {
    P.Name = "launch";
    P.Kernel = SourceKernel.str();
  }
  // The copy below the bound: 1x there.
  std::optional<SizeSplit> Split = splitByThreads(Recheck, ShapeThreads);
  if (!Split || Split->Estimate <= 1)
    return std::nullopt;
  Estimate = Split->Estimate;
  P.Values["min-threads"] = std::to_string(Split->Bound);
  P.Values["small-entry"] = "1";
  std::vector<std::string> Out = {"keep-original:kernel=" + SourceKernel.str()};
  Out.insert(Out.end(), Steps.begin(), Steps.end());
  if (LaunchAt)
    Out[*LaunchAt + 1] = formatRewriteParams(P);
  else
    Out.push_back(formatRewriteParams(P));
  return Out;
}

std::vector<SizeBoundProposal>
sizeBoundProposals(const AgentContext &Ctx,
                   const StringMap<double> &JudgedSpeedup) {
  std::vector<SizeBoundProposal> Out;
  for (const Evaluation &H : *Ctx.History) {
    if (H.Status != EvalStatus::Evaluated || !H.Result ||
        !H.Cand.ReplacementSource.empty() || H.Result->Shapes.empty())
      continue;
    if (H.speedup() <= 0)
      continue; // refused
    boundMixedDivision(Ctx, H, JudgedSpeedup, Out);
    boundMixedPlan(Ctx, H, Out);
    boundLastLaunch(Ctx, H, Out);
  }
  return Out;
}

} // namespace astra
