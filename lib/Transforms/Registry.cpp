//===- Registry.cpp - The rewrite catalogue -------------------------------===//
#include "astra/Transforms/Rewrite.h"
#include "Rewrites.h"

using namespace llvm;

namespace astra {

Rewrite::~Rewrite() = default;

const std::vector<std::unique_ptr<Rewrite>> &getRewrites() {
  static const std::vector<std::unique_ptr<Rewrite>> All = [] {
    std::vector<std::unique_ptr<Rewrite>> V;
    // Keep in the order of design section 4.
    for (auto Make : getRewriteFactories())
      V.push_back(Make());
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
