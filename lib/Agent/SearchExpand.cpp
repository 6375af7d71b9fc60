//===- SearchExpand.cpp - The plans the search agent proposes -------------===//
//
// The search agent's enumeration (SearchAgent.cpp describes the search):
// the extensions of a base plan by one catalogue option each, the
// compositions that go with an option (vectorize-loads' any-grid form and
// the launch it allows, folds, coarsening), the spec's tunable launches and
// the size-bounded launches, added to the frontier once per set of steps.
//
//===----------------------------------------------------------------------===//
#include "SearchAgentImpl.h"
#include "SearchLaunch.h"
#include "SearchSizeBound.h"
#include "astra/Agent/Plan.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace astra {
namespace search {
namespace {

/// A prior over the catalogue: what usually pays on memory-bound kernels
/// comes first, so that a tight budget tries it first.
unsigned rewritePriority(StringRef Name) {
  static const char *Order[] = {
      "vectorize-loads", "register-cache", "warp-reduce",     "coarsen",
      "fold-blocks",     "fast-math",      "hoist-invariant", "read-only-cache",
      "cache-hints",     "launch",         "unroll"};
  for (unsigned I = 0; I < std::size(Order); ++I)
    if (Name == Order[I])
      return I;
  return std::size(Order);
}

bool allowed(const AgentContext &Ctx, const RewriteOption &O) {
  // Assuming no aliasing is only sound when the spec says so: the harness
  // never passes aliasing buffers, so it could not catch the error.
  auto It = O.Params.Values.find("assume-noalias");
  return It == O.Params.Values.end() || It->second == "0" || Ctx.SpecNoAlias;
}

} // namespace

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
                      const std::string &Option, std::vector<std::string> Then,
                      const RewriteParams &P, const std::string &Why,
                      bool ChangesRounding = false, bool Reassociates = false) {
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

} // namespace search
} // namespace astra
