//===- Run.h - --agent-rewrite over a whole file ----------------*- C++ -*-===//
//
// Runs the agent loop for every kernel of the spec (or those asked for),
// composes the winners into one file, re-verifies each kernel's winner in the
// composed file with the full protocol in a fresh process, and keeps a
// kernel's rewrite only if that re-verification still says faster.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_RUN_H
#define ASTRA_AGENT_RUN_H

#include "astra/Agent/Loop.h"
#include "astra/Agent/Plan.h"
#include "astra/Harness/Spec.h"

namespace astra {

struct AgentOptions {
  std::string FileName; ///< as given (diagnostics, reports)
  std::string Code;     ///< the original contents
  std::string SpecPath;
  std::vector<std::string> Kernels; ///< spec names; empty: all
  std::string AgentName = "search";
  SearchOptions Search;
  LoopOptions Loop;
  bool AllowRegression = false;
  /// Makes the evaluator for one kernel given the original file's PTX.
  std::function<llvm::Expected<std::unique_ptr<Evaluator>>(
      const KernelSpec &K, llvm::StringRef OriginalPtx)>
      MakeEvaluator;
  /// Makes the agent for one kernel (default: the search agent).
  std::function<std::unique_ptr<Agent>()> MakeAgent;
};

/// A winner whose re-verification in the composed file did not say faster.
struct FailedRecheck {
  unsigned Index = 0; ///< the candidate's, 1-based
  std::string Why;    ///< "re-verification: mixed 1.064x", ...
  /// The re-verification's full result, when the harness gave one.
  std::optional<VerifyResult> Result;
};

struct KernelOutcome {
  KernelRun Run;
  /// Index into Run.Evaluations of the kept candidate.
  std::optional<unsigned> Kept;
  /// The re-verification of the kept candidate in the composed file.
  std::optional<VerifyResult> FinalCheck;
  /// Candidates whose re-verification failed.
  std::vector<FailedRecheck> FailedRechecks;
  std::string Summary; ///< why this outcome, in a sentence
  /// What the agent reported (Agent::getReport), e.g. the LLM's usage.
  llvm::json::Value AgentReport = nullptr;
};

struct AgentResult {
  std::string FileName, SourceHash, GpuArch, AgentName;
  SearchOptions Search;
  unsigned Budget = 0;
  double TimeBudget = 0;
  std::vector<KernelOutcome> Kernels;
  std::string OutputCode; ///< the input unless some kernel improved
  bool Changed = false;   ///< OutputCode differs from the input
  PlanFile Plan;
  bool Interrupted = false;
  double WallSeconds = 0;
  std::optional<DeviceInfo> Device;
};

/// The launch steps the spec's `tunable` allows for \p K (source name
/// \p Source) on \p Code, as the search proposes them: one per variable and
/// value other than the spec's own (`launch:kernel=k,B=512,block=512`), as a
/// new instantiation (`...,template-arg=0`) where the spec names the block
/// size as a template argument and the launch rewrite accepts it.
std::vector<std::string> tunableLaunchSteps(const CompileSetup &Setup,
                                            llvm::StringRef FileName,
                                            llvm::StringRef Code,
                                            const KernelSpec &K,
                                            llvm::StringRef Source);

/// Runs --agent-rewrite. Errors: bad input (1), no device (2), internal (3).
llvm::Expected<AgentResult> runAgent(const CompileSetup &Setup,
                                     const AgentOptions &Opts);

} // namespace astra

#endif // ASTRA_AGENT_RUN_H
