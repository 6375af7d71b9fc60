//===- SearchAgent.cpp - Beam search over catalogue plans -----------------===//
//
// Round 0 proposes every catalogue option of the original file alone (every
// rewrite, every site, every parameter value the rewrite offers). Each later
// round takes the best `BeamWidth` usable plans judged so far (correct, not
// slower, not mixed; ranked by geometric-mean speedup) that are shorter than
// `MaxDepth` and have not been expanded yet, and extends each with every
// option available on the file that plan produces. Refused and slower plans
// are never built on (roll back). Within a round, candidates come in order of
// promise (extensions whose option was faster alone first, options that were
// refused alone last), so a budget cuts the least promising ones.
//
//===----------------------------------------------------------------------===//
#include "astra/Agent/Agent.h"
#include "astra/Agent/Plan.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace astra {
namespace {

/// A prior over the catalogue: what usually pays on memory-bound kernels
/// comes first, so that a tight budget tries it first.
unsigned rewritePriority(StringRef Name) {
  static const char *Order[] = {"vectorize-loads", "register-cache",
                                "warp-reduce",     "fast-math",
                                "hoist-invariant", "read-only-cache",
                                "launch",          "unroll"};
  for (unsigned I = 0; I < std::size(Order); ++I)
    if (Name == Order[I])
      return I;
  return std::size(Order);
}

class SearchAgent : public Agent {
public:
  explicit SearchAgent(const SearchOptions &Opts) : Opts(Opts) {}
  StringRef getName() const override { return "search"; }
  Expected<std::vector<Candidate>> propose(const AgentContext &Ctx) override;

private:
  SearchOptions Opts;
  StringSet<> Expanded; ///< plans already extended
  StringSet<> Proposed; ///< candidate keys already proposed

  /// How a single option fared alone: 0 faster, 1 no change, 2 not judged,
  /// 3 slower or mixed, 4 refused.
  unsigned aloneScore(const AgentContext &Ctx, StringRef Option) const;
  bool allowed(const AgentContext &Ctx, const RewriteOption &O) const;
};

bool SearchAgent::allowed(const AgentContext &Ctx,
                          const RewriteOption &O) const {
  // Assuming no aliasing is only sound when the spec says so: the harness
  // never passes aliasing buffers, so it could not catch the error.
  auto It = O.Params.Values.find("assume-noalias");
  if (It != O.Params.Values.end() && It->second != "0" && !Ctx.SpecNoAlias)
    return false;
  return true;
}

unsigned SearchAgent::aloneScore(const AgentContext &Ctx,
                                 StringRef Option) const {
  for (const Evaluation &E : *Ctx.History) {
    if (E.Cand.Steps.size() != 1 || E.Cand.Steps[0] != Option ||
        !E.Cand.ReplacementSource.empty())
      continue;
    if (E.Status != EvalStatus::Evaluated || !E.Result)
      return 2;
    switch (E.Result->Verdict) {
    case Verdict::Faster:
      return 0;
    case Verdict::NoChange:
      return 1;
    case Verdict::Refused:
      return 4;
    case Verdict::Slower:
    case Verdict::Mixed:
      return 3;
    }
    return 3;
  }
  return 2;
}

Expected<std::vector<Candidate>>
SearchAgent::propose(const AgentContext &Ctx) {
  // The plans to extend: the original first, then the best usable ones.
  std::vector<std::vector<std::string>> Bases;
  if (!Expanded.contains(formatSteps({})))
    Bases.push_back({});
  else {
    std::vector<const Evaluation *> Usable;
    for (const Evaluation &E : *Ctx.History)
      if (E.isUsable() && E.Cand.ReplacementSource.empty() &&
          E.Cand.Steps.size() < Opts.MaxDepth &&
          !Expanded.contains(formatSteps(E.Cand.Steps)))
        Usable.push_back(&E);
    llvm::stable_sort(Usable, [](const Evaluation *A, const Evaluation *B) {
      return A->speedup() > B->speedup();
    });
    for (const Evaluation *E : Usable) {
      if (Bases.size() == Opts.BeamWidth)
        break;
      Bases.push_back(E->Cand.Steps);
    }
  }

  struct Scored {
    Candidate C;
    unsigned Score, Priority, Order;
  };
  std::vector<Scored> Out;
  for (const std::vector<std::string> &Base : Bases) {
    Expanded.insert(formatSteps(Base));
    Expected<std::vector<RewriteOption>> Opts = Ctx.OptionsAfter(Base);
    if (!Opts) {
      // The plan was judged, so it applies; a failure here is the
      // frontend's. Skip this base rather than end the search.
      consumeError(Opts.takeError());
      continue;
    }
    for (const RewriteOption &O : *Opts) {
      if (!allowed(Ctx, O))
        continue;
      std::string Text = formatRewriteParams(O.Params);
      if (llvm::is_contained(Base, Text))
        continue;
      Candidate C;
      C.Steps = Base;
      C.Steps.push_back(Text);
      C.Origin = "search";
      C.Rationale = O.Detail;
      C.ChangesRounding = O.ChangesRounding;
      if (!Proposed.insert(C.key()).second)
        continue;
      unsigned Score = Base.empty() ? 2 : aloneScore(Ctx, Text);
      if (Score == 4)
        continue; // refused alone: a composition would not make it right
      Out.push_back({std::move(C), Score, rewritePriority(O.Params.Name),
                     unsigned(Out.size())});
    }
  }
  llvm::stable_sort(Out, [](const Scored &A, const Scored &B) {
    return std::tie(A.Score, A.Priority, A.Order) <
           std::tie(B.Score, B.Priority, B.Order);
  });
  std::vector<Candidate> Result;
  for (Scored &S : Out)
    Result.push_back(std::move(S.C));
  return std::move(Result);
}

} // namespace

std::unique_ptr<Agent> createSearchAgent(const SearchOptions &Opts) {
  return std::make_unique<SearchAgent>(Opts);
}

} // namespace astra
