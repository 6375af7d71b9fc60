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
#include "astra/Agent/Agent.h"
#include "SearchLaunch.h"
#include "SearchSizeBound.h"
#include "astra/Agent/Plan.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <optional>

using namespace llvm;

namespace astra {
namespace {

/// A prior over the catalogue: what usually pays on memory-bound kernels
/// comes first, so that a tight budget tries it first.
unsigned rewritePriority(StringRef Name) {
  static const char *Order[] = {
      "vectorize-loads", "register-cache", "warp-reduce",     "coarsen",
      "fold-blocks",     "fast-math",      "hoist-invariant", "read-only-cache",
      "launch",          "unroll"};
  for (unsigned I = 0; I < std::size(Order); ++I)
    if (Name == Order[I])
      return I;
  return std::size(Order);
}

/// The rewrite and site of an option, without its own parameter values;
/// a launch's values are its own family (one block size's verdict says
/// little about another's).
std::string familyOf(const RewriteParams &P) {
  std::string F = P.Name + ":" + P.Kernel + ":" + P.Loop + ":" + P.Function;
  if (P.Name == "launch")
    F += ":" + formatRewriteParams(P);
  return F;
}

/// A plan's steps as an order-free key.
std::string setKey(std::vector<std::string> Steps) {
  llvm::sort(Steps);
  return formatSteps(Steps);
}

struct Entry {
  std::vector<std::string> Base;
  std::string Option; ///< the `--apply=` text added to Base
  /// Steps that go with Option (the launch that its any-grid form allows).
  std::vector<std::string> Then;
  std::string Family;
  bool DefaultValues = true;
  /// One of the spec's tunable launches: estimated by its own value's
  /// verdicts only, never by other launches'.
  bool Tunable = false;
  unsigned Priority = 0, Order = 0;
  std::string Rationale;
  bool ChangesRounding = false;
  bool Reassociates = false; ///< this option or one in Base
  /// A gain known when the entry is made (a size-bounded launch: what the
  /// plan it bounds gained over its base from the bound on); else gain()
  /// estimates it.
  std::optional<double> Gain;
};

class SearchAgent : public Agent {
public:
  explicit SearchAgent(const SearchOptions &Opts) : Opts(Opts) {}
  StringRef getName() const override { return "search"; }
  Expected<std::vector<Candidate>> propose(const AgentContext &Ctx) override;

private:
  SearchOptions Opts;
  StringSet<> Expanded;     ///< plans already extended
  StringSet<> ProposedSets; ///< plans (as sets) already in the frontier
  std::vector<Entry> Frontier;
  unsigned NextOrder = 0;
  /// Geometric-mean speedup of every plan judged correct, and 1 for the
  /// original; refreshed by each propose().
  StringMap<double> JudgedSpeedup;
  /// Plans (formatSteps) with a step that reassociates float arithmetic.
  StringSet<> Reassociating;

  /// Adds \p Base's extensions to the frontier. With \p Only, a plan of
  /// the full depth: only options of those rewrites (more sites of the
  /// rewrites it holds), no compositions.
  void expand(const AgentContext &Ctx, const std::vector<std::string> &Base,
              const StringSet<> *Only = nullptr);
  /// The spec's tunable launches on \p Base (a plan without a launch step).
  void addTunable(const AgentContext &Ctx,
                  const std::vector<std::string> &Base);
  /// Records the frontier's plans that reassociate float arithmetic.
  void noteReassociating();
  /// Size-bounded launches for the judged plans of the history
  /// (SearchSizeBound.cpp).
  void addSizeDependent(const AgentContext &Ctx);
  /// Adds \p Option (then \p Then) on \p Base to the frontier unless the
  /// plan was proposed already; returns the entry added, or null.
  Entry *add(const std::vector<std::string> &Base, std::string Option,
             std::vector<std::string> Then, const RewriteParams &P);
  /// The estimated gain of \p E's option; none: do not propose it.
  std::optional<double> gain(const AgentContext &Ctx, const Entry &E) const;
};

bool allowed(const AgentContext &Ctx, const RewriteOption &O) {
  // Assuming no aliasing is only sound when the spec says so: the harness
  // never passes aliasing buffers, so it could not catch the error.
  auto It = O.Params.Values.find("assume-noalias");
  return It == O.Params.Values.end() || It->second == "0" || Ctx.SpecNoAlias;
}

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

void SearchAgent::expand(const AgentContext &Ctx,
                         const std::vector<std::string> &Base,
                         const StringSet<> *Only) {
  Expanded.insert(formatSteps(Base));
  Expected<std::vector<RewriteOption>> Options = Ctx.OptionsAfter(Base);
  if (!Options) {
    // The plan was judged, so it applies; a failure here is the frontend's.
    // Skip this base rather than end the search.
    consumeError(Options.takeError());
    return;
  }
  bool HasLaunch = llvm::any_of(Base, [](const std::string &S) {
    return StringRef(S).starts_with("launch:");
  });
  if (Only) {
    for (const RewriteOption &O : *Options) {
      if (!allowed(Ctx, O) || !Only->contains(O.Params.Name) ||
          O.Params.Name == "fold-blocks")
        continue;
      if (Entry *E = add(Base, formatRewriteParams(O.Params), {}, O.Params)) {
        E->Rationale = O.Detail + "; another site of a rewrite in the plan";
        E->ChangesRounding = O.ChangesRounding;
        E->Reassociates =
            O.Reassociates || Reassociating.contains(formatSteps(Base));
      }
    }
    if (!HasLaunch)
      addTunable(Ctx, Base);
    noteReassociating();
    return;
  }
  std::vector<std::string> Folds = foldStepsFor(Ctx, *Options);
  // Folds after \p Steps, as Option then Then on Base.
  auto AddFolds = [&](const std::vector<std::string> &Steps,
                      const std::string &Option,
                      std::vector<std::string> Then, const RewriteParams &P,
                      const std::string &Why, bool ChangesRounding = false,
                      bool Reassociates = false) {
    for (const FoldProposal &F : proposeFolds(Ctx, Steps, Folds)) {
      std::vector<std::string> T = Then;
      if (Option != F.Fold) // else the option is the fold itself
        T.push_back(F.Fold);
      T.push_back(F.Launch);
      if (Entry *E = add(Base, Option, T, P)) {
        E->Rationale = Why.empty() ? F.Rationale : Why + "; " + F.Rationale;
        E->ChangesRounding = ChangesRounding;
        E->Reassociates =
            Reassociates || Reassociating.contains(formatSteps(Base));
      }
    }
  };
  for (const std::string &Fold : Folds) {
    Expected<RewriteParams> FP = RewriteParams::parse(Fold);
    if (FP)
      AddFolds(Base, Fold, {}, *FP, "");
    else
      consumeError(FP.takeError());
  }
  for (const RewriteOption &O : *Options) {
    // A fold changes nothing without the launch that folds (AddFolds).
    if (!allowed(Ctx, O) || O.Params.Name == "fold-blocks")
      continue;
    if (Entry *E = add(Base, formatRewriteParams(O.Params), {}, O.Params)) {
      E->Rationale = O.Detail;
      E->ChangesRounding = O.ChangesRounding;
      E->Reassociates =
          O.Reassociates || Reassociating.contains(formatSteps(Base));
    }
    // A one-element-per-thread kernel (vectorize-loads at a kernel, not a
    // loop): its any-grid form covers every element for any grid, so a
    // grid shrunk by the pack width leaves no thread idle. Proposed as one
    // composition: the any-grid form alone is no faster than the default.
    // The same for a block-stride loop whose block, at the largest shape,
    // has more threads than the loop has packs (segment_mean_csr's block of
    // feat_dim threads): its any-block form under a block divided by the
    // pack width.
    if (O.Params.Name != "vectorize-loads" || !O.Params.Function.empty() ||
        Ctx.PackWidth < 2 || HasLaunch)
      continue;
    RewriteParams Any = O.Params;
    Any.Values["any-grid"] = "1";
    unsigned Div = packsPerAccess(Ctx, O);
    if (Div < 2 ||
        (!O.Params.Loop.empty() && !blockIdlesPacks(Ctx, Base, O, Div)))
      continue;
    std::vector<std::pair<unsigned, unsigned>> Splits =
        launchSplits(Div, O.BlockSplitOnly);
    // The extents the form strides over (`gridDim.y * blockDim.x`: spmm's
    // column index) are the ones a launch may divide.
    char G = O.GridDim ? O.GridDim : 'x';
    for (auto [GridDiv, BlockDiv] : Splits) {
      if ((GridDiv > 1 && G != 'x' && G != 'y') ||
          (BlockDiv > 1 && O.BlockDim && O.BlockDim != 'x'))
        continue;
      std::string Launch = "launch:kernel=" + O.Params.Kernel;
      std::string Why;
      if (GridDiv > 1) {
        Launch += std::string(",grid-") + G + "-div=" + std::to_string(GridDiv);
        Why += std::string(", the grid's ") + G + " extent / " +
               std::to_string(GridDiv);
      }
      if (BlockDiv > 1) {
        Launch += ",block-x-div=" + std::to_string(BlockDiv);
        Why += ", the block's x extent / " + std::to_string(BlockDiv);
      }
      std::string Rationale =
          O.Detail + (O.BlockSplitOnly ? "; any block" : "; any grid") + Why +
          (GridDiv * BlockDiv == Div
               ? " (one pack per thread instead of one element)"
               : " (two packs per thread)");
      std::string AnyText = formatRewriteParams(Any);
      if (Entry *E = add(Base, AnyText, {Launch}, Any)) {
        E->Rationale = Rationale;
        E->ChangesRounding = O.ChangesRounding;
        E->Reassociates =
            O.Reassociates || Reassociating.contains(formatSteps(Base));
      }
      // The shrunk blocks, folded: K of them as the rows of one.
      std::vector<std::string> Split = Base;
      Split.push_back(AnyText);
      Split.push_back(Launch);
      AddFolds(Split, AnyText, {Launch}, Any, Rationale, O.ChangesRounding,
               O.Reassociates);
    }
  }
  // A block that reduces one value per thread: each thread runs C of its
  // threads (coarsen) under a block C times smaller, which alone frees no
  // thread slots; folded, K such blocks share one. Proposed as one
  // composition (coarsenProposals, SearchLaunch.cpp).
  if (!HasLaunch)
    for (const CoarsenProposal &C : coarsenProposals(Ctx, Base)) {
      Expected<RewriteParams> CP = RewriteParams::parse(C.Coarsen);
      if (!CP) {
        consumeError(CP.takeError());
        continue;
      }
      std::vector<std::string> Split = Base;
      Split.push_back(C.Coarsen);
      Split.push_back(C.Launch);
      if (Folds.empty()) {
        if (Entry *E = add(Base, C.Coarsen, {C.Launch}, *CP))
          E->Rationale = C.Rationale;
      } else {
        AddFolds(Split, C.Coarsen, {C.Launch}, *CP, C.Rationale);
      }
    }
  if (!HasLaunch)
    addTunable(Ctx, Base);
  noteReassociating();
}

void SearchAgent::noteReassociating() {
  for (const Entry &E : Frontier)
    if (E.Reassociates) {
      std::vector<std::string> Steps = E.Base;
      Steps.push_back(E.Option);
      llvm::append_range(Steps, E.Then);
      Reassociating.insert(formatSteps(Steps));
    }
}

void SearchAgent::addTunable(const AgentContext &Ctx,
                             const std::vector<std::string> &Base) {
  for (const std::string &Step : Ctx.TunableSteps) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    if (!P) {
      consumeError(P.takeError());
      continue;
    }
    if (Entry *E = add(Base, Step, {}, *P)) {
      E->Rationale = "a launch the spec declares tunable";
      E->Tunable = true;
      E->DefaultValues = true;
      E->Reassociates = Reassociating.contains(formatSteps(Base));
    }
  }
}

Entry *SearchAgent::add(const std::vector<std::string> &Base,
                        std::string Option, std::vector<std::string> Then,
                        const RewriteParams &P) {
  if (llvm::is_contained(Base, Option))
    return nullptr;
  std::vector<std::string> Steps = Base;
  Steps.push_back(Option);
  llvm::append_range(Steps, Then);
  if (!ProposedSets.insert(setKey(Steps)).second)
    return nullptr;
  Entry E;
  E.Base = Base;
  E.Option = std::move(Option);
  E.Then = std::move(Then);
  E.Family = familyOf(P);
  E.DefaultValues = P.Values.empty();
  E.Priority = rewritePriority(P.Name);
  E.Order = NextOrder++;
  Frontier.push_back(std::move(E));
  return &Frontier.back();
}

/// Size-bounded launches (SearchSizeBound.cpp) for the judged plans.
void SearchAgent::addSizeDependent(const AgentContext &Ctx) {
  for (SizeBoundProposal &SP : sizeBoundProposals(Ctx, JudgedSpeedup)) {
    Expected<RewriteParams> Opt = RewriteParams::parse(SP.Option);
    if (!Opt) {
      consumeError(Opt.takeError());
      continue;
    }
    Entry *E = add(SP.Base, SP.Option, SP.Then, *Opt);
    if (!E)
      continue;
    E->Gain = SP.Gain;
    E->DefaultValues = false;
    E->Rationale = SP.Rationale;
    E->ChangesRounding = SP.From->Cand.ChangesRounding;
    E->Reassociates = SP.From->Cand.Reassociates;
  }
}

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

} // namespace

std::unique_ptr<Agent> createSearchAgent(const SearchOptions &Opts) {
  return std::make_unique<SearchAgent>(Opts);
}

} // namespace astra
