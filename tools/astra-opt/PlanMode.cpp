//===- PlanMode.cpp - --apply-plan: replay a saved plan -------------------===//
//
//   astra-opt --apply-plan p.json in.cu [-o out.cu | --in-place]
//
// Reproduces the agent's output byte for byte without a GPU. When the source
// changed since the plan was made, its steps are still replayed (with a
// warning); a step whose site is gone is an error naming it, and nothing is
// written.
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Agent/Plan.h"

using namespace llvm;

namespace astra {

static cl::opt<std::string>
    ApplyPlan("apply-plan",
              cl::desc("Replay a plan written by --agent-rewrite --plan "
                       "(no GPU needed)"),
              cl::value_desc("plan.json"), cl::cat(AstraCategory));

Error runPlanMode(const CompileSetup &SetupIn, const InputSource &In,
                  bool &Handled) {
  Handled = !ApplyPlan.empty();
  if (!Handled)
    return Error::success();
  Expected<PlanFile> P = readPlanFile(ApplyPlan);
  if (!P)
    return P.takeError();
  CompileSetup Setup = SetupIn;
  Setup.ReusePreamble = true;
  std::vector<std::string> Warnings;
  Expected<std::string> Out = applyPlan(Setup, In.FileName, In.Code, *P,
                                        Warnings);
  if (!Out)
    return Out.takeError();
  for (const std::string &W : Warnings)
    errs() << In.FileName << ": warning: " << W << "\n";
  return writeResult(In.Code, *Out);
}

} // namespace astra
