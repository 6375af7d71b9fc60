//===- WarpReduceMatch.h - Shared-memory tree reductions --------*- C++ -*-===//
//
// Private to lib/Transforms: recognises the shared-memory tree reductions
// that warp-reduce rewrites, and checks that nothing else in the kernel reads
// the partial results the tree leaves behind.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H
#define ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H

#include "Dataflow.h"
#include "astra/Transforms/Rewrite.h"
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

/// The loop of a tree, whatever its step:
///
///   __syncthreads();
///   for (int s = S0; s > 0; s >>= 1) {
///     if (tid < s [&& tid + s < blockDim.x]) STEP
///     __syncthreads();
///   }
struct TreeFrame {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Stride = nullptr; ///< s
  const clang::IfStmt *Step = nullptr;    ///< the if; STEP is its then
  std::string FirstStride;                ///< S0 as written
  bool BoundsCheck = false;               ///< partners past blockDim.x skipped
};

/// Matches the loop of a tree (TreeFrame); empty or the reason it is not
/// one. \p NeedBarrier as for matchTree.
std::string matchTreeFrame(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                           const clang::ForStmt *Loop, TreeFrame &F,
                           bool NeedBarrier = true);

/// One array of a tuple tree: its elements become a register per thread.
struct TupleMember {
  const clang::VarDecl *Array = nullptr;
  std::string ElemType; ///< unqualified element type, as C++ text
  bool Written = false; ///< the step stores a[tid]
};

/// A tree whose step is any code that combines a[tid] and a[tid + s] of one
/// or more __shared__ arrays (an arg-max: value and index) with locals and
/// pure math, and stores only a[tid] (WarpReduceTuple.cpp).
struct TupleTree {
  TreeFrame Frame;
  std::vector<TupleMember> Members;
  /// Each access of the step: its member, and whether it is a[tid + s].
  struct Access {
    const clang::ArraySubscriptExpr *E = nullptr;
    unsigned Member = 0;
    bool Partner = false;
  };
  std::vector<Access> Accesses;
};

/// Matches \p Loop as a tuple tree. Returns an empty string and fills \p T,
/// or the reason; \p FrameOk tells whether the loop was a tree's at all.
std::string matchTupleTree(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                           const clang::ForStmt *Loop, TupleTree &T,
                           bool &FrameOk);

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

/// The element type \p T as the rewrite writes it, when __shfl_*_sync
/// has an overload for exactly that type (int, unsigned, long, unsigned
/// long, long long, unsigned long long, float, double): the canonical
/// type's keywords, never a typedef's name. Empty for any other type.
std::string getShuffleType(clang::QualType T);

/// Matches the tree's thread index in kernel \p K: threadIdx.x, or a local
/// initialised to it that nothing changes. Built once per kernel (it
/// analyses the kernel's writes).
class TidMatcher {
public:
  TidMatcher(clang::ASTContext &Ctx, const clang::FunctionDecl *K);
  clang::ASTContext &getContext() const { return Ctx; }
  bool operator()(const clang::Expr *E) const;

private:
  clang::ASTContext &Ctx;
  ChangedVars CV;
};

/// The array of \p E when it is `a[tid]` (\p Partner false) or
/// `a[tid + s]` (\p Partner true; s is \p S), tid as \p IsTid matches it;
/// null otherwise.
const clang::VarDecl *getTreeElemArray(const TidMatcher &IsTid,
                                       const clang::Expr *E,
                                       const clang::VarDecl *S, bool Partner);

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

/// Whether \p E, evaluated at \p At, has one value in every thread of the
/// block (WarpReduceUniform.cpp: built-ins other than threadIdx, parameters
/// and locals that never change, the counters of uniform for loops around
/// \p At, pure math of those).
bool isUniformAt(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                 const clang::Stmt *At, const clang::Expr *E);

/// Why a thread of the block may leave before the tree \p Tree of kernel
/// \p K (a return, or a break or continue of a loop around the tree, under
/// a condition that may differ between the threads): the warps the shuffles
/// pair would not be whole. Empty when none may.
std::string checkExitsBefore(clang::ASTContext &Ctx,
                             const clang::FunctionDecl *K,
                             const clang::Stmt *Tree);

/// Names the tuple-tree form declares (fresh in the file).
struct TupleNames {
  std::vector<std::string> Own, Partner, Partial; ///< one per member
  std::string Warps, Lane, Offset;
};

/// The guard of the tuple-tree form of \p T.
std::string getTupleGuard(const TupleTree &T);

/// The tuple-tree form of \p T with the tree \p LoopText as its fallback.
std::string generateTupleTree(RewriteContext &RC, const TupleTree &T,
                              const TupleNames &N, llvm::StringRef LoopText);

const char *getTreeOpName(TreeOp Op);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_WARPREDUCEMATCH_H
