//===- Agent.h - Candidates, their evaluations, and agents ------*- C++ -*-===//
//
// The agent loop (design section 7) asks an Agent for candidates, turns each
// into a whole source file (a catalogue plan applied to the original, or a
// replacement kernel source spliced in), compiles it, skips what static
// evidence already decides (PTX identical to the original or to a candidate
// already judged, spills the original does not have), and judges the rest
// with an Evaluator. The search agent is one Agent; the LLM agent another.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_AGENT_H
#define ASTRA_AGENT_AGENT_H

#include "astra/Harness/Verify.h"
#include "astra/Transforms/Enumerate.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace astra {

/// What to try. A plan (catalogue applications in order, applied to the
/// original file), or a replacement source for one kernel, optionally on
/// top of a plan.
struct Candidate {
  std::vector<std::string> Steps; ///< `--apply=` texts, in order
  /// A replacement for the kernel's whole definition (and helpers it needs,
  /// placed before it); empty for a pure plan.
  std::string ReplacementSource;
  std::string Origin;    ///< which agent proposed it ("search", "llm", ...)
  std::string Rationale; ///< why, in a line (for the report)
  bool ChangesRounding = false;
  /// A step reassociates floating-point arithmetic (a regrouped sum).
  bool Reassociates = false;

  /// A stable key: the plan text, plus a hash of any replacement.
  std::string key() const;
  /// For display: "vectorize-loads:loop=k:L0 + fast-math:kernel=k".
  std::string describe() const;
};

/// What happened to a candidate.
enum class EvalStatus {
  Evaluated,       ///< judged by the harness (see Result)
  DoesNotApply,    ///< a step failed to apply
  DoesNotCompile,  ///< the rewritten file did not compile to PTX
  SameAsOriginal,  ///< PTX identical to the original's: nothing to time
  DuplicatePtx,    ///< PTX identical to a candidate already judged
  Pruned,          ///< static evidence (spills, local memory) ruled it out
  EvaluationError, ///< the harness could not judge it (internal failure)
};
llvm::StringRef evalStatusName(EvalStatus S);

struct Evaluation {
  unsigned Index = 0; ///< 1-based, in the order judged
  unsigned Round = 0;
  unsigned GpuIndex = 0; ///< 1-based among those judged on the GPU; 0: none
  /// The evaluator worker (one per GPU of --gpus) that judged it; -1: none.
  int Worker = -1;
  Candidate Cand;
  EvalStatus Status = EvalStatus::Evaluated;
  std::string Note;    ///< why, for statuses other than Evaluated
  std::string PtxHash; ///< of the candidate's PTX
  /// ptxas resources of the kernel's entry (when ptxas is available).
  std::optional<unsigned> Registers, SpillBytes, LocalBytes;
  std::optional<VerifyResult> Result; ///< when Evaluated
  double CompileSeconds = 0, EvalSeconds = 0;

  /// Correct, and not slower or mixed: a base the search may build on.
  bool isUsable() const;
  /// Verified faster (the harness's verdict).
  bool isFaster() const;
  /// The geometric-mean speedup, 0 when not evaluated or refused.
  double speedup() const;
};

/// What an agent sees of one kernel.
struct AgentContext {
  std::string SpecKernel;   ///< as the spec names it: "act_and_mul<__half>"
  std::string SourceKernel; ///< the kernel's source name: "act_and_mul"
  std::string FileName;
  std::string OriginalCode;
  std::string KernelModelJSON; ///< the kernel model, printed
  /// The spec declares the kernel's buffers never alias (`noalias`).
  bool SpecNoAlias = false;
  /// The launches the spec's `tunable` allows, as steps
  /// (`launch:kernel=k,B=512,block=512`): proposed like catalogue options.
  std::vector<std::string> TunableSteps;
  /// Elements of the kernel's narrowest buffer per 16-byte pack: the grid
  /// divisor proposed together with vectorize-loads' any-grid form (0 or 1:
  /// none).
  unsigned PackWidth = 0;
  /// Elements of the kernel's narrowest output buffer per 16-byte pack: the
  /// largest coarsen factor whose stores make one pack (0: no output).
  unsigned OutputPackWidth = 0;
  /// Per spec shape (Shape::str(), as the harness names timed shapes), the
  /// threads of its launch in all: where a size-dependent launch
  /// (`launch:min-threads=N`) would start.
  std::vector<std::pair<std::string, uint64_t>> ShapeThreads;
  /// The integer scalar arguments at the spec's last (largest) shape, by
  /// name (`feat_dim` = 128): whether a block-stride loop's block covers
  /// its extent.
  llvm::StringMap<int64_t> LastShapeScalars;
  /// fold-blocks steps with the bound the spec gives
  /// (`fold-blocks:kernel=k,dim=y,bound=num_heads`: the grid's y extent is
  /// the scalar argument num_heads's value); a fold whose kernel guards its
  /// own index is among the catalogue options instead.
  std::vector<std::string> FoldSteps;
  /// coarsen steps with the block extent the spec gives
  /// (`coarsen:kernel=k,extent=group_size`: the spec's block.x is the
  /// scalar argument group_size's value), each checked to apply to the
  /// original file; the search adds factor= and the launch that divides the
  /// block by it.
  std::vector<std::string> CoarsenSteps;
  /// The threads per block at the spec's last (largest) shape under the
  /// launch steps of a plan; 0 when unknown.
  std::function<uint64_t(const std::vector<std::string> &Steps)>
      BlockThreadsAfter;
  /// The same, the block's x extent alone (what a loop over threadIdx.x
  /// strides by).
  std::function<uint64_t(const std::vector<std::string> &Steps)> BlockXAfter;
  /// The instantiation a plan's candidate runs as: the spec's kernel, or
  /// under a launch step with `template-arg=` the new one (`k<512>`); the
  /// spec's kernel when the plan's launch does not resolve.
  std::function<std::string(const std::vector<std::string> &Steps)> KernelAfter;
  const std::vector<Evaluation> *History = nullptr;
  const Evaluation *Best = nullptr; ///< the best verified so far, or null
  unsigned Round = 0;
  /// Candidates the evaluator judges at once (one per GPU worker): a batch
  /// of about twice as many keeps every worker busy.
  unsigned Parallelism = 1;
  /// The catalogue options available on the file a plan produces (cached by
  /// the loop; an error when the plan does not apply).
  std::function<llvm::Expected<std::vector<RewriteOption>>(
      const std::vector<std::string> &Steps)>
      OptionsAfter;
};

class Agent {
public:
  virtual ~Agent();
  virtual llvm::StringRef getName() const = 0;
  /// The next batch of candidates to judge; an empty batch ends the search.
  virtual llvm::Expected<std::vector<Candidate>>
  propose(const AgentContext &Ctx) = 0;
  /// What the agent wants in the report for this kernel (the LLM agent: its
  /// rounds, token usage, why it stopped); null when nothing.
  virtual llvm::json::Value getReport() const { return nullptr; }
};

struct SearchOptions {
  unsigned BeamWidth = 3; ///< plans expanded per round
  unsigned MaxDepth = 3;  ///< rewrites per plan
};

/// The built-in beam search over catalogue plans.
std::unique_ptr<Agent> createSearchAgent(const SearchOptions &Opts);

} // namespace astra

#endif // ASTRA_AGENT_AGENT_H
