//===- WarpButterfly.h - A warp's xor butterfly over a value ----*- C++ -*-===//
//
// Private to lib/Transforms: recognises the full xor butterfly
//
//   for (int o = 16; o > 0; o /= 2)
//     v += __shfl_xor_sync(0xffffffff, v, o);
//
// after which every lane of a warp holds the combination (sum, max, min) of
// the 32 values the warp's lanes held; see WarpButterfly.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_WARPBUTTERFLY_H
#define ASTRA_LIB_TRANSFORMS_WARPBUTTERFLY_H

#include "WarpReduceMatch.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <optional>

namespace astra {

/// The operation \p S (a for loop, possibly under `#pragma unroll`)
/// combines \p V with over all 32 lanes of a warp, when it is a full xor
/// butterfly: offsets 16, 8, 4, 2, 1 (either order), the full mask, a width
/// of 32, and `v += x`, `v = v + x`, `v = fmaxf(v, x)`, ... of the shuffled
/// value.
std::optional<TreeOp> matchButterfly(clang::ASTContext &Ctx,
                                     const clang::Stmt *S,
                                     const clang::VarDecl *V);

/// The butterfly over \p V that always runs right after \p Loop in kernel
/// \p K: a later statement of the same { } block, with no statement between
/// that could jump past it (return, break, continue) and no goto in the
/// kernel. Null when there is none; \p Op is its operation.
const clang::Stmt *findButterflyAfter(clang::ASTContext &Ctx,
                                      const clang::FunctionDecl *K,
                                      const clang::Stmt *Loop,
                                      const clang::VarDecl *V, TreeOp &Op);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_WARPBUTTERFLY_H
