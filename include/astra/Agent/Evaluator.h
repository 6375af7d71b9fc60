//===- Evaluator.h - Who judges a compiled candidate ------------*- C++ -*-===//
//
// The loop hands compiled candidates to an Evaluator: the harness session on
// a GPU, or a replay of recorded verdicts (tests, and re-running a report
// without a GPU).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_EVALUATOR_H
#define ASTRA_AGENT_EVALUATOR_H

#include "astra/Agent/Agent.h"
#include "astra/Harness/Session.h"
#include "llvm/ADT/StringMap.h"

namespace astra {

class Evaluator {
public:
  virtual ~Evaluator();
  /// Parallel workers (GPUs); evaluate() may run once per worker at a time.
  virtual unsigned getWorkerCount() const { return 1; }
  /// Judges \p C (compiled to \p Ptx) on worker \p Worker.
  virtual llvm::Expected<VerifyResult> evaluate(const Candidate &C,
                                                llvm::StringRef Ptx,
                                                unsigned Worker) = 0;
  /// The full protocol for the winner, in a fresh process.
  virtual llvm::Expected<VerifyResult> verifyFully(const Candidate &C,
                                                   llvm::StringRef Ptx) = 0;
};

/// Judges candidates with a harness session on the GPU(s).
std::unique_ptr<Evaluator>
createHarnessEvaluator(std::unique_ptr<EvalSession> Session);

/// Replays verdicts recorded in an agent report (report.json of an earlier
/// run, or one written by hand for tests): each candidate is looked up by
/// its plan text under the spec kernel \p Kernel. A candidate the recording
/// lacks is refused with a note saying so.
llvm::Expected<std::unique_ptr<Evaluator>>
createReplayEvaluator(llvm::StringRef ReportPath, llvm::StringRef Kernel);

} // namespace astra

#endif // ASTRA_AGENT_EVALUATOR_H
