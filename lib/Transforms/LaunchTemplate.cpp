//===- LaunchTemplate.cpp - A block size that is a template argument -----===//
//
// A kernel template whose block size is its template parameter
// (`template <int BLOCK> __global__ void __launch_bounds__(BLOCK) k(...)`,
// or launched as `k<256><<<g, 256>>>`) gets a new block size as a new
// instantiation: `launch:kernel=k,B=512,block=512,template-arg=0`. The
// harness runs the candidate as `k<512>` (the contract's `template-arg`,
// docs/harness.md), and the file is edited so that it holds that
// instantiation wherever it held the old one:
//
//  - each launch of the kernel in the file that writes the argument as an
//    integer literal gets the new value (`k<512><<<g, 512>>>`; the block
//    itself is the launch rewrite's usual edit); one that writes a constant
//    the launch rewrite carries follows that constant;
//  - each explicit instantiation (`template __global__ void k<256>(...);`)
//    is kept, and a copy with the new argument follows it, unless the file
//    already instantiates that one. The old instantiation stays: other
//    callers may launch it.
//
// `__launch_bounds__(BLOCK)`, shared arrays and strides sized by BLOCK follow
// the argument. Refused: an argument written as another expression, an
// explicit instantiation inside a macro.
//
//===----------------------------------------------------------------------===//
#include "LaunchTemplate.h"
#include "SiteUtil.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Offsets of the top-level arguments of the template argument list that
/// opens at \p Open in \p Text (`<`), and of its closing `>`; empty when the
/// list does not close.
std::vector<std::pair<size_t, size_t>> argumentSpans(StringRef Text,
                                                     size_t Open) {
  std::vector<std::pair<size_t, size_t>> Spans;
  int Depth = 0;
  size_t Begin = Open + 1;
  for (size_t I = Open; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '<' || C == '(')
      ++Depth;
    else if (C == '>' || C == ')') {
      if (--Depth == 0) {
        Spans.push_back({Begin, I});
        return Spans;
      }
    } else if (C == ',' && Depth == 1) {
      Spans.push_back({Begin, I});
      Begin = I + 1;
    }
  }
  return {};
}

/// Whether \p T has an instantiation with \p Args, argument \p Index set
/// to \p Value.
bool isInstantiated(const FunctionTemplateDecl *T,
                    ArrayRef<TemplateArgument> Args, unsigned Index,
                    int64_t Value) {
  for (const FunctionDecl *S : T->specializations()) {
    const TemplateArgumentList *Have = S->getTemplateSpecializationArgs();
    if (!Have || Have->size() != Args.size())
      continue;
    bool Same = true;
    for (unsigned I = 0; I < Args.size() && Same; ++I) {
      const TemplateArgument &A = (*Have)[I];
      if (I == Index)
        Same = A.getKind() == TemplateArgument::Integral &&
               A.getAsIntegral() == Value;
      else
        Same = A.structurallyEquals(Args[I]);
    }
    if (Same)
      return true;
  }
  return false;
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
  // The launches: the argument as written.
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
  // The explicit instantiations: a copy for the new block after each.
  const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate();
  if (!T)
    return Fail(Name + " is not a template");
  std::vector<std::string> Added;
  for (const FunctionDecl *S : T->specializations()) {
    if (S->getTemplateSpecializationKind() !=
        TSK_ExplicitInstantiationDefinition)
      continue;
    const TemplateArgumentList *Args = S->getTemplateSpecializationArgs();
    if (!Args || Index >= Args->size() ||
        isInstantiated(T, Args->asArray(), Index, Block))
      continue;
    SourceLocation POI = S->getPointOfInstantiation();
    std::string At = getLineCol(RC, POI);
    if (POI.isMacroID() || !SM.isWrittenInMainFile(POI))
      return Fail("the explicit instantiation of " + Name + " at " + At +
                  " is not written out in the file (a macro or a header): "
                  "instantiate the new block size by hand");
    // The statement: from its `template` keyword to its `;`.
    StringRef Buf = SM.getBufferData(SM.getFileID(POI));
    size_t NameAt = SM.getFileOffset(POI);
    size_t Begin = Buf.take_front(NameAt).rfind("template");
    size_t End = Buf.find(';', NameAt);
    size_t Open = Buf.find_first_not_of(" \t\n", NameAt + Name.size());
    if (Begin == StringRef::npos || End == StringRef::npos ||
        Open == StringRef::npos || Buf[Open] != '<')
      return Fail("the explicit instantiation of " + Name + " at " + At +
                  " does not write its template arguments");
    std::vector<std::pair<size_t, size_t>> Spans = argumentSpans(Buf, Open);
    if (Index >= Spans.size() || Spans.back().second > End)
      return Fail("the explicit instantiation of " + Name + " at " + At +
                  " does not write template argument " + Twine(Index));
    auto [ArgBegin, ArgEnd] = Spans[Index];
    std::string Copy =
        (Buf.slice(Begin, ArgBegin) + (Buf[ArgBegin] == ' ' ? " " : "") +
         std::to_string(Block) + Buf.slice(ArgEnd, End + 1))
            .str();
    if (is_contained(Added, Copy))
      continue;
    Added.push_back(Copy);
    R.Insert.push_back({unsigned(End + 1), "\n" + Copy});
    R.Where.push_back("an explicit instantiation for block size " +
                      std::to_string(Block) + " after the one at " + At);
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
