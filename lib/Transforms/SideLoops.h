//===- SideLoops.h - Loops of a rewrite's fallback and tail -----*- C++ -*-===//
//
// Private to lib/Transforms: the loops that a rewrite generated to run on
// the side (SideLoops.cpp), which the search's enumeration leaves out.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_SIDELOOPS_H
#define ASTRA_LIB_TRANSFORMS_SIDELOOPS_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/StringSet.h"

namespace astra {

/// The ids (`k:L<n>`) of the loops, in the main file's kernels, that lie in
/// code a rewrite generated to run on the side: the `else` branch of a
/// guard whose `then` branch opens with an `// astra-opt ` marker comment,
/// or of register-cache's `if (rcFits)` (the original code as the
/// fallback), and a scalar tail (the loop after a `// Scalar tail`
/// comment), with the loops nested in them. Tuning them
/// changes the PTX of code that the plan's launch does not run, or runs
/// for a few elements: a candidate per option that measures noise.
llvm::StringSet<> findSideLoops(clang::ASTContext &Ctx);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_SIDELOOPS_H
