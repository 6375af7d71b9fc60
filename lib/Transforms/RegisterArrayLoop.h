//===- RegisterArrayLoop.h - Loops that index a local array -----*- C++ -*-===//
//
// A for loop with compile-time bounds whose body indexes a local array with
// the loop variable (`float v[8]; for (int j = 0; j < 8; ++j) acc += v[j]`).
// Unrolled fully, every index becomes a constant and the compiler keeps the
// array in registers; unrolled partly (`#pragma unroll 4` on 8 iterations),
// the index stays a run-time value and the array goes to local memory
// (issue 15: 0 -> 12 local accesses in the PTX). Unroll's default factor
// reads this.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_TRANSFORMS_REGISTERARRAYLOOP_H
#define ASTRA_TRANSFORMS_REGISTERARRAYLOOP_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include <cstdint>
#include <optional>
#include <string>

namespace astra {

struct RegisterArrayLoop {
  const clang::VarDecl *Var = nullptr;   ///< the loop variable
  const clang::VarDecl *Array = nullptr; ///< the first local array it indexes
  /// The number of iterations when start, bound and step are integer
  /// constants; none when one depends on a template parameter (constant in
  /// each instantiation, but not in the template the rewrite sees).
  std::optional<int64_t> TripCount;
};

/// \p Loop's local array indexing, or none when \p Loop is not a for loop
/// `for (T i = a; i OP b; i += s)` (OP one of < <= > >= !=; ++, --, +=, -=)
/// whose a, b and s are compile-time constants and whose body indexes an
/// array declared in the function (not `__shared__`, not static) with i.
std::optional<RegisterArrayLoop> findRegisterArrayLoop(clang::ASTContext &Ctx,
                                                       const clang::Stmt *Loop);

/// The factor unroll uses on a loop, and why when it is not simply the one
/// given or the usual 4.
struct UnrollFactor {
  int64_t Factor = 4; ///< 0: full (`#pragma unroll` without a count)
  std::string Why;    ///< for the listing; empty: nothing to explain
  std::string Risk;   ///< it may put an array in local memory; empty if not
};

/// A loop over a local array keeps the array in registers only when every
/// iteration is unrolled: without \p Given that is the default (pragma: no
/// count, up to 64 iterations; manual: the trip count); a factor given that
/// does not cover the trip count is used as given, with a Risk. \p RA null:
/// \p Given, else 4.
UnrollFactor chooseUnrollFactor(const RegisterArrayLoop *RA,
                                std::optional<int64_t> Given, bool Manual);

} // namespace astra

#endif // ASTRA_TRANSFORMS_REGISTERARRAYLOOP_H
