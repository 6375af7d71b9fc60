//===- FoldBlocks.h - What fold-blocks leaves for the launch ----*- C++ -*-===//
//
// Private to lib/Transforms: the comment fold-blocks opens a folded kernel
// with, which the launch rewrite looks for before it folds the launch
// (`launch:fold-y=K`).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H
#define ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H

#include <string>

namespace astra {

/// "astra-opt fold-blocks: blockIdx.y -> blockIdx.y * blockDim.y +
/// threadIdx.y" for \p Dim 'y'.
std::string getFoldMarker(char Dim);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_FOLDBLOCKS_H
