//===- Registry.cpp - The rewrite catalogue -------------------------------===//
//
// The one place the catalogue is listed. Add a new rewrite: one file with
// `std::unique_ptr<Rewrite> createX()`, declared in Rewrites.h and listed
// here.
//
//===----------------------------------------------------------------------===//
#include "Rewrites.h"

using namespace llvm;

namespace astra {

const std::vector<std::unique_ptr<Rewrite>> &getRewrites() {
  static const std::vector<std::unique_ptr<Rewrite>> All = [] {
    std::vector<std::unique_ptr<Rewrite>> V;
    // Design section 4 order.
    V.push_back(createUnroll());
    V.push_back(createVectorizeLoads());
    V.push_back(createReadOnlyCache());
    V.push_back(createCacheHints());
    V.push_back(createFastMath());
    V.push_back(createHoistInvariant());
    V.push_back(createWarpReduce());
    V.push_back(createRegisterCache());
    V.push_back(createCoarsen());
    V.push_back(createFoldBlocks());
    V.push_back(createLaunch());
    V.push_back(createKeepOriginal());
    return V;
  }();
  return All;
}

Rewrite *findRewrite(StringRef Name) {
  for (const auto &R : getRewrites())
    if (R->getName() == Name)
      return R.get();
  return nullptr;
}

} // namespace astra
