//===- ModelSource.cpp - Source text and locations for the model ----------===//
#include "ModelSource.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace astra {

PrintingPolicy ModelSource::getPolicy() const {
  PrintingPolicy P = Ctx.getPrintingPolicy();
  P.SuppressTagKeyword = true;
  P.SuppressScope = false;
  P.Bool = true;
  return P;
}

static std::string collapseSpaces(llvm::StringRef S) {
  std::string Out;
  bool Space = false;
  for (char C : S.trim()) {
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\\') {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

std::string ModelSource::getText(SourceRange R) const {
  if (R.isInvalid())
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return "";
  bool Invalid = false;
  llvm::StringRef Text =
      Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  return Invalid ? "" : collapseSpaces(Text);
}

std::string ModelSource::getText(const Expr *E) const {
  if (!E)
    return "";
  std::string S = getText(E->getSourceRange());
  if (!S.empty())
    return S;
  llvm::raw_string_ostream OS(S);
  E->printPretty(OS, nullptr, getPolicy());
  return collapseSpaces(S);
}

std::string ModelSource::print(QualType T) const {
  return T.getAsString(getPolicy());
}

DiagLoc ModelSource::getLoc(SourceLocation Loc) const {
  DiagLoc D;
  if (Loc.isInvalid())
    return D;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation E = SM.getFileLoc(Loc);
  PresumedLoc P = SM.getPresumedLoc(E);
  if (P.isInvalid())
    return D;
  D.File = SM.isWrittenInMainFile(E) ? FileName : P.getFilename();
  D.Line = P.getLine();
  D.Col = P.getColumn();
  return D;
}

} // namespace astra
