//===- WarpReduce.cpp - Shared-memory trees become warp shuffles ----------===//
//
// warp-reduce[:shuffle=xor|down|tree]
//   A tree whose step is any other code (an arg-max), or any tree with
//   shuffle=tree, takes the tuple form: the original's pairs in its order,
//   bit-exact (WarpReduceTuple.cpp). What follows is the form of a
//   shared-memory tree reduction (sum, max or min; WarpReduceMatch.h)
//
//     __syncthreads();
//     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
//       if (threadIdx.x < s) a[threadIdx.x] += a[threadIdx.x + s];
//       __syncthreads();
//     }
//
//   becomes, behind a run-time guard with the tree as the fallback,
//
//     if (blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 &&
//         2 * (S0) == blockDim.x && ((S0) & ((S0) - 1)) == 0) {
//       __shared__ float warpPartial[32];
//       float v = a[threadIdx.x];
//       for (off = 16; off > 0; off >>= 1)   // every warp, full mask
//         v += __shfl_xor_sync(0xffffffffu, v, off);
//       if (threadIdx.x % 32 == 0) warpPartial[threadIdx.x / 32] = v;
//       __syncthreads();
//       if (threadIdx.x < 32) {                // the one shared stage
//         v = threadIdx.x < blockDim.x / 32 ? warpPartial[threadIdx.x] : -0.0f;
//         for (off = 16; ...) v += __shfl_xor_sync(0xffffffffu, v, off);
//         if (threadIdx.x == 0) a[0] = v;
//       }
//       __syncthreads();
//     } else { <the tree> }
//
// Legality: the guard makes the warps whole (blockDim.x a multiple of 32, a
// one-row block) and the tree's result the reduction of a[0, blockDim.x):
// S0 a power of two with 2*S0 == blockDim.x, or 2*S0 >= blockDim.x when the
// tree skips partners past the block. The loop sits where every thread of
// the block arrives (it holds a barrier), so full-mask shuffles are legal.
// Only a[0] holds the same value afterwards: every other read of the array
// must come before the tree or after a refill `a[tid] = ...`
// (checkLaterReads), and a loop that runs the tree again must refill the
// array between runs (checkTreeRerun). A float sum is regrouped (changes
// rounding); max and min are exact.
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class WarpReduce : public Rewrite {
public:
  StringRef getName() const override { return "warp-reduce"; }
  StringRef getDescription() const override {
    return "shared-memory tree reduction (sum, max, min, or any step over "
           "a[tid] and a[tid + s] of __shared__ arrays, e.g. an arg-max) -> "
           "warp shuffles + one shared stage, guarded on blockDim.x % 32 == "
           "0; the tree is the fallback";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Shuffle{"shuffle",
                      RewriteParamKind::Enum,
                      "xor",
                      {"xor", "down", "tree"},
                      "xor: __shfl_xor_sync (every lane gets the result); "
                      "down: __shfl_down_sync (lane 0 does); tree: the "
                      "original's pairs in its order (bit-exact for any "
                      "step; the only form of a tree whose step is not one "
                      "sum, max or min, e.g. an arg-max)"};
    Shuffle.Choices = {"xor", "down", "tree"};
    return {Shuffle};
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

struct Names {
  std::string Partial, Value, Offset;
};

/// Whether matchTree refused a tree for its step's shape (several
/// statements, another operator), which the tuple form may take; its other
/// reasons (a user's max function, ...) say more than the tuple form's.
bool isStepShapeReason(StringRef Why) {
  return Why.starts_with("the tree step has ") ||
         Why.starts_with("the tree step is not ") ||
         Why.starts_with("the tree step combines with ") ||
         Why.starts_with("the tree step does not ");
}

std::string combine(const TreeMatch &M, StringRef A, StringRef B) {
  if (M.Op == TreeOp::Sum)
    return (A + " + " + B).str();
  return (M.Combine + "(" + A + ", " + B + ")").str();
}

void writeShuffles(raw_ostream &OS, const TreeMatch &M, const Names &N,
                   bool Xor) {
  std::string Shfl = std::string(Xor ? "__shfl_xor_sync" : "__shfl_down_sync") +
                     "(0xffffffffu, " + N.Value + ", " + N.Offset + ")";
  OS << "#pragma unroll\n"
     << "for (int " << N.Offset << " = 16; " << N.Offset << " > 0; " << N.Offset
     << " >>= 1)\n"
     << "  " << N.Value << " = " << combine(M, N.Value, Shfl) << ";\n";
}

std::string getGuard(const TreeMatch &M) {
  bool Name =
      all_of(M.FirstStride, [](char C) { return isAlnum(C) || C == '_'; });
  std::string S0 = Name ? M.FirstStride : "(" + M.FirstStride + ")";
  return "blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 && 2 * " + S0 +
         (M.BoundsCheck ? " >= " : " == ") + "blockDim.x && (" + S0 + " & (" +
         S0 + " - 1)) == 0";
}

std::string generate(const TreeMatch &M, const Names &N, bool Xor,
                     StringRef LoopText) {
  std::string Out;
  raw_string_ostream OS(Out);
  std::string A = M.Array->getNameAsString();
  std::string Identity =
      M.FloatElem ? (M.ElemType == "float" ? "-0.0f" : "-0.0") : "0";
  OS << "if (" << getGuard(M) << ") {\n"
     << "// astra-opt warp-reduce: " << getTreeOpName(M.Op) << " of " << A
     << "[0, blockDim.x) by warp shuffles and one shared stage; the tree is "
        "the fallback.\n"
     << "__shared__ " << M.ElemType << " " << N.Partial << "[32];\n"
     << M.ElemType << " " << N.Value << " = " << A << "[threadIdx.x];\n";
  writeShuffles(OS, M, N, Xor);
  OS << "if (threadIdx.x % 32 == 0)\n"
     << "  " << N.Partial << "[threadIdx.x / 32] = " << N.Value << ";\n"
     << "__syncthreads();\n"
     << "if (threadIdx.x < 32) {\n";
  if (M.Op == TreeOp::Sum)
    OS << N.Value << " = threadIdx.x < blockDim.x / 32 ? " << N.Partial
       << "[threadIdx.x] : " << Identity << ";\n";
  else // max and min may see warp 0's partial twice
    OS << N.Value << " = " << N.Partial
       << "[threadIdx.x < blockDim.x / 32 ? threadIdx.x : 0];\n";
  writeShuffles(OS, M, N, Xor);
  OS << "if (threadIdx.x == 0)\n"
     << "  " << A << "[0] = " << N.Value << ";\n"
     << "}\n"
     << "__syncthreads();\n"
     << "} else {\n"
     << LoopText << "\n}";
  return Out;
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
WarpReduce::plan(RewriteContext &RC, const RewriteParams &P) const {
  std::string Shuffle = P.getString("shuffle", "xor");
  bool Xor = Shuffle == "xor";
  ASTContext &Ctx = RC.getASTContext();
  std::vector<PlannedSite> Sites;
  StringSet<> Taken;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    DenseMap<const Stmt *, std::string> LoopIds = getLoopIds(K);
    // First every tree, then the reads of each array around its trees.
    std::vector<std::tuple<RewriteSite, TreeMatch, TupleTree, bool>> Found;
    for (const Stmt *Loop : collectLoops(K->getBody())) {
      if (!isHalvingLoop(Loop))
        continue;
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.LoopId = LoopIds.lookup(Loop);
      Site.Loc = RC.getDiagLoc(Loop->getBeginLoc());
      Site.Selected = isSelected(P, Kernel, Site.LoopId);
      TreeMatch M;
      TupleTree T;
      bool Tuple = false;
      Site.Detail = matchTree(Ctx, K, cast<ForStmt>(Loop), M);
      if (!Site.Detail.empty() || Shuffle == "tree") {
        // Any other step, or the original's order asked for: the tuple
        // form (WarpReduceTuple.cpp), when the step allows it.
        bool FrameOk = false;
        std::string Why =
            matchTupleTree(Ctx, K, cast<ForStmt>(Loop), T, FrameOk);
        if (Why.empty()) {
          Tuple = true;
          Site.Detail.clear();
        } else if (Site.Detail.empty()) {
          Site.Detail = "shuffle=tree: " + Why; // a sum, max or min
        } else if (FrameOk && isStepShapeReason(Site.Detail)) {
          Site.Detail = Why; // why the step is not a tuple tree's either
        }
        if (Tuple && hasConditionalDirective(RC, Loop->getSourceRange()))
          Site.Detail = "the tree loop holds a preprocessor conditional";
      }
      if (Site.Detail.empty()) {
        DynTypedNodeList Ps = Ctx.getParents(*Loop);
        std::string Macro = getMacroReason(RC, Loop->getSourceRange());
        if (Ps.size() == 1 && Ps[0].get<AttributedStmt>())
          Site.Detail = "the tree loop carries an attribute or pragma";
        else if (!Macro.empty())
          Site.Detail = "the tree loop is " + Macro;
      }
      Site.Applicable = Site.Detail.empty();
      Found.push_back({Site, M, T, Tuple});
    }
    for (auto &[Site, M, T, Tuple] : Found) {
      if (Site.Applicable) {
        // Reads in other trees on the array count: a tree after this one
        // with no refill between reduces the partial results this one
        // leaves, which the rewritten tree does not.
        const ForStmt *Loop = Tuple ? T.Frame.Loop : M.Loop;
        SmallPtrSet<const Stmt *, 1> Self;
        Self.insert(Loop);
        SmallVector<const VarDecl *, 2> Arrays;
        if (Tuple) {
          for (const TupleMember &TM : T.Members)
            if (TM.Written) // the others keep their contents
              Arrays.push_back(TM.Array);
        } else {
          Arrays.push_back(M.Array);
        }
        // From a review: threads that left before the tree would leave
        // their warps' lanes and partials unset.
        std::string Why = checkExitsBefore(Ctx, K, Loop);
        for (const VarDecl *A : Arrays) {
          if (!Why.empty())
            break;
          Why = checkLaterReads(Ctx, K, A, Self);
          if (Why.empty())
            Why = checkTreeRerun(Ctx, K, A, Loop);
        }
        if (!Why.empty()) {
          Site.Applicable = false;
          Site.Detail = Why;
        }
      }
      if (!Site.Applicable) {
        Sites.push_back({Site, nullptr});
        continue;
      }
      if (Tuple) {
        // Names of its own per site: they live in the guarded block, so
        // the text of a site does not depend on what other sites took.
        std::string Arrays;
        TupleNames N;
        StringSet<> Taken;
        for (const TupleMember &TM : T.Members) {
          Arrays += (Arrays.empty() ? "'" : ", '") +
                    TM.Array->getNameAsString() + "' (" + TM.ElemType + ")";
          N.Own.push_back(makeFreshName(Ctx, "treeOwn", Taken));
          N.Partner.push_back(makeFreshName(Ctx, "treePartner", Taken));
          N.Partial.push_back(makeFreshName(Ctx, "treePartial", Taken));
        }
        N.Warps = makeFreshName(Ctx, "treeWarps", Taken);
        N.Lane = makeFreshName(Ctx, "treeLane", Taken);
        N.Offset = makeFreshName(Ctx, "treeOffset", Taken);
        Site.Detail = "the tree over " + Arrays +
                      " by __shfl_down_sync in the original's pairs and "
                      "order (lane l of warp w holds node l * warps + w; "
                      "bit-exact) + one shared stage; guard: " +
                      getTupleGuard(T) + "; fallback: the tree";
        const ForStmt *Loop = T.Frame.Loop;
        std::string Text =
            generateTupleTree(RC, T, N,
                              RC.getIndent(Loop->getBeginLoc()) +
                                  RC.getText(Loop->getSourceRange()).str());
        Sites.push_back({Site, [Loop, Text](EditBatch &Edits) {
                           Edits.replaceBlock(Loop->getSourceRange(), Text);
                         }});
        continue;
      }
      Site.ChangesRounding = M.Op == TreeOp::Sum && M.FloatElem;
      Site.Reassociates = Site.ChangesRounding;
      Site.Detail = std::string(getTreeOpName(M.Op)) + " of '" +
                    M.Array->getNameAsString() + "' (" + M.ElemType + ") by " +
                    (Xor ? "__shfl_xor_sync" : "__shfl_down_sync") +
                    " (full mask) + one shared stage; guard: " + getGuard(M) +
                    "; fallback: the tree";
      Names N;
      N.Partial = makeFreshName(Ctx, "warpPartial", Taken);
      N.Value = makeFreshName(Ctx, "warpValue", Taken);
      N.Offset = makeFreshName(Ctx, "laneOffset", Taken);
      std::string Text =
          generate(M, N, Xor,
                   RC.getIndent(M.Loop->getBeginLoc()) +
                       RC.getText(M.Loop->getSourceRange()).str());
      const ForStmt *Loop = M.Loop;
      Sites.push_back({Site, [Loop, Text](EditBatch &Edits) {
                         Edits.replaceBlock(Loop->getSourceRange(), Text);
                       }});
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createWarpReduce() {
  return std::make_unique<WarpReduce>();
}

} // namespace astra
