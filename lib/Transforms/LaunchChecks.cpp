//===- LaunchChecks.cpp - Divisions and folds against the kernel's form ---===//
//
// Dividing the grid or the block, or folding blocks into the block's rows,
// is correct only for a kernel in the form another rewrite left it in
// (vectorize-loads' any-grid and any-block forms, fold-blocks, coarsen),
// recognised by the comments those forms open with.
//
//===----------------------------------------------------------------------===//
#include "FoldBlocks.h"
#include "LaunchChange.h"
#include "VectorizeLoadsPlan.h"

using namespace llvm;

namespace astra {
namespace {

/// Why the divisions of \p C do not fit the strides of the any-grid and
/// any-block forms in \p KernelText (the line after each form's marker
/// defines its stride, `gridDim.y * blockDim.x`): a grid extent divided must
/// be the one every form strides over, and so must the block's x extent.
/// Empty when they fit, or when there is no form (refused elsewhere).
std::string whyNotStrided(StringRef KernelText, const LaunchChange &C) {
  for (const char *Marker : {AnyGridMarker, AnyBlockMarker}) {
    for (size_t At = KernelText.find(Marker); At != StringRef::npos;
         At = KernelText.find(Marker, At + 1)) {
      StringRef Rest = KernelText.drop_front(At);
      StringRef Stride = Rest.split('\n').second.split('\n').first;
      auto Reads = [&](StringRef Dim) { return Stride.contains(Dim); };
      for (auto [Div, Dim, Key] : {std::tuple<int64_t, StringRef, StringRef>{
                                       C.GridDiv, "gridDim.x", "grid-x-div"},
                                   {C.GridYDiv, "gridDim.y", "grid-y-div"},
                                   {C.BlockDiv, "blockDim.x", "block-x-div"}})
        if (Div > 1 && !Reads(Dim) &&
            (Key == "block-x-div" || Marker == AnyGridMarker))
          return (Key +
                  " divides an extent that vectorize-loads' form does "
                  "not stride over (its stride: `" +
                  Stride.trim() + "`)")
              .str();
    }
  }
  return "";
}

} // namespace

std::string whyNotReshaped(StringRef KernelText, const LaunchChange &C) {
  bool AnyGrid = KernelText.contains(AnyGridMarker),
       AnyBlock = KernelText.contains(AnyBlockMarker);
  if (std::string Why = whyNotStrided(KernelText, C); !Why.empty())
    return Why;
  if ((C.GridDiv > 1 || C.GridYDiv > 1) && AnyBlock && !AnyGrid) {
    return "the grid cannot be divided: vectorize-loads' any-grid form "
           "at a per-block index (threadIdx alone) covers every element "
           "for any block, but each block's elements belong to its "
           "place in the grid (blockIdx indexes other things, such as "
           "tokens and heads); divide the block instead (block-x-div)";
  }
  std::string FoldWhy;
  for (auto [D, K] : {std::pair<char, int64_t>{'x', C.FoldX}, {'y', C.FoldY}})
    if (K > 1 && FoldWhy.empty() && !KernelText.contains(getFoldMarker(D)))
      FoldWhy = std::string("folding the grid's ") + D +
                " blocks into the block's rows needs a kernel whose "
                "rows take blocks of the grid: apply fold-blocks:dim=" +
                D + " first";
  if (C.FoldX > 1 && C.FoldY > 1)
    FoldWhy = "fold-x and fold-y both share block.y: give one";
  if (C.FoldX > 1 && C.GridDiv > 1)
    FoldWhy = "fold-x and grid-x-div both change grid.x: give one";
  if (C.FoldY > 1 && C.GridYDiv > 1)
    FoldWhy = "fold-y and grid-y-div both change grid.y: give one";
  if (!FoldWhy.empty())
    return FoldWhy;
  for (auto [D, K] : {std::pair<char, int64_t>{'x', C.FoldX}, {'y', C.FoldY}})
    if (K > 1 && !C.FoldExact && FoldWhy.empty() &&
        KernelText.contains(getFoldMarker(D) + " (" + getFoldExactNote()))
      FoldWhy = std::string("the kernel was folded exactly (its rows "
                            "share barriers and cannot return past a "
                            "bound): add fold-exact=1, so that grid.") +
                D + " is folded only where K divides it";
  if (!FoldWhy.empty())
    return FoldWhy;
  int64_t Coarsen = findCoarsenFactor(KernelText.str());
  if (Coarsen && C.BlockDiv > 1 && C.BlockDiv != Coarsen)
    return "the kernel was coarsened by " + std::to_string(Coarsen) +
           ": its block divides by exactly that (block-x-div=" +
           std::to_string(Coarsen) + "), or not at all";
  if (Coarsen && C.BlockDiv > 1 && !C.BlockExact)
    return "the kernel was coarsened: add block-exact=1, so that a block "
           "the factor does not divide stays whole (the original code "
           "runs there, and needs the original block)";
  if ((C.GridDiv > 1 || C.GridYDiv > 1 || (C.BlockDiv > 1 && !Coarsen)) &&
      !AnyGrid && !AnyBlock)
    return "dividing the grid or the block needs a kernel whose threads "
           "cover every element for any grid: apply "
           "vectorize-loads:any-grid=1 first (one element per thread)";
  return "";
}

} // namespace astra
