//===- Indent.cpp - Generated code in the file's own layout ---------------===//
#include "Indent.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"
#include <map>

using namespace llvm;

namespace astra {

static StringRef leadingSpace(StringRef Line) {
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; });
}

/// The code of \p Line without a trailing `//` comment, trimmed.
static StringRef codeOf(StringRef Line) {
  size_t C = Line.find("//");
  return (C == StringRef::npos ? Line : Line.take_front(C)).trim();
}

/// Whether \p Code starts an `if`, `for`, `while` or `else` statement.
static bool startsControl(StringRef Code) {
  StringRef C = Code;
  C.consume_front("}");
  C = C.ltrim();
  bool Else = C.consume_front("else");
  if (Else && C.empty())
    return true;
  C = C.ltrim();
  for (StringRef K : {"if", "for", "while"})
    if (C.consume_front(K) &&
        (C.empty() || C.front() == ' ' || C.front() == '('))
      return true;
  return false;
}

/// Whether \p Code is a whole control header without its body: `if (c)`,
/// `} else`, `for (...)`.
static bool isControlHeader(StringRef Code) {
  StringRef C = Code;
  C.consume_front("}");
  C = C.ltrim();
  return startsControl(Code) && (C == "else" || C.ends_with(")"));
}

IndentStyle detectIndentStyle(StringRef Code) {
  IndentStyle Style;
  std::map<unsigned, unsigned> Steps;
  unsigned Tabs = 0, Spaces = 0, OwnLine = 0, SameLine = 0;
  unsigned PragmaAt0 = 0, PragmaIndented = 0;
  size_t PrevWidth = 0;
  bool HavePrev = false;
  StringRef PrevTrim;
  while (!Code.empty()) {
    auto [Line, Rest] = Code.split('\n');
    Code = Rest;
    StringRef Trim = Line.trim();
    if (!Trim.starts_with("//")) // long comments are not the code's width
      Style.ColumnLimit = std::max<unsigned>(Style.ColumnLimit, Line.size());
    if (Trim.starts_with("#pragma"))
      ++(Line.starts_with("#") ? PragmaAt0 : PragmaIndented);
    if (Trim.empty() || Trim.starts_with("#") || Trim.starts_with("//") ||
        Trim.starts_with("*") || Trim.starts_with("/*"))
      continue;
    StringRef WS = leadingSpace(Line);
    if (!WS.empty())
      ++(WS.front() == '\t' ? Tabs : Spaces);
    size_t Width = WS.count(' ') + 8 * WS.count('\t');
    // Control statements only: function bodies often differ.
    if (Trim == "{" && HavePrev && isControlHeader(codeOf(PrevTrim)))
      ++OwnLine;
    else if (Trim.ends_with("{") &&
             isControlHeader(codeOf(Trim).drop_back(1).rtrim()))
      ++SameLine;
    if (HavePrev && Width > PrevWidth && WS.count('\t') == 0 &&
        PrevTrim.ends_with("{"))
      ++Steps[Width - PrevWidth];
    PrevWidth = Width;
    PrevTrim = Trim;
    HavePrev = true;
  }
  if (Tabs > Spaces) {
    Style.Unit = "\t";
  } else {
    unsigned Best = 2, BestCount = 0;
    for (auto [Step, Count] : Steps)
      if (Step >= 2 && Step <= 8 && Count > BestCount) {
        Best = Step;
        BestCount = Count;
      }
    Style.Unit = std::string(Best, ' ');
  }
  Style.BraceOnOwnLine = OwnLine > SameLine;
  Style.PragmaAtColumnZero = PragmaAt0 > PragmaIndented;
  return Style;
}

namespace {
/// Scans one line for braces and parentheses outside literals and comments.
struct LineScan {
  unsigned LeadingCloses = 0; ///< `}` before anything else on the line
  SmallVector<char, 8> Braces; ///< the other `{` and `}`, in order
  int ParenDelta = 0;
  bool EndsInComment = false;
};
} // namespace

static LineScan scanLine(StringRef Line, bool &InBlockComment) {
  LineScan S;
  bool Leading = true;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (InBlockComment) {
      if (C == '*' && I + 1 < Line.size() && Line[I + 1] == '/') {
        InBlockComment = false;
        ++I;
      }
      continue;
    }
    if (C == '/' && I + 1 < Line.size() && Line[I + 1] == '/') {
      S.EndsInComment = true;
      break;
    }
    if (C == '/' && I + 1 < Line.size() && Line[I + 1] == '*') {
      InBlockComment = true;
      ++I;
      continue;
    }
    if (C == '"' || C == '\'') {
      for (++I; I < Line.size() && Line[I] != C; ++I)
        if (Line[I] == '\\')
          ++I;
      Leading = false;
      continue;
    }
    if (C == ' ' || C == '\t')
      continue;
    if (C == '}' && Leading) {
      ++S.LeadingCloses;
      continue;
    }
    Leading = false;
    if (C == '{' || C == '}')
      S.Braces.push_back(C);
    else if (C == '(' || C == '[')
      ++S.ParenDelta;
    else if (C == ')' || C == ']')
      --S.ParenDelta;
  }
  return S;
}

/// Splits `if (c) {` into `if (c)` and `{`, `} else {` into three lines.
static void splitBraces(StringRef Line, SmallVectorImpl<std::string> &Out) {
  StringRef Code = codeOf(Line);
  StringRef Head = Code.drop_back(1).rtrim();
  if (Code.size() < 2 || !Code.ends_with("{") || codeOf(Line) != Line.trim() ||
      !(isControlHeader(Head) || Head == "} else" || Head == "else")) {
    Out.push_back(Line.str());
    return;
  }
  std::string WS = leadingSpace(Line).str();
  if (Head.starts_with("}")) {
    Out.push_back(WS + "}");
    Head = Head.drop_front(1).ltrim();
  }
  Out.push_back(WS + Head.str());
  Out.push_back(WS + "{");
}

/// Breaks \p Line (laid out, longer than the limit) greedily after the
/// `;`, `&&` and `||` inside the parentheses of its `for`/`if`/`while`
/// header, continuing under the first character after the `(`.
static std::string wrapHeader(const std::string &Line, unsigned Limit) {
  size_t Open = Line.find('(');
  StringRef Code = StringRef(Line).ltrim();
  if (Open == std::string::npos || !startsControl(Code))
    return Line;
  // Split points: just after "; ", "&& ", "|| " at parenthesis depth 1.
  std::vector<size_t> Cuts;
  int Depth = 0;
  for (size_t I = Open; I < Line.size(); ++I) {
    char C = Line[I];
    if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (Depth == 1 && I + 1 < Line.size() && Line[I + 1] == ' ' &&
             (C == ';' || ((C == '&' || C == '|') && Line[I - 1] == C)))
      Cuts.push_back(I + 1);
  }
  std::string Out, Pad(Open + 1, ' ');
  for (size_t I = 0; I < Open + 1; ++I)
    if (Line[I] == '\t')
      Pad[I] = '\t';
  size_t Start = 0, Col = 0, LastFit = std::string::npos;
  for (size_t K = 0; K <= Cuts.size(); ++K) {
    size_t End = K < Cuts.size() ? Cuts[K] : Line.size();
    size_t Width = Col + (End - Start);
    if (Width > Limit && LastFit != std::string::npos) {
      Out += StringRef(Line).slice(Start, LastFit).rtrim().str() + "\n" + Pad;
      Col = Pad.size();
      Start = LastFit + 1; // skip the space after the cut
      LastFit = std::string::npos;
      --K;
      continue;
    }
    LastFit = End;
  }
  Out += Line.substr(Start);
  return Out;
}

std::string layoutBlock(StringRef Text, StringRef BaseIndent,
                        const IndentStyle &Style) {
  SmallVector<std::string, 32> Owned;
  SmallVector<StringRef, 32> Split;
  Text.split(Split, '\n');
  for (StringRef L : Split) {
    if (Style.BraceOnOwnLine)
      splitBraces(L, Owned);
    else
      Owned.push_back(L.str());
  }
  // A block does not end in a blank line (a copied body's last line break
  // and the generated `}` after it).
  SmallVector<StringRef, 32> Lines;
  for (size_t I = 0; I < Owned.size(); ++I)
    if (I == 0 || I + 1 == Owned.size() || !StringRef(Owned[I]).trim().empty() ||
        !StringRef(Owned[I + 1]).trim().starts_with("}"))
      Lines.push_back(Owned[I]);
  std::string Out;
  auto Indent = [&](unsigned Level) {
    std::string S = BaseIndent.str();
    for (unsigned I = 0; I < Level; ++I)
      S += Style.Unit;
    return S;
  };
  // Levels of the open blocks; the current level is the innermost.
  SmallVector<unsigned, 8> Blocks;
  auto Top = [&] { return Blocks.empty() ? 0u : Blocks.back(); };
  unsigned Pending = 0; // single statements under headers, not yet ended
  int Parens = 0;
  bool Incomplete = false, InBlockComment = false;
  std::string StmtIndent;  // the new indentation of the current statement
  StringRef StmtOrigSpace; // its indentation in Text
  std::string StmtHead;    // the code of its first line
  for (size_t N = 0; N < Lines.size(); ++N) {
    StringRef Line = Lines[N];
    bool WasInComment = InBlockComment;
    LineScan S = scanLine(Line, InBlockComment);
    StringRef Trim = Line.trim();
    std::string NewLine;
    bool Continues = N > 0 && (Parens > 0 || Incomplete);
    if (!Continues)
      StmtHead = codeOf(Trim).str();
    if (N == 0) {
      NewLine = Line.str();
      StmtIndent = BaseIndent.str();
      StmtOrigSpace = leadingSpace(Line);
    } else if (Trim.empty()) {
      NewLine = "";
    } else if (WasInComment ||
               (Trim.starts_with("#") && !Trim.starts_with("#pragma"))) {
      NewLine = Line.str(); // inside a block comment, or a directive
    } else if (Parens > 0 || Incomplete) {
      // A continuation: keep an alignment the text had, else two levels.
      StringRef WS = leadingSpace(Line);
      std::string Extra = Style.Unit + Style.Unit;
      if (WS.size() > StmtOrigSpace.size() && WS.starts_with(StmtOrigSpace))
        Extra = WS.drop_front(StmtOrigSpace.size()).str();
      NewLine = StmtIndent + Extra + Trim.str();
    } else {
      for (unsigned I = 0; I < S.LeadingCloses && !Blocks.empty(); ++I)
        Blocks.pop_back();
      unsigned Level = Top() + Pending;
      if (Pending && Trim.starts_with("{") && S.LeadingCloses == 0)
        --Level; // a brace on its own line under a header
      StmtIndent = Indent(Level);
      StmtOrigSpace = leadingSpace(Line);
      NewLine = (Trim.starts_with("#pragma") && Style.PragmaAtColumnZero
                     ? ""
                     : StmtIndent) +
                Trim.str();
    }
    if (N == 0)
      for (unsigned I = 0; I < S.LeadingCloses && !Blocks.empty(); ++I)
        Blocks.pop_back();
    // The level of this line, for the blocks it opens.
    unsigned LineLevel = Top() + Pending;
    if (Pending && Trim.starts_with("{"))
      --LineLevel;
    if (!(Parens > 0 || Incomplete) || N == 0)
      for (char B : S.Braces) {
        if (B == '{') {
          Blocks.push_back(LineLevel + 1);
          Pending = 0;
        } else if (!Blocks.empty()) {
          Blocks.pop_back();
        }
      }
    else
      for (char B : S.Braces)
        if (B == '{')
          Blocks.push_back(Top() + 1);
        else if (!Blocks.empty())
          Blocks.pop_back();
    Parens = std::max(0, Parens + S.ParenDelta);
    StringRef Code = codeOf(Trim);
    if (!Trim.empty() && !WasInComment && !Trim.starts_with("#") &&
        !Trim.starts_with("//") && !Code.empty()) {
      bool Header = Continues
                        ? Code.ends_with(")") && startsControl(StmtHead)
                        : isControlHeader(Code);
      if (Parens == 0 && Header) {
        ++Pending;
        Incomplete = false;
      } else {
        bool Ends = Code.ends_with(";") || Code.ends_with("{") ||
                    Code.ends_with("}") || Code.ends_with(":");
        Incomplete = Parens == 0 && !Ends;
        if (Parens == 0 && (Code.ends_with(";") || Code.ends_with("}")))
          Pending = 0;
      }
    }
    if (N)
      Out += "\n";
    if (N && NewLine.size() > Style.ColumnLimit) {
      NewLine = wrapHeader(NewLine, Style.ColumnLimit);
    } else if (N == 0 && !leadingSpace(NewLine).empty()) {
      NewLine = wrapHeader(NewLine, Style.ColumnLimit);
    } else if (N == 0) {
      // The edit starts after the line's indentation.
      std::string Full = BaseIndent.str() + NewLine;
      if (Full.size() > Style.ColumnLimit)
        NewLine = wrapHeader(Full, Style.ColumnLimit).substr(BaseIndent.size());
    }
    Out += NewLine;
  }
  return Out;
}

unsigned getLineStart(StringRef Buf, unsigned Offset) {
  size_t LineStart = Buf.rfind('\n', std::min<size_t>(Offset, Buf.size()));
  return LineStart == StringRef::npos ? 0 : unsigned(LineStart + 1);
}

std::string getLineIndent(StringRef Buf, unsigned Offset) {
  return leadingSpace(Buf.drop_front(getLineStart(Buf, Offset))).str();
}

const IndentStyle &RewriteContext::getIndentStyle() const {
  if (!Style) {
    const clang::SourceManager &SM = getSourceManager();
    Style = std::make_shared<IndentStyle>(
        detectIndentStyle(SM.getBufferData(SM.getMainFileID())));
  }
  return *Style;
}

std::string layoutBlockAt(const RewriteContext &RC, unsigned Offset,
                          StringRef Text) {
  const clang::SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  const IndentStyle &Cached = RC.getIndentStyle();
  Offset = std::min<size_t>(Offset, Buf.size());
  size_t LineStart = Buf.rfind('\n', Offset);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  return layoutBlock(Text, leadingSpace(Buf.drop_front(LineStart)), Cached);
}

} // namespace astra
