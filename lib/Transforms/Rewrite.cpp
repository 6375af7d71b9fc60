//===- Rewrite.cpp - Parameter checks, analysis and editing of a rewrite --===//
#include "astra/Transforms/Rewrite.h"
#include "EditBatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

Rewrite::~Rewrite() = default;

/// A spec variable name: an identifier (no '-', unlike the rewrites' own
/// parameters).
static bool isLaunchVariable(StringRef Key) {
  return !Key.empty() && (isAlpha(Key[0]) || Key[0] == '_') &&
         all_of(Key, [](char C) { return isAlnum(C) || C == '_'; });
}

Error Rewrite::checkParams(const RewriteParams &P) const {
  std::vector<ParamDesc> Known = getParams();
  for (const auto &KV : P.Values) {
    auto It = find_if(Known,
                      [&](const ParamDesc &D) { return D.Key == KV.getKey(); });
    if (It != Known.end()) {
      if (Error E = It->check(getName(), KV.getValue()))
        return E;
      continue;
    }
    if (takesLaunchVariables() && isLaunchVariable(KV.getKey())) {
      int64_t V = 0;
      if (StringRef(KV.getValue()).getAsInteger(10, V) || V < 1)
        return makeInputError("rewrite '" + getName() + "': parameter '" +
                              KV.getKey() +
                              "' (a tunable launch variable) "
                              "takes a positive integer, got '" +
                              KV.getValue() + "'");
      continue;
    }
    std::vector<std::string> Names;
    for (const ParamDesc &D : Known)
      Names.push_back(D.Key);
    Names.push_back("kernel");
    Names.push_back("loop");
    Names.push_back("function");
    if (takesLaunchVariables())
      Names.push_back("<a tunable variable of the spec>");
    return makeInputError("rewrite '" + getName() + "': unknown parameter '" +
                          KV.getKey() + "'; parameters: " + join(Names, ", "));
  }
  return Error::success();
}

Expected<std::vector<RewriteSite>>
Rewrite::analyze(RewriteContext &RC, const RewriteParams &P) const {
  if (Error E = checkParams(P))
    return std::move(E);
  Expected<std::vector<PlannedSite>> Plan = plan(RC, P);
  if (!Plan)
    return Plan.takeError();
  std::vector<RewriteSite> Sites;
  for (PlannedSite &S : *Plan)
    Sites.push_back(std::move(S.Site));
  return std::move(Sites);
}

Expected<std::vector<RewriteSite>> Rewrite::edit(RewriteContext &RC,
                                                 const RewriteParams &P) const {
  if (Error E = checkParams(P))
    return std::move(E);
  Expected<std::vector<PlannedSite>> Plan = plan(RC, P);
  if (!Plan)
    return Plan.takeError();
  EditBatch Edits(RC);
  std::vector<RewriteSite> Sites;
  for (PlannedSite &S : *Plan) {
    if (S.Edit && S.Site.Applicable && S.Site.Selected)
      S.Edit(Edits);
    Sites.push_back(std::move(S.Site));
  }
  if (Error E = Edits.commit())
    return std::move(E);
  return std::move(Sites);
}

} // namespace astra
