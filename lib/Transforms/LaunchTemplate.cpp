//===- LaunchTemplate.cpp - A block size that is a template argument -----===//
//
// A kernel template whose block size is its template parameter
// (`template <int BLOCK> __global__ void __launch_bounds__(BLOCK) k(...)`,
// or launched as `k<256><<<g, 256>>>`) gets a new block size as a new
// instantiation: `launch:kernel=k,B=512,block=512,template-arg=0`. The
// harness runs the candidate as `k<512>` (the contract's `template-arg` and
// `template-value`, the latter from block= and checked against the launch:
// docs/harness.md), and the file is edited so that it holds that
// instantiation wherever it held the old one:
//
//  - each launch of the kernel in the file that writes the argument as an
//    integer literal gets the new value (`k<512><<<g, 512>>>`; the block
//    itself is the launch rewrite's usual edit); one that writes a constant
//    the launch rewrite carries follows that constant. Launches that write
//    different values (a launcher choosing an instantiation by size) are
//    refused: which one the spec means is not known here;
//  - each explicit instantiation definition (`template __global__ void
//    k<256>(...);`) is kept, and a copy with the new argument follows it,
//    unless the file already has that one. The old instantiation stays:
//    other callers may launch it. They are found on the file's tokens, not
//    at Clang's point of instantiation (the first use, which may be a
//    launch before them); one that the tokens do not show (a macro, a
//    header) is refused, as is one that writes the argument as a name.
//
// `__launch_bounds__(BLOCK)`, shared arrays and strides sized by BLOCK follow
// the argument. Refused: an argument written as another expression.
//
//===----------------------------------------------------------------------===//
#include "LaunchTemplate.h"
#include "SiteUtil.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::vector<WrittenInstantiation>
findWrittenInstantiations(const RewriteContext &RC, StringRef Name) {
  const SourceManager &SM = RC.getSourceManager();
  FileID FID = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), RC.getASTContext().getLangOpts(),
          Buf.begin(), Buf.begin(), Buf.end());
  std::vector<Token> Toks;
  Token T;
  bool InDirective = false;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    if (T.isAtStartOfLine())
      InDirective = T.is(tok::hash);
    if (!InDirective) // a #define's body is the macro's, not the file's
      Toks.push_back(T);
  }
  auto Off = [&](const Token &X) { return SM.getFileOffset(X.getLocation()); };
  auto Is = [](const Token &X, StringRef Id) {
    return X.is(tok::raw_identifier) && X.getRawIdentifier() == Id;
  };
  std::vector<WrittenInstantiation> Out;
  for (size_t I = 0; I + 1 < Toks.size(); ++I) {
    if (!Is(Toks[I], "template") || Toks[I + 1].is(tok::less))
      continue;
    WrittenInstantiation W;
    W.Begin = Off(Toks[I]);
    W.Extern = I > 0 && Is(Toks[I - 1], "extern");
    // The statement's end and the kernel's name in it.
    size_t J = I + 1, NameAt = 0;
    int Parens = 0;
    for (; J < Toks.size(); ++J) {
      if (Toks[J].isOneOf(tok::l_paren, tok::l_brace))
        ++Parens;
      else if (Toks[J].isOneOf(tok::r_paren, tok::r_brace))
        --Parens;
      else if (Toks[J].is(tok::semi) && Parens <= 0)
        break;
      else if (!NameAt && Parens == 0 && Is(Toks[J], Name) &&
               J + 1 < Toks.size() && Toks[J + 1].is(tok::less))
        NameAt = J;
    }
    if (J == Toks.size() || !NameAt)
      continue;
    W.End = Off(Toks[J]) + 1;
    W.Loc = Toks[NameAt].getLocation();
    // The arguments: commas at depth 1 of the <...> after the name.
    int Depth = 0;
    unsigned ArgBegin = 0;
    for (size_t A = NameAt + 1; A < J; ++A) {
      const Token &X = Toks[A];
      int Close = X.is(tok::greater) ? 1 : X.is(tok::greatergreater) ? 2 : 0;
      if (X.isOneOf(tok::less, tok::l_paren)) {
        if (Depth++ == 0) {
          ArgBegin = Off(Toks[A + 1]);
          continue;
        }
      } else if (X.is(tok::r_paren)) {
        --Depth;
      } else if (Close) {
        Depth -= Close;
        if (Depth <= 0) {
          W.Args.push_back({ArgBegin, Off(X)});
          break;
        }
      } else if (X.is(tok::comma) && Depth == 1) {
        W.Args.push_back({ArgBegin, Off(X)});
        ArgBegin = Off(Toks[A + 1]);
      }
    }
    Out.push_back(std::move(W));
    I = J;
  }
  return Out;
}

namespace {

/// \p Text without whitespace.
std::string squeezed(StringRef Text) {
  std::string S;
  for (char C : Text)
    if (!isSpace(C))
      S += C;
  return S;
}

} // namespace

Expected<TemplateBlockEdits>
planTemplateBlock(const RewriteContext &RC, const FunctionDecl *K,
                  ArrayRef<const CUDAKernelCallExpr *> Launches,
                  const BlockSizes &Sizes, int64_t TemplateArg, int64_t Block,
                  int64_t MinThreads, bool Reshapes) {
  TemplateBlockEdits R;
  const SourceManager &SM = RC.getSourceManager();
  std::string Name = K->getNameAsString();
  auto Fail = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(), Why);
  };
  std::string Arg = "template-arg=" + std::to_string(TemplateArg);
  if (!Sizes.TemplateIndex)
    return Fail(Arg +
                " names the template argument that is the block size, but "
                "the block size of " +
                Name +
                " is not shown to be one (neither __launch_bounds__(PARAM) "
                "nor a launch k<256><<<g, 256>>> in the file)");
  if (*Sizes.TemplateIndex != TemplateArg)
    return Fail(Arg + ": the block size is template argument " +
                Twine(*Sizes.TemplateIndex) + " of " + Name);
  if (!Block)
    return Fail(Arg + " needs block=<threads per block>, the value of the "
                      "new instantiation's argument");
  if (MinThreads)
    return Fail(Arg + " cannot go with min-threads: one instantiation runs "
                      "every size");
  if (Reshapes)
    return Fail(Arg + ": give the new block size as block= alone (no "
                      "division or fold of the block)");
  unsigned Index = unsigned(TemplateArg);
  // The launches: one value of the argument (a launcher that picks between
  // instantiations by size would lose the choice), then the argument as
  // written.
  std::optional<llvm::APSInt> Launched;
  for (const CUDAKernelCallExpr *Call : Launches) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    const TemplateArgumentList *Args =
        Callee ? Callee->getTemplateSpecializationArgs() : nullptr;
    if (!Args || Index >= Args->size() ||
        (*Args)[Index].getKind() != TemplateArgument::Integral)
      continue;
    llvm::APSInt V = (*Args)[Index].getAsIntegral();
    if (Launched && llvm::APSInt::compareValues(*Launched, V) != 0)
      return Fail("the file launches " + Name + " with template argument " +
                  Twine(Index) + " = " + toString(*Launched, 10) + " and " +
                  toString(V, 10) + " (at " +
                  getLineCol(RC, Call->getBeginLoc()) +
                  "): a choice between instantiations; change the one you "
                  "mean by hand");
    Launched = V;
  }
  for (const CUDAKernelCallExpr *Call : Launches) {
    std::string At = getLineCol(RC, Call->getBeginLoc());
    ArrayRef<TemplateArgumentLoc> Args = launchTemplateArgs(Call);
    if (Index >= Args.size())
      return Fail("the launch at " + At + " does not write template argument " +
                  Twine(Index) + " of " + Name +
                  ": a new instantiation cannot be named there");
    const TemplateArgumentLoc &Arg = Args[Index];
    const Expr *E = Arg.getArgument().getKind() == TemplateArgument::Expression
                        ? Arg.getArgument().getAsExpr()
                        : nullptr;
    const Expr *Bare = E ? E->IgnoreParenImpCasts() : nullptr;
    if (const auto *Use = dyn_cast_or_null<DeclRefExpr>(Bare)) {
      std::string Const = Use->getDecl()->getNameAsString();
      if (any_of(Sizes.Constants,
                 [&](const BlockConstant &C) { return C.Name == Const; }))
        continue; // the constant's edit carries it
    }
    std::string Why = getMacroReason(RC, Arg.getSourceRange());
    if (!Bare || !isa<IntegerLiteral>(Bare) || !Why.empty())
      return Fail("the launch at " + At + " writes template argument " +
                  Twine(Index) + " of " + Name + " as `" +
                  RC.getText(Arg.getSourceRange()) + "`" +
                  (Why.empty() ? "" : " (" + Why + ")") +
                  ": change it to the new block size by hand");
    R.Replace.push_back({Arg.getSourceRange(), std::to_string(Block)});
    R.Where.push_back("template argument " + std::to_string(Index) +
                      " of the launch at " + At);
  }
  // The explicit instantiations: a copy for the new block after each
  // definition, unless the file already has that one.
  const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate();
  if (!T)
    return Fail(Name + " is not a template");
  unsigned Defined = 0;
  for (const FunctionDecl *S : T->specializations())
    Defined += S->getTemplateSpecializationKind() ==
               TSK_ExplicitInstantiationDefinition;
  std::vector<WrittenInstantiation> Written =
      findWrittenInstantiations(RC, Name);
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  auto Key = [&](const WrittenInstantiation &W, StringRef Replace) {
    std::vector<std::string> Parts;
    for (unsigned I = 0; I < W.Args.size(); ++I)
      Parts.push_back(
          I == Index && !Replace.empty()
              ? Replace.str()
              : squeezed(Buf.slice(W.Args[I].first, W.Args[I].second)));
    return join(Parts, ",");
  };
  StringSet<> Have;
  unsigned Definitions = 0;
  for (const WrittenInstantiation &W : Written)
    if (!W.Extern) {
      Have.insert(Key(W, ""));
      ++Definitions;
    }
  if (Definitions < Defined)
    return Fail("an explicit instantiation of " + Name +
                " is not written out in the file (a macro or a header): "
                "instantiate the new block size by hand");
  std::string Value = std::to_string(Block);
  for (const WrittenInstantiation &W : Written) {
    if (W.Extern)
      continue;
    std::string At = getLineCol(RC, W.Loc);
    if (Index >= W.Args.size())
      return Fail("the explicit instantiation of " + Name + " at " + At +
                  " does not write template argument " + Twine(Index));
    auto [ArgBegin, ArgEnd] = W.Args[Index];
    StringRef Old = Buf.slice(ArgBegin, ArgEnd).trim();
    uint64_t V = 0;
    if (Old.getAsInteger(0, V))
      return Fail("the explicit instantiation of " + Name + " at " + At +
                  " writes template argument " + Twine(Index) + " as `" + Old +
                  "`: instantiate the new block size by hand");
    if (!Have.insert(Key(W, Value)).second)
      continue; // the file has it, or an earlier copy made it
    std::string Copy =
        (Buf.slice(W.Begin, ArgBegin) + Value + Buf.slice(ArgEnd, W.End)).str();
    R.Insert.push_back({W.End, "\n" + Copy});
    R.Where.push_back("an explicit instantiation for block size " + Value +
                      " after the one at " + At);
  }
  if (R.Where.empty())
    R.Warnings.push_back(
        "the file neither launches nor explicitly instantiates " + Name +
        ": a caller instantiates and launches it with template argument " +
        std::to_string(Index) + " set to " + std::to_string(Block) +
        ", as the launch contract in the plan and the report says");
  return R;
}

} // namespace astra
