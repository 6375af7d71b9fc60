//===- Rewrites.h - Factories of the catalogue's rewrites -------*- C++ -*-===//
// Private to lib/Transforms: each rewrite file defines one create function.
#ifndef ASTRA_LIB_TRANSFORMS_REWRITES_H
#define ASTRA_LIB_TRANSFORMS_REWRITES_H

#include "astra/Transforms/Rewrite.h"

namespace astra {

/// In catalogue order, as Registry.cpp lists them.
std::unique_ptr<Rewrite> createUnroll();
std::unique_ptr<Rewrite> createReadOnlyCache();
std::unique_ptr<Rewrite> createCacheHints();
std::unique_ptr<Rewrite> createVectorizeLoads();
std::unique_ptr<Rewrite> createFastMath();
std::unique_ptr<Rewrite> createHoistInvariant();
std::unique_ptr<Rewrite> createWarpReduce();
std::unique_ptr<Rewrite> createRegisterCache();
std::unique_ptr<Rewrite> createCoarsen();
std::unique_ptr<Rewrite> createFoldBlocks();
std::unique_ptr<Rewrite> createLaunch();
std::unique_ptr<Rewrite> createKeepOriginal();

/// The comment keep-original puts before its copy of \p Kernel
/// (KeepOriginal.cpp).
std::string keepOriginalMarker(llvm::StringRef Kernel);
/// Whether the file holds keep-original's copy of \p Kernel: a kernel
/// `<Kernel>_small` right after that comment (the launch rewrite's
/// small-entry needs it).
/// \p Kernels: findKernels() of the file.
bool keepsOriginal(const RewriteContext &RC, llvm::StringRef Kernel,
                   llvm::ArrayRef<const clang::FunctionDecl *> Kernels);

} // namespace astra

#endif
