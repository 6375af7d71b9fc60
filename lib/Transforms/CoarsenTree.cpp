//===- CoarsenTree.cpp - The tree reduction that coarsen shortens ---------===//
//
// See CoarsenScan.h (findCoarsenTree).
//
//===----------------------------------------------------------------------===//
#include "CoarsenScan.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/Kernels.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string findCoarsenTree(ASTContext &Ctx, const FunctionDecl *K,
                            const CompoundStmt *Body, CoarsenTree &Out,
                            SourceLocation &WhyLoc) {
  auto Fail = [&](const Twine &Why, SourceLocation L) {
    WhyLoc = L;
    return Why.str();
  };
  std::vector<const Stmt *> Top(Body->body_begin(), Body->body_end());
  TreeMatch &M = Out.M;
  size_t &T = Out.T;
  unsigned Trees = 0;
  std::string TreeWhy;
  for (const Stmt *L : collectLoops(Body)) {
    if (!isHalvingLoop(L))
      continue;
    TreeMatch Try;
    std::string Why = matchTree(Ctx, K, cast<ForStmt>(L), Try);
    if (!Why.empty()) {
      TreeWhy = Why;
      continue;
    }
    ++Trees;
    M = Try;
  }
  if (Trees != 1)
    return Fail(
        Trees ? "it holds more than one tree reduction"
              : "no shared-memory tree reduction" +
                    (TreeWhy.empty() ? std::string() : " (" + TreeWhy + ")"),
        SourceLocation());
  auto TopIt = llvm::find(Top, static_cast<const Stmt *>(M.Loop));
  T = TopIt - Top.begin();
  const VarDecl *A = M.Array;
  const BinaryOperator *&Leaf = Out.Leaf;
  if (TopIt != Top.end() && T >= 2) {
    const auto *Bar = dyn_cast<CallExpr>(Top[T - 1]);
    const auto *L = dyn_cast<BinaryOperator>(Top[T - 2]);
    const auto *Sub =
        L && L->getOpcode() == BO_Assign
            ? dyn_cast<ArraySubscriptExpr>(L->getLHS()->IgnoreParens())
            : nullptr;
    if (Bar && getCalleeName(Bar) == "__syncthreads" && Sub &&
        getReferencedVar(Sub->getBase()) == A &&
        getBuiltinVarName(stripIntCasts(Sub->getIdx())) == "threadIdx.x")
      Leaf = L;
  }
  if (!Leaf)
    return Fail("the tree is not at the top of the body right after `" +
                    A->getNameAsString() +
                    "[threadIdx.x] = ...; __syncthreads();`",
                M.Loop->getBeginLoc());
  // From a review: `(blockDim.x + 31) / 32 * 16` halves every block of
  // 32 threads and more, but not the coarsened 16, whose tree then adds
  // elements no thread wrote.
  if (!isHalfBlock(M.Loop)) {
    bool Follows = StringRef(M.FirstStride).contains("blockDim.x");
    return Fail("the tree's first stride `" + M.FirstStride +
                    (Follows ? "` is not blockDim.x / 2 (the coarsened tree "
                               "must reduce its block whole)"
                             : "` does not follow blockDim.x (a smaller block "
                               "would read past it)"),
                M.Loop->getBeginLoc());
  }
  return "";
}

} // namespace astra
