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

} // namespace astra

#endif // ASTRA_LIB_AGENT_SEARCHSIZEBOUND_H
