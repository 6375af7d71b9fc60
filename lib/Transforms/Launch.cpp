//===- Launch.cpp - A kernel's launch: block size, grid, __launch_bounds__
//-===//
//
// `launch` changes how a kernel is launched, not what a thread computes:
//
//   launch:kernel=k,B=512           a tunable variable of the spec (the spec
//                                   declares the kernel correct for each of
//                                   its values: docs/spec.md, `tunable`)
//   launch:kernel=k,grid-x-div=8    the grid's x extent divided, rounded up
//   launch:kernel=k,block-x-div=2   the block's x extent divided, rounded up
//   launch:kernel=k,fold-y=8        8 of the grid's y blocks as the rows of
//                                   one block (grid.y / 8, block.y x 8),
//                                   after fold-blocks:dim=y (FoldBlocks.cpp)
//   min-threads=N                   all of the change only where the spec's
//                                   launch has at least N threads (size-
//                                   dependent); below, the spec's launch
//   block=512                       the new threads per block, for the edits
//
// Its contract goes to the harness (the candidate runs with its own launch,
// the original with the spec's: docs/harness.md, "Launch overrides") and
// into the plan and the report, so that a caller elsewhere can follow. In
// the file it edits what encodes the launch: the kernel's
// `__launch_bounds__(N)` (to `block`), and every `<<<grid, block, ...>>>` of
// the kernel in the same file whose grid or block is an integer (divided,
// or set to `block`); a dim3 argument is left as it is, with a warning.
// A block size written as a constant or a macro changes at its initializer
// or definition, when only this kernel and its launches read it; a template
// parameter or argument is refused (LaunchConst.cpp says why). Under
// min-threads nothing that holds at every size is edited: a <<<...>>> gets a
// warning, a constant block size is refused, and `__launch_bounds__` only
// grows (it must allow the old block, which the smaller launches keep).
//
// Dividing the grid or the block is correct only for a kernel whose threads
// cover every element whatever the grid: the kernel must hold
// vectorize-loads' any-grid form (grid-stride loops over the packs, the tail
// and the fallback; recognised by the comment that form opens with). Any
// other kernel is refused there, with the reason. At a per-block index
// (`i = threadIdx.x`) that form is the any-block form: block-stride loops,
// right for any block but not for any grid (each block's elements belong to
// its place in the grid), so there only block-x-div is accepted.
//
//===----------------------------------------------------------------------===//
#include "LaunchRewrite.h"
#include "Rewrites.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Every `<<<...>>>` launch written in the main file.
struct LaunchCollector : RecursiveASTVisitor<LaunchCollector> {
  const SourceManager &SM;
  std::vector<const CUDAKernelCallExpr *> Calls;
  explicit LaunchCollector(const SourceManager &SM) : SM(SM) {}
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    if (SM.isWrittenInMainFile(SM.getFileLoc(E->getBeginLoc())))
      Calls.push_back(E);
    return true;
  }
};

} // namespace

StringRef Launch::getDescription() const {
  return "the kernel's launch: tunable spec variables (B=512), the grid's "
         "or block's x extent divided (grid-x-div=8, after vectorize-loads' "
         "any-grid form); edits __launch_bounds__ and <<<...>>> in the "
         "file (a block size written as a constant or a macro at its "
         "definition, when only the kernel and its launches read it), and "
         "the plan and report carry the new launch";
}

std::vector<ParamDesc> Launch::getParams() const {
  auto Int = [](StringRef Key, StringRef Default, int64_t Min, int64_t Max,
                StringRef Help) {
    ParamDesc D{Key.str(),
                RewriteParamKind::Int,
                Default.str(),
                {Default.str()},
                Help.str()};
    D.Min = Min;
    D.Max = Max;
    return D;
  };
  return {Int("grid-x-div", "1", 1, 1024,
              "divide the grid's x extent (rounded up); needs "
              "vectorize-loads:any-grid=1 at a global index"),
          Int("grid-y-div", "1", 1, 65535,
              "divide the grid's y extent (rounded up); needs "
              "vectorize-loads:any-grid=1 at an index that strides over "
              "gridDim.y"),
          Int("block-x-div", "1", 1, 1024,
              "divide the block's x extent (rounded up); needs "
              "vectorize-loads:any-grid=1 (also at a per-block index)"),
          Int("fold-x", "1", 1, 1024,
              "run this many of the grid's x blocks as the rows of one "
              "block (grid.x / K, block.y x K); needs fold-blocks:dim=x"),
          Int("fold-y", "1", 1, 1024,
              "the same for the grid's y blocks; needs fold-blocks:dim=y"),
          Int("block-exact", "0", 0, 1,
              "1: divide the block only where block-x-div divides it "
              "(elsewhere it stays whole); needs coarsen"),
          Int("fold-exact", "0", 0, 1,
              "1: fold only where K divides the grid's extent (elsewhere "
              "block.y stays 1); needs fold-blocks:exact=1"),
          Int("min-threads", "0", 0, int64_t(1) << 40,
              "change the launch only where the spec's launch has at least "
              "this many threads (grid x block); smaller launches stay as "
              "the spec gives them"),
          Int("small-entry", "0", 0, 1,
              "1: below min-threads the launches run the kernel's copy "
              "<kernel>_small (keep-original:kernel=<kernel>, first in the "
              "plan: the original code) instead of the kernel"),
          Int("block", "0", 0, 1024,
              "threads per block of the new launch, written into "
              "__launch_bounds__ and <<<...>>> (0: unchanged)"),
          Int("template-arg", "-1", -1, 63,
              "the kernel template's argument (0-based) that is its block "
              "size: the new launch is a new instantiation with it set to "
              "block= (-1: none)")};
}

Expected<std::vector<Rewrite::PlannedSite>>
Launch::plan(RewriteContext &RC, const RewriteParams &P) const {
  LaunchChange C;
  for (const auto &KV : P.Values) {
    StringRef Key = KV.getKey();
    if (Key != "grid-x-div" && Key != "grid-y-div" && Key != "block-x-div" &&
        Key != "block" && Key != "min-threads" && Key != "fold-x" &&
        Key != "fold-y" && Key != "fold-exact" && Key != "block-exact" &&
        Key != "template-arg" && Key != "small-entry")
      C.Vars.push_back(Key.str() + "=" + KV.getValue());
  }
  llvm::sort(C.Vars);
  for (auto [Key, Out] :
       {std::pair<StringRef, int64_t *>{"grid-x-div", &C.GridDiv},
        {"grid-y-div", &C.GridYDiv},
        {"block-x-div", &C.BlockDiv},
        {"fold-x", &C.FoldX},
        {"fold-y", &C.FoldY},
        {"fold-exact", &C.FoldExact},
        {"block-exact", &C.BlockExact},
        {"min-threads", &C.MinThreads},
        {"small-entry", &C.SmallEntry},
        {"block", &C.Block},
        {"template-arg", &C.TemplateArg}}) {
    Expected<int64_t> V = P.getInt(Key, *Out);
    if (!V)
      return V.takeError();
    *Out = *V;
  }
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  LaunchCollector Launches(SM);
  Launches.TraverseDecl(Ctx.getTranslationUnitDecl());

  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx))
    planKernel(RC, P, C, K, Launches.Calls, Sites);
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createLaunch() { return std::make_unique<Launch>(); }

} // namespace astra
