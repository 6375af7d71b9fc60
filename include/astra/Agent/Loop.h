//===- Loop.h - The agent loop for one kernel -------------------*- C++ -*-===//
//
// Per kernel: ask the agent for candidates, build each (plan applied, or
// replacement spliced, then PTX), skip what static evidence decides, judge
// the rest with the evaluator (one worker thread per GPU, while this thread
// builds the next candidates), and stop on the candidate budget, the time
// budget, an interrupt, or when the agent proposes nothing new.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_LOOP_H
#define ASTRA_AGENT_LOOP_H

#include "astra/Agent/Agent.h"
#include "astra/Agent/Evaluator.h"
#include "astra/Support/CompileSetup.h"
#include <atomic>
#include <functional>

namespace astra {

struct LoopOptions {
  unsigned Budget = 24;      ///< candidates judged on the GPU, per kernel
  double TimeBudget = 240;   ///< seconds per kernel for the search
  bool Prune = true;         ///< skip candidates that add local memory
  std::string Ptxas;         ///< ptxas for resources; empty: none recorded
  /// Every spec kernel name of the file (template instantiations to emit).
  std::vector<std::string> Instantiations;
  std::function<void(llvm::StringRef)> Progress = [](llvm::StringRef) {};
  const std::atomic<bool> *Interrupted = nullptr;
};

/// Time per phase, in seconds.
struct PhaseTimes {
  double Propose = 0, Build = 0, Evaluate = 0, Verify = 0;
};

/// What the loop did for one kernel.
struct KernelRun {
  std::string SpecKernel, SourceKernel;
  std::string OriginalPtxHash;
  std::optional<unsigned> OrigRegisters, OrigSpillBytes, OrigLocalBytes;
  std::vector<Evaluation> Evaluations;
  unsigned Rounds = 0;
  std::string StopReason; ///< "budget of 24 candidates", "no new proposal"...
  bool Interrupted = false;
  PhaseTimes Times;
  double WallSeconds = 0;
};

/// Builds the file a candidate stands for: its steps applied to \p Code,
/// then its replacement source (if any) in place of kernel \p SourceKernel.
llvm::Expected<std::string> buildCandidate(const CompileSetup &Setup,
                                           llvm::StringRef FileName,
                                           llvm::StringRef Code,
                                           llvm::StringRef SourceKernel,
                                           const Candidate &C);

/// \p Names (spec kernels to instantiate) with \p Kernel added when it is
/// not among them: a candidate that runs another instantiation
/// (`template-arg=`) compiles that one too.
std::vector<std::string> withKernel(llvm::ArrayRef<std::string> Names,
                                    const std::string &Kernel);

/// Compiles \p Code (with \p Instantiations made explicit) to PTX.
llvm::Expected<std::string>
compileCandidate(const CompileSetup &Setup, llvm::StringRef FileName,
                 llvm::StringRef Code,
                 llvm::ArrayRef<std::string> Instantiations);

/// Runs the loop for the kernel described by \p Ctx (History, Best and Round
/// are the loop's to fill). \p OriginalPtx is the original file's PTX.
llvm::Expected<KernelRun> runKernelLoop(const CompileSetup &Setup,
                                        AgentContext Ctx,
                                        llvm::StringRef OriginalPtx,
                                        Agent &A, Evaluator &E,
                                        const LoopOptions &Opts);

/// The candidates of \p Run that may be kept, best first: faster (or, with
/// \p AllowMixed, mixed with a geomean above 1), by geomean speedup.
std::vector<const Evaluation *> rankWinners(const KernelRun &Run,
                                            bool AllowMixed);

} // namespace astra

#endif // ASTRA_AGENT_LOOP_H
