//===- VectorizeLoads.cpp - The vectorize-loads rewrite -------------------===//
//
// Unit-stride global loads and stores in a loop become 8- or 16-byte vector
// accesses; each thread handles W consecutive elements per step
// (W = width / sizeof(element)), a scalar tail handles the rest, and a
// run-time guard keeps the original loop as the fallback.
//
// Exactly what is rewritten (VectorizeLoadsAnalysis.cpp,
// VectorizeLoadsBody.cpp)
//
//   for (T i = S; i < n; i += P) BODY        (also `++i`, `n > i`)
//
// where (S, P) is one of  (0, 1)  (threadIdx.d, blockDim.d)
//   (blockIdx.d * blockDim.d + threadIdx.d, blockDim.d * gridDim.d),
// also through unmodified local variables. Over all threads such a loop visits
// every index of [0, n) exactly once (or, for (0, 1), every thread visits all
// of them), and the same holds for any prefix of [0, n). That is what makes
// the rewritten loop correct for every n:
//
//   vector loop:  for (T c = S; c < n / W; c += P)  elements [c*W, c*W + W)
//                 - the chunks 0 .. n/W-1 are split over the threads exactly
//                   as the original split the indices 0 .. n/W-1;
//   scalar tail:  elements [n/W*W, n), fewer than W; each is run by the thread
//                 whose original loop visited it (first index >= n/W*W that
//                 is S + k*P, then step P);
//   n == 0 or n < W: the vector loop does nothing, the tail does everything.
//
// The body must use each pointer variable p only as p[base + i] (base
// invariant in the loop and the same for all threads that share it; each
// (p, base) becomes one vector load and/or store), p[base + i * s] with a
// runtime stride s (guarded by s == 1), or p[e] with e free of i (kept as is,
// and only for pointers that the loop does not store). A stored pointer is
// accessed at a single offset, so an element's read and write are the same
// element in both versions. The only values carried between iterations are
// scalar reductions (`v op= e`, `v = v op e`, `v = max(v, e)`, ...): each
// thread reduces its own elements, so the summation order (and which thread
// holds which partial) changes; the harness judges the tolerance. Not
// accepted: break, continue, return, goto, barriers and warp collectives,
// nested loops, a modified induction variable, stores to arrays or through
// other lvalues, a #pragma on the loop.
//
// The guard (uniform over the threads that share the loop) is: every
// (p + base) is aligned to the access size, every runtime stride is 1. A group
// that is stored on every iteration and never read is not loaded; one that is
// read, or stored only on some paths, is loaded first and written back whole.
// Assumed, like the original kernel's threads do: distinct pointer variables
// that are stored do not overlap the other accessed ranges except at the very
// same element (in place).
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "VectorizeLoadsMemory.h"
#include "VectorizeLoadsPlan.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/LoopForm.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
class VectorizeLoads : public Rewrite {
public:
  StringRef getName() const override { return "vectorize-loads"; }
  StringRef getDescription() const override {
    return "unit-stride global loads/stores in loops become 8/16-byte vector "
           "accesses with a scalar tail, behind a run-time alignment/stride "
           "check that keeps the original loop as the fallback";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Width{"width",
                    RewriteParamKind::Int,
                    "16",
                    {"16", "8"},
                    "bytes per vector access: 16 or 8"};
    Width.Choices = {"16", "8"};
    // Not enumerated on its own: the search proposes it together with
    // launch:grid-x-div / block-x-div, which it enables (SearchAgent.cpp).
    ParamDesc AnyGrid{"any-grid",
                      RewriteParamKind::Bool,
                      "0",
                      {"0"},
                      "1: a one-element-per-thread kernel covers every "
                      "element below its bound for any grid (grid-stride), "
                      "so that launch:grid-x-div may shrink the grid; at a "
                      "per-block index (threadIdx alone), for any block "
                      "(block-stride), so that launch:block-x-div may "
                      "shrink the block; at a block-stride loop (loop=), "
                      "packs only where the block does not cover the loop "
                      "in one step, so that launch:block-x-div may shrink "
                      "the block"};
    return {Width, AnyGrid};
  }
  Scope getScope() const override { return Scope::Loop; }

  /// What a plan does, for the site's detail.
  static std::string describe(const VecLoopPlan &Plan) {
    std::string S = std::to_string(Plan.WidthBytes) + "-byte accesses to " +
                    std::to_string(Plan.Groups.size()) +
                    " pointer offset(s), " + describeWidth(Plan) +
                    " elements per thread and step";
    if (!Plan.WidenedBody.empty())
      S += "; the body runs once per pack (values the lanes share once, the "
           "rest per lane)";
    if (!Plan.DivisibleBy.empty())
      S += "; checks that " + join(Plan.DivisibleBy, ", ") +
           " divide(s) into packs";
    if (!Plan.ApartByExtent.empty())
      S += "; accesses " + join(Plan.ApartByExtent, ", ") +
           " (the extent of the index: disjoint ranges)";
    if (!Plan.ApartGuards.empty())
      S += "; checks that " + join(Plan.ApartGuards, ", ") +
           " (offsets of a stored pointer stay disjoint)";
    if (!Plan.NonZero.empty())
      S += "; a buffer stored at two offsets (pairs): checks that " +
           join(Plan.NonZero, ", ") +
           (Plan.NonZero.size() == 1 ? " is" : " are") + " not zero";
    if (!Plan.Inlined.empty())
      S += "; inlines " + join(Plan.Inlined, ", ") + " per lane";
    if (Plan.VectorAtomics)
      S += "; float atomics become " + std::to_string(Plan.WidthBytes) +
           "-byte red.global.add (sm_90)";
    if (Plan.RegroupsFloatReduction)
      S += "; regroups a floating-point reduction";
    return S;
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override {
    Expected<int64_t> Width = P.getInt("width", 16);
    if (!Width)
      return Width.takeError();
    Expected<int64_t> AnyGrid = P.getInt("any-grid", 0);
    if (!AnyGrid)
      return AnyGrid.takeError();
    ASTContext &Ctx = RC.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    std::vector<PlannedSite> Sites;
    for (const FunctionDecl *K : findKernels(Ctx)) {
      std::string Name = K->getNameAsString();
      // The kernel as a whole: one element per thread.
      auto Thread = std::make_shared<VecLoopPlan>();
      SourceLocation Where;
      std::string Why;
      unsigned Begin = 0, End = 0;
      bool ThreadApplies = false;
      if (analyzePerThread(Ctx, K, static_cast<unsigned>(*Width), *Thread,
                           Where, Why, Begin, End)) {
        RewriteSite Site;
        Site.Kernel = Name;
        Site.Selected = isSelected(P, Name, "");
        Site.Loc = RC.getDiagLoc(Where);
        if (Why.empty())
          Why = findImpossibleGuard(*Thread);
        if (Why.empty() && *AnyGrid && !Thread->RegionOnce.empty())
          Why = "any-grid=1 runs the body several times per thread, and " +
                Thread->RegionOnce;
        if (Why.empty() && *AnyGrid && Thread->PerBlock &&
            !Thread->AnyBlockWhy.empty())
          Why = "any-grid=1 at a per-block index (threadIdx alone) lets "
                "the block shrink, and " +
                Thread->AnyBlockWhy;
        if (Why.empty() && *AnyGrid && !Thread->PerBlock && Thread->HasTrailing)
          Why = "any-grid=1 runs the body several times per thread, and "
                "statements follow the bound check's block";
        Thread->AnyGrid = *AnyGrid;
        if (!Why.empty()) {
          Site.Detail = "one element per thread: " + Why;
          Sites.push_back({std::move(Site), nullptr});
        } else {
          Site.Applicable = true;
          ThreadApplies = Site.Selected;
          Site.ChangesRounding = Thread->RegroupsFloatReduction;
          Site.Reassociates = Thread->RegroupsFloatReduction;
          Site.Detail =
              (Thread->PerBlock ? "one element per thread of a block, packs "
                                  "strided by blockDim: "
                                : "one element per thread: ") +
              describe(*Thread);
          if (*AnyGrid && Thread->PerBlock) {
            Site.Detail += "; any block: block-stride over every element "
                           "below the bound, the fallback too (only "
                           "launch:block-x-div may follow, not grid-x-div)";
            Site.Assumes = "the original's block covers every element "
                           "(blockDim >= the bound)";
          } else if (*AnyGrid) {
            Site.Detail += "; any grid: grid-stride over every element "
                           "below the bound, the fallback too";
            Site.Assumes = "the original's launch covers every element "
                           "(gridDim * blockDim >= the bound)";
          }
          // Which launch the any-grid form lets shrink: the block only, for
          // an index of the block's threads (the grid indexes other things).
          Site.BlockSplitOnly = Thread->PerBlock;
          Site.GridDim = Thread->StrideGridDim;
          Site.BlockDim = Thread->StrideBlockDim;
          // Replaced up to the kernel's closing brace (a `return` bound
          // check), the code ends its line before it.
          StringRef Buf = SM.getBufferData(SM.getMainFileID());
          bool BeforeBrace = End < Buf.size() && Buf[End] == '}';
          Sites.push_back({std::move(Site),
                           [Thread, Begin, End, BeforeBrace](EditBatch &E) {
                             std::string Text = generatePerThread(*Thread);
                             if (BeforeBrace &&
                                 !StringRef(Text).ends_with("\n"))
                               Text += "\n";
                             E.replaceBlock(Begin, End, Text);
                           }});
        }
      }
      std::vector<const Stmt *> Loops = collectLoops(K->getBody());
      for (unsigned I = 0; I < Loops.size(); ++I) {
        RewriteSite Site;
        Site.Kernel = Name;
        Site.LoopId = makeLoopId(Name, I);
        Site.Selected = isSelected(P, Name, Site.LoopId);
        auto Plan = std::make_shared<VecLoopPlan>();
        SourceLocation Where;
        unsigned LoopAt =
            SM.getFileOffset(SM.getFileLoc(Loops[I]->getBeginLoc()));
        std::string Why =
            ThreadApplies && LoopAt >= Begin && LoopAt < End
                ? "inside the per-thread body that this run vectorizes as a "
                  "whole"
                : analyzeVectorLoop(Ctx, K, Loops[I],
                                    static_cast<unsigned>(*Width), *Plan,
                                    Where);
        if (Why.empty())
          Why = findImpossibleGuard(*Plan);
        // A block-stride loop covers every element for any block: its
        // any-block form lets launch:block-x-div shrink the block, where
        // the rest of the kernel does not care how many threads it has.
        std::string AnyBlockWhy =
            "any-grid=1 at a loop applies to block-stride loops only "
            "(threadIdx.x and blockDim.x)";
        SourceLocation AnyWhere;
        if (Why.empty() && Plan->Partition == LoopPartition::Block)
          AnyBlockWhy = vectorize::whyNotAnyBlockLoop(
              K, cast<ForStmt>(Loops[I]),
              analyzeLoopForm(Ctx, Loops[I], nullptr).IV, Plan->PartitionDim,
              AnyWhere);
        if (Why.empty() && *AnyGrid && !AnyBlockWhy.empty()) {
          Why = AnyBlockWhy;
          if (AnyWhere.isValid())
            Where = AnyWhere;
        }
        Plan->AnyGrid = *AnyGrid;
        if (Where.isInvalid())
          Where = Loops[I]->getBeginLoc();
        Site.Loc = RC.getDiagLoc(Where);
        if (!Why.empty()) {
          Site.Detail = "loop " + Site.LoopId + ": " + Why;
          Sites.push_back({std::move(Site), nullptr});
          continue;
        }
        Site.Applicable = true;
        Site.ChangesRounding = Plan->RegroupsFloatReduction;
        Site.Reassociates = Plan->RegroupsFloatReduction;
        Site.Detail = describe(*Plan);
        if (AnyBlockWhy.empty()) {
          Site.BlockSplitOnly = true;
          Site.BlockDim = 'x';
          Site.Extent = Plan->End;
          if (*AnyGrid)
            Site.Detail += "; any block: packs only where the block does "
                           "not cover the loop in one step (only "
                           "launch:block-x-div may follow, not grid-x-div)";
        }
        const auto *For = cast<ForStmt>(Loops[I]);
        Sites.push_back(
            {std::move(Site), [For, Plan](EditBatch &Edits) {
               unsigned Begin = Edits.beginOf(SourceRange(For->getBeginLoc()));
               Edits.replaceBlock(Begin, Begin + Plan->LoopText.size(),
                                  generateVectorLoop(*Plan));
             }});
      }
    }
    return std::move(Sites);
  }
};
} // namespace

std::unique_ptr<Rewrite> createVectorizeLoads() {
  return std::make_unique<VectorizeLoads>();
}

} // namespace astra
