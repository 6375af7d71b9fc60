//===- SearchFold.h - Folds the search proposes -----------------*- C++ -*-===//
//
// Private to lib/Agent: which fold-blocks compositions the search agent adds
// to a plan (SearchFold.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_AGENT_SEARCHFOLD_H
#define ASTRA_LIB_AGENT_SEARCHFOLD_H

#include "astra/Agent/Agent.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace astra {

/// One fold to try after a plan: the fold-blocks step, then the launch step
/// that folds K blocks into one.
struct FoldProposal {
  std::string Fold;
  std::string Launch;
  std::string Rationale;
};

/// The fold-blocks step a plan may take (none or one): the catalogue's (a
/// kernel that guards its own index, from \p Options), else the spec's
/// (Ctx.FoldSteps) for the grid's longest dimension.
std::vector<std::string> foldStepsFor(const AgentContext &Ctx,
                                      llvm::ArrayRef<RewriteOption> Options);

/// The folds of \p Folds to try after \p Steps: for a plan whose blocks are
/// small (at most 128 threads at the largest shape), as many blocks per
/// block as make 128 and 256 threads. None when \p Steps folds already.
std::vector<FoldProposal> proposeFolds(const AgentContext &Ctx,
                                       const std::vector<std::string> &Steps,
                                       llvm::ArrayRef<std::string> Folds);

} // namespace astra

#endif // ASTRA_LIB_AGENT_SEARCHFOLD_H
