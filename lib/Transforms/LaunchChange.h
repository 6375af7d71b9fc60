//===- LaunchChange.h - What the launch rewrite is asked to change -*- C++ -*-//
//
// Private to lib/Transforms: the launch a `launch` step asks for, and the
// checks of a grid or block division or fold against the kernel's text
// (LaunchChecks.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_LAUNCHCHANGE_H
#define ASTRA_LIB_TRANSFORMS_LAUNCHCHANGE_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace astra {

/// The launch the parameters ask for.
struct LaunchChange {
  std::vector<std::string> Vars; ///< "B=512"
  int64_t GridDiv = 1, BlockDiv = 1, GridYDiv = 1;
  int64_t FoldX = 1, FoldY = 1; ///< blocks folded into the block's rows
  int64_t FoldExact = 0;        ///< a fold only where K divides the extent
  int64_t BlockExact = 0;       ///< block.x divided only where it divides
  int64_t Block = 0;            ///< 0: not given
  /// The template argument that is the block size, set to Block: a new
  /// instantiation (LaunchTemplate.cpp); -1: none.
  int64_t TemplateArg = -1;
  /// All of the change only where the spec's launch has this many threads
  /// (0: always); below it, the spec's launch.
  int64_t MinThreads = 0;
  /// Below MinThreads the launches run the kernel's copy `<k>_small` that
  /// keep-original kept, not the kernel (1) or the kernel (0).
  int64_t SmallEntry = 0;
  bool empty() const {
    return Vars.empty() && GridDiv == 1 && BlockDiv == 1 && !Block &&
           GridYDiv == 1 && FoldX == 1 && FoldY == 1 && TemplateArg < 0;
  }
  bool folds() const { return FoldX > 1 || FoldY > 1; }
  std::string describe() const {
    std::vector<std::string> Parts = Vars;
    if (GridDiv > 1)
      Parts.push_back("grid.x / " + std::to_string(GridDiv) + " (rounded up)");
    if (GridYDiv > 1)
      Parts.push_back("grid.y / " + std::to_string(GridYDiv) + " (rounded up)");
    if (BlockDiv > 1)
      Parts.push_back(
          "block.x / " + std::to_string(BlockDiv) +
          (BlockExact ? " (only where it divides)" : " (rounded up)"));
    for (auto [D, K] : {std::pair<char, int64_t>{'x', FoldX}, {'y', FoldY}})
      if (K > 1)
        Parts.push_back(
            std::string("grid.") + D + " / " + std::to_string(K) +
            " (rounded up) with block.y x " + std::to_string(K) + " (" +
            std::to_string(K) + " blocks as the rows of one" +
            (FoldExact
                 ? ", only where " + std::to_string(K) + " divides grid." + D
                 : std::string()) +
            ")");
    if (Block)
      Parts.push_back(std::to_string(Block) + " threads per block");
    if (TemplateArg >= 0)
      Parts.push_back("instantiated with template argument " +
                      std::to_string(TemplateArg) + " = " +
                      std::to_string(Block));
    if (MinThreads && Parts.empty() && SmallEntry)
      return "the spec's launch as it is, of the kernel from " +
             std::to_string(MinThreads) +
             " threads on and of its copy _small (keep-original) below";
    if (MinThreads)
      Parts.push_back("all of it only where the spec's launch has at least " +
                      std::to_string(MinThreads) + " threads" +
                      (SmallEntry ? " (below it, the kernel's copy _small "
                                    "that keep-original kept)"
                                  : ""));
    return llvm::join(Parts, ", ");
  }
};

/// Why the kernel \p KernelText (its source) cannot take the divisions and
/// folds of \p C: the forms of vectorize-loads, fold-blocks and coarsen that
/// each needs, and what cannot go together; empty when it can.
std::string whyNotReshaped(llvm::StringRef KernelText, const LaunchChange &C);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_LAUNCHCHANGE_H
