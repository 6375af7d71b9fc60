//===- SideLoops.cpp - Loops of a rewrite's fallback and tail -------------===//
//
// A rewrite that guards its fast path keeps the original code as the
// fallback (`if (guard) { // astra-opt vectorize-loads: ... } else { the
// original }`) and handles the last elements in a scalar tail. Their loops
// are loops like any other to the catalogue, so the search proposed
// unrolling them: spmm_csr's kept plan on an H100 carried `#pragma unroll 2`
// on its fallback's grid-stride loop, which its divided launch never runs.
//
//===----------------------------------------------------------------------===//
#include "SideLoops.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// The file text of \p S, or empty when it is not written in the file.
StringRef textOf(const SourceManager &SM, StringRef Buf, const Stmt *S) {
  SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation E = SM.getExpansionLoc(S->getEndLoc());
  if (!SM.isWrittenInMainFile(B) || !SM.isWrittenInMainFile(E))
    return "";
  unsigned Begin = SM.getFileOffset(B), End = SM.getFileOffset(E);
  return End < Begin ? "" : Buf.slice(Begin, End + 1);
}

/// Whether \p S follows a `// Scalar tail` comment with no loop or block end
/// in between (the block-stride form sets its start first: `vecEnd`, the
/// index and an `if` lie between the comment and the loop).
bool afterTailComment(const SourceManager &SM, StringRef Buf, const Stmt *S) {
  SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
  if (!SM.isWrittenInMainFile(B))
    return false;
  StringRef Before = Buf.take_front(SM.getFileOffset(B));
  Before = Before.take_back(400);
  size_t At = Before.rfind("// Scalar tail");
  if (At == StringRef::npos)
    return false;
  StringRef Between = Before.drop_front(At);
  Between = Between.drop_front(std::min(Between.size(), Between.find('\n')));
  return !Between.contains("for (") && !Between.contains("while (") &&
         !Between.contains('}');
}

/// Whether \p Block (a `{ }` body without its `{`) holds a rewrite's marker
/// comment (`// astra-opt <rewrite>: `) among its own statements, not in a
/// block nested in it: the guard of a rewrite opens its fast path with one.
bool hasTopLevelMarker(StringRef Block) {
  int Depth = 0;
  for (size_t I = 0; I < Block.size(); ++I) {
    char C = Block[I];
    if (C == '{')
      ++Depth;
    else if (C == '}')
      --Depth;
    if (C != '/' || !Block.substr(I).starts_with("//"))
      continue;
    StringRef Comment =
        Block.substr(I).take_until([](char X) { return X == '\n'; });
    I += Comment.size();
    if (Depth != 0 || !Comment.consume_front("// astra-opt "))
      continue;
    StringRef Name =
        Comment.take_until([](char X) { return X == ':' || X == ' '; });
    if (Comment.drop_front(Name.size()).starts_with(":") && findRewrite(Name))
      return true; // a rewrite's own marker, not a comment of the user's
  }
  return false;
}

/// Whether \p If is a rewrite's guard, whose else branch is the original
/// code: its then branch holds a rewrite's marker comment among its own
/// statements, or it tests register-cache's `rcFits` flag.
bool isRewriteGuard(const SourceManager &SM, StringRef Buf, const IfStmt *If) {
  StringRef Then = textOf(SM, Buf, If->getThen());
  if (Then.consume_front("{") && hasTopLevelMarker(Then))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(If->getCond()->IgnoreParenImpCasts());
  return Ref && Ref->getDecl()->getName().starts_with("rcFits") &&
         Buf.contains("// astra-opt register-cache: ");
}

bool isSideLoop(ASTContext &Ctx, StringRef Buf, const Stmt *Loop) {
  const SourceManager &SM = Ctx.getSourceManager();
  DynTypedNode Cur = DynTypedNode::create(*Loop);
  while (true) {
    const Stmt *S = Cur.get<Stmt>();
    if (S && isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S) &&
        afterTailComment(SM, Buf, S))
      return true;
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return false;
    const auto *If = Parents[0].get<IfStmt>();
    if (If && S && If->getElse() == S && isRewriteGuard(SM, Buf, If))
      return true;
    if (Parents[0].get<FunctionDecl>())
      return false;
    Cur = Parents[0];
  }
}

} // namespace

StringSet<> findSideLoops(ASTContext &Ctx) {
  StringSet<> Out;
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  for (const FunctionDecl *K : findKernels(Ctx))
    for (const auto &[Loop, Id] : getLoopIds(K))
      if (isSideLoop(Ctx, Buf, Loop))
        Out.insert(Id);
  return Out;
}

} // namespace astra
