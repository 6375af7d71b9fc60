//===- Rewrites.cpp - The list of the catalogue's rewrites ----------------===//
// Add a new rewrite: one file with `std::unique_ptr<Rewrite> createX()`,
// declared and listed here.
#include "Rewrites.h"

namespace astra {

std::vector<RewriteFactory> getRewriteFactories() {
  // Design section 4 order.
  return {
      createUnroll,
      createVectorizeLoads,
      createReadOnlyCache,
      createFastMath,
      createHoistInvariant,
  };
}

} // namespace astra
