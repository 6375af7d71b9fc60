//===- Enumerate.cpp - Every way the catalogue can rewrite a file ---------===//
#include "astra/Transforms/Enumerate.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

std::string formatRewriteParams(const RewriteParams &P) {
  std::vector<std::string> Parts;
  if (!P.Kernel.empty() && P.Loop.empty())
    Parts.push_back("kernel=" + P.Kernel);
  if (!P.Loop.empty())
    Parts.push_back("loop=" + P.Loop);
  std::vector<std::string> Keys;
  for (const auto &KV : P.Values)
    Keys.push_back(KV.getKey().str());
  llvm::sort(Keys);
  for (const std::string &K : Keys)
    Parts.push_back(K + "=" + P.Values.lookup(K));
  if (Parts.empty())
    return P.Name;
  return P.Name + ":" + join(Parts, ",");
}

Expected<std::vector<RewriteOption>>
enumerateRewrites(const CompileSetup &Setup, StringRef FileName,
                  StringRef Code, StringRef Kernel) {
  auto Listed = listRewriteSites(Setup, FileName, Code);
  if (!Listed)
    return Listed.takeError();
  std::vector<RewriteOption> Out;
  for (auto &[Name, Sites] : *Listed) {
    for (const RewriteSite &S : Sites) {
      if (!S.Applicable || (!Kernel.empty() && S.Kernel != Kernel))
        continue;
      RewriteOption O;
      O.Params.Name = Name;
      O.Params.Kernel = S.Kernel;
      O.Params.Loop = S.LoopId;
      O.Site = S.LoopId.empty() ? S.Kernel : S.LoopId;
      O.Loc = S.Loc;
      O.Detail = S.Detail;
      O.ChangesRounding = Name == "fast-math";
      // The same site listed twice (two accesses of one loop) is one option.
      if (llvm::any_of(Out, [&](const RewriteOption &X) {
            return formatRewriteParams(X.Params) ==
                   formatRewriteParams(O.Params);
          }))
        continue;
      Out.push_back(std::move(O));
    }
  }
  return std::move(Out);
}

} // namespace astra
