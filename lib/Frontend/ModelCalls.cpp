//===- ModelCalls.cpp - Which calls the model reports ---------------------===//
#include "ModelBody.h"
#include "llvm/ADT/StringSet.h"

namespace astra {

/// Standard math functions whose cost a rewrite can cut (fast-math,
/// hoist-invariant): float and double forms, and the half precision ones.
static const llvm::StringSet<> &getMathNames() {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> S;
    for (const char *Base :
         {"exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
          "pow", "sqrt", "rsqrt", "cbrt", "rcbrt", "sin", "cos", "tan",
          "sincos", "sinpi", "cospi", "tanh", "sinh", "cosh", "asin", "acos",
          "atan", "atan2", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv",
          "erfcinv", "hypot", "norm3d", "fmod", "remainder", "lgamma",
          "tgamma", "normcdf", "normcdfinv"}) {
      S.insert(Base);
      S.insert((llvm::Twine(Base) + "f").str());
    }
    for (const char *H : {"hexp", "hexp2", "hlog", "hlog2", "hsqrt", "hrsqrt",
                          "hrcp", "hsin", "hcos", "htanh", "h2exp", "h2exp2",
                          "h2log", "h2log2", "h2sqrt", "h2rsqrt", "h2rcp",
                          "h2sin", "h2cos", "h2tanh"})
      S.insert(H);
    return S;
  }();
  return Names;
}

CallCategory classifyCall(llvm::StringRef Name, bool IsUserFunction) {
  if (Name.empty() || IsUserFunction)
    return CallCategory::None;
  if (Name == "__syncthreads" || Name == "__syncwarp" ||
      Name.starts_with("__syncthreads_") || Name.starts_with("__threadfence") ||
      Name == "__barrier_sync")
    return CallCategory::Barrier;
  if ((Name.starts_with("__shfl") || Name.starts_with("__reduce_") ||
       Name.starts_with("__match_")) && Name.ends_with("_sync"))
    return CallCategory::Warp;
  if (Name == "__ballot_sync" || Name == "__any_sync" || Name == "__all_sync" ||
      Name == "__uni_sync" || Name == "__activemask")
    return CallCategory::Warp;
  if (getMathNames().contains(Name))
    return CallCategory::Math;
  // CUDA's own intrinsics; Clang's builtins and the wrappers behind
  // threadIdx & co. are implementation details.
  if (Name.starts_with("__") && !Name.starts_with("__builtin") &&
      !Name.starts_with("__nvvm") && !Name.starts_with("__fetch_builtin") &&
      !Name.starts_with("__cuda"))
    return CallCategory::Intrinsic;
  return CallCategory::None;
}

} // namespace astra
