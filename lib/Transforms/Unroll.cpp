//===- Unroll.cpp - Loop unrolling ----------------------------------------===//
//
// unroll[:factor=N,mode=pragma|manual]
//   pragma (default): `#pragma unroll N` on the line before the loop; any
//     loop kind. N=1 turns unrolling off.
//   manual: a canonical `for (T i = a; i < n; i += s) body` (also `<=`, `++i`,
//     `i++`) becomes
//       { T i = a; const T i_step = s;
//         for (; i + (N-1)*i_step < n; i += N*i_step) { body(i) ...
//                                                       body(i+(N-1)*i_step) }
//         for (; i < n; i += s) body }       // remainder
//     Legal when n and s do not change in the loop (no memory reads, no
//     calls but pure math), the body does not assign i or take its address,
//     declares nothing __shared__ or static (one variable per copy would
//     split it), and has no break/continue of this loop and no goto; the
//     comparison must not change i's value (`int i < unsigned n` converts i
//     to unsigned: refused). An unsigned i (unsigned int or wider) gets a
//     guard that cannot wrap: `i < n && (n - i - 1) / (N-1) >= s` (`<=`:
//     `i <= n && (n - i) / (N-1) >= s`), or with a literal step, `i < n && n -
//     i > (N-1)*s`. A narrow i (short, char) computes the guard in int, and the
//     copies read `(T)(i + K*s)`. A signed i of int or wider keeps
//     `i + (N-1)*s < n`, which assumes that sum does not overflow T (the
//     original needs only i + s not to).
// Both refuse loops that already carry an unroll pragma and loops inside
// macro expansions.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "RegisterArrayLoop.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/LoopForm.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class Unroll : public Rewrite {
public:
  StringRef getName() const override { return "unroll"; }
  StringRef getDescription() const override {
    return "#pragma unroll N, or a manual unroll with a remainder loop";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Factor{"factor",
                     RewriteParamKind::Int,
                     "4",
                     {"2", "4", "8"},
                     "unroll factor (pragma: 1-1024, manual: 2-64); by "
                     "default 4, or all iterations of a loop that indexes "
                     "a local array with its variable"};
    Factor.Min = 1;
    Factor.Max = 1024;
    ParamDesc Mode{"mode",
                   RewriteParamKind::Enum,
                   "pragma",
                   {"pragma", "manual"},
                   "pragma: '#pragma unroll N'; manual: copies of the body "
                   "and a remainder loop"};
    Mode.Choices = {"pragma", "manual"};
    return {Mode, Factor};
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// The `#pragma unroll`-style hint already on \p Loop, or null.
const LoopHintAttr *getUnrollHint(ASTContext &Ctx, const Stmt *Loop) {
  DynTypedNodeList Ps = Ctx.getParents(*Loop);
  const auto *AS = Ps.size() == 1 ? Ps[0].get<AttributedStmt>() : nullptr;
  if (!AS)
    return nullptr;
  for (const Attr *A : AS->getAttrs())
    if (const auto *H = dyn_cast<LoopHintAttr>(A))
      if (H->getOption() == LoopHintAttr::Unroll ||
          H->getOption() == LoopHintAttr::UnrollCount)
        return H;
  return nullptr;
}

/// Finds what stops a body from being copied: a break or continue of the
/// loop itself, a goto or a label.
class CopyBlocker : public RecursiveASTVisitor<CopyBlocker> {
public:
  const Stmt *Found = nullptr;
  bool TraverseForStmt(ForStmt *S) { return inner(S, true); }
  bool TraverseWhileStmt(WhileStmt *S) { return inner(S, true); }
  bool TraverseDoStmt(DoStmt *S) { return inner(S, true); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { return inner(S, true); }
  bool TraverseSwitchStmt(SwitchStmt *S) { return inner(S, false); }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitBreakStmt(BreakStmt *S) { return found(S, !InBreakable); }
  bool VisitContinueStmt(ContinueStmt *S) { return found(S, !InLoop); }
  bool VisitGotoStmt(GotoStmt *S) { return found(S, true); }
  bool VisitLabelStmt(LabelStmt *S) { return found(S, true); }

private:
  template <typename T> bool inner(T *S, bool IsLoop) {
    bool SavedLoop = InLoop, SavedBreak = InBreakable;
    InLoop |= IsLoop;
    InBreakable = true;
    bool R = RecursiveASTVisitor::TraverseStmt(S->getBody());
    InLoop = SavedLoop;
    InBreakable = SavedBreak;
    return R;
  }
  bool found(const Stmt *S, bool Blocks) {
    if (Blocks && !Found)
      Found = S;
    return true;
  }
  bool InLoop = false, InBreakable = false;
};

/// The first variable declared in a body that a copy of the body would
/// split: __shared__ or static (one variable per copy, not one for all).
class StaticLocalFinder : public RecursiveASTVisitor<StaticLocalFinder> {
public:
  const VarDecl *Found = nullptr;
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitVarDecl(VarDecl *V) {
    if (!Found && (V->isStaticLocal() || V->hasAttr<CUDASharedAttr>()))
      Found = V;
    return true;
  }
};

/// The names declared in a body (a named step written there would mean the
/// body's variable after its declaration).
class DeclaredNames : public RecursiveASTVisitor<DeclaredNames> {
public:
  StringSet<> Names;
  bool VisitNamedDecl(NamedDecl *D) {
    if (D->getIdentifier())
      Names.insert(D->getName());
    return true;
  }
};

/// Whether converting a value of type \p From to \p To keeps every value.
static bool keepsValues(ASTContext &Ctx, QualType From, QualType To) {
  if (!From->isIntegerType() || !To->isIntegerType())
    return false;
  uint64_t WF = Ctx.getIntWidth(From), WT = Ctx.getIntWidth(To);
  bool SF = From->isSignedIntegerOrEnumerationType(),
       ST = To->isSignedIntegerOrEnumerationType();
  return (SF == ST && WT >= WF) || (ST && !SF && WT > WF);
}

/// The parts of the loop's LoopForm that manual unrolling uses.
struct CanonicalLoop {
  const VarDecl *Var = nullptr;
  const Expr *Bound = nullptr;
  BinaryOperatorKind Cmp = BO_LT;
  const Expr *Step = nullptr; ///< null for ++i / i++
};

class ManualUnroller {
public:
  ManualUnroller(RewriteContext &RC, const FunctionDecl *K, const ForStmt *F)
      : RC(RC), Ctx(RC.getASTContext()), K(K), F(F) {}
  /// Empty when the loop can be unrolled; else why not.
  std::string check();
  std::string build(int64_t Factor, StringSet<> &Taken);
  /// File offset just past the body (and the `;` of a single statement).
  unsigned getBodyEnd();

private:
  std::string getBodyText(StringRef Replacement);
  /// \p E as written in the file, macro names included.
  std::string getWritten(const Expr *E);
  bool needsParens(const DeclRefExpr *R);

  RewriteContext &RC;
  ASTContext &Ctx;
  const FunctionDecl *K;
  const ForStmt *F;
  CanonicalLoop C;
  std::vector<const DeclRefExpr *> Uses; ///< of the variable in the body
};

std::string ManualUnroller::check() {
  const char *Shape = "not a canonical 'for (T i = start; i < end; i += step)' "
                      "loop";
  LoopForm Form = analyzeLoopForm(Ctx, F, /*Writes=*/nullptr);
  if (!Form.DeclaresIV)
    return std::string(Shape) + ": the init must declare one variable";
  C.Var = Form.IV;
  if (!C.Var->getType()->isIntegerType() || !C.Var->getInit())
    return std::string(Shape) + ": the variable must be an initialised integer";
  if ((Form.Cmp != BO_LT && Form.Cmp != BO_LE) || Form.BoundOnLeft ||
      !Form.BareIV || !Form.BuiltinOps)
    return std::string(Shape) + ": the condition must be 'i < end' or 'i <= end'";
  C.Cmp = Form.Cmp;
  C.Bound = Form.Bound;
  if (!Form.stepsUp() || Form.Update == LoopUpdate::Assign)
    return std::string(Shape) + ": the increment must be ++i, i++ or i += step";
  C.Step = Form.Step;
  QualType T = C.Var->getType().getUnqualifiedType();
  QualType CmpType = C.Bound->getType();
  PrintingPolicy Policy(Ctx.getLangOpts());
  if (CmpType->isDependentType())
    return "the comparison's type depends on a template parameter, so it "
           "may convert '" +
           C.Var->getName().str() + "' to another type";
  if (!keepsValues(Ctx, T, CmpType))
    return "the comparison converts '" + C.Var->getName().str() + "' (" +
           T.getAsString(Policy) + ") to '" + CmpType.getAsString(Policy) +
           "', which changes some of its values; a guard `i + (N-1)*step` "
           "would compare others";
  if (C.Step && Ctx.isPromotableIntegerType(T)) {
    QualType StepType = C.Step->IgnoreParenImpCasts()->getType();
    if (!StepType->isIntegerType() ||
        (!Ctx.isPromotableIntegerType(StepType) &&
         !Ctx.hasSameUnqualifiedType(StepType, Ctx.IntTy)))
      return "the variable is narrower than int (" + T.getAsString(Policy) +
             ") and the step is '" + StepType.getAsString(Policy) +
             "', so the guard would not be computed in int";
  }
  StaticLocalFinder Statics;
  Statics.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  if (Statics.Found)
    return std::string("the body declares '") + Statics.Found->getName().str() +
           "' " +
           (Statics.Found->hasAttr<CUDASharedAttr>() ? "__shared__"
                                                     : "static") +
           " at " + getLineCol(RC, Statics.Found->getLocation()) +
           ": each copy of the body would declare its own, splitting what "
           "the iterations share";
  ChangedVars InLoop(Ctx, K, F);
  std::string Why;
  if (!isInvariant(Ctx, C.Bound, InLoop, Why, /*AllowIntDivision=*/true))
    return "the bound may change in the loop: " + Why;
  if (C.Step && !isInvariant(Ctx, C.Step, InLoop, Why))
    return "the step may change in the loop: " + Why;
  if (ChangedVars(Ctx, K, F->getBody()).mayChange(C.Var))
    return "the body modifies '" + C.Var->getName().str() +
           "' or takes its address";
  CopyBlocker B;
  B.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  if (B.Found)
    return "the body has a " + std::string(B.Found->getStmtClassName()) +
           " at " + getLineCol(RC, B.Found->getBeginLoc()) +
           " that a copy of the body would change";
  std::string Macro = getMacroReason(RC, F->getSourceRange());
  if (!Macro.empty())
    return Macro;
  Uses = findRefs(F->getBody(), C.Var);
  for (const DeclRefExpr *R : Uses)
    if (R->getLocation().isMacroID())
      return "'" + C.Var->getName().str() + "' is used inside a macro expansion at " +
             getLineCol(RC, R->getLocation());
  return "";
}

/// Whether `i + k` needs parentheses where \p R stands: not as an index, a
/// call argument, an initialiser or inside parentheses already.
bool ManualUnroller::needsParens(const DeclRefExpr *R) {
  const Stmt *Cur = R;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    if (Ps.size() != 1)
      return true;
    if (Ps[0].get<VarDecl>())
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    if (isa_and_nonnull<ImplicitCastExpr>(P)) {
      Cur = P;
      continue;
    }
    if (const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(P))
      return Sub->getIdx() != Cur;
    return !isa_and_nonnull<ParenExpr, CallExpr>(P);
  }
}

/// The body's text (through the `;` of a single statement), with every use
/// of the variable replaced by \p Replacement unless it is empty.
std::string ManualUnroller::getBodyText(StringRef Replacement) {
  EditBatch Offsets(RC); // only used to map locations to offsets
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  unsigned Cur = Offsets.beginOf(F->getBody()->getSourceRange());
  std::string Out;
  for (const DeclRefExpr *R : Uses) {
    if (Replacement.empty())
      break;
    unsigned Off = Offsets.beginOf(R->getSourceRange());
    Out += Buf.slice(Cur, Off);
    Out += needsParens(R) ? "(" + Replacement.str() + ")" : Replacement.str();
    Cur = Offsets.endOf(R->getSourceRange());
  }
  Out += Buf.slice(Cur, getBodyEnd());
  return Out;
}

unsigned ManualUnroller::getBodyEnd() {
  EditBatch Offsets(RC);
  const Stmt *Body = F->getBody();
  if (!isa<CompoundStmt>(Body)) {
    SourceLocation AfterSemi = Lexer::findLocationAfterToken(
        Body->getEndLoc(), tok::semi, RC.getSourceManager(),
        Ctx.getLangOpts(), /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (AfterSemi.isValid())
      return Offsets.beginOf(SourceRange(AfterSemi, AfterSemi));
  }
  return Offsets.endOf(Body->getSourceRange());
}

std::string ManualUnroller::getWritten(const Expr *E) {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      RC.getSourceManager(), Ctx.getLangOpts());
  if (R.isInvalid())
    return RC.getText(E->getSourceRange()).str();
  return Lexer::getSourceText(R, RC.getSourceManager(), Ctx.getLangOpts())
      .str();
}

static bool isIdentifier(StringRef S) {
  return !S.empty() && !isDigit(S.front()) &&
         all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

/// Whether \p E is written as one integer literal, directly or as the whole
/// expansion of a macro (`#define BLOCK_ROWS 16`).
static bool isLiteralName(const Expr *E) {
  return isa<IntegerLiteral>(E->IgnoreParenImpCasts());
}

std::string ManualUnroller::build(int64_t Factor, StringSet<> &Taken) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  std::string I = C.Var->getName().str();
  QualType VarType = C.Var->getType().getUnqualifiedType();
  std::string T = VarType.getAsString(Policy);
  // A step written as a number is multiplied out. One written as a name
  // keeps its name, so the copy stays right when the file is built with
  // another -D: a macro whose expansion is one integer literal (BLOCK_ROWS),
  // or a variable of the loop variable's type that the body does not
  // declare again (the copies would mean the body's). Any other expression
  // (a macro that expands to `W + 1` included) is read once into a const.
  std::string StepText = C.Step ? getWritten(C.Step) : "1";
  const auto *Lit = C.Step ? dyn_cast<IntegerLiteral>(C.Step->IgnoreParenImpCasts())
                           : nullptr;
  bool Named = false;
  if (C.Step && isIdentifier(StepText)) {
    DeclaredNames Body;
    Body.TraverseStmt(const_cast<Stmt *>(F->getBody()));
    const auto *Ref = dyn_cast<DeclRefExpr>(C.Step->IgnoreParenImpCasts());
    if (C.Step->getBeginLoc().isMacroID())
      Named = isLiteralName(C.Step);
    else
      Named = Ref && !Body.Names.count(StepText) &&
              Ctx.hasSameUnqualifiedType(Ref->getType(), VarType);
  }
  int64_t StepValue = !C.Step ? 1
                      : Lit && !isIdentifier(StepText)
                          ? Lit->getValue().getSExtValue()
                          : 0;
  std::string StepName;
  if (Named)
    StepName = StepText;
  else if (!StepValue)
    StepName = makeFreshName(Ctx, I + "_step", Taken);
  auto Times = [&](int64_t K) {
    if (StepValue)
      return std::to_string(K * StepValue);
    return K == 1 ? StepName : std::to_string(K) + " * " + StepName;
  };
  const Expr *Bound = C.Bound->IgnoreImpCasts();
  std::string BoundText = getWritten(Bound);
  bool PlainBound =
      isa<DeclRefExpr, IntegerLiteral, ParenExpr, CallExpr, MemberExpr>(Bound);
  if (!PlainBound ||
      (Bound->getBeginLoc().isMacroID() && !isLiteralName(Bound)))
    BoundText = "(" + BoundText + ")";
  // A narrow variable's copies are cast back to its type (`i + 1` is int).
  bool Narrow = Ctx.isPromotableIntegerType(VarType);
  auto Copy = [&](int64_t K) {
    std::string Sum = I + " + " + Times(K);
    return Narrow ? "(" + T + ")(" + Sum + ")" : Sum;
  };
  // The guard: `i + (N-1)*s < n` unless that can wrap (unsigned).
  std::string Cmp = C.Cmp == BO_LT ? " < " : " <= ";
  std::string Guard = I + " + " + Times(Factor - 1) + Cmp + BoundText;
  if (VarType->isUnsignedIntegerType() && !Narrow) {
    std::string Left = BoundText + " - " + I + (C.Cmp == BO_LT ? " - 1" : "");
    if (StepValue)
      Guard = I + Cmp + BoundText + " && " + BoundText + " - " + I +
              (C.Cmp == BO_LT ? " > " : " >= ") + Times(Factor - 1);
    else
      Guard = I + Cmp + BoundText + " && " +
              (Factor == 2 ? Left
                           : "(" + Left + ") / " + std::to_string(Factor - 1)) +
              " >= " + StepName;
  }

  std::string Out =
      "{\n" + T + " " + I + " = " + getWritten(C.Var->getInit()) + ";\n";
  if (!StepValue && !Named)
    Out += "const " + T + " " + StepName + " = " + StepText + ";\n";
  Out += "for (; " + Guard + "; " + I + " += " + Times(Factor) + ") {\n";
  for (int64_t K = 0; K < Factor; ++K)
    Out += getBodyText(K ? Copy(K) : "") + "\n";
  // The remainder loop puts its body where the original did: `) {` or
  // `)` and a new line.
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  EditBatch Offsets(RC);
  unsigned RParenEnd = Offsets.endOf(SourceRange(F->getRParenLoc()));
  unsigned BodyBegin = Offsets.beginOf(F->getBody()->getSourceRange());
  std::string Gap = RParenEnd < BodyBegin && BodyBegin != ~0u
                        ? Buf.slice(RParenEnd, BodyBegin).str()
                        : "\n";
  Out += "}\nfor (; " + getWritten(F->getCond()) + "; " +
         getWritten(F->getInc()) + ")" + Gap + getBodyText("") + "\n}";
  return Out;
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
Unroll::plan(RewriteContext &RC, const RewriteParams &P) const {
  bool Manual = P.getString("mode", "pragma") == "manual";
  Expected<int64_t> Factor = P.getInt("factor", 4);
  if (!Factor)
    return Factor.takeError();
  if (Manual && (*Factor < 2 || *Factor > 64))
    return makeInputError("rewrite 'unroll': parameter 'factor' must be "
                          "between 2 and 64 with mode=manual, got '" +
                          Twine(*Factor) + "'");
  std::optional<int64_t> Given;
  if (P.Values.count("factor"))
    Given = *Factor;
  ASTContext &Ctx = RC.getASTContext();
  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    DenseMap<const Stmt *, std::string> LoopIds = getLoopIds(K);
    SmallPtrSet<const Stmt *, 4> Rewritten; // manual: whole loops replaced
    auto Taken = std::make_shared<StringSet<>>();
    for (const Stmt *Loop : collectLoops(K->getBody())) {
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.LoopId = LoopIds.lookup(Loop);
      Site.Loc = RC.getDiagLoc(Loop->getBeginLoc());
      Site.Selected = isSelected(P, Kernel, Site.LoopId);
      auto Record = [&](bool Applicable, const Twine &Detail) {
        Site.Applicable = Applicable;
        Site.Detail = Detail.str();
        Sites.push_back({Site, nullptr});
        return Applicable && Site.Selected;
      };
      if (const LoopHintAttr *H = getUnrollHint(Ctx, Loop)) {
        std::string Hint = "#pragma unroll";
        if (H->getOption() == LoopHintAttr::UnrollCount && H->getValue())
          Hint += " " + RC.getText(H->getValue()->getSourceRange()).str();
        Record(false, "the loop already has '" + Hint + "'");
        continue;
      }
      std::string Macro = getMacroReason(
          RC, SourceRange(Loop->getBeginLoc(), Loop->getBeginLoc()));
      if (!Macro.empty()) {
        Record(false, "the loop is " + Macro);
        continue;
      }
      std::optional<RegisterArrayLoop> RA = findRegisterArrayLoop(Ctx, Loop);
      UnrollFactor FC = chooseUnrollFactor(RA ? &*RA : nullptr, Given, Manual);
      std::string Why = FC.Why.empty() ? FC.Risk : FC.Why;
      Why = Why.empty() ? "" : " (" + Why + ")";
      Site.Warning = FC.Risk;
      if (!Manual) {
        EditBatch Probe(RC);
        if (!insertLineBefore(RC, Probe, Loop, "")) {
          Record(false, "the loop does not start its own line");
          continue;
        }
        std::string Pragma = "#pragma unroll";
        if (FC.Factor)
          Pragma += " " + std::to_string(FC.Factor);
        Record(true, Pragma + Why);
        Sites.back().Edit = [&RC, Loop, Pragma](EditBatch &Edits) {
          insertLineBefore(RC, Edits, Loop, Pragma);
        };
        continue;
      }
      const auto *F = dyn_cast<ForStmt>(Loop);
      if (!F) {
        Record(false, "manual unrolling needs a for loop (this is a " +
                          std::string(Loop->getStmtClassName()) + ")");
        continue;
      }
      std::vector<const Stmt *> Outer = getEnclosingLoops(Ctx, Loop, LoopIds);
      auto It = llvm::find_if(
          Outer, [&](const Stmt *O) { return Rewritten.count(O); });
      auto U = std::make_shared<ManualUnroller>(RC, K, F);
      std::string Blocker = U->check();
      if (!Blocker.empty()) {
        Record(false, Blocker);
        continue;
      }
      if (It != Outer.end() && Site.Selected) {
        Record(false, "inside " + LoopIds.lookup(*It) +
                          ", which is unrolled in the same run (select one "
                          "loop with loop=)");
        continue;
      }
      if (!Record(true, "manual unroll by " + std::to_string(FC.Factor) +
                            " with a remainder loop" + Why))
        continue;
      Rewritten.insert(F);
      int64_t N = FC.Factor;
      Sites.back().Edit = [&RC, F, U, N, Taken](EditBatch &Edits) {
        Edits.replaceBlock(Edits.beginOf(F->getSourceRange()), U->getBodyEnd(),
                      U->build(N, *Taken));
      };
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createUnroll() { return std::make_unique<Unroll>(); }

} // namespace astra
