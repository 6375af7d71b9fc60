//===- RewriteContext.cpp - Edits and parameters of a rewrite -------------===//
#include "astra/Transforms/Rewrite.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace llvm;
using namespace clang;

namespace astra {

Expected<RewriteParams> RewriteParams::parse(StringRef Text) {
  RewriteParams P;
  auto [Name, Rest] = Text.split(':');
  P.Name = Name.trim().str();
  if (P.Name.empty())
    return makeInputError("--apply: missing rewrite name in '" + Text + "'");
  if (Rest.empty())
    return P;
  SmallVector<StringRef, 4> Parts;
  Rest.split(Parts, ',');
  for (StringRef Part : Parts) {
    auto [Key, Value] = Part.split('=');
    Key = Key.trim();
    Value = Value.trim();
    if (Key.empty() || !Part.contains('=') || Value.empty())
      return makeInputError("--apply=" + Text + ": expected key=value, got '" +
                            Part + "'");
    if (Key == "kernel")
      P.Kernel = Value.str();
    else if (Key == "loop")
      P.Loop = Value.str();
    else if (Key == "function")
      P.Function = Value.str();
    else if (!P.Values.try_emplace(Key, Value.str()).second)
      return makeInputError("--apply=" + Text + ": parameter '" + Key +
                            "' given twice");
  }
  // A function is one place: the kernels that call it do not narrow it.
  if (!P.Function.empty() && (!P.Kernel.empty() || !P.Loop.empty()))
    return makeInputError("--apply=" + Text +
                          ": function= selects a whole function and goes "
                          "without kernel= and loop=");
  // A loop id names its kernel.
  if (!P.Loop.empty() && P.Kernel.empty())
    P.Kernel = StringRef(P.Loop).rsplit(':').first.str();
  return P;
}

Expected<int64_t> RewriteParams::getInt(StringRef Key, int64_t Default) const {
  auto It = Values.find(Key);
  if (It == Values.end())
    return Default;
  int64_t V;
  if (StringRef(It->second).getAsInteger(10, V))
    return makeInputError("rewrite '" + Name + "': parameter '" + Key +
                          "' expects an integer, got '" + It->second + "'");
  return V;
}

std::string RewriteParams::getString(StringRef Key, StringRef Default) const {
  auto It = Values.find(Key);
  return It == Values.end() ? Default.str() : It->second;
}

StringRef RewriteContext::getText(SourceRange R) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R),
                              getSourceManager(), Ctx.getLangOpts());
}

DiagLoc RewriteContext::getDiagLoc(SourceLocation Loc) const {
  const SourceManager &SM = getSourceManager();
  SourceLocation L = SM.getFileLoc(Loc);
  // A site in a project header (a device function defined there) names it.
  std::string File =
      L.isValid() && !SM.isWrittenInMainFile(L) ? SM.getFilename(L).str()
                                                : FileName;
  return DiagLoc{File, SM.getSpellingLineNumber(L),
                 SM.getSpellingColumnNumber(L)};
}

std::string RewriteContext::getIndent(SourceLocation Loc) const {
  const SourceManager &SM = getSourceManager();
  SourceLocation L = SM.getFileLoc(Loc);
  auto [FID, Offset] = SM.getDecomposedLoc(L);
  StringRef Buf = SM.getBufferData(FID);
  size_t LineStart = Buf.rfind('\n', Offset);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  size_t End = LineStart;
  while (End < Buf.size() && (Buf[End] == ' ' || Buf[End] == '\t'))
    ++End;
  return Buf.slice(LineStart, End).str();
}

Error RewriteContext::replace(CharSourceRange R, StringRef Text) {
  const SourceManager &SM = getSourceManager();
  CharSourceRange FileRange =
      Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (FileRange.isInvalid() ||
      !SM.isWrittenInMainFile(FileRange.getBegin()))
    return makeInputError(getDiagLoc(R.getBegin()),
                          "cannot rewrite code that does not lie in the input "
                          "file (macro argument or header)");
  tooling::Replacement Rep(SM, FileRange, Text, Ctx.getLangOpts());
  if (Error E = Edits.add(Rep)) {
    consumeError(std::move(E));
    return makeInputError(getDiagLoc(R.getBegin()),
                          "overlapping edits at the same place");
  }
  return Error::success();
}

Error RewriteContext::insertBefore(SourceLocation Loc, StringRef Text) {
  return replace(CharSourceRange::getCharRange(Loc, Loc), Text);
}

} // namespace astra
