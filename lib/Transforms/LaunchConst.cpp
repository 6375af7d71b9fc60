//===- LaunchConst.cpp - Block sizes written as constants -----------------===//
//
// A kernel's block size is often a constant (`constexpr int kBlock = 256;`)
// that the launch, `__launch_bounds__` and the body (shared arrays, strides)
// all read. The launch rewrite then changes the constant's initializer, so
// that every one of them follows; that is safe only when nothing else reads
// the constant: another kernel, a device function, host logic (a buffer
// size, a grid computed outside the launch) would change with it. Those uses
// make the rewrite refuse, naming the first one.
//
//===----------------------------------------------------------------------===//
#include "LaunchConst.h"
#include "SiteUtil.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// A named constant of integer type: a `const` or `constexpr` variable, not a
/// parameter.
const VarDecl *asConstant(const Decl *D) {
  const auto *V = dyn_cast_or_null<VarDecl>(D);
  if (!V || isa<ParmVarDecl>(V) || !V->getType()->isIntegerType() ||
      !V->getType().isConstQualified() || !V->getAnyInitializer())
    return nullptr;
  return V;
}

/// The integer literal that initializes \p V, if that is what it is.
const IntegerLiteral *literalInit(const VarDecl *V) {
  const Expr *Init = V->getAnyInitializer();
  if (!Init)
    return nullptr;
  Init = Init->IgnoreParenImpCasts();
  if (const auto *List = dyn_cast<InitListExpr>(Init))
    if (List->getNumInits() == 1)
      Init = List->getInit(0)->IgnoreParenImpCasts();
  return dyn_cast<IntegerLiteral>(Init);
}

/// The first constant or template parameter that \p S reads.
const ValueDecl *firstNamed(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = Ref->getDecl();
    if (isa<NonTypeTemplateParmDecl>(D) || asConstant(D))
      return D;
  }
  if (const auto *Sub = dyn_cast<SubstNonTypeTemplateParmExpr>(S))
    return Sub->getParameter();
  for (const Stmt *Child : S->children())
    if (const ValueDecl *D = firstNamed(Child))
      return D;
  return nullptr;
}

/// Every reference to one variable in the input file, with the function it
/// lies in (null at file scope).
struct UseCollector : RecursiveASTVisitor<UseCollector> {
  const VarDecl *Var;
  const FunctionDecl *Current = nullptr;
  std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>> Uses;
  explicit UseCollector(const VarDecl *Var) : Var(Var) {}

  bool TraverseDecl(Decl *D) {
    const FunctionDecl *Saved = Current;
    if (auto *FD = dyn_cast_or_null<FunctionDecl>(D))
      Current = FD;
    bool Ok = RecursiveASTVisitor::TraverseDecl(D);
    Current = Saved;
    return Ok;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl()->getCanonicalDecl() == Var->getCanonicalDecl())
      Uses.push_back({E, Current});
    return true;
  }
};

void collectRefs(const Stmt *S, SmallPtrSetImpl<const Stmt *> &Out) {
  if (!S)
    return;
  if (isa<DeclRefExpr>(S))
    Out.insert(S);
  for (const Stmt *Child : S->children())
    collectRefs(Child, Out);
}

/// Whether \p F is kernel \p K: one of its declarations, or an instantiation
/// of it.
bool isKernel(const FunctionDecl *F, const FunctionDecl *K) {
  if (!F)
    return false;
  if (F->getCanonicalDecl() == K->getCanonicalDecl())
    return true;
  const FunctionDecl *P = F->getTemplateInstantiationPattern();
  return P && P->getCanonicalDecl() == K->getCanonicalDecl();
}

std::string describeFunction(const FunctionDecl *F) {
  if (!F)
    return "at file scope";
  std::string Name = F->getQualifiedNameAsString();
  if (F->hasAttr<CUDAGlobalAttr>())
    return "in kernel " + Name;
  if (F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAHostAttr>())
    return "in device function " + Name;
  return "in host function " + Name;
}

} // namespace

BlockSizeExpr classifyBlockSize(const Expr *E) {
  BlockSizeExpr R;
  if (!E)
    return R;
  const Expr *Bare = E->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare)) {
    if (isa<NonTypeTemplateParmDecl>(Ref->getDecl())) {
      R.K = BlockSizeExpr::TemplateParam;
      R.Decl = Ref->getDecl();
      return R;
    }
    if (const VarDecl *V = asConstant(Ref->getDecl())) {
      // A local constant computed at run time is a run-time value: nothing
      // but this function can read it, and the launch is edited in place.
      if (literalInit(V) || !V->isLocalVarDecl()) {
        R.K =
            literalInit(V) ? BlockSizeExpr::Constant : BlockSizeExpr::Computed;
        R.Decl = V;
      }
      return R;
    }
    return R;
  }
  if (const ValueDecl *D = firstNamed(Bare)) {
    R.K = BlockSizeExpr::Computed;
    R.Decl = D;
  }
  return R;
}

Expected<BlockConstant>
checkBlockConstant(const RewriteContext &RC, const VarDecl *Var,
                   const FunctionDecl *K,
                   ArrayRef<const CUDAKernelCallExpr *> Launches) {
  std::string Name = Var->getNameAsString();
  std::string Where = getLineCol(RC, Var->getLocation());
  auto Fail = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "the block size is the constant " + Name + " (" +
                                 Where + "), " + Why);
  };
  const SourceManager &SM = RC.getSourceManager();
  if (!SM.isWrittenInMainFile(SM.getFileLoc(Var->getLocation())))
    return Fail("declared outside the input file: change it there");
  const IntegerLiteral *Lit = literalInit(Var);
  if (!Lit)
    return Fail("whose initializer is not an integer literal: change it by "
                "hand");
  if (std::string Why = getMacroReason(RC, Lit->getSourceRange()); !Why.empty())
    return Fail("whose initializer is " + Why + ": change it by hand");

  // The uses that follow the kernel's launch: its own, and those in the
  // configuration of its launches (a grid computed from the block).
  SmallPtrSet<const Stmt *, 16> InLaunch;
  for (const CUDAKernelCallExpr *Call : Launches)
    collectRefs(Call->getConfig(), InLaunch);
  UseCollector Uses(Var);
  ASTContext &Ctx = RC.getASTContext();
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (SM.isWrittenInMainFile(SM.getFileLoc(D->getLocation())))
      Uses.TraverseDecl(D);
  for (const auto &[Ref, F] : Uses.Uses) {
    if (isKernel(F, K) || InLaunch.count(Ref))
      continue;
    return Fail("which is also used at " + getLineCol(RC, Ref->getLocation()) +
                " " + describeFunction(F) +
                ": a new value would change that use too; give the kernel a "
                "constant of its own, or change the block size by hand");
  }
  BlockConstant C;
  C.Var = Var;
  C.Init = Lit->getSourceRange();
  C.Value = Lit->getValue().getSExtValue();
  return C;
}

const Expr *getWrittenLaunchArg(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit();
    const auto *C = dyn_cast<CXXConstructExpr>(E);
    if (!C || isa<CXXTemporaryObjectExpr>(C) || C->getNumArgs() < 1 ||
        C->getParenOrBraceRange().isValid())
      return E;
    E = C->getArg(0);
  }
}

std::string BlockSizes::summary() const {
  std::string Why = !Issue.empty() ? Issue : ConstantIssue;
  if (!Why.empty())
    return "; a new block size would be refused: " + Why;
  std::vector<std::string> Names;
  for (const BlockConstant &C : Constants)
    Names.push_back(C.Var->getNameAsString());
  if (Names.empty())
    return "";
  return "; a new block size (block=) goes into the constant " +
         join(Names, ", ");
}

BlockSizes inspectBlockSizes(const RewriteContext &RC, const FunctionDecl *K,
                             const CUDALaunchBoundsAttr *LB,
                             ArrayRef<const CUDAKernelCallExpr *> Launches) {
  BlockSizes R;
  std::string Name = K->getNameAsString();
  const char *NewInstantiation =
      ": a new block size needs a new instantiation of the template (a "
      "spec naming it, e.g. '";
  auto Instantiation = [&](const Twine &What) {
    R.Issue = (What + NewInstantiation + Name + "<256>', would have to name '" +
               Name +
               "<512>', and the harness run that in place of the "
               "original's); the launch rewrite does not make one "
               "(docs/rewrites.md, launch)")
                  .str();
  };
  auto Use = [&](const BlockSizeExpr &B) {
    if (B.K != BlockSizeExpr::Constant)
      return;
    const auto *V = cast<VarDecl>(B.Decl);
    if (!R.ConstantIssue.empty() ||
        any_of(R.Constants, [&](const BlockConstant &C) { return C.Var == V; }))
      return;
    Expected<BlockConstant> C = checkBlockConstant(RC, V, K, Launches);
    if (C)
      R.Constants.push_back(*C);
    else
      R.ConstantIssue = toString(C.takeError());
  };
  if (const Expr *Max = LB ? LB->getMaxThreads() : nullptr) {
    BlockSizeExpr B = classifyBlockSize(Max);
    std::string Text = RC.getText(Max->getSourceRange()).str();
    std::string At = getLineCol(RC, Max->getBeginLoc());
    if (B.K == BlockSizeExpr::TemplateParam)
      Instantiation("the block size is the template parameter " +
                    B.Decl->getNameAsString() + " of " + Name +
                    " (__launch_bounds__(" + Text + ") at " + At + ")");
    else if (B.K == BlockSizeExpr::Computed)
      R.Issue = "its __launch_bounds__(" + Text + ") at " + At +
                " is computed from " + B.Decl->getNameAsString() +
                ": change it by hand";
    Use(B);
    R.BoundsConstant =
        B.K == BlockSizeExpr::Constant && R.ConstantIssue.empty();
  }
  ASTContext &Ctx = RC.getASTContext();
  for (const CUDAKernelCallExpr *Call : Launches) {
    const Expr *Block = getWrittenLaunchArg(Call->getConfig()->getArg(1));
    Use(classifyBlockSize(Block));
    // A template argument equal to the block size: the instantiation is
    // written for that block (k<256><<<g, 256>>>).
    const FunctionDecl *Callee = Call->getDirectCallee();
    const TemplateArgumentList *Args =
        Callee ? Callee->getTemplateSpecializationArgs() : nullptr;
    Expr::EvalResult Value;
    if (!Args || !R.Issue.empty() || Block->isValueDependent() ||
        !Block->EvaluateAsInt(Value, Ctx))
      continue;
    for (const TemplateArgument &A : Args->asArray())
      if (A.getKind() == TemplateArgument::Integral &&
          A.getAsIntegral() == Value.Val.getInt().getExtValue())
        Instantiation("the launch at " + getLineCol(RC, Call->getBeginLoc()) +
                      " (" + RC.getText(Call->getCallee()->getSourceRange()) +
                      ") passes its block size as a template argument too");
  }
  if (!R.ConstantIssue.empty())
    R.Constants.clear();
  return R;
}

} // namespace astra
