//===- SearchLaunch.cpp - Launches the search proposes --------------------===//
//
// Splits. A one-element-per-thread kernel under vectorize-loads' any-grid
// form covers every element whatever the launch, so the launch shrinks by
// the elements of a pack: the grid (fewer, full blocks), the block (as many
// blocks, so a small problem still spreads over the SMs: at gelu_and_mul's
// T=1 the grid shrink alone left 7 blocks busy and was 0.82x), or half of
// each. At a per-block index (the block's threads share a row; the grid
// indexes rows) only the block may shrink: by the pack width (one pack per
// thread) or half of it (two).
//
// Folds. A kernel whose blocks are small (a head of 128 halves in 16 threads of
// 16-byte packs, a CSR row in 32 threads) runs out of an SM's block slots
// (32 on sm_80/sm_90) long before its thread slots (2048): at most 512 of
// 2048 threads busy, too few bytes in flight to reach the memory bandwidth.
// fold-blocks lets a launch run K of the grid's blocks as the rows of one
// (`launch:fold-y=K`); the search tries the K that make 128 and 256 threads.
//
//===----------------------------------------------------------------------===//
#include "SearchLaunch.h"
#include "astra/Transforms/Enumerate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace astra {

unsigned packsPerAccess(const AgentContext &Ctx, const RewriteOption &O) {
  unsigned Bytes = 16;
  StringRef(O.Params.Values.lookup("width")).getAsInteger(10, Bytes);
  return std::max(1u, Ctx.PackWidth * Bytes / 16);
}

bool blockIdlesPacks(const AgentContext &Ctx,
                     const std::vector<std::string> &Base,
                     const RewriteOption &O, unsigned Div) {
  if (!O.BlockSplitOnly || O.Extent.empty() || !Ctx.BlockXAfter)
    return false;
  auto It = Ctx.LastShapeScalars.find(O.Extent);
  uint64_t Threads = Ctx.BlockXAfter(Base);
  return It != Ctx.LastShapeScalars.end() && It->second > 0 && Threads &&
         Threads * Div > uint64_t(It->second);
}

std::vector<std::pair<unsigned, unsigned>> launchSplits(unsigned Div,
                                                        bool BlockSplitOnly) {
  std::vector<std::pair<unsigned, unsigned>> Splits;
  if (BlockSplitOnly) {
    Splits.push_back({1, Div});
    if (Div >= 4)
      Splits.push_back({1, Div / 2});
  } else {
    Splits = {{Div, 1}, {1, Div}};
    if (Div >= 4)
      Splits.push_back({Div / 2, 2});
  }
  return Splits;
}

/// The first launch step of \p Steps that divides the grid or the block, or
/// folds blocks into one, without a size bound, and its parameters (the
/// bound it gets holds for the plan's whole merged launch).
std::optional<std::pair<size_t, RewriteParams>>
unboundedDivision(const std::vector<std::string> &Steps) {
  for (size_t I = 0; I < Steps.size(); ++I) {
    if (!StringRef(Steps[I]).starts_with("launch:"))
      continue;
    Expected<RewriteParams> P = RewriteParams::parse(Steps[I]);
    if (!P) {
      consumeError(P.takeError());
      continue;
    }
    if (any_of(std::initializer_list<StringRef>{"grid-x-div", "grid-y-div",
                                                "block-x-div", "fold-x",
                                                "fold-y"},
               [&](StringRef K) { return P->Values.count(K); }) &&
        !P->Values.count("min-threads"))
      return std::make_pair(I, std::move(*P));
  }
  return std::nullopt;
}

static char foldDim(StringRef Step) {
  Expected<RewriteParams> P = RewriteParams::parse(Step);
  if (!P) {
    consumeError(P.takeError());
    return 0;
  }
  std::string D = P->getString("dim", "y");
  return D.size() == 1 ? D[0] : 0;
}

std::vector<std::string> foldStepsFor(const AgentContext &Ctx,
                                      ArrayRef<RewriteOption> Options) {
  std::vector<std::string> Steps;
  std::vector<char> Dims;
  auto Add = [&](const std::string &Step) {
    char D = foldDim(Step);
    if (D && !is_contained(Dims, D)) {
      Dims.push_back(D);
      Steps.push_back(Step);
    }
  };
  // The spec's bound first: it is the grid's extent, where a kernel's own
  // guard may bound something else (a row of a block of rows).
  for (const std::string &Step : Ctx.FoldSteps)
    Add(Step);
  for (const RewriteOption &O : Options)
    if (O.Params.Name == "fold-blocks")
      Add(formatRewriteParams(O.Params));
  // One: each fold takes two block sizes, and a budget of two dozen
  // candidates has room for one dimension.
  if (Steps.size() > 1)
    Steps.resize(1);
  return Steps;
}

std::vector<FoldProposal> proposeFolds(const AgentContext &Ctx,
                                       const std::vector<std::string> &Steps,
                                       ArrayRef<std::string> Folds) {
  std::vector<FoldProposal> Out;
  if (Folds.empty() || !Ctx.BlockThreadsAfter ||
      any_of(Steps, [](const std::string &S) {
        return StringRef(S).starts_with("fold-blocks");
      }))
    return Out;
  uint64_t Threads = Ctx.BlockThreadsAfter(Steps);
  if (!Threads || Threads > 128)
    return Out;
  std::vector<uint64_t> Ks;
  for (uint64_t Target : {256, 128}) {
    uint64_t K = Target / Threads;
    if (K >= 2 && !is_contained(Ks, K))
      Ks.push_back(K);
  }
  for (const std::string &Fold : Folds) {
    Expected<RewriteParams> P = RewriteParams::parse(Fold);
    if (!P) {
      consumeError(P.takeError());
      continue;
    }
    std::string Dim = P->getString("dim", "y");
    bool Exact = P->getString("exact", "0") == "1";
    for (uint64_t K : Ks)
      Out.push_back(
          {Fold,
           "launch:kernel=" + P->Kernel + ",fold-" + Dim + "=" +
               std::to_string(K) + (Exact ? ",fold-exact=1" : ""),
           "blocks of " + std::to_string(Threads) +
               " threads: " + std::to_string(K) + " of the grid's " + Dim +
               " blocks as the rows of one (" + std::to_string(Threads * K) +
               " threads), so that an SM's block slots no longer limit the "
               "threads it runs"});
  }
  return Out;
}

std::vector<CoarsenProposal>
coarsenProposals(const AgentContext &Ctx,
                 const std::vector<std::string> &Base) {
  std::vector<CoarsenProposal> Out;
  // warp-reduce and register-cache replace the tree and the row that
  // coarsen reads; after them it does not apply.
  if (any_of(Base, [](const std::string &S) {
        return StringRef(S).starts_with("coarsen") ||
               StringRef(S).starts_with("warp-reduce") ||
               StringRef(S).starts_with("register-cache");
      }))
    return Out;
  uint64_t Threads = Ctx.BlockThreadsAfter ? Ctx.BlockThreadsAfter(Base) : 0;
  for (const std::string &Step : Ctx.CoarsenSteps) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    if (!P) {
      consumeError(P.takeError());
      continue;
    }
    for (uint64_t F : {8, 16, 4, 2}) {
      if (!Threads || Threads % F || Threads / F < 2)
        continue;
      // Beyond one 16-byte pack of the outputs coarsen stores element by
      // element: factor 16 only where an output has one-byte elements.
      if (F > 8 && Ctx.OutputPackWidth < F)
        continue;
      std::string Fs = std::to_string(F);
      Out.push_back({Step + ",factor=" + Fs,
                     "launch:kernel=" + P->Kernel + ",block-x-div=" + Fs +
                         ",block-exact=1",
                     "a block of " + std::to_string(Threads) +
                         " threads reducing one value each: each thread "
                         "runs " +
                         Fs + " of them (" + Fs +
                         " consecutive elements), the block divided by " + Fs +
                         (StringRef(Step).contains("loads=packs")
                              ? "; the loads as whole 4-16-byte packs, read "
                                "from them"
                              : "")});
    }
  }
  return Out;
}

} // namespace astra
