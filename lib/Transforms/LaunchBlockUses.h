//===- LaunchBlockUses.h - Code tied to the old block size ------*- C++ -*-===//
//
// Private to lib/Transforms: whether a kernel's code depends on its block
// size in ways that `launch:block=N` does not change (LaunchBlockUses.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_LAUNCHBLOCKUSES_H
#define ASTRA_LIB_TRANSFORMS_LAUNCHBLOCKUSES_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>

namespace astra {

/// Why a new block size would change what kernel \p K computes; empty when
/// nothing shows it. \p Launches are K's `<<<...>>>`; \p Holders the
/// constants or template parameters that hold its block size (edited with
/// it); \p OldBlock the block size before, when known; \p Vouched whether a
/// spec variable says the kernel is correct for the new block (then the
/// checks of Holders and literals are skipped); \p MacroHolder whether a
/// macro holds it (its expansions are not literals of their own).
std::string
findBlockTies(const RewriteContext &RC, const clang::FunctionDecl *K,
              llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Launches,
              llvm::ArrayRef<const clang::ValueDecl *> Holders,
              std::optional<int64_t> OldBlock, bool Vouched, bool MacroHolder);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_LAUNCHBLOCKUSES_H
