//===- PlanMode.cpp - --apply-plan: replay a saved plan -------------------===//
//
//   astra-opt --apply-plan p.json in.cu [-o out.cu | --in-place]
//             [--require-source-match]
//
// Reproduces the agent's output byte for byte without a GPU. When the source
// changed since the plan was made, its steps are still replayed (with a
// warning), or, with --require-source-match (builds: what ships must be what
// was proven), nothing is replayed and it is an error; a step whose site is
// gone is an error naming it, and nothing is written.
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Agent/Plan.h"
#include "astra/Support/Error.h"

using namespace llvm;

namespace astra {

static cl::opt<std::string>
    ApplyPlan("apply-plan",
              cl::desc("Replay a plan written by --agent-rewrite --plan "
                       "(no GPU needed)"),
              cl::value_desc("plan.json"), cl::cat(AstraCategory));
static cl::opt<bool> RequireSourceMatch(
    "require-source-match",
    cl::desc("--apply-plan: fail, instead of warning, when the source is not "
             "the one the plan was made and proven on"),
    cl::cat(AstraCategory));

Error runPlanMode(const CompileSetup &SetupIn, const InputSource &In,
                  bool &Handled) {
  Handled = !ApplyPlan.empty();
  if (!Handled)
    return Error::success();
  Expected<PlanFile> P = readPlanFile(ApplyPlan);
  if (!P)
    return P.takeError();
  if (RequireSourceMatch && hashText(In.Code) != P->SourceHash)
    return makeInputError(
        DiagLoc{In.FileName},
        "the source changed since the plan " + ApplyPlan + " was made (" +
            P->SourceHash + ", now " + hashText(In.Code) +
            "): its speedup was proven on the old source; make a new plan "
            "with --agent-rewrite --plan, or replay this one anyway without "
            "--require-source-match");
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
