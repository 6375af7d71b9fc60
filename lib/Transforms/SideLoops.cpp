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

/// Whether the line before the one \p S starts on is a `// Scalar tail`
/// comment.
bool afterTailComment(const SourceManager &SM, StringRef Buf, const Stmt *S) {
  SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
  if (!SM.isWrittenInMainFile(B))
    return false;
  StringRef Before = Buf.take_front(SM.getFileOffset(B));
  size_t LineStart = Before.rfind('\n');
  if (LineStart == StringRef::npos)
    return false;
  StringRef Prev = Before.take_front(LineStart);
  return Prev.substr(Prev.rfind('\n') + 1).trim().starts_with("// Scalar tail");
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
    if (If && S && If->getElse() == S &&
        textOf(SM, Buf, If->getThen()).contains("// astra-opt "))
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
