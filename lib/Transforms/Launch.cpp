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
#include "EditBatch.h"
#include "FoldBlocks.h"
#include "LaunchBlockUses.h"
#include "LaunchChange.h"
#include "LaunchConst.h"
#include "LaunchTemplate.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "VectorizeLoadsPlan.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Harness/Spec.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

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

/// The constants and template parameters that hold \p K's block size:
/// what `__launch_bounds__` and the launches' blocks name, and the template
/// parameter a launch's template argument sets.
std::vector<const ValueDecl *>
getBlockHolders(const FunctionDecl *K, const CUDALaunchBoundsAttr *LB,
                ArrayRef<const CUDAKernelCallExpr *> Launches,
                const BlockSizes &Sizes) {
  std::vector<const ValueDecl *> Out;
  auto Add = [&](const Expr *E) {
    BlockSizeExpr B = classifyBlockSize(E);
    if (B.Decl &&
        (B.K == BlockSizeExpr::Constant ||
         B.K == BlockSizeExpr::TemplateParam) &&
        !llvm::is_contained(Out, B.Decl))
      Out.push_back(B.Decl);
  };
  if (LB && LB->getMaxThreads())
    Add(LB->getMaxThreads());
  for (const CUDAKernelCallExpr *Call : Launches)
    Add(getWrittenLaunchArg(Call->getConfig()->getArg(1)));
  const FunctionTemplateDecl *FT = K->getDescribedFunctionTemplate();
  if (Sizes.TemplateIndex && FT &&
      *Sizes.TemplateIndex < FT->getTemplateParameters()->size())
    if (const auto *P = dyn_cast<NonTypeTemplateParmDecl>(
            FT->getTemplateParameters()->getParam(*Sizes.TemplateIndex)))
      if (!llvm::is_contained(Out, P))
        Out.push_back(P);
  return Out;
}

/// The block of the first launch that writes it as an integer constant.
std::optional<int64_t>
getLaunchBlock(ASTContext &Ctx, ArrayRef<const CUDAKernelCallExpr *> Launches) {
  for (const CUDAKernelCallExpr *Call : Launches) {
    const Expr *A = getWrittenLaunchArg(Call->getConfig()->getArg(1));
    if (A->isValueDependent() || !A->getType()->isIntegerType())
      continue;
    if (std::optional<APSInt> V = A->getIntegerConstantExpr(Ctx))
      return V->getExtValue();
  }
  return std::nullopt;
}

std::string ceilDiv(StringRef Text, int64_t D) {
  return "((" + Text.str() + ") + " + std::to_string(D - 1) + ") / " +
         std::to_string(D);
}

class Launch : public Rewrite {
public:
  StringRef getName() const override { return "launch"; }
  StringRef getDescription() const override {
    return "the kernel's launch: tunable spec variables (B=512), the grid's "
           "or block's x extent divided (grid-x-div=8, after vectorize-loads' "
           "any-grid form); edits __launch_bounds__ and <<<...>>> in the "
           "file (a block size written as a constant or a macro at its "
           "definition, when only the kernel and its launches read it), and "
           "the plan and report carry the new launch";
  }
  std::vector<ParamDesc> getParams() const override {
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
  bool takesLaunchVariables() const override { return true; }
  bool changesLaunch() const override { return true; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override {
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
    for (const FunctionDecl *K : findKernels(Ctx)) {
      std::string Name = K->getNameAsString();
      RewriteSite Site;
      Site.Kernel = Name;
      Site.Selected = isSelected(P, Name, "");
      Site.Loc = RC.getDiagLoc(K->getLocation());
      auto Refuse = [&](const Twine &Why) {
        Site.Detail = "launch of " + Name + ": " + Why.str();
        Sites.push_back({Site, nullptr});
      };
      StringRef KernelText = RC.getText(K->getSourceRange());
      if (std::string Why = whyNotReshaped(KernelText, C); !Why.empty()) {
        Refuse(Why);
        continue;
      }
      std::vector<const CUDAKernelCallExpr *> Mine;
      // Launches in a template (a launcher `template <int B> void
      // launch()`): their callee is resolved per instantiation, so they are
      // not edited; each gets a warning.
      std::vector<std::string> InTemplates;
      for (const CUDAKernelCallExpr *Call : Launches.Calls) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        const CallExpr *Config = Call->getConfig();
        const auto *Unresolved =
            dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreParenImpCasts());
        if (!Callee && Unresolved &&
            Unresolved->getName().getAsString() == Name)
          InTemplates.push_back(getLineCol(RC, Call->getBeginLoc()));
        if (Callee && Callee->getNameAsString() == Name && Config &&
            Config->getNumArgs() >= 2)
          Mine.push_back(Call);
      }
      const auto *LB = K->getAttr<CUDALaunchBoundsAttr>();
      BlockSizes Sizes = inspectBlockSizes(RC, K, LB, Mine);
      bool SetsBlock = C.Block || C.BlockDiv > 1;
      // min-threads with small-entry alone is a dispatch by size: the
      // kernel as rewritten from the bound on, its copy below.
      if (C.empty() && !(C.SmallEntry && C.MinThreads)) {
        Refuse("nothing to change: give a tunable variable of the spec "
               "(B=512), grid-x-div, block-x-div, fold-x, fold-y, block, or "
               "min-threads with small-entry=1" +
               Sizes.summary());
        continue;
      }
      if (C.SmallEntry) {
        std::string Why;
        if (!C.MinThreads)
          Why = "small-entry=1 names what runs below the min-threads bound: "
                "give the bound";
        else if (C.TemplateArg >= 0)
          Why = "small-entry=1 cannot go with template-arg";
        else if (!keepsOriginal(RC, Name, findKernels(Ctx)))
          Why = "small-entry=1 runs " + Name + SmallEntrySuffix.str() +
                " below the bound, which the file does not hold: apply "
                "keep-original:kernel=" +
                Name + " first in the plan";
        if (!Why.empty()) {
          Refuse(Why);
          continue;
        }
      }
      // A block size that is a template argument: a new instantiation.
      std::optional<TemplateBlockEdits> TEdits;
      if (C.TemplateArg >= 0) {
        Expected<TemplateBlockEdits> TE =
            planTemplateBlock(RC, K, Mine, Sizes, C.TemplateArg, C.Block,
                              C.MinThreads, C.BlockDiv > 1 || C.folds());
        if (!TE) {
          Refuse(toString(TE.takeError()));
          continue;
        }
        TEdits = std::move(*TE);
      }
      if (!Sizes.Issue.empty() && (SetsBlock || !C.Vars.empty()) && !TEdits) {
        Refuse(Sizes.Issue);
        continue;
      }
      if (!Sizes.ConstantIssue.empty() && SetsBlock) {
        Refuse(Sizes.ConstantIssue);
        continue;
      }
      if (C.folds() && !Sizes.Constants.empty()) {
        Refuse("the block size is the constant " + Sizes.Constants[0].Name +
               ": a folded launch is two-dimensional (block.y = K), which "
               "the constant cannot say; change the launch by hand");
        continue;
      }
      if (C.MinThreads && SetsBlock && !Sizes.Constants.empty()) {
        Refuse("the block size is the constant " + Sizes.Constants[0].Name +
               ": it cannot change only from min-threads on (one value "
               "for every launch); drop min-threads or divide the grid");
        continue;
      }
      // Under min-threads the smaller launches keep the old block: the
      // bound (a maximum) must allow both, so it only ever grows.
      std::optional<int64_t> OldBound;
      if (LB && LB->getMaxThreads())
        if (std::optional<llvm::APSInt> V =
                LB->getMaxThreads()->getIntegerConstantExpr(Ctx))
          OldBound = V->getExtValue();
      if (C.MinThreads && LB && C.Block && !OldBound) {
        Refuse("the kernel's __launch_bounds__ is not an integer constant: "
               "with min-threads it must allow the old block and the new "
               "one, which cannot be checked; drop min-threads");
        continue;
      }
      if (C.Block) {
        std::string Why = findBlockTies(
            RC, K, Mine, getBlockHolders(K, LB, Mine, Sizes),
            OldBound ? OldBound : getLaunchBlock(Ctx, Mine),
            !C.Vars.empty() || C.BlockDiv > 1 || C.folds(),
            llvm::any_of(Sizes.Constants,
                         [](const BlockConstant &BC) { return BC.IsMacro; }));
        if (!Why.empty()) {
          Refuse(Why);
          continue;
        }
      }
      bool KeepBound = C.MinThreads && OldBound && C.Block <= *OldBound;
      // The edits: __launch_bounds__, then every <<<...>>> of the kernel;
      // a block size written as a constant changes at the constant.
      std::vector<std::pair<SourceRange, std::string>> Edits;
      std::vector<std::string> Where, Warnings;
      for (const std::string &At : InTemplates)
        Warnings.push_back("the launch at " + At +
                           " is in a template, whose arguments decide its "
                           "launch: change it by hand, as the launch "
                           "contract in the plan and the report says");
      if (LB) {
        const Expr *Max = LB->getMaxThreads();
        std::string Why =
            Max ? getMacroReason(RC, Max->getSourceRange()) : "no thread count";
        if (!C.Block && (!C.Vars.empty() || C.BlockDiv > 1 || C.folds())) {
          Refuse("the kernel declares __launch_bounds__: give block=<threads "
                 "per block> of the new launch so that it is rewritten too");
          continue;
        }
        bool Carried = Sizes.Carried.count(Max) ||
                       (TEdits && classifyBlockSize(Max).K ==
                                      BlockSizeExpr::TemplateParam);
        if (C.Block && !Carried && !KeepBound && !Why.empty()) {
          Refuse("its __launch_bounds__ cannot be edited: " + Why);
          continue;
        }
        if (C.Block && !Carried && !KeepBound) {
          Edits.push_back({Max->getSourceRange(), std::to_string(C.Block)});
          Where.push_back("__launch_bounds__ at " +
                          getLineCol(RC, Max->getBeginLoc()));
        } else if (C.Block && KeepBound) {
          Warnings.push_back("__launch_bounds__ at " +
                             getLineCol(RC, Max->getBeginLoc()) +
                             " stays " + std::to_string(*OldBound) +
                             ": below min-threads the launch keeps its "
                             "old block, which a bound of " +
                             std::to_string(C.Block) + " would forbid");
        }
      }
      for (const BlockConstant &BC : Sizes.Constants) {
        if (!SetsBlock)
          break;
        int64_t New =
            C.Block ? C.Block : (BC.Value + C.BlockDiv - 1) / C.BlockDiv;
        Edits.push_back({BC.Init, std::to_string(New)});
        Where.push_back(
            std::string(BC.IsMacro ? "the macro " : "the constant ") + BC.Name +
            " at " + getLineCol(RC, BC.Decl) + " (" + std::to_string(BC.Value) +
            " -> " + std::to_string(New) + ")");
      }
      if (C.Block || C.BlockDiv > 1)
        Warnings.insert(Warnings.end(), Sizes.Kept.begin(), Sizes.Kept.end());
      std::vector<std::pair<unsigned, std::string>> Inserts;
      if (TEdits) {
        Edits.insert(Edits.end(), TEdits->Replace.begin(),
                     TEdits->Replace.end());
        Inserts = TEdits->Insert;
        Where.insert(Where.end(), TEdits->Where.begin(), TEdits->Where.end());
        Warnings.insert(Warnings.end(), TEdits->Warnings.begin(),
                        TEdits->Warnings.end());
      }
      for (const CUDAKernelCallExpr *Call : Mine) {
        const CallExpr *Config = Call->getConfig();
        std::string At = getLineCol(RC, Call->getBeginLoc());
        if (C.folds()) {
          // The block becomes two-dimensional: a dim3 the text may not have.
          Warnings.push_back("the launch at " + At +
                             " must fold the grid into block.y: change it "
                             "by hand, as the launch contract in the plan "
                             "and the report says");
          continue;
        }
        auto Arg = [&](unsigned I, int64_t Div, int64_t Set, StringRef What) {
          if (Div <= 1 && !Set)
            return;
          const Expr *A = getWrittenLaunchArg(Config->getArg(I));
          if (I == 1 && Sizes.Carried.count(A))
            return; // the constant's edit above
          BlockSizeExpr Kind = classifyBlockSize(A);
          std::string Why = getMacroReason(RC, A->getSourceRange());
          if (C.MinThreads) {
            Warnings.push_back(
                "the launch at " + At + " changes its " + What.str() +
                " only from " + std::to_string(C.MinThreads) + " threads on" +
                (C.SmallEntry ? " (and below that launches " + Name +
                                    SmallEntrySuffix.str() + ")"
                              : std::string()) +
                ": change it by hand, as the launch contract in the plan "
                "and the report says");
            return;
          }
          if (Why.empty() && I == 1 && Kind.K != BlockSizeExpr::Plain &&
              Kind.K != BlockSizeExpr::Constant)
            Why = "`" + RC.getText(A->getSourceRange()).str() + "`" +
                  (Kind.Decl ? " (from " + Kind.Decl->getNameAsString() + ")"
                             : std::string());
          if (!A->getType()->isIntegerType() || !Why.empty()) {
            Warnings.push_back("the launch at " + At + " passes its " +
                               What.str() + " as " +
                               (Why.empty() ? "a dim3" : Why) +
                               ": change it by hand, as the launch contract "
                               "in the plan and the report says");
            return;
          }
          std::string Text = RC.getText(A->getSourceRange()).str();
          Edits.push_back({A->getSourceRange(),
                           Set ? std::to_string(Set) : ceilDiv(Text, Div)});
          Where.push_back("<<<...>>> " + What.str() + " at " + At);
        };
        // Nothing below edits this launch (a dispatch alone, or variables
        // without block=): it must still launch the copy below the bound.
        if (C.SmallEntry && C.GridDiv <= 1 && C.BlockDiv <= 1 && !C.Block &&
            C.GridYDiv <= 1 && !C.folds()) {
          Warnings.push_back(
              "the launch at " + At + " runs " + Name +
              " at every size: below " + std::to_string(C.MinThreads) +
              " threads it must launch " + Name + SmallEntrySuffix.str() +
              ": change it by hand, as the launch contract in "
              "the plan and the report says");
          continue;
        }
        if (C.GridYDiv > 1) {
          Warnings.push_back("the launch at " + At +
                             " must divide its grid's y extent: change it "
                             "by hand, as the launch contract in the plan "
                             "and the report says");
          continue;
        }
        Arg(0, C.GridDiv, 0, "grid");
        Arg(1, C.BlockDiv, C.Block, "block");
      }
      Site.Applicable = true;
      Site.Detail = "launch of " + Name + ": " + C.describe() +
                    (Where.empty() ? "; nothing in the file encodes it"
                                   : "; edits " + join(Where, ", ")) +
                    "; the plan and the report carry the new launch";
      if (!C.Vars.empty())
        Site.Assumes = "the spec declares " + join(C.Vars, ", ") +
                       " tunable (the kernel is correct for those values)";
      else if (C.Block && C.BlockDiv <= 1 && !C.folds())
        Site.Assumes = "the kernel is correct with " + std::to_string(C.Block) +
                       " threads per block (block= alone: no spec variable "
                       "says so)";
      Site.Warning = join(Warnings, "; ");
      Sites.push_back({Site, [Edits, Inserts](EditBatch &B) {
                         for (const auto &[R, Text] : Edits)
                           B.replace(R, Text);
                         for (const auto &[At, Text] : Inserts)
                           B.insert(At, Text);
                       }});
    }
    return std::move(Sites);
  }
};

} // namespace

std::unique_ptr<Rewrite> createLaunch() { return std::make_unique<Launch>(); }

} // namespace astra
