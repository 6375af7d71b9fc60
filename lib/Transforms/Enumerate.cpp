//===- Enumerate.cpp - Every way the catalogue can rewrite a file ---------===//
#include "astra/Transforms/Enumerate.h"
#include "SideLoops.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string formatRewriteParams(const RewriteParams &P) {
  std::vector<std::string> Parts;
  if (!P.Kernel.empty() && P.Loop.empty())
    Parts.push_back("kernel=" + P.Kernel);
  if (!P.Loop.empty())
    Parts.push_back("loop=" + P.Loop);
  if (!P.Function.empty())
    Parts.push_back("function=" + P.Function);
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

std::vector<StringMap<std::string>> getValueCombinations(const Rewrite &R) {
  std::vector<StringMap<std::string>> Out(1);
  for (const ParamDesc &D : R.getParams()) {
    std::vector<StringMap<std::string>> Next;
    for (const StringMap<std::string> &Prefix : Out)
      for (const std::string &V : D.Values) {
        Next.push_back(Prefix);
        Next.back()[D.Key] = V;
      }
    Out = std::move(Next);
  }
  return Out;
}

namespace {

/// Where one option applies: `kernel=`, `loop=` (with its kernel) or
/// `function=`.
struct Selection {
  std::string Kernel, Loop, Function;
  bool operator==(const Selection &O) const {
    return Kernel == O.Kernel && Loop == O.Loop && Function == O.Function;
  }
};

/// Whether only kernel \p Kernel reaches a device-function site.
bool isOnlyReachedFrom(const RewriteSite &S, StringRef Kernel) {
  return all_of(S.ReachedFrom,
                [&](StringRef K) { return K.split('<').first == Kernel; });
}

/// Lists the options of one rewrite over one parsed file.
class OptionCollector {
public:
  OptionCollector(ASTContext &Ctx, StringRef FileName, const Rewrite &R,
                  StringRef Kernel)
      : Ctx(Ctx), FileName(FileName), R(R), Kernel(Kernel) {}

  Error collect(std::vector<RewriteOption> &Out);

private:
  /// The selections of the sites under \p Values: kernels or loops in
  /// source order, then device functions. Restricted to one kernel, the
  /// device functions only it reaches: a plan for one kernel changes no
  /// other.
  Expected<std::vector<Selection>>
  getSelections(const StringMap<std::string> &Values);
  /// Edits with \p P; adds the option when it edits anything new.
  Error tryOption(const RewriteParams &P, unsigned SiteIndex);

  ASTContext &Ctx;
  StringRef FileName;
  const Rewrite &R;
  StringRef Kernel;
  /// Loops of a rewrite's fallback or scalar tail (SideLoops.h): left out.
  std::optional<StringSet<>> SideLoops;
  /// Site order index of each option found, and the edits seen per site
  /// and at all.
  std::vector<std::pair<unsigned, RewriteOption>> Found;
  StringSet<> SeenEdits, SeenAnyEdits;
};

} // namespace

Expected<std::vector<Selection>>
OptionCollector::getSelections(const StringMap<std::string> &Values) {
  std::vector<Selection> Out;
  std::vector<RewriteSite> Sites;
  if (R.getScope() == Rewrite::Scope::Loop || R.reachesDeviceFunctions()) {
    RewriteParams P;
    P.Name = R.getName().str();
    for (const auto &KV : Values)
      P.Values[KV.getKey()] = KV.getValue();
    RewriteContext RC(Ctx, FileName);
    Expected<std::vector<RewriteSite>> Found = R.analyze(RC, P);
    if (!Found)
      return Found.takeError();
    Sites = std::move(*Found);
  }
  if (R.getScope() == Rewrite::Scope::Kernel) {
    for (const FunctionDecl *K : findKernels(Ctx))
      Out.push_back({K->getNameAsString(), "", ""});
  } else {
    // Every loop looked at: whether one applies may depend on what else
    // the same run edits (a manual unroll of an enclosing loop).
    // A site that is not a loop (vectorize-loads' one-element-per-thread
    // kernel body) is selected by its kernel.
    if (!SideLoops)
      SideLoops = findSideLoops(Ctx);
    for (const RewriteSite &S : Sites)
      if (!S.Function.empty() || SideLoops->contains(S.LoopId))
        continue;
      else if (!S.LoopId.empty())
        Out.push_back({S.Kernel, S.LoopId, ""});
      else if (S.Applicable)
        Out.push_back({S.Kernel, "", ""});
  }
  for (const RewriteSite &S : Sites)
    if (!S.Function.empty() && S.Applicable &&
        (Kernel.empty() || isOnlyReachedFrom(S, Kernel)))
      Out.push_back({"", "", S.Function});
  std::vector<Selection> Unique;
  for (Selection &Sel : Out)
    if ((Kernel.empty() || !Sel.Function.empty() || Sel.Kernel == Kernel) &&
        !is_contained(Unique, Sel))
      Unique.push_back(std::move(Sel));
  return std::move(Unique);
}

Error OptionCollector::tryOption(const RewriteParams &P, unsigned SiteIndex) {
  RewriteContext RC(Ctx, FileName);
  Expected<std::vector<RewriteSite>> Sites = R.edit(RC, P);
  if (!Sites)
    return Sites.takeError();
  if (RC.getEdits().empty())
    return Error::success();
  std::string Edits;
  for (const clang::tooling::Replacement &E : RC.getEdits())
    Edits += std::to_string(E.getOffset()) + ":" +
             std::to_string(E.getLength()) + ":" +
             E.getReplacementText().str() + "\n";
  if (!SeenEdits
           .insert(P.Kernel + "\n" + P.Loop + "\n" + P.Function + "\n" + Edits)
           .second)
    return Error::success();
  // A device function whose edits are an earlier option's (it holds all of
  // a kernel's math) adds nothing.
  if (!SeenAnyEdits.insert(Edits).second && !P.Function.empty())
    return Error::success();
  RewriteOption O;
  O.Params = P;
  O.Site = !P.Function.empty() ? P.Function
           : P.Loop.empty()    ? P.Kernel
                               : P.Loop;
  std::vector<std::string> Details, Assumes;
  for (const RewriteSite &S : *Sites) {
    if (!S.Applicable || !S.Selected)
      continue;
    if (Details.empty())
      O.Loc = S.Loc;
    if (!is_contained(Details, S.Detail))
      Details.push_back(S.Detail);
    if (!S.Assumes.empty() && !is_contained(Assumes, S.Assumes))
      Assumes.push_back(S.Assumes);
    O.ChangesRounding |= S.ChangesRounding;
    O.Reassociates |= S.Reassociates;
    O.BlockSplitOnly |= S.BlockSplitOnly;
    if (S.GridDim)
      O.GridDim = S.GridDim;
    if (S.BlockDim)
      O.BlockDim = S.BlockDim;
    if (!S.Extent.empty())
      O.Extent = S.Extent;
  }
  O.Detail = join(Details, "; ");
  O.Assumes = join(Assumes, "; ");
  Found.emplace_back(SiteIndex, std::move(O));
  return Error::success();
}

Error OptionCollector::collect(std::vector<RewriteOption> &Out) {
  std::vector<Selection> Order;
  for (const StringMap<std::string> &Values : getValueCombinations(R)) {
    auto Selections = getSelections(Values);
    if (!Selections)
      return Selections.takeError();
    for (const Selection &Sel : *Selections) {
      auto It = find(Order, Sel);
      unsigned Index = It - Order.begin();
      if (It == Order.end())
        Order.push_back(Sel);
      RewriteParams P;
      P.Name = R.getName().str();
      P.Kernel = Sel.Kernel;
      P.Loop = Sel.Loop;
      P.Function = Sel.Function;
      // Only values that differ from the defaults: the shortest --apply text.
      for (const ParamDesc &D : R.getParams())
        if (Values.lookup(D.Key) != D.Default)
          P.Values[D.Key] = Values.lookup(D.Key);
      if (Error E = tryOption(P, Index))
        return E;
    }
  }
  // Source order of sites (as first seen), then value order.
  llvm::stable_sort(
      Found, [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto &[Index, O] : Found)
    Out.push_back(std::move(O));
  return Error::success();
}

Expected<std::vector<RewriteOption>>
enumerateRewrites(const CompileSetup &Setup, StringRef FileName, StringRef Code,
                  StringRef Kernel) {
  std::vector<RewriteOption> Out;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) -> Error {
    for (const auto &R : getRewrites()) {
      if (!R->isEnumerated())
        continue;
      OptionCollector C(Ctx, FileName, *R, Kernel);
      if (Error E = C.collect(Out))
        return E;
    }
    return Error::success();
  });
  if (E)
    return std::move(E);
  return std::move(Out);
}

} // namespace astra
