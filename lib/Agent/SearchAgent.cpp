//===- SearchAgent.cpp - Best-first beam search over catalogue plans ------===//
//
// A frontier of plans not yet judged, each one base plan (already judged, or
// the original) extended by one catalogue option, ranked by an estimate of
// its geometric-mean speedup:
//
//   estimate = speedup(base) * gain(option)
//
// gain() is what the option gave alone on the original when it was judged
// alone; else the best that its family (same rewrite and site, other
// parameter values; a launch's family is its own values) added to the plan
// it extended, a little discounted; else 0.85 when the family, added to some
// plan, left the PTX unchanged; else the mean of what the same rewrite added
// elsewhere, discounted more (never for the spec's tunable launches); else a
// prior: 1 for an option with the rewrite's default values, slightly less
// for its other values and for rewrites that pay less often, so that every
// rewrite and site is tried once before parameters are tuned, and a rewrite
// that made things slower is tried less. Options
// refused alone are never proposed again (a composition would not make them
// right).
//
// Each call expands the best `BeamWidth` usable plans (correct, not slower,
// not mixed) of fewer than `MaxDepth` distinct rewrites (launch steps do not
// count, and one rewrite at several sites counts once; a plan of `MaxDepth`
// rewrites gets only more sites of its own rewrites and the spec's tunable
// launches) that were not expanded yet, then
// returns the few best frontier entries: small batches keep the search
// adaptive, so a budget is spent on extensions of what was measured faster
// rather than on the tail of the first round. Plans are sets of steps for
// deduplication: a permutation of a plan already proposed is not proposed.
//
//===----------------------------------------------------------------------===//
#include "SearchAgentImpl.h"
#include "astra/Agent/Agent.h"
#include "astra/Agent/Plan.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <optional>

using namespace llvm;

namespace astra {
namespace search {
namespace {

/// The single-step evaluation of \p Option on the original, if judged.
const Evaluation *judgedAlone(const AgentContext &Ctx, StringRef Option) {
  for (const Evaluation &E : *Ctx.History)
    if (E.Cand.Steps.size() == 1 && E.Cand.Steps[0] == Option &&
        E.Cand.ReplacementSource.empty())
      return &E;
  return nullptr;
}

bool isRefused(const Evaluation &E) {
  return E.Status == EvalStatus::Evaluated && E.Result &&
         E.Result->Verdict == Verdict::Refused;
}

/// The distinct rewrites of a plan, launch steps (and keep-original, the copy
/// for a bounded launch) not counted.
StringSet<> rewritesOf(const std::vector<std::string> &Steps) {
  StringSet<> Names;
  for (const std::string &S : Steps) {
    StringRef Name = StringRef(S).split(':').first;
    if (Name != "launch" && Name != "keep-original")
      Names.insert(Name);
  }
  return Names;
}

} // namespace

std::optional<double> SearchAgent::gain(const AgentContext &Ctx,
                                        const Entry &E) const {
  if (E.Gain)
    return E.Gain;
  if (const Evaluation *Alone = judgedAlone(Ctx, E.Option)) {
    if (isRefused(*Alone))
      return std::nullopt;
    if (Alone->Status == EvalStatus::Evaluated && Alone->Result)
      return Alone->Result->GeoMeanSpeedup;
    // Alone it changed nothing (same PTX) or could not be judged: as part
    // of a composition it may still matter, but try it late.
    if (!E.Base.empty())
      return 0.9;
  }
  // What the last step of judged plans of the same family (same rewrite and
  // site), else of the same rewrite, gained over the plan it extended.
  // A family whose step, added to some plan, left the PTX as it was (the
  // same as the original's or an earlier candidate's) is tried late: such
  // options (unrolls the compiler already does, a rewrite of another
  // rewrite's fallback) cost a build each and change nothing.
  std::optional<double> Family;
  bool ChangedNothing = false;
  double RewriteSum = 0;
  unsigned RewriteCount = 0;
  StringRef Name = StringRef(E.Family).split(':').first;
  for (const Evaluation &H : *Ctx.History) {
    if (H.Cand.Steps.empty() || !H.Cand.ReplacementSource.empty())
      continue;
    if (H.Status == EvalStatus::DuplicatePtx ||
        H.Status == EvalStatus::SameAsOriginal) {
      Expected<RewriteParams> P = RewriteParams::parse(H.Cand.Steps.back());
      if (!P)
        consumeError(P.takeError());
      else if (familyOf(*P) == E.Family)
        ChangedNothing = true;
      continue;
    }
    if (H.Status != EvalStatus::Evaluated || !H.Result)
      continue;
    std::vector<std::string> Base(H.Cand.Steps.begin(), H.Cand.Steps.end() - 1);
    auto B = JudgedSpeedup.find(formatSteps(Base));
    if (B == JudgedSpeedup.end())
      continue;
    Expected<RewriteParams> P = RewriteParams::parse(H.Cand.Steps.back());
    if (!P) {
      consumeError(P.takeError());
      continue;
    }
    double Rel = isRefused(H) ? 0.8 : H.Result->GeoMeanSpeedup / B->second;
    if (familyOf(*P) == E.Family)
      Family = std::max(Family.value_or(0), Rel * 0.98);
    if (P->Name == Name) {
      RewriteSum += Rel;
      ++RewriteCount;
    }
  }
  if (Family)
    return *Family;
  if (ChangedNothing)
    return 0.85;
  if (RewriteCount && !E.Tunable)
    return RewriteSum / RewriteCount * 0.95;
  return (E.DefaultValues ? 1.0 : 0.97) - 0.005 * E.Priority;
}

Expected<std::vector<Candidate>> SearchAgent::propose(const AgentContext &Ctx) {
  // Expand the original first, then the best usable plans not expanded yet.
  if (!Expanded.contains(formatSteps({}))) {
    ProposedSets.insert(setKey({}));
    expand(Ctx, {});
  }
  std::vector<const Evaluation *> Usable;
  for (const Evaluation &E : *Ctx.History)
    if (E.isUsable() && E.Cand.ReplacementSource.empty())
      Usable.push_back(&E);
  llvm::stable_sort(Usable, [](const Evaluation *A, const Evaluation *B) {
    return A->speedup() > B->speedup();
  });
  if (Usable.size() > Opts.BeamWidth)
    Usable.resize(Opts.BeamWidth);
  // The depth counts distinct rewrites, not launch steps: a plan of
  // MaxDepth rewrites still gets the spec's tunable launches
  // (per_token_fp8_quant's register-cache + vectorize-loads + warp-reduce
  // wants 512-thread blocks) and more sites of its rewrites (its quantize
  // loop in packs too, under those blocks).
  for (const Evaluation *E : Usable) {
    const std::vector<std::string> &Steps = E->Cand.Steps;
    if (Expanded.contains(formatSteps(Steps)))
      continue;
    StringSet<> Names = rewritesOf(Steps);
    expand(Ctx, Steps, Names.size() < Opts.MaxDepth ? nullptr : &Names);
  }

  JudgedSpeedup.clear();
  JudgedSpeedup[formatSteps({})] = 1.0;
  StringMap<double> BaseSpeedup = JudgedSpeedup; // usable plans only
  for (const Evaluation &E : *Ctx.History) {
    if (!E.Cand.ReplacementSource.empty() || E.speedup() <= 0)
      continue;
    JudgedSpeedup[formatSteps(E.Cand.Steps)] = E.speedup();
    if (E.isUsable())
      BaseSpeedup[formatSteps(E.Cand.Steps)] = E.speedup();
  }

  addSizeDependent(Ctx);

  struct Scored {
    unsigned Index;
    double Estimate;
  };
  std::vector<Scored> Ranked;
  std::vector<Entry> Kept;
  for (Entry &E : Frontier) {
    auto Base = BaseSpeedup.find(formatSteps(E.Base));
    std::optional<double> G = gain(Ctx, E);
    if (Base == BaseSpeedup.end() || !G)
      continue; // its base is no longer usable, or the option was refused
    Ranked.push_back({unsigned(Kept.size()), Base->second * *G});
    Kept.push_back(std::move(E));
  }
  llvm::stable_sort(Ranked, [&](const Scored &A, const Scored &B) {
    const Entry &EA = Kept[A.Index], &EB = Kept[B.Index];
    return std::make_tuple(-A.Estimate, EA.Priority, EA.Order) <
           std::make_tuple(-B.Estimate, EB.Priority, EB.Order);
  });

  unsigned BatchSize = std::max(4u, 2 * std::max(1u, Ctx.Parallelism));
  std::vector<Candidate> Batch;
  std::vector<bool> Taken(Kept.size(), false);
  for (const Scored &S : Ranked) {
    if (Batch.size() == BatchSize)
      break;
    Entry &E = Kept[S.Index];
    Candidate C;
    C.Steps = E.Base;
    C.Steps.push_back(E.Option);
    llvm::append_range(C.Steps, E.Then);
    C.Origin = "search";
    C.Rationale = E.Rationale;
    C.ChangesRounding = E.ChangesRounding;
    C.Reassociates = E.Reassociates;
    Batch.push_back(std::move(C));
    Taken[S.Index] = true;
  }
  Frontier.clear();
  for (unsigned I = 0; I < Kept.size(); ++I)
    if (!Taken[I])
      Frontier.push_back(std::move(Kept[I]));
  return std::move(Batch);
}

} // namespace search

std::unique_ptr<Agent> createSearchAgent(const SearchOptions &Opts) {
  return std::make_unique<search::SearchAgent>(Opts);
}

} // namespace astra
