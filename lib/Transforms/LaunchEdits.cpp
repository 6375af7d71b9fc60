//===- LaunchEdits.cpp - The launch rewrite at one kernel -----------------===//
//
// Whether `launch` (Launch.cpp describes it) applies to one kernel under
// the change it is asked for (a kernel whose threads cover every element
// whatever the grid, a block size it can rewrite, a min-threads bound with
// what runs below it), and the edits there: `__launch_bounds__`, a block
// size written as a constant, a template argument, and the kernel's
// `<<<...>>>`, each with a warning where it must change by hand.
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "LaunchBlockUses.h"
#include "LaunchConst.h"
#include "LaunchRewrite.h"
#include "LaunchTemplate.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Harness/Spec.h"
#include "clang/AST/Attr.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

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

} // namespace

void Launch::planKernel(RewriteContext &RC, const RewriteParams &P,
                        const LaunchChange &C, const FunctionDecl *K,
                        ArrayRef<const CUDAKernelCallExpr *> Calls,
                        std::vector<PlannedSite> &Sites) const {
  ASTContext &Ctx = RC.getASTContext();
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
    return;
  }
  std::vector<const CUDAKernelCallExpr *> Mine;
  // Launches in a template (a launcher `template <int B> void
  // launch()`): their callee is resolved per instantiation, so they are
  // not edited; each gets a warning.
  std::vector<std::string> InTemplates;
  for (const CUDAKernelCallExpr *Call : Calls) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    const CallExpr *Config = Call->getConfig();
    const auto *Unresolved =
        dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreParenImpCasts());
    if (!Callee && Unresolved && Unresolved->getName().getAsString() == Name)
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
    return;
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
      return;
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
      return;
    }
    TEdits = std::move(*TE);
  }
  if (!Sizes.Issue.empty() && (SetsBlock || !C.Vars.empty()) && !TEdits) {
    Refuse(Sizes.Issue);
    return;
  }
  if (!Sizes.ConstantIssue.empty() && SetsBlock) {
    Refuse(Sizes.ConstantIssue);
    return;
  }
  if (C.folds() && !Sizes.Constants.empty()) {
    Refuse("the block size is the constant " + Sizes.Constants[0].Name +
           ": a folded launch is two-dimensional (block.y = K), which "
           "the constant cannot say; change the launch by hand");
    return;
  }
  if (C.MinThreads && SetsBlock && !Sizes.Constants.empty()) {
    Refuse("the block size is the constant " + Sizes.Constants[0].Name +
           ": it cannot change only from min-threads on (one value "
           "for every launch); drop min-threads or divide the grid");
    return;
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
    return;
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
      return;
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
      return;
    }
    bool Carried =
        Sizes.Carried.count(Max) ||
        (TEdits && classifyBlockSize(Max).K == BlockSizeExpr::TemplateParam);
    if (C.Block && !Carried && !KeepBound && !Why.empty()) {
      Refuse("its __launch_bounds__ cannot be edited: " + Why);
      return;
    }
    if (C.Block && !Carried && !KeepBound) {
      Edits.push_back({Max->getSourceRange(), std::to_string(C.Block)});
      Where.push_back("__launch_bounds__ at " +
                      getLineCol(RC, Max->getBeginLoc()));
    } else if (C.Block && KeepBound) {
      Warnings.push_back("__launch_bounds__ at " +
                         getLineCol(RC, Max->getBeginLoc()) + " stays " +
                         std::to_string(*OldBound) +
                         ": below min-threads the launch keeps its "
                         "old block, which a bound of " +
                         std::to_string(C.Block) + " would forbid");
    }
  }
  for (const BlockConstant &BC : Sizes.Constants) {
    if (!SetsBlock)
      break;
    int64_t New = C.Block ? C.Block : (BC.Value + C.BlockDiv - 1) / C.BlockDiv;
    Edits.push_back({BC.Init, std::to_string(New)});
    Where.push_back(std::string(BC.IsMacro ? "the macro " : "the constant ") +
                    BC.Name + " at " + getLineCol(RC, BC.Decl) + " (" +
                    std::to_string(BC.Value) + " -> " + std::to_string(New) +
                    ")");
  }
  if (C.Block || C.BlockDiv > 1)
    Warnings.insert(Warnings.end(), Sizes.Kept.begin(), Sizes.Kept.end());
  std::vector<std::pair<unsigned, std::string>> Inserts;
  if (TEdits) {
    Edits.insert(Edits.end(), TEdits->Replace.begin(), TEdits->Replace.end());
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
        Warnings.push_back("the launch at " + At + " passes its " + What.str() +
                           " as " + (Why.empty() ? "a dim3" : Why) +
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
          "the launch at " + At + " runs " + Name + " at every size: below " +
          std::to_string(C.MinThreads) + " threads it must launch " + Name +
          SmallEntrySuffix.str() +
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

} // namespace astra
