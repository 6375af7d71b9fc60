//===- FoldBlocks.h - What fold-blocks leaves for the launch ----*- C++ -*-===//
//
// Private to lib/Transforms: the comment fold-blocks opens a folded kernel
// with, which the launch rewrite looks for before it folds the launch
// (`launch:fold-y=K`), and the one coarsen leaves (`launch:block-x-div=C`).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H
#define ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace astra {

/// "astra-opt fold-blocks: blockIdx.y -> blockIdx.y * blockDim.y +
/// threadIdx.y" for \p Dim 'y'.
std::string getFoldMarker(char Dim);

/// The note an exact fold (rows that share barriers: no bound guard) adds
/// after the marker; its launch must say `fold-exact=1`.
const char *getFoldExactNote();

/// "astra-opt coarsen: each thread runs <Factor> threads of the original
/// block" (Coarsen.cpp): the launch divides block.x by that factor, no
/// other.
std::string getCoarsenMarker(int64_t Factor);

/// What an exact fold (fold-blocks:exact=1) must check in a kernel's body.
struct RowSliceScan {
  std::vector<const clang::VarDecl *> Shared; ///< __shared__ declarations
  std::vector<const clang::DeclRefExpr *> SharedRefs;
  std::vector<const clang::CallExpr *> Barriers; ///< __syncthreads()
  std::vector<const clang::ReturnStmt *> Returns;
};

/// Whether each row of a folded block may take its own slice of every
/// shared array and share the block's barriers (FoldBlocksShared.cpp).
/// Empty, or why not with \p WhyLoc where.
std::string checkRowSlices(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                           const RowSliceScan &S, clang::SourceLocation &WhyLoc);

/// A tree reduction of an exact fold that may run as warp shuffles: its
/// loop, and the statement to put before it.
struct RowTreeShuffle {
  const clang::Stmt *Before = nullptr;
  std::string Text;
};

/// For each tree reduction over blockDim.x in \p K whose rows may be
/// narrower than a warp: `if (rows of a power of two up to 32 threads in
/// whole warps) { xor shuffles over the row's slice } else` before the
/// tree (FoldBlocksShared.cpp). Fresh names from \p Taken.
std::vector<RowTreeShuffle> findRowTreeShuffles(clang::ASTContext &Ctx,
                                                const clang::FunctionDecl *K,
                                                llvm::StringSet<> &Taken);

class RewriteContext;

/// What fold-blocks finds in a kernel (FoldBlocksScan.cpp).
struct FoldScanResult {
  /// The uses of blockIdx.<Dim> in the kernel's body, to be rewritten.
  std::vector<const clang::Expr *> Uses;
  /// With exact=1, what checkRowSlices must check.
  RowSliceScan Rows;
  /// Why the kernel cannot be folded, with \p WhyLoc where; empty when it
  /// can.
  std::string Why;
  clang::SourceLocation WhyLoc;
};

/// Scans kernel \p K (a pattern) for a fold of blockIdx.<Dim>: its body, and
/// everything it runs that is not rewritten (the device functions, with
/// constructors, destructors and in-class initialisers, may not read
/// blockIdx, threadIdx.y, blockDim.y or gridDim). A call through a pointer,
/// a preprocessor conditional in the body or in a function it runs, shared
/// memory and barriers (unless \p Exact collects them), collectives and
/// inline assembly are refused.
FoldScanResult scanFold(RewriteContext &RC, const clang::FunctionDecl *K,
                        char Dim, bool Exact);

/// The kernel's own guard on the folded index: `if (v >= n) return;` (or
/// `n <= v`) at the top of \p Body, v initialised from blockIdx.<Dim> and
/// never written, only plain declarations before it, none of which is
/// destroyed (its destructor would run on the rows past the bound). Null
/// when none.
const clang::IfStmt *findGuard(clang::ASTContext &Ctx,
                               const clang::CompoundStmt *Body, char Dim);

/// The factor of the first coarsen marker in \p Text; 0 when none.
int64_t findCoarsenFactor(const std::string &Text);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H
