//===- ListMode.cpp - --list-rewrites -------------------------------------===//
//
// For every rewrite of the catalogue and every site it looked at, one line
//   file:line:col: <rewrite> <kernel> [<loop id>]: applies: <what>
//   file:line:col: <rewrite> <kernel> [<loop id>]: does not apply: <why>
// or, with --json, one JSON array of site objects.
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Support/Output.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace astra {

static cl::opt<bool>
    ListRewrites("list-rewrites",
                 cl::desc("List every rewrite site of the file: where each "
                          "rewrite applies, and why not elsewhere"),
                 cl::cat(AstraCategory));
static cl::opt<bool> ListJson("json",
                              cl::desc("With --list-rewrites: print JSON"),
                              cl::cat(AstraCategory));

using SiteList = std::vector<std::pair<std::string, std::vector<RewriteSite>>>;

static std::string formatText(const SiteList &All) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const auto &[Name, Sites] : All) {
    for (const RewriteSite &S : Sites) {
      OS << S.Loc.File << ':' << S.Loc.Line << ':' << S.Loc.Col << ": "
         << Name << ' ' << S.Kernel;
      if (!S.LoopId.empty())
        OS << ' ' << S.LoopId;
      OS << (S.Applicable ? ": applies: " : ": does not apply: ") << S.Detail
         << '\n';
    }
  }
  return Out;
}

static std::string formatJson(const SiteList &All) {
  json::Array Arr;
  for (const auto &[Name, Sites] : All)
    for (const RewriteSite &S : Sites)
      Arr.push_back(json::Object{
          {"rewrite", Name},
          {"kernel", S.Kernel},
          {"loop", S.LoopId.empty() ? json::Value(nullptr)
                                    : json::Value(S.LoopId)},
          {"file", S.Loc.File},
          {"line", S.Loc.Line},
          {"col", S.Loc.Col},
          {"applies", S.Applicable},
          {"detail", S.Detail},
      });
  return formatv("{0:2}", json::Value(std::move(Arr))).str() + "\n";
}

Error runListMode(const CompileSetup &Setup, const InputSource &In,
                  bool &Handled) {
  Handled = ListRewrites;
  if (!ListRewrites) {
    if (ListJson)
      return makeInputError("--json needs --list-rewrites");
    return Error::success();
  }
  Expected<SiteList> All = listRewriteSites(Setup, In.FileName, In.Code);
  if (!All)
    return All.takeError();
  return writeFileAtomically(OutputFile,
                             ListJson ? formatJson(*All) : formatText(*All));
}

} // namespace astra
