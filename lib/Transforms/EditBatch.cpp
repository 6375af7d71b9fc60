//===- EditBatch.cpp - Nested source edits committed as one batch ---------===//
#include "EditBatch.h"
#include "Indent.h"
#include "SiteUtil.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include <algorithm>

using namespace llvm;
using namespace clang;

namespace astra {

CharSourceRange EditBatch::getFileRange(SourceRange R) const {
  return getEditableRange(RC, R);
}

unsigned EditBatch::beginOf(SourceRange R) const {
  CharSourceRange FR = getFileRange(R);
  return FR.isValid() ? RC.getSourceManager().getFileOffset(FR.getBegin())
                      : ~0u;
}

unsigned EditBatch::endOf(SourceRange R) const {
  CharSourceRange FR = getFileRange(R);
  return FR.isValid() ? RC.getSourceManager().getFileOffset(FR.getEnd()) : ~0u;
}

void EditBatch::replace(unsigned Begin, unsigned End, StringRef Text) {
  if (Begin == ~0u || End == ~0u || End < Begin) {
    Invalid = true;
    return;
  }
  Edits.push_back(
      {Begin, End, Text.str(), static_cast<unsigned>(Edits.size())});
}

void EditBatch::replaceBlock(unsigned Begin, unsigned End, StringRef Text) {
  if (Begin == ~0u) {
    Invalid = true;
    return;
  }
  replace(Begin, End, layoutBlockAt(RC, Begin, Text));
}

Error EditBatch::commit() {
  if (Invalid)
    return makeInternalError("a rewrite tried to edit code inside a macro "
                             "expansion or outside the input file");
  llvm::stable_sort(Edits, [](const Edit &A, const Edit &B) {
    bool AIns = A.Begin == A.End, BIns = B.Begin == B.End;
    if (A.Begin != B.Begin)
      return A.Begin < B.Begin;
    if (AIns != BIns)
      return AIns;
    return A.Seq < B.Seq;
  });
  const SourceManager &SM = RC.getSourceManager();
  FileID Main = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(Main);
  SourceLocation Start = SM.getLocForStartOfFile(Main);
  for (size_t I = 0; I < Edits.size();) {
    unsigned GroupBegin = Edits[I].Begin, GroupEnd = Edits[I].End;
    std::string Text;
    unsigned Cur = GroupBegin;
    size_t J = I;
    for (; J < Edits.size() && (J == I || Edits[J].Begin <= GroupEnd); ++J) {
      if (Edits[J].Begin < Cur)
        return makeInternalError("a rewrite made overlapping edits");
      Text += Buf.slice(Cur, Edits[J].Begin);
      Text += Edits[J].Text;
      Cur = std::max(Cur, Edits[J].End);
      GroupEnd = std::max(GroupEnd, Edits[J].End);
    }
    if (Error E = RC.replace(
            CharSourceRange::getCharRange(Start.getLocWithOffset(GroupBegin),
                                          Start.getLocWithOffset(GroupEnd)),
            Text))
      return E;
    I = J;
  }
  Edits.clear();
  return Error::success();
}

bool insertLineBefore(const RewriteContext &RC, EditBatch &Edits, const Stmt *S,
                      StringRef Text) {
  // A loop with `#pragma unroll` is an AttributedStmt that starts at the
  // pragma's argument: insert before the pragma line.
  SourceLocation Loc = S->getBeginLoc();
  unsigned Off = Edits.beginOf(SourceRange(Loc, Loc));
  if (Off == ~0u)
    return false;
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  unsigned LineStart = getLineStart(Buf, Off);
  StringRef Before = Buf.slice(LineStart, Off);
  StringRef Indent =
      Before.take_while([](char C) { return C == ' ' || C == '\t'; });
  bool IsPragma =
      isa<AttributedStmt>(S) && Before.trim().starts_with("#pragma");
  if (!Before.trim().empty() && !IsPragma)
    return false;
  if (Text.starts_with("#pragma") && RC.getIndentStyle().PragmaAtColumnZero)
    Indent = "";
  Edits.insert(LineStart,
               layoutBlockAt(RC, LineStart, (Indent + Text).str()) + "\n");
  return true;
}

void insertAtBodyStart(const RewriteContext &RC, EditBatch &Edits,
                       const CompoundStmt *Body, StringRef Text) {
  if (!Body->body_empty() &&
      insertLineBefore(RC, Edits, Body->body_front(), Text))
    return;
  Edits.insert(Edits.beginOf(Body->getLBracLoc()) + 1, ("\n" + Text).str());
}
} // namespace astra
