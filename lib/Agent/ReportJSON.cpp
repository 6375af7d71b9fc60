//===- ReportJSON.cpp - The agent's report as JSON ------------------------===//
#include "astra/Agent/Report.h"
#include <cmath>

using namespace llvm;

namespace astra {

/// The launch contract of the plan kept for \p Kernel, or null.
static json::Value keptLaunch(const AgentResult &R, StringRef Kernel) {
  for (const KernelPlan &P : R.Plan.Kernels)
    if (P.Kernel == Kernel && !P.Launch.empty())
      return json::Object(P.Launch);
  return nullptr;
}

json::Value toJSON(const Evaluation &E) {
  json::Object O{{"index", E.Index},
                 {"round", E.Round},
                 {"key", E.Cand.key()},
                 {"plan", json::Array(E.Cand.Steps)},
                 {"origin", E.Cand.Origin},
                 {"changes_rounding", E.Cand.ChangesRounding},
                 {"reassociates_float", E.Cand.Reassociates},
                 {"status", evalStatusName(E.Status)},
                 {"compile_seconds", E.CompileSeconds}};
  if (!E.Cand.Rationale.empty())
    O["rationale"] = E.Cand.Rationale;
  if (!E.Cand.ReplacementSource.empty())
    O["replacement_source"] = E.Cand.ReplacementSource;
  if (!E.Note.empty())
    O["note"] = E.Note;
  if (!E.PtxHash.empty())
    O["ptx_hash"] = E.PtxHash;
  if (Expected<LaunchOverrides> L = launchOverridesOf(E.Cand.Steps)) {
    if (!L->empty())
      O["launch"] = L->str();
  } else {
    consumeError(L.takeError());
  }
  if (E.Registers)
    O["registers"] = *E.Registers;
  if (E.SpillBytes)
    O["spill_bytes"] = *E.SpillBytes;
  if (E.LocalBytes)
    O["local_bytes"] = *E.LocalBytes;
  if (E.Result) {
    O["verdict"] = verdictName(E.Result->Verdict);
    if (E.Result->Verdict == Verdict::Refused)
      O["reason"] = reasonName(E.Result->Why);
    else
      O["geomean_speedup"] = E.Result->GeoMeanSpeedup;
    O["eval_seconds"] = E.EvalSeconds;
    if (E.Worker >= 0)
      O["worker"] = E.Worker;
    O["result"] = toJSON(*E.Result);
  }
  return O;
}

json::Value reportToJSON(const AgentResult &R) {
  json::Array Kernels;
  for (const KernelOutcome &K : R.Kernels) {
    const KernelRun &Run = K.Run;
    json::Array Cands;
    for (const Evaluation &E : Run.Evaluations)
      Cands.push_back(toJSON(E));
    json::Object O{
        {"kernel", Run.SpecKernel},
        {"source_kernel", Run.SourceKernel},
        {"original_ptx_hash", Run.OriginalPtxHash},
        {"rounds", Run.Rounds},
        {"stop_reason", Run.StopReason},
        {"interrupted", Run.Interrupted},
        {"summary", K.Summary},
        {"candidates", std::move(Cands)},
        {"seconds", json::Object{{"wall", Run.WallSeconds},
                                 {"propose", Run.Times.Propose},
                                 {"build", Run.Times.Build},
                                 {"evaluate_wait", Run.Times.Evaluate},
                                 {"verify_winner", Run.Times.Verify}}}};
    if (Run.OrigRegisters)
      O["original_registers"] = *Run.OrigRegisters;
    if (Run.OrigSpillBytes)
      O["original_spill_bytes"] = *Run.OrigSpillBytes;
    if (Run.OrigLocalBytes)
      O["original_local_bytes"] = *Run.OrigLocalBytes;
    if (K.Kept) {
      const Evaluation &W = Run.Evaluations[*K.Kept];
      O["winner"] =
          json::Object{{"index", W.Index},
                       {"plan", json::Array(W.Cand.Steps)},
                       {"reassociates_float", W.Cand.Reassociates},
                       {"launch", keptLaunch(R, Run.SpecKernel)},
                       {"geomean_speedup", K.FinalCheck->GeoMeanSpeedup},
                       {"final_check", toJSON(*K.FinalCheck)}};
    } else {
      O["winner"] = nullptr;
    }
    json::Array Failed;
    for (const FailedRecheck &F : K.FailedRechecks) {
      json::Object FO{{"index", F.Index}, {"why", F.Why}};
      if (F.Result)
        FO["result"] = toJSON(*F.Result);
      Failed.push_back(std::move(FO));
    }
    O["failed_rechecks"] = std::move(Failed);
    if (K.AgentReport.kind() != json::Value::Null)
      O["agent_report"] = K.AgentReport;
    Kernels.push_back(std::move(O));
  }
  json::Object Top{{"astra_report", 1},
                   {"file", R.FileName},
                   {"source_hash", R.SourceHash},
                   {"gpu_arch", R.GpuArch},
                   {"agent", R.AgentName},
                   {"beam_width", R.Search.BeamWidth},
                   {"max_depth", R.Search.MaxDepth},
                   {"budget", R.Budget},
                   {"time_budget_seconds", std::isinf(R.TimeBudget)
                                               ? json::Value(nullptr)
                                               : json::Value(R.TimeBudget)},
                   {"interrupted", R.Interrupted},
                   {"changed", R.Changed},
                   {"wall_seconds", R.WallSeconds},
                   {"plan", toJSON(R.Plan)},
                   {"kernels", std::move(Kernels)}};
  if (R.Device)
    Top["device"] = toJSON(*R.Device);
  // The LLM's token usage over all kernels (what the run cost).
  int64_t Prompt = 0, Completion = 0;
  bool Llm = false;
  for (const KernelOutcome &K : R.Kernels)
    if (const json::Object *A = K.AgentReport.getAsObject()) {
      Llm |= A->getInteger("prompt_tokens").has_value();
      Prompt += A->getInteger("prompt_tokens").value_or(0);
      Completion += A->getInteger("completion_tokens").value_or(0);
    }
  if (Llm)
    Top["llm_usage"] = json::Object{{"prompt_tokens", Prompt},
                                    {"completion_tokens", Completion}};
  return std::move(Top);
}

} // namespace astra
