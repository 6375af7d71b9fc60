//===- CoarsenAffine.h - Store indices that rise by one per thread -*- C++
//-*-===//
//
// Private to lib/Transforms (Coarsen.cpp, CoarsenStores.cpp). Whether a
// store's index, as the original kernel computes it, is U + threadIdx.x
// with U the same for every thread of the block: then the C threads a
// coarsened thread runs (threadIdx.x * C + c) store to consecutive elements,
// and their stores can be deferred with no test per store.
//
// The index may use threadIdx.x, blockIdx, gridDim, literals, parameters
// and locals that the kernel never changes: the uniform ones declared
// before the per-thread work, and the per-thread ones (arrays after
// coarsen), through their initialisers. Only + and - of a uniform value
// change a thread-varying value; any other operation must see uniform
// operands only. Loads and calls are refused: the index is evaluated again
// after the loop over c, where memory may have changed.
//
// What this proves, and what it leaves to one run-time test: every
// thread-varying value has an integer type of 32 bits or more, so from one
// copy to the next the address moves by one element, less a multiple of
// 2^32 elements where the arithmetic wrapped (counted modulo 2^64, the
// address space; a wrap never moves it by any other amount), and the C - 1
// steps sum to C - 1 elements only when none wrapped (at most C - 1 wraps
// per value, elements of at most 16 bytes: the lost multiples cannot reach
// 2^64). The rewrite tests that the last copy's address is C - 1 elements
// after the first's; then every copy's is c elements after it.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_COARSENAFFINE_H
#define ASTRA_LIB_TRANSFORMS_COARSENAFFINE_H

#include "Dataflow.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseSet.h"
#include <string>

namespace astra {

struct AffineScope {
  const ChangedVars &CV;
  /// Locals declared before the per-thread work, the same in every thread.
  const llvm::DenseSet<const clang::VarDecl *> &Uniform;
  /// The per-thread locals (arrays of C after coarsen).
  const llvm::DenseSet<const clang::VarDecl *> &PerThread;
};

/// Whether \p Index (of a store in the original kernel) is U + threadIdx.x
/// as the header states. On failure \p Why names the offending part.
bool risesByOnePerThread(clang::ASTContext &Ctx, const clang::Expr *Index,
                         const AffineScope &Scope, std::string &Why);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_COARSENAFFINE_H
