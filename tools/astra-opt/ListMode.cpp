//===- ListMode.cpp - --list-rewrites and --list-options ------------------===//
//
// --list-rewrites: for every rewrite of the catalogue, its default parameters
// and then every other combination of the values a search tries, and every
// site it looked at, one line (k=v: the values that differ from the defaults)
//   file:line:col: <rewrite>[:k=v,...] <kernel> [<loop id>]: applies: <what>
//   [ [reassociates float arithmetic]|[changes rounding]]
//   file:line:col: <rewrite>[:k=v,...] <kernel> [<loop id>]: does not apply:
//   <why>
// where a site in a device function shows, instead of <kernel>,
//   function=<name> (reached from <kernel or instantiation>, ...)
// --list-options: every option the search agent enumerates, one line each
//   file:line:col: <--apply text>: <what>[ [changes rounding]]
//   [ [reassociates float arithmetic]][ [assumes: ..]]
// With --json, either prints one JSON array of objects instead. With
// --effects, --list-options applies and compiles each option alone and adds
// what it does to the PTX (ListEffects.h).
//
//===----------------------------------------------------------------------===//
#include "ListEffects.h"
#include "Modes.h"
#include "astra/Support/Output.h"
#include "astra/Transforms/Enumerate.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace astra {

static cl::opt<bool>
    ListRewrites("list-rewrites",
                 cl::desc("List every rewrite site of the file for every "
                          "parameter value a search tries: where each "
                          "rewrite applies, and why not elsewhere"),
                 cl::cat(AstraCategory));
static cl::opt<bool> ListOptions(
    "list-options",
    cl::desc("List every option the search agent enumerates: each "
             "applicable (rewrite, site, parameter values) as --apply text"),
    cl::cat(AstraCategory));
static cl::opt<bool> ListEffects(
    "effects",
    cl::desc("With --list-options: apply and compile each option alone and "
             "say whether its PTX changes and what it does to registers, "
             "stack and spills (ptxas); an option that adds local memory is "
             "marked"),
    cl::cat(AstraCategory));
static cl::opt<bool>
    ListJson("json",
             cl::desc("With --list-rewrites or --list-options: print "
                      "JSON"),
             cl::cat(AstraCategory));

/// `name`, or `name:k=v,...` with the values that differ from the defaults.
static std::string formatValues(const RewriteParams &P) {
  RewriteParams Changed;
  Changed.Name = P.Name;
  if (const Rewrite *R = findRewrite(P.Name))
    for (const ParamDesc &D : R->getParams()) {
      auto It = P.Values.find(D.Key);
      if (It != P.Values.end() && It->second != D.Default)
        Changed.Values[D.Key] = It->second;
    }
  return formatRewriteParams(Changed);
}

static json::Object formatParams(const RewriteParams &P) {
  json::Object Obj;
  for (const auto &KV : P.Values)
    Obj[KV.getKey()] = KV.getValue();
  return Obj;
}

static std::string formatSitesText(const std::vector<SiteListing> &All) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const SiteListing &L : All) {
    for (const RewriteSite &S : L.Sites) {
      OS << S.Loc.File << ':' << S.Loc.Line << ':' << S.Loc.Col << ": "
         << formatValues(L.Params) << ' ';
      if (S.Function.empty())
        OS << S.Kernel;
      else
        OS << "function=" << S.Function << " (reached from "
           << join(S.ReachedFrom, ", ") << ')';
      if (!S.LoopId.empty())
        OS << ' ' << S.LoopId;
      OS << (S.Applicable ? ": applies: " : ": does not apply: ") << S.Detail;
      if (S.Applicable && S.Reassociates)
        OS << " [reassociates float arithmetic: results may differ in the "
              "last bits]";
      else if (S.Applicable && S.ChangesRounding)
        OS << " [changes rounding]";
      OS << '\n';
    }
  }
  return Out;
}

static std::string formatSitesJson(const std::vector<SiteListing> &All) {
  json::Array Arr;
  for (const SiteListing &L : All)
    for (const RewriteSite &S : L.Sites)
      Arr.push_back(json::Object{
          {"rewrite", L.Params.Name},
          {"params", formatParams(L.Params)},
          {"kernel",
           S.Kernel.empty() ? json::Value(nullptr) : json::Value(S.Kernel)},
          {"function",
           S.Function.empty() ? json::Value(nullptr) : json::Value(S.Function)},
          {"reached_from", json::Array(S.ReachedFrom)},
          {"loop",
           S.LoopId.empty() ? json::Value(nullptr) : json::Value(S.LoopId)},
          {"file", S.Loc.File},
          {"line", S.Loc.Line},
          {"col", S.Loc.Col},
          {"applies", S.Applicable},
          {"detail", S.Detail},
          {"changes_rounding", S.ChangesRounding},
          {"reassociates_float", S.Reassociates},
          {"assumes",
           S.Assumes.empty() ? json::Value(nullptr) : json::Value(S.Assumes)},
          {"warning",
           S.Warning.empty() ? json::Value(nullptr) : json::Value(S.Warning)},
      });
  return formatv("{0:2}", json::Value(std::move(Arr))).str() + "\n";
}

static std::string formatOptionsText(const std::vector<RewriteOption> &All,
                                     const std::vector<OptionEffect> &Fx) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (size_t I = 0; I < All.size(); ++I) {
    const RewriteOption &O = All[I];
    OS << O.Loc.File << ':' << O.Loc.Line << ':' << O.Loc.Col << ": "
       << formatRewriteParams(O.Params) << ": " << O.Detail;
    if (O.ChangesRounding)
      OS << " [changes rounding]";
    if (O.Reassociates)
      OS << " [reassociates float arithmetic]";
    if (!O.Assumes.empty())
      OS << " [assumes: " << O.Assumes << "]";
    if (I < Fx.size())
      OS << formatEffectText(Fx[I]);
    OS << '\n';
  }
  return Out;
}

static std::string formatOptionsJson(const std::vector<RewriteOption> &All,
                                     const std::vector<OptionEffect> &Fx) {
  json::Array Arr;
  for (size_t I = 0; I < All.size(); ++I) {
    const RewriteOption &O = All[I];
    json::Object Obj{
        {"apply", formatRewriteParams(O.Params)},
        {"rewrite", O.Params.Name},
        {"params", formatParams(O.Params)},
        {"site", O.Site},
        {"file", O.Loc.File},
        {"line", O.Loc.Line},
        {"col", O.Loc.Col},
        {"detail", O.Detail},
        {"changes_rounding", O.ChangesRounding},
        {"reassociates_float", O.Reassociates},
        {"assumes",
         O.Assumes.empty() ? json::Value(nullptr) : json::Value(O.Assumes)},
    };
    // Which launch divisions the option's any-grid form allows (the search
    // composes them, docs/agents.md).
    if (O.BlockSplitOnly || O.GridDim || O.BlockDim) {
      auto Dim = [](char D) {
        return D ? json::Value(std::string(1, D)) : json::Value(nullptr);
      };
      Obj["any_grid"] =
          json::Object{{"block_only", O.BlockSplitOnly},
                       {"grid_dim", Dim(O.GridDim)},
                       {"block_dim", Dim(O.BlockDim)},
                       {"extent", O.Extent.empty() ? json::Value(nullptr)
                                                   : json::Value(O.Extent)}};
    }
    if (I < Fx.size())
      Obj["effects"] = formatEffectJson(Fx[I]);
    Arr.push_back(std::move(Obj));
  }
  return formatv("{0:2}", json::Value(std::move(Arr))).str() + "\n";
}

Error runListMode(const CompileSetup &Setup, const InputSource &In,
                  bool &Handled) {
  Handled = ListRewrites || ListOptions;
  if (!Handled) {
    if (ListJson)
      return makeInputError("--json needs --list-rewrites or --list-options");
    if (ListEffects)
      return makeInputError("--effects needs --list-options");
    return Error::success();
  }
  if (ListRewrites && ListOptions)
    return makeInputError("--list-rewrites and --list-options are exclusive");
  if (ListEffects && !ListOptions)
    return makeInputError("--effects needs --list-options");
  if (ListOptions) {
    Expected<std::vector<RewriteOption>> All =
        enumerateRewrites(Setup, In.FileName, In.Code);
    if (!All)
      return All.takeError();
    std::vector<OptionEffect> Fx;
    if (ListEffects) {
      Expected<std::vector<OptionEffect>> E =
          measureEffects(Setup, In.FileName, In.Code, *All);
      if (!E)
        return E.takeError();
      Fx = std::move(*E);
    }
    return writeFileAtomically(OutputFile, ListJson
                                               ? formatOptionsJson(*All, Fx)
                                               : formatOptionsText(*All, Fx));
  }
  Expected<std::vector<SiteListing>> All =
      listRewriteSites(Setup, In.FileName, In.Code);
  if (!All)
    return All.takeError();
  return writeFileAtomically(OutputFile, ListJson ? formatSitesJson(*All)
                                                  : formatSitesText(*All));
}

} // namespace astra
