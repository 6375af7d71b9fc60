//===- WarpReduceMatch.h - Shared-memory tree reductions --------*- C++ -*-===//
//
// Private to lib/Transforms: recognises the shared-memory tree reductions
// that warp-reduce rewrites, and checks that nothing else in the kernel reads
// the partial results the tree leaves behind.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H
#define ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>
#include <vector>

namespace astra {

enum class TreeOp { Sum, Max, Min };

/// A recognised tree
///
///   __syncthreads();
///   for (int s = S0; s > 0; s >>= 1) {
///     if (tid < s [&& tid + s < blockDim.x])
///       a[tid] = OP(a[tid], a[tid + s]);      // a[tid] += a[tid + s]; ...
///     __syncthreads();
///   }
///
/// where tid is threadIdx.x (or a local that holds it) and `a` a __shared__
/// array of arithmetic elements.
struct TreeMatch {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Array = nullptr;
  TreeOp Op = TreeOp::Sum;
  std::string ElemType;     ///< element type of the array, as C++ text
  std::string Combine;      ///< max/min function as written (fmaxf, max...)
  std::string FirstStride;  ///< S0 as written
  bool BoundsCheck = false; ///< partners past blockDim.x are skipped
  bool FloatElem = false;
};

/// Whether \p Loop halves a variable each iteration (`s >>= 1`, `s /= 2`):
/// the loops warp-reduce reports on.
bool isHalvingLoop(const clang::Stmt *Loop);

/// Matches \p Loop of kernel \p K as a tree reduction. Returns an empty
/// string and fills \p M, or the reason it is not one. \p NeedBarrier:
/// the barrier right before the loop is checked (not for the fallback of a
/// tree warp-reduce rewrote, whose barrier precedes the guard).
std::string matchTree(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                      const clang::ForStmt *Loop, TreeMatch &M,
                      bool NeedBarrier = true);

/// Whether \p E is `Array[tid]`, tid being threadIdx.x or a local that holds
/// it.
bool isTidElement(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                  const clang::Expr *E, const clang::VarDecl *Array);

/// The rewritten tree leaves only `a[0]` as the original does (the other
/// elements keep the threads' own values instead of partial results). Returns
/// the reason when some read of \p Array in \p K outside the trees \p Trees
/// may see such an element; empty otherwise. Reads inside \p Trees are not
/// looked at: pass the rewritten tree alone, so that another tree on the
/// array that reads its partial results counts.
std::string
checkLaterReads(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                const clang::VarDecl *Array,
                const llvm::SmallPtrSetImpl<const clang::Stmt *> &Trees);

/// Why code outside kernel \p K may read \p Array: a device function that
/// names a file-scope array, or another `extern __shared__` array (the same
/// memory) when \p Array is one. Empty when none.
std::string checkOtherAccess(clang::ASTContext &Ctx,
                             const clang::FunctionDecl *K,
                             const clang::VarDecl *Array);

/// A loop that runs \p Tree again must refill \p Array (`a[tid] = ...;`)
/// between runs: the next run of the original reduces the partial results
/// this run left, which the rewritten tree does not leave. Returns the
/// reason when some loop around \p Tree has no refill before the tree or
/// after it on the way to the next run; empty otherwise.
std::string checkTreeRerun(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                           const clang::VarDecl *Array,
                           const clang::Stmt *Tree);

/// Whether every thread of the block runs the refill \p Refill whenever one
/// does (WarpReduceUniform.cpp): each condition between it and the first
/// statement for which \p HoldsTree holds has one value in the whole block,
/// and no thread may leave (return, break, continue) between \p After and
/// it, unless under such conditions.
bool refillRunsInEveryThread(
    clang::ASTContext &Ctx, const clang::FunctionDecl *K,
    const clang::Stmt *Refill, clang::SourceLocation After,
    llvm::function_ref<bool(const clang::Stmt *)> HoldsTree);

const char *getTreeOpName(TreeOp Op);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H
