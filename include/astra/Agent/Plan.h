//===- Plan.h - Replayable plans --------------------------------*- C++ -*-===//
//
// A plan is what the agent found, in a form a build can replay without a GPU
// (`astra-opt --apply-plan p.json in.cu -o out.cu`): per kernel, the ordered
// catalogue applications (their `--apply=` text) that produced the winner,
// and the SHA-256 of the source file they were found on.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_PLAN_H
#define ASTRA_AGENT_PLAN_H

#include "astra/Harness/Spec.h"
#include "astra/Support/CompileSetup.h"
#include "astra/Transforms/Rewrite.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace astra {

/// One kernel's winning plan.
struct KernelPlan {
  std::string Kernel;             ///< as the spec names it
  std::vector<std::string> Steps; ///< `--apply=` texts, in order
  /// A replacement for the kernel's definition (the LLM agent's), put in
  /// after the steps; empty for a pure plan.
  std::string ReplacementSource;
  double Speedup = 1; ///< the verified geomean speedup
  /// A step reassociates floating-point arithmetic: results may differ in
  /// the last bits from the original's (within the verified tolerance).
  bool ReassociatesFloat = false;
  /// The launch contract the winner was verified with, when a rewrite
  /// changed it (empty otherwise).
  llvm::json::Object Launch;
};

struct PlanFile {
  static constexpr int Version = 1;
  std::string Source;     ///< the source file's name, as given
  std::string SourceHash; ///< "sha256:<hex>" of its contents
  std::string GpuArch;
  std::vector<KernelPlan> Kernels;
};

/// "sha256:<64 hex digits>" of \p Text.
std::string hashText(llvm::StringRef Text);

/// Plan steps joined for display: "a:k=v + b".
std::string formatSteps(const std::vector<std::string> &Steps);

llvm::json::Value toJSON(const PlanFile &P);
/// Parses a plan; errors (exit 1) name the file and the field.
llvm::Expected<PlanFile> parsePlan(llvm::StringRef JSON,
                                   llvm::StringRef FileName);
llvm::Expected<PlanFile> readPlanFile(llvm::StringRef Path);

/// Whether the `launch` step \p P changes what the launch rewrite edits in
/// the source at every size: a tunable variable, `block=`, a grid.x or
/// block.x division (folds, grid-y-div and the exactness flags edit no
/// source). In a plan with `min-threads` such a step must carry it too.
bool launchStepEditsSource(const RewriteParams &P);

/// The launch overrides of a plan: every `launch` step's tunable variables
/// and divisors (`launch:B=512,grid-x-div=8`), a later step's value
/// replacing an earlier one's. Empty when no step is a `launch`. With
/// \p Kernel (a source name), steps that select another kernel
/// (`kernel=other`) are left out. An error when the plan has a
/// `min-threads` that a step for which launchStepEditsSource() holds does
/// not carry (its source edits would hold below the bound).
llvm::Expected<LaunchOverrides>
launchOverridesOf(llvm::ArrayRef<std::string> Steps,
                  llvm::StringRef Kernel = "");

/// The launch contract of \p O for \p K, for the plan and the report: the
/// overrides, and per spec shape the original's launch and the new one
/// (grid, block, shared bytes), so that a caller elsewhere can follow.
llvm::json::Object launchContract(const KernelSpec &K,
                                  const LaunchOverrides &O);

/// Applies \p Steps to \p Code in order. A step that no longer applies is an
/// error (exit 1) that names the step and why.
llvm::Expected<std::string> applySteps(const CompileSetup &Setup,
                                       llvm::StringRef FileName,
                                       llvm::StringRef Code,
                                       llvm::ArrayRef<std::string> Steps);

/// Replays \p P on \p Code: every kernel's steps in the plan's order. When the
/// source hash differs the steps are still tried and \p Warnings says so; a
/// step whose site is gone is an error naming the kernel and the step.
llvm::Expected<std::string> applyPlan(const CompileSetup &Setup,
                                      llvm::StringRef FileName,
                                      llvm::StringRef Code, const PlanFile &P,
                                      std::vector<std::string> &Warnings);

} // namespace astra

#endif // ASTRA_AGENT_PLAN_H
