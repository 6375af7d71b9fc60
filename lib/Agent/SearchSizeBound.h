//===- SearchSizeBound.h - Launches bounded by a size ----------*- C++ -*-===//
//
// Private to lib/Agent: the size-dependent launches the search agent
// re-proposes from what the harness measured (SearchSizeBound.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_AGENT_SEARCHSIZEBOUND_H
#define ASTRA_LIB_AGENT_SEARCHSIZEBOUND_H

#include "astra/Agent/Agent.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace astra {

/// A judged plan again, with one launch step bounded by `min-threads`: the
/// plan is Base, then Option, then Then.
struct SizeBoundProposal {
  std::vector<std::string> Base;
  std::string Option;
  std::vector<std::string> Then;
  /// What the bounded plan should gain over Base, from the shapes measured.
  double Gain = 1;
  std::string Rationale;
  const Evaluation *From = nullptr; ///< the judged plan it bounds
};

/// The size-bounded launches worth judging, from the history of \p Ctx:
///  - a plan that divides the launch (or folds blocks) and came out mixed
///    against the original, slower only on shapes with fewer threads than
///    each shape it was faster on: its division from the smallest faster
///    shape's launch on;
///  - a plan mixed against the original without a division, slower only on
///    shapes with fewer threads than those it was faster on: the whole plan
///    from the bound on, after keep-original, and the kernel as it was
///    below (splitAfterRecheck);
///  - a plan whose last step changes the launch (a tunable value, a
///    division, a fold) on a base with the spec's launch: the split by
///    shape size whose larger shapes gain most over the base, when that
///    beats both (per_token_fp8_quant's 512-thread blocks pay at T=16384
///    and lose at T=2048): the change from there on, the base's launch
///    below.
/// \p JudgedSpeedup holds the geometric-mean speedup of each judged plan
/// (formatSteps) and 1 for the original.
std::vector<SizeBoundProposal>
sizeBoundProposals(const AgentContext &Ctx,
                   const llvm::StringMap<double> &JudgedSpeedup);

/// A winner whose re-verification came out mixed: the same plan after
/// keep-original, with its launch bounded (`min-threads` and `small-entry=1`
/// on its one launch step, or a launch step of these two alone when it has
/// none) so that the launches below the smallest shape the recheck found
/// faster, above every slower one, run the kernel as it was (faster shapes
/// below the bound give their gain up). None when no faster shape lies above
/// every slower one, the plan has several launch steps, bounds its launch
/// already, keeps a copy already, or names a template argument.
/// \p ShapeThreads: AgentContext::ShapeThreads. \p Estimate gets the
/// recheck's geometric mean with the shapes below the bound at 1x.
std::optional<std::vector<std::string>>
splitAfterRecheck(const std::vector<std::string> &Steps,
                  const VerifyResult &Recheck,
                  llvm::ArrayRef<std::pair<std::string, uint64_t>> ShapeThreads,
                  llvm::StringRef SourceKernel, double &Estimate);

} // namespace astra

#endif // ASTRA_LIB_AGENT_SEARCHSIZEBOUND_H
