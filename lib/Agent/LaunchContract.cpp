//===- LaunchContract.cpp - What a plan changes in the launch -------------===//
//
// A plan's `launch` steps change how the kernel is launched: the harness
// runs the candidate with those overrides (docs/harness.md, "Launch
// overrides"), and the plan and the report write the new launch out per
// spec shape, so that a caller in another file can launch the rewritten
// kernel the way it was verified.
//
//===----------------------------------------------------------------------===//
#include "astra/Agent/Plan.h"
#include "astra/Support/ErrorText.h"
#include "astra/Transforms/Enumerate.h"
#include "astra/Transforms/Rewrite.h"

using namespace llvm;

namespace astra {

bool launchStepEditsSource(const RewriteParams &P) {
  for (const auto &KV : P.Values) {
    StringRef Key = KV.getKey();
    if (Key != "min-threads" && Key != "fold-x" && Key != "fold-y" &&
        Key != "fold-exact" && Key != "block-exact" && Key != "grid-y-div" &&
        Key != "small-entry")
      return true;
  }
  return false;
}

Expected<LaunchOverrides> launchOverridesOf(ArrayRef<std::string> Steps,
                                            StringRef Kernel) {
  LaunchOverrides O;
  std::vector<RewriteParams> Launches;
  for (const std::string &Step : Steps) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    if (!P)
      return P.takeError();
    if (P->Name != "launch" ||
        (!Kernel.empty() && !P->Kernel.empty() && P->Kernel != Kernel))
      continue;
    Launches.push_back(*P);
    // A new instantiation's block size is the step's block= (the value the
    // rewrite writes into the template argument).
    if (P->Values.count("template-arg")) {
      int64_t Block = 0;
      if (StringRef(P->getString("block", "")).getAsInteger(10, Block) ||
          Block < 1)
        return makeInputError("step '" + Step +
                              "': template-arg needs block=<threads per "
                              "block>, the new instantiation's argument");
      if (Error E = O.set("template-value", Block))
        return std::move(E);
    }
    for (const auto &KV : P->Values) {
      if (KV.getKey() == "block")
        continue; // the thread count written into the source
      int64_t V = 0;
      if (StringRef(KV.getValue()).getAsInteger(10, V))
        return makeInputError("step '" + Step + "': '" + KV.getKey() +
                              "' takes an integer, got '" + KV.getValue() +
                              "'");
      if (Error E = O.set(KV.getKey(), V))
        return std::move(E);
    }
  }
  // One bound holds for the whole merged launch; a step whose source edits
  // (a __launch_bounds__, a <<<...>>>, a constant) hold at every size would
  // disagree with it below the bound.
  if (O.MinThreads)
    for (const RewriteParams &P : Launches)
      if (launchStepEditsSource(P) &&
          P.getString("min-threads", "") != std::to_string(O.MinThreads))
        return makeInputError(
            "step '" + formatRewriteParams(P) +
            "' changes the launch at every size, but the plan's launch is "
            "bounded (min-threads=" +
            std::to_string(O.MinThreads) +
            "): give every launch step that sets a variable, block= or a "
            "division the same min-threads");
  return O;
}

static json::Array dimsToJSON(const uint32_t (&D)[3]) {
  return json::Array{D[0], D[1], D[2]};
}

json::Object launchContract(const KernelSpec &K, const LaunchOverrides &O) {
  json::Array Shapes;
  for (const Shape &S : K.Shapes) {
    json::Object Row{{"shape", S.str()}};
    Expected<ResolvedLaunch> L = resolve(K, S);
    if (!L) {
      Row["error"] = errorText(L.takeError());
      Shapes.push_back(std::move(Row));
      continue;
    }
    if (Error E = resolveCandidateLaunch(K, S, O, *L))
      Row["error"] = errorText(std::move(E));
    Row["original"] = json::Object{{"grid", dimsToJSON(L->Grid)},
                                   {"block", dimsToJSON(L->Block)},
                                   {"shared_bytes", L->SharedBytes}};
    Row["new"] = json::Object{{"grid", dimsToJSON(L->Cand.Grid)},
                              {"block", dimsToJSON(L->Cand.Block)},
                              {"shared_bytes", L->Cand.SharedBytes}};
    if (O.SmallEntry) {
      Expected<std::string> N = smallKernelName(K, O);
      Row["kernel"] = !L->CandSmall ? K.Kernel
                      : N           ? *N
                                    : "(" + errorText(N.takeError()) + ")";
    }
    Shapes.push_back(std::move(Row));
  }
  json::Object Vars;
  for (const auto &[Name, Value] : O.Vars)
    Vars[Name] = Value;
  json::Object Contract{
      {"overrides", O.str()},
      {"vars", std::move(Vars)},
      {"grid_x_div", O.GridXDiv},
      {"grid_y_div", O.GridYDiv},
      {"block_x_div", O.BlockXDiv},
      {"block_exact", O.BlockExact},
      {"min_threads", O.MinThreads},
      {"fold_x", O.FoldX},
      {"fold_y", O.FoldY},
      {"fold_exact", O.FoldExact},
      {"rule",
       std::string("the spec's grid, block and shared_bytes with vars "
                   "set, then grid.x, grid.y and block.x divided by "
                   "grid_x_div, grid_y_div and block_x_div, rounded "
                   "up") +
           (O.BlockExact ? " (block.x only where block_x_div divides "
                           "it; elsewhere whole)"
                         : "") +
           (O.FoldX != 1 || O.FoldY != 1
                ? ", then grid.x (grid.y) divided by fold_x (fold_y), "
                  "rounded up, and block.y multiplied by it" +
                      std::string(O.FoldExact ? " (only where fold_x "
                                                "(fold_y) divides it; "
                                                "elsewhere unfolded)"
                                              : "")
                : "") +
           (O.MinThreads ? ", all of it only where the spec's "
                           "launch (vars unset) has at least "
                           "min_threads threads (grid x block, all "
                           "dimensions); below, the spec's launch"
                         : "") +
           (O.SmallEntry ? " of the kernel's copy `small_kernel` (the "
                           "kernel as it was before the plan's later steps, "
                           "kept by keep-original); each shape's `kernel` is "
                           "the one launched"
                         : "") +
           (O.TemplateArg >= 0 ? "; the kernel launched is the instantiation "
                                 "`kernel`: the spec's with template argument "
                                 "template_arg set to template_value, the "
                                 "threads per block"
                               : "")},
      {"shapes", std::move(Shapes)}};
  // Another instantiation (template-arg): the one a caller launches.
  if (O.TemplateArg >= 0) {
    Expected<std::string> N = candidateKernelName(K, O);
    Contract["kernel"] = N ? *N : "(" + errorText(N.takeError()) + ")";
    Contract["template_arg"] = O.TemplateArg;
    Contract["template_value"] = O.TemplateValue;
  }
  if (O.SmallEntry) {
    Expected<std::string> N = smallKernelName(K, O);
    Contract["small_kernel"] = N ? *N : "(" + errorText(N.takeError()) + ")";
  }
  return Contract;
}

} // namespace astra
