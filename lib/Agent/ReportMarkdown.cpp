//===- ReportMarkdown.cpp - The agent's report for people -----------------===//
#include "astra/Agent/Report.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace llvm;

namespace astra {

namespace {
std::string verdictText(const Evaluation &E) {
  if (E.Status != EvalStatus::Evaluated || !E.Result)
    return evalStatusName(E.Status).str();
  const VerifyResult &R = *E.Result;
  if (R.Verdict == Verdict::Refused)
    return "refused: " + reasonName(R.Why).str();
  return formatv("{0} {1:F3}x", verdictName(R.Verdict), R.GeoMeanSpeedup).str();
}

/// The largest timed shape of \p R (the last timed one in spec order).
const ShapeResult *largestTimed(const VerifyResult &R) {
  const ShapeResult *L = nullptr;
  for (const ShapeResult &S : R.Shapes)
    if (S.Timing && !S.Generated)
      L = &S;
  return L;
}

std::string escapeCell(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '|')
      Out += "\\|";
    else if (C == '\n')
      Out += ' ';
    else
      Out += C;
  }
  return Out;
}
/// The kept plan's launch (LaunchContract.cpp): what a caller must launch.
void printLaunchContract(raw_ostream &OS, const json::Object &L) {
  auto Dims = [](const json::Object *O, StringRef Key) {
    std::string S;
    if (const json::Array *A = O ? O->getArray(Key) : nullptr)
      for (const json::Value &V : *A)
        S += (S.empty() ? "" : ", ") +
             std::to_string(V.getAsInteger().value_or(0));
    return "(" + S + ")";
  };
  OS << "**The kept plan changes the launch** (`"
     << L.getString("overrides").value_or("") << "`): launch the rewritten "
     << "kernel as below, as it was verified.";
  if (L.getInteger("template_arg").value_or(-1) >= 0)
    OS << " The kernel launched is another instantiation of the template: `"
       << L.getString("kernel").value_or("") << "`.";
  std::optional<StringRef> Small = L.getString("small_kernel");
  if (Small)
    OS << " Below " << L.getInteger("min_threads").value_or(0)
       << " threads the kernel launched is `" << *Small
       << "`, the kernel as it was before the plan's later steps "
          "(keep-original), under the original launch.";
  OS << "\n\n"
     << "| shape | original grid | original block | new grid | new block | "
        "new shared bytes |"
     << (Small ? " kernel launched |" : "") << "\n|---|---|---|---|---|---|"
     << (Small ? "---|" : "") << "\n";
  if (const json::Array *Shapes = L.getArray("shapes"))
    for (const json::Value &V : *Shapes) {
      const json::Object *S = V.getAsObject();
      if (!S)
        continue;
      const json::Object *O = S->getObject("original"),
                         *N = S->getObject("new");
      OS << "| " << S->getString("shape").value_or("") << " | "
         << Dims(O, "grid") << " | " << Dims(O, "block") << " | "
         << Dims(N, "grid") << " | " << Dims(N, "block") << " | "
         << (N ? N->getInteger("shared_bytes").value_or(0) : 0) << " |";
      if (Small)
        OS << " `" << S->getString("kernel").value_or("") << "` |";
      OS << "\n";
    }
  OS << "\n";
}

} // namespace

void printReportMarkdown(raw_ostream &OS, const AgentResult &R) {
  OS << "# astra-opt report: " << R.FileName << "\n\n";
  std::string Time = std::isinf(R.TimeBudget)
                         ? std::string("no time limit")
                         : formatv("{0:F0} s", R.TimeBudget).str();
  OS << formatv("Agent `{0}` (beam width {1}, depth {2}), budget {3} "
                "candidates and {4} per kernel, {5}; wall time "
                "{6:F1} s.{7}\n\n",
                R.AgentName, R.Search.BeamWidth, R.Search.MaxDepth, R.Budget,
                Time, R.GpuArch, R.WallSeconds,
                R.Interrupted ? " **Interrupted**: the input was left as it "
                                "was."
                              : "");
  if (R.Device && !R.Device->Name.empty())
    OS << formatv("Device: {0} (copy bandwidth {1:F0} GB/s).\n\n",
                  R.Device->Name, R.Device->CopyGBs);
  OS << (R.Changed ? "The output differs from the input in the kernels "
                     "marked kept below.\n\n"
                   : "Nothing was kept: the output equals the input.\n\n");
  for (const KernelOutcome &K : R.Kernels) {
    const KernelRun &Run = K.Run;
    OS << "## " << Run.SpecKernel << "\n\n" << K.Summary << ".\n\n";
    if (K.Kept && Run.Evaluations[*K.Kept].Cand.Reassociates)
      OS << "The kept plan reassociates floating-point arithmetic (a sum is "
            "added in another order): results may differ from the "
            "original's in the last bits, within the verified tolerance.\n\n";
    for (const KernelPlan &P : R.Plan.Kernels)
      if (P.Kernel == Run.SpecKernel && !P.Launch.empty())
        printLaunchContract(OS, P.Launch);
    if (const json::Object *A = K.AgentReport.getAsObject())
      if (auto Model = A->getString("model"))
        OS << formatv("LLM `{0}`: {1} of {2} round(s), {3} prompt + {4} "
                      "completion tokens.\n\n",
                      *Model, A->getInteger("rounds_used").value_or(0),
                      A->getInteger("round_budget").value_or(0),
                      A->getInteger("prompt_tokens").value_or(0),
                      A->getInteger("completion_tokens").value_or(0));
    if (K.FinalCheck) {
      OS << "| shape | original µs | candidate µs | speedup [95% CI] | "
            "GB/s | % of copy |\n|---|---|---|---|---|---|\n";
      for (const ShapeResult &S : K.FinalCheck->Shapes) {
        if (!S.Timing)
          continue;
        const TimingResult &T = *S.Timing;
        OS << formatv("| {0} | {1:F2} | {2:F2} | {3:F3}x [{4:F3}, {5:F3}] | "
                      "{6:F0} | {7:F1} |\n",
                      S.Shape, T.OrigUs, T.CandUs, T.Speedup.Median,
                      T.Speedup.Lo, T.Speedup.Hi, T.CandGBs, T.CandPctCopy);
      }
      OS << "\n";
    }
    OS << formatv("Stopped: {0}. Rounds: {1}. Time: build {2:F1} s, "
                  "waiting on the GPU {3:F1} s, re-verification {4:F1} s.\n\n",
                  Run.StopReason, Run.Rounds, Run.Times.Build,
                  Run.Times.Evaluate, Run.Times.Verify);
    if (Run.Evaluations.empty())
      continue;
    OS << "| # | plan | verdict | regs | spills | largest shape | note |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const Evaluation &E : Run.Evaluations) {
      std::string Largest;
      if (E.Result)
        if (const ShapeResult *S = largestTimed(*E.Result))
          Largest = formatv("{0}: {1:F3}x, {2:F1}% of copy", S->Shape,
                            S->Timing->Speedup.Median,
                            S->Timing->CandPctCopy);
      std::string Note = E.Note;
      if (E.Result && E.Result->Verdict == Verdict::Refused)
        Note = E.Result->Detail;
      if (E.Cand.Reassociates)
        Note = Note.empty() ? "reassociates float arithmetic"
                            : "reassociates float arithmetic; " + Note;
      if (Note.size() > 160)
        Note = Note.substr(0, 157) + "...";
      bool Kept = K.Kept && Run.Evaluations[*K.Kept].Index == E.Index;
      OS << formatv("| {0}{1} | `{2}` | {3} | {4} | {5} | {6} | {7} |\n",
                    E.Index, Kept ? " (kept)" : "",
                    escapeCell(E.Cand.describe()), verdictText(E),
                    E.Registers ? std::to_string(*E.Registers) : "",
                    E.SpillBytes ? std::to_string(*E.SpillBytes) : "",
                    escapeCell(Largest), escapeCell(Note));
    }
    OS << "\n";
    for (const FailedRecheck &F : K.FailedRechecks) {
      OS << formatv("Candidate {0} was not kept: {1}", F.Index, F.Why);
      if (F.Result && !F.Result->SlowerShapes.empty())
        OS << " (slower on " << join(F.Result->SlowerShapes, "; ") << ")";
      OS << ".\n";
    }
    if (!K.FailedRechecks.empty())
      OS << "\n";
  }
}

void printRunSummary(raw_ostream &OS, const AgentResult &R) {
  for (const KernelOutcome &K : R.Kernels)
    OS << "astra-opt: " << K.Run.SpecKernel << ": " << K.Summary << "\n";
  if (R.Changed || R.Interrupted)
    return;
  bool AnyKept = any_of(R.Kernels, [](const KernelOutcome &K) {
    return K.Kept.has_value();
  });
  OS << (AnyKept ? "astra-opt: the output equals the input: what was kept "
                   "changes only the launch (the plan's launch contract)\n"
                 : "astra-opt: nothing kept; the output equals the input\n");
}

} // namespace astra
