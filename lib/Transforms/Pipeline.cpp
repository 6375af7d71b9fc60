//===- Pipeline.cpp - Apply rewrites to a file ----------------------------===//
#include "astra/Transforms/Pipeline.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Transforms/Enumerate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

/// Checks that the kernel and loop the user named exist.
static Error checkSelection(ASTContext &Ctx, StringRef FileName,
                            const RewriteParams &P) {
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

static Expected<std::string> applyAndFormat(StringRef FileName, StringRef Code,
                                            const tooling::Replacements &Edits) {
  // Format only the lines the edits touched, in the file's own style when it
  // has a .clang-format, else LLVM's.
  Expected<format::FormatStyle> Style =
      format::getStyle("file", FileName, "LLVM", Code);
  if (!Style) {
    consumeError(Style.takeError());
    Style = format::getLLVMStyle();
  }
  Style->SortIncludes = {};
  Expected<tooling::Replacements> Formatted =
      format::formatReplacements(Code, Edits, *Style);
  if (!Formatted)
    return makeInternalError("formatting the rewritten code failed: " +
                             toString(Formatted.takeError()));
  Expected<std::string> Result =
      tooling::applyAllReplacements(Code, *Formatted);
  if (!Result)
    return makeInternalError("applying the edits failed: " +
                             toString(Result.takeError()));
  return *Result;
}

namespace {
/// A byte range [Begin, End) of whole lines of the main file.
struct Region {
  unsigned Begin, End;
};
} // namespace

/// The main file's top-level declarations as whole-line byte ranges, sorted
/// and merged where they share a line.
static std::vector<Region> getTopLevelRegions(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  std::vector<Region> Regions;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    if (D->isImplicit())
      continue;
    CharSourceRange R = SM.getExpansionRange(D->getSourceRange());
    SourceLocation B = R.getBegin(), E = R.getEnd();
    if (B.isInvalid() || E.isInvalid() || !SM.isWrittenInMainFile(B) ||
        !SM.isWrittenInMainFile(E))
      continue;
    unsigned Begin = SM.getFileOffset(B);
    unsigned End = SM.getFileOffset(E);
    if (R.isTokenRange())
      End += Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
    if (End < Begin || End > Buf.size())
      continue;
    size_t LineStart = Buf.rfind('\n', Begin);
    Begin = LineStart == StringRef::npos ? 0 : unsigned(LineStart + 1);
    size_t LineEnd = Buf.find('\n', End);
    End = LineEnd == StringRef::npos ? unsigned(Buf.size())
                                     : unsigned(LineEnd + 1);
    Regions.push_back({Begin, End});
  }
  llvm::sort(Regions,
             [](const Region &A, const Region &B) { return A.Begin < B.Begin; });
  std::vector<Region> Merged;
  for (const Region &R : Regions) {
    if (!Merged.empty() && R.Begin < Merged.back().End)
      Merged.back().End = std::max(Merged.back().End, R.End);
    else
      Merged.push_back(R);
  }
  return Merged;
}

/// applyAndFormat, one top-level declaration at a time: clang-format's
/// affected-range check compares every line with every edited range, so one
/// call over a file of thousands of edited kernels takes time quadratic in
/// the file (docs/benchmarks.md, "Rewrite time on a large file"). A
/// declaration's lines are formatted as they would be in the whole file
/// (formatting starts each top-level declaration at column 0). When an edit
/// lies outside every declaration, the whole file is formatted at once.
static Expected<std::string>
applyAndFormatByRegion(StringRef FileName, StringRef Code,
                       const tooling::Replacements &Edits,
                       ArrayRef<Region> Regions) {
  std::vector<std::pair<const Region *, tooling::Replacements>> Groups;
  const Region *R = Regions.begin();
  for (const tooling::Replacement &Rep : Edits) {
    unsigned Off = Rep.getOffset(), End = Off + Rep.getLength();
    while (R != Regions.end() && R->End <= Off)
      ++R;
    if (R == Regions.end() || Off < R->Begin || End > R->End)
      return applyAndFormat(FileName, Code, Edits);
    if (Groups.empty() || Groups.back().first != R)
      Groups.push_back({R, tooling::Replacements()});
    if (Error E = Groups.back().second.add(tooling::Replacement(
            FileName, Off - R->Begin, Rep.getLength(),
            Rep.getReplacementText())))
      return makeInternalError("regrouping the edits failed: " +
                               toString(std::move(E)));
  }
  std::string Out;
  Out.reserve(Code.size());
  unsigned Cur = 0;
  for (auto &[Reg, Local] : Groups) {
    Out += Code.slice(Cur, Reg->Begin);
    Expected<std::string> Part =
        applyAndFormat(FileName, Code.slice(Reg->Begin, Reg->End), Local);
    if (!Part)
      return Part.takeError();
    Out += *Part;
    Cur = Reg->End;
  }
  Out += Code.substr(Cur);
  return Out;
}

Expected<ApplyResult> applyRewrite(const CompileSetup &Setup,
                                   StringRef FileName, StringRef Code,
                                   const RewriteParams &P) {
  Rewrite *R = findRewrite(P.Name);
  if (!R) {
    std::vector<std::string> Names;
    for (const auto &X : getRewrites())
      Names.push_back(X->getName().str());
    return makeInputError("unknown rewrite '" + P.Name + "'; known: " +
                          join(Names, ", "));
  }
  ApplyResult Result;
  tooling::Replacements Edits;
  std::vector<Region> Regions;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) -> Error {
    if (Error E = checkSelection(Ctx, FileName, P))
      return E;
    RewriteContext RC(Ctx, FileName);
    Expected<std::vector<RewriteSite>> Sites = R->edit(RC, P);
    if (!Sites)
      return Sites.takeError();
    Result.Sites = std::move(*Sites);
    Edits = RC.getEdits();
    if (!Edits.empty())
      Regions = getTopLevelRegions(Ctx);
    return Error::success();
  });
  if (E)
    return std::move(E);

  if (Edits.empty()) {
    // Say where and why, Clang-style, one line per refused site.
    std::string Msg;
    raw_string_ostream OS(Msg);
    OS << "rewrite '" << P.Name << "' does not apply";
    if (!P.Loop.empty())
      OS << " to loop " << P.Loop;
    else if (!P.Kernel.empty())
      OS << " to kernel " << P.Kernel;
    unsigned Shown = 0;
    for (const RewriteSite &S : Result.Sites) {
      if (!S.Selected)
        continue;
      OS << "\n";
      printDiag(OS, S.Loc, "note", S.Detail);
      Msg.pop_back(); // printDiag ends with a newline
      ++Shown;
    }
    if (!Shown)
      OS << ": no candidate site found";
    return makeInputError(DiagLoc{FileName.str()}, Msg);
  }
  Expected<std::string> NewCode =
      applyAndFormatByRegion(FileName, Code, Edits, Regions);
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
        RewriteContext RC(Ctx, FileName);
        Expected<std::vector<RewriteSite>> Sites = R->analyze(RC, L.Params);
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
