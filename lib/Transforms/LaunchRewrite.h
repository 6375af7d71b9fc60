//===- LaunchRewrite.h - The launch rewrite ---------------------*- C++ -*-===//
//
// Private to lib/Transforms: the `launch` rewrite (Launch.cpp: its
// parameters and what it is asked to change; LaunchEdits.cpp: whether it
// applies to one kernel, and the edits there).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_LAUNCHREWRITE_H
#define ASTRA_LIB_TRANSFORMS_LAUNCHREWRITE_H

#include "LaunchChange.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace astra {

/// `launch`: what it is asked to change in Launch.cpp, one kernel at a time
/// in LaunchEdits.cpp.
class Launch : public Rewrite {
public:
  llvm::StringRef getName() const override { return "launch"; }
  llvm::StringRef getDescription() const override;
  std::vector<ParamDesc> getParams() const override;
  bool takesLaunchVariables() const override { return true; }
  bool changesLaunch() const override { return true; }

protected:
  llvm::Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;

private:
  /// Adds to \p Sites kernel \p K's site under \p C: refused with the
  /// reason, or the edits of its `__launch_bounds__`, its block-size
  /// constants and its launches among \p Calls (every `<<<...>>>` of the
  /// main file).
  void planKernel(RewriteContext &RC, const RewriteParams &P,
                  const LaunchChange &C, const clang::FunctionDecl *K,
                  llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Calls,
                  std::vector<PlannedSite> &Sites) const;
};

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_LAUNCHREWRITE_H
