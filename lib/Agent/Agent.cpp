//===- Agent.cpp - Candidates and their evaluations -----------------------===//
#include "astra/Agent/Agent.h"
#include "astra/Agent/Plan.h"

using namespace llvm;

namespace astra {

Agent::~Agent() = default;

std::string Candidate::key() const {
  std::string K = formatSteps(Steps);
  if (!ReplacementSource.empty())
    K += " + replace(" + hashText(ReplacementSource).substr(7, 16) + ")";
  return K;
}

std::string Candidate::describe() const {
  if (ReplacementSource.empty())
    return formatSteps(Steps);
  std::string Base = Steps.empty() ? "" : formatSteps(Steps) + " + ";
  return Base + "replacement source (" + Origin + ")";
}

StringRef evalStatusName(EvalStatus S) {
  switch (S) {
  case EvalStatus::Evaluated:
    return "evaluated";
  case EvalStatus::DoesNotApply:
    return "does-not-apply";
  case EvalStatus::DoesNotCompile:
    return "does-not-compile";
  case EvalStatus::SameAsOriginal:
    return "same-ptx-as-original";
  case EvalStatus::DuplicatePtx:
    return "duplicate-ptx";
  case EvalStatus::Pruned:
    return "pruned";
  case EvalStatus::EvaluationError:
    return "evaluation-error";
  }
  return "unknown";
}

bool Evaluation::isUsable() const {
  if (Status != EvalStatus::Evaluated || !Result)
    return false;
  return Result->Verdict == Verdict::Faster ||
         Result->Verdict == Verdict::NoChange;
}

bool Evaluation::isFaster() const {
  return Status == EvalStatus::Evaluated && Result &&
         Result->Verdict == Verdict::Faster;
}

double Evaluation::speedup() const {
  if (Status != EvalStatus::Evaluated || !Result ||
      Result->Verdict == Verdict::Refused)
    return 0;
  return Result->GeoMeanSpeedup;
}

} // namespace astra
