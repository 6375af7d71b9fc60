//===- NvccRepairs.cpp - Repair headers nvcc accepts and Clang rejects ----===//
#include "astra/Frontend/NvccRepairs.h"
#include "astra/Support/Error.h"
#include "astra/Support/FileOverlay.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
std::atomic<bool> RepairsEnabled{true};

/// The absolute path without `.`/`..` of the file \p FID, as the overlay
/// keys it; empty for a buffer that is not a file.
std::string getFilePath(const SourceManager &SM, FileID FID) {
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return "";
  SmallString<256> Path(FE->getName());
  sys::fs::make_absolute(Path);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return Path.str().str();
}

/// Skips the template argument list that starts at Toks[I] (`<`); returns the
/// index after its `>`, or std::nullopt when it does not close.
std::optional<size_t> skipTemplateArgs(ArrayRef<Token> Toks, size_t I) {
  int Angles = 0, Nested = 0;
  for (; I < Toks.size(); ++I) {
    switch (Toks[I].getKind()) {
    case tok::l_paren:
    case tok::l_square:
    case tok::l_brace:
      ++Nested;
      break;
    case tok::r_paren:
    case tok::r_square:
    case tok::r_brace:
      if (--Nested < 0)
        return std::nullopt;
      break;
    case tok::semi:
      return std::nullopt;
    case tok::less:
      if (!Nested)
        ++Angles;
      break;
    case tok::greater:
    case tok::greatergreater:
      if (Nested)
        break;
      Angles -= Toks[I].is(tok::greater) ? 1 : 2;
      if (Angles < 0)
        return std::nullopt;
      if (Angles == 0)
        return I + 1;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

bool isRawIdent(const Token &T, StringRef Name = "") {
  return T.is(tok::raw_identifier) &&
         (Name.empty() || T.getRawIdentifier() == Name);
}

/// The raw tokens from \p Loc (a file location) to the next `;` (included)
/// or the end of the file, at most \p Max; \p Before receives the text of
/// the file before \p Loc.
std::vector<Token> lexFrom(const SourceManager &SM, const LangOptions &LO,
                           SourceLocation Loc, size_t Max,
                           StringRef *Before = nullptr) {
  auto [FID, Off] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || Off >= Buf.size())
    return {};
  if (Before)
    *Before = Buf.take_front(Off);
  Lexer L(SM.getLocForStartOfFile(FID), LO, Buf.begin(), Buf.begin() + Off,
          Buf.end());
  std::vector<Token> Toks;
  Token T;
  while (Toks.size() < Max && !L.LexFromRawLexer(T) && !T.is(tok::semi))
    Toks.push_back(T);
  if (Toks.size() < Max)
    Toks.push_back(T);
  return Toks;
}

/// At \p Loc starts `A<...>::name<...>(...)` (any number of qualifiers) with
/// no `template` before `name`: returns the token `name`, before which the
/// keyword goes.
std::optional<Token> findMissingTemplateKeyword(const SourceManager &SM,
                                                const LangOptions &LO,
                                                SourceLocation Loc) {
  std::vector<Token> Toks = lexFrom(SM, LO, Loc, 256);
  if (Toks.empty())
    return std::nullopt;
  size_t I = Toks[0].is(tok::coloncolon) ? 1 : 0;
  bool Qualified = false;
  while (I < Toks.size()) {
    bool Keyword = isRawIdent(Toks[I], "template");
    if (Keyword)
      ++I;
    if (I >= Toks.size() || !isRawIdent(Toks[I]))
      return std::nullopt;
    size_t Name = I++;
    if (I < Toks.size() && Toks[I].is(tok::coloncolon)) {
      ++I;
      Qualified = true;
      continue;
    }
    if (I >= Toks.size() || !Toks[I].is(tok::less))
      return std::nullopt;
    std::optional<size_t> After = skipTemplateArgs(Toks, I);
    if (!After || *After >= Toks.size())
      return std::nullopt;
    if (Toks[*After].is(tok::coloncolon)) {
      I = *After + 1;
      Qualified = true;
      continue;
    }
    if (!Qualified || Keyword)
      return std::nullopt;
    return Toks[Name];
  }
  return std::nullopt;
}
/// At \p Loc is `name<` after `.`, `->` or `::` with no `template` between:
/// returns the token `name`.
std::optional<Token> findMissingTemplateBeforeMember(const SourceManager &SM,
                                                     const LangOptions &LO,
                                                     SourceLocation Loc) {
  StringRef Before;
  std::vector<Token> Toks = lexFrom(SM, LO, Loc, 2, &Before);
  if (Toks.size() < 2 || !isRawIdent(Toks[0]) ||
      isRawIdent(Toks[0], "template") || !Toks[1].is(tok::less))
    return std::nullopt;
  Before = Before.rtrim();
  if (!Before.ends_with(".") && !Before.ends_with("->") &&
      !Before.ends_with("::"))
    return std::nullopt;
  return Toks[0];
}

/// The note of a `template` inserted before \p Name.
std::string describeTemplateInsertion(const Token &Name, StringRef What) {
  return ("inserted 'template' before '" + Name.getRawIdentifier() +
          "': " + What + " called without the 'template' keyword")
      .str();
}
} // namespace

void RepairCollector::BeginSourceFile(const LangOptions &LO,
                                      const Preprocessor *PP) {
  LangOpts = LO;
  DiagnosticChain::BeginSourceFile(LO, PP);
}

void RepairCollector::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                       const Diagnostic &Info) {
  DiagnosticChain::HandleDiagnostic(Level, Info); // counts, prints
  if (Level < DiagnosticsEngine::Error || !Info.hasSourceManager() ||
      !RepairsEnabled)
    return;
  SourceLocation Loc = Info.getLocation();
  const SourceManager &SM = Info.getSourceManager();
  if (Loc.isInvalid() || !Loc.isFileID() || SM.isInMainFile(Loc))
    return;
  SmallString<128> Msg;
  Info.FormatDiagnostic(Msg);

  // A member template of a dependent type called without `template`: Clang
  // reads `T::f<N>(x)` as `(T::f < N) > (x)` and fails at instantiation
  // (the error is at the start of the qualified name); through an object of
  // dependent type, `v.f<N>(x)`, the error is at `f`.
  StringRef M = Msg;
  std::optional<Token> Name;
  std::string Why;
  if (M.starts_with("reference to overloaded function could not be resolved")) {
    Name = findMissingTemplateKeyword(SM, LangOpts, Loc);
    if (Name)
      Why = describeTemplateInsertion(*Name,
                                      "a member template of a dependent type");
  } else if (M.starts_with(
                 "reference to non-static member function must be called") ||
             M.starts_with(
                 "missing 'template' keyword prior to dependent template")) {
    Name = findMissingTemplateBeforeMember(SM, LangOpts, Loc);
    if (Name)
      Why = describeTemplateInsertion(
          *Name, "a member template of a dependent object or type");
  } else {
    proposeFixIts(Info, Msg);
    return;
  }
  if (!Name)
    return;
  auto [FID, Off] = SM.getDecomposedLoc(Name->getLocation());
  std::string Path = getFilePath(SM, FID);
  if (!Path.empty())
    Proposals.push_back({Path, Off, 0, "template ", Why});
}

void RepairCollector::proposeFixIts(const Diagnostic &Info, StringRef Msg) {
  // Typo corrections guess at what the author meant; nvcc compiled what the
  // author wrote, so a guess is no repair.
  if (Info.getFixItHints().empty() || Msg.contains("did you mean"))
    return;
  const SourceManager &SM = Info.getSourceManager();
  FileID DiagFile = SM.getFileID(Info.getLocation());
  std::vector<ProposedRepair> Edits;
  for (const FixItHint &H : Info.getFixItHints()) {
    if (H.InsertFromRange.isValid() || H.RemoveRange.isInvalid())
      return;
    SourceLocation B = H.RemoveRange.getBegin(), E = H.RemoveRange.getEnd();
    if (!B.isFileID() || !E.isFileID())
      return;
    if (H.RemoveRange.isTokenRange())
      E = Lexer::getLocForEndOfToken(E, 0, SM, LangOpts);
    auto [BF, BOff] = SM.getDecomposedLoc(B);
    auto [EF, EOff] = SM.getDecomposedLoc(E);
    if (BF != DiagFile || EF != DiagFile || EOff < BOff)
      return;
    std::string Path = getFilePath(SM, BF);
    if (Path.empty())
      return;
    StringRef Buf = SM.getBufferData(BF);
    StringRef Removed = Buf.slice(BOff, EOff);
    std::string Why = ("applied Clang's fix-it for '" + Msg + "': ").str();
    if (Removed.empty())
      Why += "inserted '" + H.CodeToInsert + "'";
    else if (H.CodeToInsert.empty())
      Why += ("removed '" + Removed + "'").str();
    else
      Why += ("replaced '" + Removed + "' by '" + H.CodeToInsert + "'").str();
    Edits.push_back({Path, BOff, EOff - BOff, H.CodeToInsert, Why});
  }
  Proposals.insert(Proposals.end(), Edits.begin(), Edits.end());
}

namespace {
/// A repair in the coordinates of the file on disk.
struct FileEdit {
  unsigned Offset = 0, Length = 0;
  std::string Text, Why;
  bool Reported = false;
};

struct RepairedFile {
  std::string Original;
  std::vector<FileEdit> Edits; ///< sorted by offset, not overlapping
};

struct RepairState {
  std::mutex Lock;
  std::map<std::string, RepairedFile> Files;
};

RepairState &getState() {
  static RepairState S;
  return S;
}

/// \p P in the coordinates of the file on disk; std::nullopt when it edits
/// text an earlier repair inserted.
std::optional<FileEdit> toOriginal(const RepairedFile &F,
                                   const ProposedRepair &P) {
  long Delta = 0;
  for (const FileEdit &E : F.Edits) {
    long Start = long(E.Offset) + Delta;
    if (long(P.Offset) < Start)
      break;
    if (long(P.Offset) < Start + long(E.Text.size()))
      return std::nullopt;
    Delta += long(E.Text.size()) - long(E.Length);
  }
  long Off = long(P.Offset) - Delta;
  if (Off < 0 || size_t(Off) + P.Length > F.Original.size())
    return std::nullopt;
  return FileEdit{unsigned(Off), P.Length, P.Text, P.Why};
}

/// Whether \p E may join \p F's edits: not there already, overlapping none.
bool fits(const RepairedFile &F, const FileEdit &E) {
  return none_of(F.Edits, [&](const FileEdit &X) {
    if (X.Offset == E.Offset && X.Length == E.Length && X.Text == E.Text)
      return true; // known
    unsigned XEnd = X.Offset + X.Length, EEnd = E.Offset + E.Length;
    if (X.Offset == E.Offset)
      return true; // two edits at one place: order unclear
    return E.Offset < XEnd && X.Offset < EEnd;
  });
}

/// Reads the file on disk the first time it is repaired.
RepairedFile *getFile(RepairState &S, const std::string &Path) {
  auto It = S.Files.find(Path);
  if (It != S.Files.end())
    return &It->second;
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return nullptr;
  RepairedFile &F = S.Files[Path];
  F.Original = (*Buf)->getBuffer().str();
  return &F;
}

std::string applyEdits(const RepairedFile &F) {
  std::string Out;
  unsigned Pos = 0;
  for (const FileEdit &E : F.Edits) {
    Out.append(F.Original, Pos, E.Offset - Pos);
    Out += E.Text;
    Pos = E.Offset + E.Length;
  }
  Out.append(F.Original, Pos, std::string::npos);
  return Out;
}

unsigned addRepairs(ArrayRef<ProposedRepair> Proposals, bool Adopt) {
  RepairState &S = getState();
  std::lock_guard<std::mutex> Guard(S.Lock);
  // All proposals of one compile are in the coordinates of the files it
  // read: map them all before any is added.
  std::vector<std::pair<std::string, FileEdit>> Mapped;
  for (const ProposedRepair &P : Proposals)
    if (RepairedFile *F = getFile(S, P.File))
      if (std::optional<FileEdit> E = toOriginal(*F, P))
        Mapped.emplace_back(P.File, std::move(*E));
  unsigned New = 0;
  std::set<std::string> Changed;
  std::map<std::string, RepairedFile> Trial; // what Adopt=false would add
  for (auto &[Path, E] : Mapped) {
    RepairedFile *FP = &S.Files[Path];
    if (!Adopt) {
      auto [It, First] = Trial.try_emplace(Path);
      if (First)
        It->second = *FP;
      FP = &It->second;
    }
    RepairedFile &F = *FP;
    if (!fits(F, E))
      continue;
    ++New;
    auto Pos = partition_point(
        F.Edits, [&](const FileEdit &X) { return X.Offset < E.Offset; });
    F.Edits.insert(Pos, std::move(E));
    Changed.insert(Path);
  }
  if (Adopt)
    for (const std::string &Path : Changed)
      setOverlayFile(Path, applyEdits(S.Files[Path]));
  return New;
}
} // namespace

void setNvccRepairsEnabled(bool Enabled) { RepairsEnabled = Enabled; }

unsigned countNewRepairs(ArrayRef<ProposedRepair> Proposals) {
  return addRepairs(Proposals, /*Adopt=*/false);
}

unsigned adoptRepairs(ArrayRef<ProposedRepair> Proposals) {
  return addRepairs(Proposals, /*Adopt=*/true);
}

void noteRepairs(const CompileSetup &Setup) {
  RepairState &S = getState();
  std::lock_guard<std::mutex> Guard(S.Lock);
  bool Quiet = is_contained(Setup.ExtraArgs, "-w");
  for (auto &[Path, F] : S.Files) {
    for (FileEdit &E : F.Edits) {
      if (E.Reported)
        continue;
      E.Reported = true;
      if (Quiet)
        continue;
      StringRef Before = StringRef(F.Original).take_front(E.Offset);
      unsigned Line = Before.count('\n') + 1;
      size_t LastNL = Before.rfind('\n');
      unsigned Col =
          E.Offset - (LastNL == StringRef::npos ? 0 : unsigned(LastNL) + 1) + 1;
      printDiag(errs(), DiagLoc{Path, Line, Col}, "note",
                "repaired for Clang: " + E.Why);
    }
  }
}

} // namespace astra
