//===- VectorizeLoadsWiden.h - The widened form of vectorize-loads -*- C++ -*-//
//
// Private to lib/Transforms. The widened form runs a body once per pack of W
// consecutive elements instead of once per element. Each value of the body
// has a lane form: the same for every element of the pack (Inv: computed
// once, e.g. an index load `indices[e]`, an inner loop's counter, `i / d`
// when d is a multiple of W), the pack's first value plus the lane number
// (Aff: the element index i, `i % d`), or anything else (Var: kept per lane,
// in an array of W). Statements that compute only Inv values, and inner
// loops and branches whose header is Inv, stay as written; the others run in
// `for (lane = 0; lane < W; ++lane)` loops, with the accesses `p[e]` whose
// index e is Aff and aligned turned into one vector load or store around
// the lane loop. `atomicAdd(&p[e], v)` on floats becomes one 8- or 16-byte
// vector atomic (sm_90) per pack.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSWIDEN_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSWIDEN_H

#include "VectorizeLoadsPlan.h"
#include "llvm/ADT/ArrayRef.h"

namespace astra {

/// Analyses the statements \p Region, run once per element with index
/// \p IV (a loop's induction variable, or a per-thread kernel's global
/// index), for the widened form. \p PartitionDeps: the DepBits of the
/// thread coordinates that pick the element (the body must not use them
/// other than through \p IV). On success fills Plan.Groups (guard and union
/// types), DivisibleBy, WidenedBody, DependentElem, VectorAtomics and the
/// local names, and returns ""; else returns the reason and sets \p Where.
std::string widenRegion(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                        const clang::VarDecl *IV, unsigned PartitionDeps,
                        llvm::ArrayRef<const clang::Stmt *> Region,
                        VecLoopPlan &Plan, clang::SourceLocation &Where);

} // namespace astra

#endif
