//===- FoldBlocks.cpp - Blocks of the grid as rows of one block -----------===//
//
// fold-blocks:kernel=k,dim=y[,bound=P]: in a kernel whose threads run along
// x only and whose blocks each take one index of the grid's y (or x) extent,
// a block's rows (threadIdx.y) become consecutive blocks of the original
// grid:
//
//   const unsigned int foldY = blockIdx.y * blockDim.y + threadIdx.y;
//   if (foldY >= static_cast<unsigned int>(P)) return;   // with bound=P
//
// and every `blockIdx.y` of the kernel reads foldY. Under the original launch
// (block.y = 1) foldY is blockIdx.y and the guard never fires: the kernel does
// what it did. Under `launch:fold-y=K` (grid.y / K rounded up, block.y = K)
// each block runs K of the original blocks side by side, so that small
// blocks (a head of 128 halves carried by 16 threads of 16-byte packs) fill
// an SM's thread slots instead of running out of its block slots (32 per SM
// on sm_80 and sm_90).
//
// The bound is the original grid's extent, which the folded kernel no longer
// sees: `bound=P`, an integer parameter (the agent takes it from the spec
// when the grid's extent is a scalar argument's value; the site says it
// assumes so), or a guard the kernel already has: `if (v >= n) return;` on a
// variable initialised from blockIdx.y, with only plain declarations (no
// memory reads, no calls) before it.
//
// `exact=1` folds a kernel with shared memory and barriers (a block
// reduction over 16-thread rows, after coarsen): no bound guard, since a row
// past it could not return before the block's barriers; the launch folds
// only where K divides the extent (`launch:fold-y=K,fold-exact=1`). Each
// shared array becomes its row's slice, `(a + threadIdx.y * blockDim.x)`:
// legal when the array has at least 1024 elements (a block's threads) and
// every index into it lies in [0, blockDim.x) (0, threadIdx.x, or a tree
// reduction over blockDim.x, WarpReduceMatch.h). Barriers are then shared by
// the rows: each must sit where every row arrives (no condition on
// threadIdx, blockIdx or memory above it) and the kernel must not return.
//
// Refused, with the reason: a kernel that reads threadIdx.y or blockDim.y (a
// 2-D block of its own), gridDim of the folded dimension (its extent
// changes), shared memory and barriers other than the above, warp
// collectives or inline assembly (a block's rows would share them), a device
// function it reaches that reads blockIdx, threadIdx.y, blockDim.y or
// gridDim (not rewritten), and a blockIdx inside a macro expansion. What the
// kernel runs is more than its calls (FoldBlocksScan.cpp): constructors with
// their in-class initialisers, destructors, lambdas written elsewhere; a call
// through a pointer, whose callee is not known, and a preprocessor
// conditional (`#if`, `# ifdef`, ...) in the kernel or a function it runs are
// refused.
//
//===----------------------------------------------------------------------===//
#include "FoldBlocks.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string getFoldMarker(char Dim) {
  return std::string("astra-opt fold-blocks: blockIdx.") + Dim + " -> blockIdx." +
         Dim + " * blockDim.y + threadIdx.y";
}

const char *getFoldExactNote() {
  return "exact fold: rows share the block's barriers";
}

std::string getCoarsenMarker(int64_t Factor) {
  return "astra-opt coarsen: each thread runs " + std::to_string(Factor) +
         " threads of the original block";
}

int64_t findCoarsenFactor(const std::string &Text) {
  StringRef Prefix = "astra-opt coarsen: each thread runs ";
  size_t At = StringRef(Text).find(Prefix);
  if (At == StringRef::npos)
    return 0;
  StringRef Rest = StringRef(Text).drop_front(At + Prefix.size());
  int64_t F = 0;
  Rest.consumeInteger(10, F);
  return F;
}

namespace {

class FoldBlocks : public Rewrite {
public:
  StringRef getName() const override { return "fold-blocks"; }
  StringRef getDescription() const override {
    return "blockIdx.y (or .x) -> blockIdx * blockDim.y + threadIdx.y, "
           "guarded by the grid's extent: a launch may then run several of "
           "the grid's blocks as the rows of one block (launch:fold-y=K)";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Dim{"dim",
                  RewriteParamKind::Enum,
                  "y",
                  {"y", "x"},
                  "the grid dimension whose blocks are folded"};
    Dim.Choices = {"y", "x"};
    ParamDesc Bound{"bound", RewriteParamKind::Name, "", {""},
                    "the integer parameter that holds the grid's extent in "
                    "that dimension (empty: the kernel's own guard)"};
    // exact=1 is not enumerated: the agent proposes it with its launch
    // where the spec's kernel has barriers (Run.cpp, foldSteps).
    ParamDesc Exact{"exact", RewriteParamKind::Enum, "0", {"0"},
                    "1: no bound guard; the launch folds only where K "
                    "divides the extent (fold-exact=1), so that rows may "
                    "share barriers and take slices of shared arrays"};
    Exact.Choices = {"0", "1"};
    return {Dim, Bound, Exact};
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

Expected<std::vector<Rewrite::PlannedSite>>
FoldBlocks::plan(RewriteContext &RC, const RewriteParams &P) const {
  char Dim = P.getString("dim", "y")[0];
  std::string BoundName = P.getString("bound", "");
  bool Exact = P.getString("exact", "0") == "1";
  ASTContext &Ctx = RC.getASTContext();
  StringSet<> Taken;
  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Name = K->getNameAsString();
    RewriteSite Site;
    Site.Kernel = Name;
    Site.Selected = isSelected(P, Name, "");
    Site.Loc = RC.getDiagLoc(K->getLocation());
    std::string What = std::string("fold-blocks of ") + Name + " (blockIdx." +
                       Dim + "): ";
    auto Refuse = [&](const Twine &Why, SourceLocation L) {
      Site.Detail = What + Why.str();
      if (L.isValid())
        Site.Detail += " (" + getLineCol(RC, L) + ")";
      Sites.push_back({Site, nullptr});
    };
    const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
    if (!Body) {
      Refuse("no body", SourceLocation());
      continue;
    }
    FoldScanResult Scan = scanFold(RC, K, Dim, Exact);
    if (!Scan.Why.empty()) {
      Refuse(Scan.Why, Scan.WhyLoc);
      continue;
    }
    if (Scan.Uses.empty()) {
      Refuse(std::string("it does not read blockIdx.") + Dim, SourceLocation());
      continue;
    }
    std::string Macro;
    for (const Expr *U : Scan.Uses)
      if (std::string Why = getMacroReason(RC, U->getSourceRange());
          !Why.empty()) {
        Refuse("blockIdx." + std::string(1, Dim) + " " + Why, U->getBeginLoc());
        Macro = Why;
        break;
      }
    if (!Macro.empty())
      continue;
    std::string BoundText, BoundFrom;
    std::vector<RowTreeShuffle> Shuffles;
    if (Exact) {
      if (!BoundName.empty()) {
        Refuse("exact=1 takes no bound (the launch folds only where K "
               "divides the extent)",
               SourceLocation());
        continue;
      }
      SourceLocation WhyLoc;
      std::string Why = checkRowSlices(Ctx, K, Scan.Rows, WhyLoc);
      if (!Why.empty()) {
        Refuse(Why, WhyLoc);
        continue;
      }
      BoundFrom = "exact: no bound guard";
      if (!Scan.Rows.Shared.empty())
        BoundFrom += ", each row its slice of the shared array" +
                     std::string(Scan.Rows.Shared.size() > 1 ? "s" : "");
      if (!Scan.Rows.Barriers.empty())
        BoundFrom += ", the rows share its barriers";
      Shuffles = findRowTreeShuffles(Ctx, K, Taken);
      if (!Shuffles.empty())
        BoundFrom += ", its tree" +
                     std::string(Shuffles.size() > 1 ? "s" : "") +
                     " as xor shuffles where the rows are whole warps' "
                     "power-of-two parts";
      Site.Assumes = std::string("the launch folds the grid's ") + Dim +
                     " extent only where K divides it "
                     "(launch:fold-" +
                     Dim + "=K,fold-exact=1)";
    } else if (!BoundName.empty()) {
      const ParmVarDecl *Param = nullptr;
      for (const ParmVarDecl *PV : K->parameters())
        if (PV->getName() == BoundName)
          Param = PV;
      if (!Param || !Param->getType()->isIntegerType()) {
        Refuse("bound=" + BoundName + " is not an integer parameter of " + Name,
               SourceLocation());
        continue;
      }
      BoundText = BoundName;
      Site.Assumes = std::string("the grid's ") + Dim + " extent is " +
                     BoundName + " (the spec's grid)";
      BoundFrom = "bound " + BoundName;
    } else if (const IfStmt *G = findGuard(Ctx, Body, Dim)) {
      BoundFrom = "bound from the kernel's guard at " +
                  getLineCol(RC, G->getBeginLoc());
      Site.Assumes = std::string("the kernel's guard at ") +
                     getLineCol(RC, G->getBeginLoc()) + " bounds the grid's " +
                     Dim + " extent (no block past it does work)";
    } else {
      Refuse(std::string("the folded index needs a bound: no `if (v >= n) "
                         "return;` on blockIdx.") +
                 Dim + " before anything else; give bound=<the integer "
                       "parameter holding the grid's " +
                 Dim + " extent>",
             SourceLocation());
      continue;
    }
    std::string Var = makeFreshName(Ctx, Dim == 'y' ? "foldY" : "foldX", Taken);
    std::string Text = "// " + getFoldMarker(Dim) + " (" +
                       (Exact ? std::string(getFoldExactNote()) + "; " : "") +
                       "the rows of a block are blocks of the original "
                       "grid; under the original launch, block.y = 1, it is "
                       "blockIdx." +
                       Dim + ")\nconst unsigned int " + Var + " = blockIdx." +
                       Dim + " * blockDim.y + threadIdx.y;";
    if (!BoundText.empty())
      Text += "\nif (" + Var + " >= static_cast<unsigned int>(" + BoundText +
              ")) return;";
    Site.Applicable = true;
    Site.Detail = What + std::to_string(Scan.Uses.size()) + " use" +
                  (Scan.Uses.size() == 1 ? "" : "s") + " read " + Var +
                  " = blockIdx." + Dim + " * blockDim.y + threadIdx.y; " +
                  BoundFrom + "; launch:fold-" + Dim +
                  "=K then runs K blocks as the rows of one";
    std::vector<SourceRange> Uses;
    for (const Expr *U : Scan.Uses)
      Uses.push_back(U->getSourceRange());
    std::vector<std::pair<SourceRange, std::string>> Slices;
    for (const DeclRefExpr *R : Scan.Rows.SharedRefs)
      Slices.push_back({R->getSourceRange(),
                        "(" + R->getDecl()->getNameAsString() +
                            " + threadIdx.y * blockDim.x)"});
    Sites.push_back(
        {Site, [&RC, Body, Text, Var, Uses, Slices, Shuffles](EditBatch &B) {
           insertAtBodyStart(RC, B, Body, Text);
           for (const RowTreeShuffle &S : Shuffles)
             insertLineBefore(RC, B, S.Before, S.Text);
           for (SourceRange R : Uses)
             B.replace(R, Var);
           for (const auto &[R, T] : Slices)
             B.replace(R, T);
         }});
  }
  return std::move(Sites);
}

} // namespace

std::unique_ptr<Rewrite> createFoldBlocks() {
  return std::make_unique<FoldBlocks>();
}

} // namespace astra
