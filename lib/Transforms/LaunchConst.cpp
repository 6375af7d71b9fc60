//===- LaunchConst.cpp - Block sizes written as constants -----------------===//
//
// A kernel's block size is often a constant (`constexpr int kBlock = 256;`)
// that the launch, `__launch_bounds__` and the body (shared arrays, strides)
// all read. The launch rewrite then changes the constant's initializer, so
// that every one of them follows; that is safe only when nothing else reads
// the constant: another kernel, a device function, host logic (a buffer
// size, a grid computed outside the launch) would change with it. Those uses
// make the rewrite refuse, naming the first one. A macro (`#define BLOCK
// 256`) is treated alike, its uses found on the file's raw tokens.
//
// A block size that is a template parameter or argument of the kernel is
// refused: a new block is a new instantiation, and the spec names one
// instantiation, by which the harness finds both parties' entries
// (docs/rewrites.md, launch, says what is missing).
//
//===----------------------------------------------------------------------===//
#include "LaunchConst.h"
#include "SiteUtil.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace clang;

namespace astra {

ArrayRef<TemplateArgumentLoc>
launchTemplateArgs(const CUDAKernelCallExpr *Call) {
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (!Ref || !Ref->hasExplicitTemplateArgs())
    return {};
  return {Ref->getTemplateArgs(), Ref->getNumTemplateArgs()};
}

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

/// The first constant (not a local one) or template parameter that \p S
/// reads.
const ValueDecl *firstNamed(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    // A local constant is the launcher's own: no kernel reads it.
    const ValueDecl *D = Ref->getDecl();
    const VarDecl *V = asConstant(D);
    if (isa<NonTypeTemplateParmDecl>(D) || (V && !V->isLocalVarDecl()))
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
  if (Bare->isValueDependent()) {
    // `Cfg::kBlock`, `BLOCK * 2`: known only per instantiation.
    R.K = BlockSizeExpr::TemplateParam;
    R.Decl = firstNamed(Bare);
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
  // configuration of its launches (a grid computed from the block) and in
  // the template arguments they give it (`k<kBlock><<<g, kBlock>>>`).
  SmallPtrSet<const Stmt *, 16> InLaunch;
  for (const CUDAKernelCallExpr *Call : Launches) {
    collectRefs(Call->getConfig(), InLaunch);
    for (const TemplateArgumentLoc &A : launchTemplateArgs(Call))
      if (A.getArgument().getKind() == TemplateArgument::Expression)
        collectRefs(A.getArgument().getAsExpr(), InLaunch);
  }
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
  C.Name = Name;
  C.Decl = Var->getLocation();
  C.Init = Lit->getSourceRange();
  C.Value = Lit->getValue().getSExtValue();
  return C;
}

namespace {

/// The object-like macro that \p E is the whole expansion of (an integer
/// literal), or "".
StringRef wholeMacro(const RewriteContext &RC, const Expr *E) {
  const auto *Lit = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
  if (!Lit || !Lit->getLocation().isMacroID())
    return "";
  const SourceManager &SM = RC.getSourceManager();
  const LangOptions &LO = RC.getASTContext().getLangOpts();
  SourceLocation Loc = Lit->getLocation();
  // Through the arguments of enclosing macros (`__launch_bounds__(BLOCK)`).
  while (Loc.isMacroID() && SM.isMacroArgExpansion(Loc))
    Loc = SM.getImmediateSpellingLoc(Loc);
  if (!Loc.isMacroID() || !Lexer::isAtStartOfMacroExpansion(Loc, SM, LO) ||
      !Lexer::isAtEndOfMacroExpansion(Loc, SM, LO))
    return "";
  return Lexer::getImmediateMacroName(Loc, SM, LO);
}

/// Whether the file offset of \p Loc lies in one of \p Ranges.
bool within(const SourceManager &SM, SourceLocation Loc,
            ArrayRef<CharSourceRange> Ranges) {
  unsigned Off = SM.getFileOffset(Loc);
  return any_of(Ranges, [&](const CharSourceRange &R) {
    return R.isValid() && SM.getFileOffset(R.getBegin()) <= Off &&
           Off <= SM.getFileOffset(R.getEnd());
  });
}

} // namespace

Expected<BlockConstant>
checkBlockMacro(const RewriteContext &RC, StringRef Name, const FunctionDecl *K,
                ArrayRef<const CUDAKernelCallExpr *> Launches) {
  const SourceManager &SM = RC.getSourceManager();
  auto Fail = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "the block size is the macro " + Name + ", " +
                                 Why);
  };
  // Where the name may occur: in the kernel and in its launches' <<<...>>>.
  std::vector<CharSourceRange> Allowed;
  for (const FunctionDecl *D : K->redecls())
    Allowed.push_back(SM.getExpansionRange(D->getSourceRange()));
  if (const auto *LB = K->getAttr<CUDALaunchBoundsAttr>())
    Allowed.push_back(SM.getExpansionRange(LB->getRange()));
  for (const CUDAKernelCallExpr *Call : Launches) {
    for (const Expr *Arg : Call->getConfig()->arguments())
      Allowed.push_back(SM.getExpansionRange(Arg->getSourceRange()));
    for (const TemplateArgumentLoc &A : launchTemplateArgs(Call))
      Allowed.push_back(SM.getExpansionRange(A.getSourceRange()));
  }

  // Raw tokens of the file: the #define lines, and every other occurrence.
  FileID FID = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), RC.getASTContext().getLangOpts(),
          Buf.begin(), Buf.begin(), Buf.end());
  Token T;
  unsigned Idx = 0, Defs = 0;
  bool InDirective = false, InDef = false;
  StringRef Directive;
  std::vector<Token> Body;
  SourceLocation DefLoc, Other;
  while (true) {
    bool Last = L.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    if (T.isAtStartOfLine()) {
      InDirective = T.is(tok::hash);
      InDef = false;
      Idx = 0;
    } else {
      ++Idx;
    }
    bool IsName = T.is(tok::raw_identifier) && T.getRawIdentifier() == Name;
    if (InDirective && Idx == 1 && T.is(tok::raw_identifier))
      Directive = T.getRawIdentifier();
    if (InDirective && Idx == 2 && Directive == "define" && IsName) {
      ++Defs;
      InDef = true;
      DefLoc = T.getLocation();
    } else if (InDef) {
      Body.push_back(T);
    } else if (IsName && Other.isInvalid() &&
               !within(SM, T.getLocation(), Allowed)) {
      Other = T.getLocation();
    }
    if (Last)
      break;
  }
  if (Defs == 0)
    return Fail("defined outside the input file: change it there");
  std::string Where = " (" + getLineCol(RC, DefLoc) + ")";
  if (Defs > 1)
    return Fail("defined more than once in the file: change it by hand");
  uint64_t Value = 0;
  if (Body.size() != 1 || !Body[0].is(tok::numeric_constant) ||
      StringRef(Body[0].getLiteralData(), Body[0].getLength())
          .rtrim("uUlL")
          .getAsInteger(0, Value))
    return Fail("defined" + Where +
                " as more than one integer literal: change it by hand");
  if (Other.isValid())
    return Fail("defined" + Where + ", which is also used at " +
                getLineCol(RC, Other) + ", outside kernel " +
                K->getNameAsString() +
                " and its launches: a new value would change that use too; "
                "give the kernel a macro of its own, or change the block "
                "size by hand");
  BlockConstant C;
  C.Name = Name.str();
  C.Decl = DefLoc;
  C.Init = SourceRange(Body[0].getLocation(), Body[0].getLocation());
  C.Value = int64_t(Value);
  C.IsMacro = true;
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
    Names.push_back((C.IsMacro ? "the macro " : "the constant ") + C.Name);
  if (Names.empty())
    return "";
  return "; a new block size (block=) goes into " + join(Names, ", ");
}

BlockSizes inspectBlockSizes(const RewriteContext &RC, const FunctionDecl *K,
                             const CUDALaunchBoundsAttr *LB,
                             ArrayRef<const CUDAKernelCallExpr *> Launches) {
  BlockSizes R;
  std::string Name = K->getNameAsString();
  // An instantiation as a spec would name it: the first launch's callee.
  std::string Example;
  for (const CUDAKernelCallExpr *Call : Launches) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Example.empty() && Callee && Callee->getTemplateSpecializationArgs()) {
      raw_string_ostream OS(Example);
      Callee->getNameForDiagnostic(OS, RC.getASTContext().getPrintingPolicy(),
                                   /*Qualified=*/false);
    }
  }
  if (const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate())
    for (const FunctionDecl *S : T->specializations())
      if (Example.empty()) {
        raw_string_ostream OS(Example);
        S->getNameForDiagnostic(OS, RC.getASTContext().getPrintingPolicy(),
                                /*Qualified=*/false);
      }
  auto Instantiation = [&](const Twine &What) {
    std::string Spec = Example.empty() ? Name + "<...>" : Example;
    R.Issue =
        (What + ": a new block size needs a new instantiation of the template" +
         (R.TemplateIndex
              ? "; give template-arg=" + std::to_string(*R.TemplateIndex) +
                    " with block=<threads> to make it (the harness then "
                    "runs it in place of '" +
                    Spec + "')"
              : " that the launch rewrite cannot name (the block size is "
                "not one template argument); change it by hand"))
            .str();
  };
  // A block size that a constant or a macro carries.
  StringSet<> KeptNames;
  auto Use = [&](const Expr *E) {
    BlockSizeExpr B = classifyBlockSize(E);
    StringRef Macro = wholeMacro(RC, E);
    if (B.K != BlockSizeExpr::Constant && Macro.empty())
      return;
    std::string CName = Macro.empty() ? B.Decl->getNameAsString() : Macro.str();
    const auto *Var = dyn_cast_or_null<VarDecl>(B.Decl);
    if (KeptNames.count(CName))
      return; // edited in place
    if (any_of(R.Constants,
               [&](const BlockConstant &C) { return C.Name == CName; }) ||
        !R.ConstantIssue.empty()) {
      R.Carried.insert(E);
      return;
    }
    Expected<BlockConstant> C = Macro.empty()
                                    ? checkBlockConstant(RC, Var, K, Launches)
                                    : checkBlockMacro(RC, Macro, K, Launches);
    if (C) {
      R.Constants.push_back(*C);
      R.Carried.insert(E);
    } else if (Var && Var->isLocalVarDecl()) {
      // A local of the launcher: no kernel reads it, so the launch may be
      // edited in place, as a run-time value is; the host code that reads it
      // keeps the old value.
      consumeError(C.takeError());
      KeptNames.insert(CName);
      R.Kept.push_back("the block `" + CName + "` at " +
                       getLineCol(RC, E->getBeginLoc()) +
                       " is a local constant that the host code reads too: "
                       "set in the launch only; what the host code computes "
                       "from it (e.g. the grid) keeps the old value");
    } else {
      R.ConstantIssue = toString(C.takeError());
      R.Carried.insert(E);
    }
  };
  if (const Expr *Max = LB ? LB->getMaxThreads() : nullptr) {
    BlockSizeExpr B = classifyBlockSize(Max);
    std::string Text = RC.getText(Max->getSourceRange()).str();
    std::string At = getLineCol(RC, Max->getBeginLoc());
    const auto *Param = dyn_cast<DeclRefExpr>(Max->IgnoreParenImpCasts());
    if (B.K == BlockSizeExpr::TemplateParam && Param &&
        B.Decl == Param->getDecl())
      if (const auto *TP = dyn_cast<NonTypeTemplateParmDecl>(B.Decl))
        if (TP->getDepth() == 0)
          R.TemplateIndex = TP->getIndex();
    if (B.K == BlockSizeExpr::TemplateParam)
      Instantiation(
          "the block size " +
          (B.Decl && isa<NonTypeTemplateParmDecl>(B.Decl)
               ? "is the template parameter " + B.Decl->getNameAsString()
               : std::string("depends on the template parameters")) +
          " of " + Name + " (__launch_bounds__(" + Text + ") at " + At + ")");
    else if (B.K == BlockSizeExpr::Computed)
      R.Issue = "its __launch_bounds__(" + Text + ") at " + At +
                " is computed from " + B.Decl->getNameAsString() +
                ": change it by hand";
    Use(Max);
  }
  ASTContext &Ctx = RC.getASTContext();
  for (const CUDAKernelCallExpr *Call : Launches) {
    const Expr *Block = getWrittenLaunchArg(Call->getConfig()->getArg(1));
    Use(Block);
    // A template argument equal to the block size: the instantiation is
    // written for that block (k<256><<<g, 256>>>).
    const FunctionDecl *Callee = Call->getDirectCallee();
    const TemplateArgumentList *Args =
        Callee ? Callee->getTemplateSpecializationArgs() : nullptr;
    Expr::EvalResult Value;
    if (!Args || !R.Issue.empty() || Block->isValueDependent() ||
        !Block->EvaluateAsInt(Value, Ctx))
      continue;
    ArrayRef<TemplateArgument> All = Args->asArray();
    for (unsigned I = 0; I < All.size(); ++I)
      if (All[I].getKind() == TemplateArgument::Integral &&
          All[I].getAsIntegral() == Value.Val.getInt().getExtValue() &&
          R.Issue.empty()) {
        R.TemplateIndex = I;
        Instantiation("the launch at " + getLineCol(RC, Call->getBeginLoc()) +
                      " (" + RC.getText(Call->getCallee()->getSourceRange()) +
                      ") passes its block size as a template argument too");
      }
  }
  if (!R.ConstantIssue.empty())
    R.Constants.clear();
  return R;
}

} // namespace astra
