//===- SearchAgentImpl.h - The search agent's state -------------*- C++ -*-===//
//
// Private to lib/Agent: the search agent (SearchAgent.cpp describes it) and
// its frontier, shared by the enumeration of the plans it proposes
// (SearchExpand.cpp) and their ranking (SearchAgent.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_AGENT_SEARCHAGENTIMPL_H
#define ASTRA_LIB_AGENT_SEARCHAGENTIMPL_H

#include "astra/Agent/Agent.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <optional>
#include <string>
#include <vector>

namespace astra {
namespace search {

/// The rewrite and site of an option, without its own parameter values;
/// a launch's values are its own family (one block size's verdict says
/// little about another's).
std::string familyOf(const RewriteParams &P);

/// A plan's steps as an order-free key.
std::string setKey(std::vector<std::string> Steps);

/// A plan of the frontier: Base, then Option, then Then.
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

/// The best-first beam search (SearchAgent.cpp).
class SearchAgent : public Agent {
public:
  explicit SearchAgent(const SearchOptions &Opts) : Opts(Opts) {}
  llvm::StringRef getName() const override { return "search"; }
  llvm::Expected<std::vector<Candidate>>
  propose(const AgentContext &Ctx) override;

private:
  SearchOptions Opts;
  llvm::StringSet<> Expanded;     ///< plans already extended
  llvm::StringSet<> ProposedSets; ///< plans (as sets) already in the frontier
  std::vector<Entry> Frontier;
  unsigned NextOrder = 0;
  /// Geometric-mean speedup of every plan judged correct, and 1 for the
  /// original; refreshed by each propose().
  llvm::StringMap<double> JudgedSpeedup;
  /// Plans (formatSteps) with a step that reassociates float arithmetic.
  llvm::StringSet<> Reassociating;

  /// Adds \p Base's extensions to the frontier. With \p Only, a plan of
  /// the full depth: only options of those rewrites (more sites of the
  /// rewrites it holds), no compositions.
  void expand(const AgentContext &Ctx, const std::vector<std::string> &Base,
              const llvm::StringSet<> *Only = nullptr);
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

} // namespace search
} // namespace astra

#endif // ASTRA_LIB_AGENT_SEARCHAGENTIMPL_H
