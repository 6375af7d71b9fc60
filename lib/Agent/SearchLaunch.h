//===- SearchLaunch.h - Launches the search proposes -----------*- C++ -*-===//
//
// Private to lib/Agent: the launch compositions the search agent adds to a
// plan (SearchLaunch.cpp): the splits after vectorize-loads' any-grid form,
// the folds, and the launch step a size bound goes on.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_AGENT_SEARCHLAUNCH_H
#define ASTRA_LIB_AGENT_SEARCHLAUNCH_H

#include "astra/Agent/Agent.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>
#include <vector>

namespace astra {

/// Elements per access of \p O, a vectorize-loads option: the
/// kernel's pack width at 16 bytes, scaled by the option's `width`.
unsigned packsPerAccess(const AgentContext &Ctx, const RewriteOption &O);

/// Whether the block-stride loop of \p O (a vectorize-loads option at a
/// loop whose any-grid form lets the block shrink) would leave threads idle
/// with one pack of \p Div elements per thread: at the spec's largest shape,
/// the block's x extent under \p Base's launch is more than extent / Div
/// (the extent a scalar argument of the spec). False when unknown.
bool blockIdlesPacks(const AgentContext &Ctx,
                     const std::vector<std::string> &Base,
                     const RewriteOption &O, unsigned Div);

/// Where the threads of a one-element-per-thread kernel go under the
/// any-grid form with \p Div elements per access, as (grid-x-div,
/// block-x-div) pairs: the grid shrunk, the block shrunk, or half of each;
/// at a per-block index (\p BlockSplitOnly) the block only, by \p Div and
/// half of it.
std::vector<std::pair<unsigned, unsigned>> launchSplits(unsigned Div,
                                                        bool BlockSplitOnly);

/// The first launch step of \p Steps that divides the grid or the block, or
/// folds blocks into one, without a size bound, and its parameters (the
/// bound it gets holds for the plan's whole merged launch).
std::optional<std::pair<size_t, RewriteParams>>
unboundedDivision(const std::vector<std::string> &Steps);

/// One fold to try after a plan: the fold-blocks step, then the launch step
/// that folds K blocks into one.
struct FoldProposal {
  std::string Fold;
  std::string Launch;
  std::string Rationale;
};

/// The fold-blocks step a plan may take (none or one): the spec's
/// (Ctx.FoldSteps, the grid's longest dimension), else the catalogue's (a
/// kernel that guards its own index, from \p Options).
std::vector<std::string> foldStepsFor(const AgentContext &Ctx,
                                      llvm::ArrayRef<RewriteOption> Options);

/// The folds of \p Folds to try after \p Steps: for a plan whose blocks are
/// small (at most 128 threads at the largest shape), as many blocks per
/// block as make 128 and 256 threads. None when \p Steps folds already.
std::vector<FoldProposal> proposeFolds(const AgentContext &Ctx,
                                       const std::vector<std::string> &Steps,
                                       llvm::ArrayRef<std::string> Folds);

/// coarsen with the launch that divides the block by its factor.
struct CoarsenProposal {
  std::string Coarsen;
  std::string Launch;
  std::string Rationale;
};

/// For each of the context's coarsen steps not in \p Base, the factors that
/// divide the last shape's block (8, 16, 4, 2: a 16-byte pack of 2-byte
/// values per thread first, then 16 elements, whose one-byte outputs make a
/// 16-byte store; 16 only where an output has one-byte elements).
std::vector<CoarsenProposal>
coarsenProposals(const AgentContext &Ctx, const std::vector<std::string> &Base);

} // namespace astra

#endif // ASTRA_LIB_AGENT_SEARCHLAUNCH_H
