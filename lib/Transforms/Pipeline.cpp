//===- Pipeline.cpp - Apply rewrites to a file ----------------------------===//
#include "astra/Transforms/Pipeline.h"
#include "astra/Frontend/DeviceFunctions.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Transforms/Enumerate.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

/// Checks that the function the user named is a kernel or a device
/// function a kernel reaches.
static Error checkFunction(ASTContext &Ctx, StringRef FileName,
                           const RewriteParams &P) {
  std::vector<std::string> Kernels, Functions;
  for (const FunctionDecl *K : findKernels(Ctx))
    Kernels.push_back(K->getNameAsString());
  for (const DeviceFunction &DF : findDeviceFunctions(Ctx))
    if (!is_contained(Functions, DF.Name))
      Functions.push_back(DF.Name);
  if (is_contained(Kernels, P.Function) || is_contained(Functions, P.Function))
    return Error::success();
  return makeInputError(
      DiagLoc{FileName.str()},
      "unknown function '" + P.Function +
          "'; device functions reached from the kernels: " +
          (Functions.empty() ? "none" : join(Functions, ", ")) +
          "; kernels: " + (Kernels.empty() ? "none" : join(Kernels, ", ")));
}

/// Checks that the kernel, loop or function the user named exist.
static Error checkSelection(ASTContext &Ctx, StringRef FileName,
                            const RewriteParams &P) {
  if (!P.Function.empty())
    return checkFunction(Ctx, FileName, P);
  if (P.Kernel.empty())
    return Error::success();
  std::vector<std::string> Names;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Name = K->getNameAsString();
    Names.push_back(Name);
    if (Name != P.Kernel)
      continue;
    if (P.Loop.empty())
      return Error::success();
    unsigned N = collectLoops(K->getBody()).size();
    for (unsigned I = 0; I < N; ++I)
      if (makeLoopId(Name, I) == P.Loop)
        return Error::success();
    return makeInputError(DiagLoc{FileName.str()},
                          "unknown loop id '" + P.Loop + "': kernel '" + Name +
                              "' has " + Twine(N) + " loop(s)" +
                              (N ? " (" + makeLoopId(Name, 0) + " .. " +
                                       makeLoopId(Name, N - 1) + ")"
                                 : std::string()));
  }
  return makeInputError(DiagLoc{FileName.str()},
                        "unknown kernel '" + P.Kernel + "'; kernels in file: " +
                            (Names.empty() ? "none" : join(Names, ", ")));
}

/// Splices the edits into the file. Nothing is re-formatted: rewrites lay
/// out the code they generate in the file's own style (Indent.h), and every
/// other byte stays as it was.
static Expected<std::string> applyEdits(StringRef Code,
                                        const tooling::Replacements &Edits) {
  Expected<std::string> Result = tooling::applyAllReplacements(Code, Edits);
  if (!Result)
    return makeInternalError("applying the edits failed: " +
                             toString(Result.takeError()));
  return *Result;
}

Expected<ApplyResult> applyRewrite(const CompileSetup &Setup,
                                   StringRef FileName, StringRef Code,
                                   const RewriteParams &P) {
  Rewrite *R = findRewrite(P.Name);
  if (!R) {
    std::vector<std::string> Names;
    for (const auto &X : getRewrites())
      Names.push_back(X->getName().str());
    return makeInputError("unknown rewrite '" + P.Name +
                          "'; known: " + join(Names, ", "));
  }
  ApplyResult Result;
  tooling::Replacements Edits;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) -> Error {
    if (Error E = checkSelection(Ctx, FileName, P))
      return E;
    RewriteContext RC(Ctx, FileName);
    Expected<std::vector<RewriteSite>> Sites = R->edit(RC, P);
    if (!Sites)
      return Sites.takeError();
    Result.Sites = std::move(*Sites);
    Edits = RC.getEdits();
    return Error::success();
  });
  if (E)
    return std::move(E);

  // A launch may change with nothing in the file that encodes it.
  bool LaunchOnly = R->changesLaunch() &&
                    llvm::any_of(Result.Sites, [](const RewriteSite &S) {
                      return S.Applicable && S.Selected;
                    });
  if (Edits.empty() && !LaunchOnly) {
    // Say where and why, Clang-style, one line per refused site.
    std::string Msg;
    raw_string_ostream OS(Msg);
    OS << "rewrite '" << P.Name << "' does not apply";
    if (!P.Loop.empty())
      OS << " to loop " << P.Loop;
    else if (!P.Kernel.empty())
      OS << " to kernel " << P.Kernel;
    else if (!P.Function.empty())
      OS << " to function " << P.Function;
    unsigned Shown = 0;
    for (const RewriteSite &S : Result.Sites) {
      if (!S.Selected)
        continue;
      OS << "\n";
      printDiag(OS, S.Loc, "note",
                S.Function.empty()
                    ? S.Detail
                    : "in device function '" + S.Function + "' (reached from " +
                          join(S.ReachedFrom, ", ") + "): " + S.Detail);
      Msg.pop_back(); // printDiag ends with a newline
      ++Shown;
    }
    if (!Shown)
      OS << ": no candidate site found";
    // kernel=K leaves out the device functions K shares with other kernels:
    // point at them.
    std::vector<std::string> Shared;
    for (const RewriteSite &S : Result.Sites) {
      if (P.Kernel.empty() || !P.Loop.empty() || S.Selected || !S.Applicable ||
          S.Function.empty() || is_contained(Shared, S.Function) ||
          none_of(S.ReachedFrom,
                  [&](StringRef K) { return K.split('<').first == P.Kernel; }))
        continue;
      Shared.push_back(S.Function);
      OS << "\n";
      printDiag(OS, S.Loc, "note",
                "device function '" + S.Function + "', which " + P.Kernel +
                    " calls, has sites but other kernels reach it too (" +
                    join(S.ReachedFrom, ", ") +
                    "): select it with function=" + S.Function);
      Msg.pop_back();
    }
    return makeInputError(DiagLoc{FileName.str()}, Msg);
  }
  Expected<std::string> NewCode = applyEdits(Code, Edits);
  if (!NewCode)
    return NewCode.takeError();
  Result.Code = std::move(*NewCode);
  return std::move(Result);
}

Expected<std::vector<SiteListing>> listRewriteSites(const CompileSetup &Setup,
                                                    StringRef FileName,
                                                    StringRef Code) {
  std::vector<SiteListing> Out;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) -> Error {
    for (const auto &R : getRewrites()) {
      // The defaults first (what --apply=<name> does), then the others.
      StringMap<std::string> Defaults;
      for (const ParamDesc &D : R->getParams())
        Defaults[D.Key] = D.Default;
      std::vector<StringMap<std::string>> Combos = {Defaults};
      for (StringMap<std::string> &Values : getValueCombinations(*R))
        if (Values != Defaults)
          Combos.push_back(std::move(Values));
      for (StringMap<std::string> &Values : Combos) {
        SiteListing L;
        L.Params.Name = R->getName().str();
        L.Params.Values = std::move(Values);
        // A value at its default is analysed as not given, as --apply=<name>
        // runs: a rewrite may choose per site then (unroll unrolls a loop
        // over a local array fully).
        RewriteParams Given = L.Params;
        for (const ParamDesc &D : R->getParams())
          if (Given.Values.lookup(D.Key) == D.Default)
            Given.Values.erase(D.Key);
        RewriteContext RC(Ctx, FileName);
        Expected<std::vector<RewriteSite>> Sites = R->analyze(RC, Given);
        if (!Sites)
          return Sites.takeError();
        L.Sites = std::move(*Sites);
        Out.push_back(std::move(L));
      }
    }
    return Error::success();
  });
  if (E)
    return std::move(E);
  return std::move(Out);
}

} // namespace astra
