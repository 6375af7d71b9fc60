//===- UnrollManual.cpp - Manual unrolling of a canonical for loop --------===//
//
// unroll's mode=manual (Unroll.cpp describes the form): whether a loop can
// be unrolled by hand (a canonical for loop whose bound and step do not
// change, whose body neither modifies the variable nor has a break, a
// continue, a goto or a __shared__ or static local), and the text of the
// unrolled loop and its remainder.
//
//===----------------------------------------------------------------------===//
#include "UnrollManual.h"
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "SiteUtil.h"
#include "astra/Frontend/LoopForm.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace unroll {
namespace {

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

} // namespace

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
    return std::string(Shape) +
           ": the condition must be 'i < end' or 'i <= end'";
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
      return "'" + C.Var->getName().str() +
             "' is used inside a macro expansion at " +
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
        Body->getEndLoc(), tok::semi, RC.getSourceManager(), Ctx.getLangOpts(),
        /*SkipTrailingWhitespaceAndNewLine=*/false);
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
  const auto *Lit =
      C.Step ? dyn_cast<IntegerLiteral>(C.Step->IgnoreParenImpCasts())
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

} // namespace unroll
} // namespace astra
