//===- WarpReduceUniform.cpp - Statements every thread runs ---------------===//
//
// A refill `a[tid] = ...;` replaces what a tree left only where every thread
// of the block runs it (from a review: a refill by warp 0 alone, under
// `if (threadIdx.x < 32)`, left a[32] as the tree left it, which the
// rewritten tree leaves otherwise). runsInEveryThread walks up from a
// statement to the first one that holds the tree (whose conditions the
// whole block passes: the tree holds barriers) and asks every condition on
// the way to have one value in the whole block: built-ins other than
// threadIdx, parameters and locals that never change (through their
// initialisers), loads at such addresses, pure math of those; a for loop's
// own counter counts when the loop declares it from such values, steps it by
// such values and has no break or continue.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Whether a loop body holds a break or continue of the loop itself.
struct LoopJumps : RecursiveASTVisitor<LoopJumps> {
  bool Found = false;
  unsigned Depth = 0, SwitchDepth = 0;
  bool TraverseStmt(Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return true;
    bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
    bool Switch = isa<SwitchStmt>(S);
    Depth += Loop;
    SwitchDepth += Switch;
    if ((isa<ContinueStmt>(S) && Depth == 0) ||
        (isa<BreakStmt>(S) && Depth == 0 && SwitchDepth == 0))
      Found = true;
    bool R = RecursiveASTVisitor::TraverseStmt(S);
    Depth -= Loop;
    SwitchDepth -= Switch;
    return R;
  }
};

class Uniformity {
public:
  Uniformity(ASTContext &Ctx, const FunctionDecl *K)
      : Ctx(Ctx), CV(Ctx, K, K->getBody()) {}

  /// Whether \p E has one value in every thread of the block.
  bool expr(const Expr *E, unsigned Depth = 4) {
    if (!E)
      return true;
    E = E->IgnoreParens();
    if (std::optional<CudaBuiltin> B = matchCudaBuiltin(E))
      return B->Var != "threadIdx";
    if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral,
            CXXBoolLiteralExpr, CXXNullPtrLiteralExpr,
            UnaryExprOrTypeTraitExpr>(E))
      return true;
    if (const auto *R = dyn_cast<DeclRefExpr>(E))
      return var(R->getDecl(), Depth);
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !isLibraryFunction(FD) || !isPureMathFunction(FD->getName()))
        return false;
      return all_of(C->arguments(),
                    [&](const Expr *A) { return expr(A, Depth); });
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->isIncrementDecrementOp())
      return false;
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAssignmentOp())
      return false;
    if (const auto *Cast = dyn_cast<CastExpr>(E);
        Cast && (Cast->getCastKind() == CK_UserDefinedConversion ||
                 Cast->getCastKind() == CK_ConstructorConversion))
      return false;
    if (!isa<CastExpr, UnaryOperator, BinaryOperator,
             AbstractConditionalOperator, ArraySubscriptExpr, MemberExpr>(E))
      return false;
    for (const Stmt *Ch : E->children())
      if (!expr(dyn_cast_or_null<Expr>(Ch), Depth))
        return false;
    return true;
  }

  /// Whether the for loop \p F runs as many times in every thread: its
  /// counters declared by it from uniform values, stepped by uniform
  /// values, not changed in its body, and no break or continue.
  bool loop(const ForStmt *F) {
    SmallVector<const VarDecl *, 2> Vars;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || V->getType()->isReferenceType() || !expr(V->getInit()))
          return false;
        Vars.push_back(V);
      }
    } else if (F->getInit()) {
      return false;
    }
    LoopJumps J;
    J.TraverseStmt(const_cast<Stmt *>(F->getBody()));
    if (J.Found || F->getConditionVariable())
      return false;
    for (const VarDecl *V : Vars)
      for (const DeclRefExpr *R : findRefs(F->getBody(), V))
        if (classifyUse(Ctx, R) != UseKind::Read)
          return false;
    for (const VarDecl *V : Vars)
      LoopVars.insert(V);
    // The counters count as uniform while their condition and step are
    // checked (they name them); a loop that fails leaves none behind (from a
    // review: `i += threadIdx.x & 1` left `i` taken as uniform).
    if (expr(F->getCond()) && step(F->getInc()))
      return true;
    for (const VarDecl *V : Vars)
      LoopVars.erase(V);
    return false;
  }

private:
  bool var(const ValueDecl *D, unsigned Depth) {
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V || V->getType()->isReferenceType())
      return false;
    if (LoopVars.count(V))
      return true;
    if (V->hasAttr<CUDASharedAttr>())
      return true; // one address for the block; a load there one value
    if (!V->hasLocalStorage())
      return V->getType().isConstQualified() &&
             !V->getType().isVolatileQualified() && V->getName() != "threadIdx";
    if (CV.mayChange(V))
      return false;
    if (isa<ParmVarDecl>(V))
      return true;
    return V->getInit() && Depth > 0 && expr(V->getInit(), Depth - 1);
  }

  /// `++i`, `i += s`, `i = e` on the loop's counters with uniform values.
  bool step(const Expr *E) {
    if (!E)
      return true;
    E = E->IgnoreParenImpCasts();
    auto IsCounter = [&](const Expr *L) {
      const VarDecl *V = getReferencedVar(L);
      return V && LoopVars.count(V);
    };
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      return U->isIncrementDecrementOp() && IsCounter(U->getSubExpr());
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isCommaOp())
        return step(B->getLHS()) && step(B->getRHS());
      return B->isAssignmentOp() && IsCounter(B->getLHS()) && expr(B->getRHS());
    }
    return false;
  }

  ASTContext &Ctx;
  ChangedVars CV;
  SmallPtrSet<const VarDecl *, 4> LoopVars;
};

} // namespace

static bool runsInEveryThread(ASTContext &Ctx, const FunctionDecl *K,
                              const Stmt *S,
                              function_ref<bool(const Stmt *)> HoldsTree) {
  Uniformity U(Ctx, K);
  for (const Stmt *Cur = S, *P = getParentStmt(Ctx, S); P;
       Cur = P, P = getParentStmt(Ctx, P)) {
    if (HoldsTree(P))
      return true; // the tree's conditions: the whole block passes them
    if (isa<CompoundStmt, AttributedStmt, LabelStmt, SwitchCase>(P))
      continue;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Cur == If->getCond())
        continue;
      if (If->getInit() || If->getConditionVariable() || !U.expr(If->getCond()))
        return false;
      continue;
    }
    if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (Cur != F->getBody() || !U.loop(F))
        return false;
      continue;
    }
    if (const auto *W = dyn_cast<WhileStmt>(P)) {
      // No counter: a uniform condition on values that never change.
      LoopJumps J;
      J.TraverseStmt(const_cast<Stmt *>(W->getBody()));
      if (J.Found || W->getConditionVariable() || !U.expr(W->getCond()))
        return false;
      continue;
    }
    if (const auto *Sw = dyn_cast<SwitchStmt>(P)) {
      if (Sw->getInit() || Sw->getConditionVariable() || !U.expr(Sw->getCond()))
        return false;
      continue;
    }
    return false; // a do loop, an expression, something not analysed
  }
  return true;
}

namespace {
/// The returns, breaks and continues of a function.
struct Exits : RecursiveASTVisitor<Exits> {
  std::vector<const Stmt *> Found;
  bool VisitReturnStmt(ReturnStmt *S) { return Found.push_back(S), true; }
  bool VisitBreakStmt(BreakStmt *S) { return Found.push_back(S), true; }
  bool VisitContinueStmt(ContinueStmt *S) { return Found.push_back(S), true; }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};
} // namespace

/// The first return, break or continue in [\p From, \p To) (from the
/// kernel's start when \p From is invalid) that may take some threads of
/// the block away from \p Holding: a return, or a break or continue whose
/// loop (or switch) holds \p Holding, under a condition that may differ
/// between the threads. Null when none may.
static const Stmt *findThreadExit(ASTContext &Ctx, const FunctionDecl *K,
                                  SourceLocation From, SourceLocation To,
                                  SourceLocation Holding,
                                  function_ref<bool(const Stmt *)> HoldsTree) {
  const SourceManager &SM = Ctx.getSourceManager();
  Exits E;
  E.TraverseStmt(K->getBody());
  for (const Stmt *X : E.Found) {
    SourceLocation L = X->getBeginLoc();
    if ((From.isValid() && SM.isBeforeInTranslationUnit(L, From)) ||
        !SM.isBeforeInTranslationUnit(L, To))
      continue;
    if (!isa<ReturnStmt>(X)) {
      // Its target: the nearest loop (or switch, for a break) around it.
      const Stmt *T = getParentStmt(Ctx, X);
      while (T && !isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(T) &&
             !(isa<BreakStmt>(X) && isa<SwitchStmt>(T)))
        T = getParentStmt(Ctx, T);
      if (!T || !SM.isPointWithin(Holding, T->getBeginLoc(), T->getEndLoc()))
        continue; // it leaves a statement that does not hold the point
    }
    if (!runsInEveryThread(Ctx, K, X, HoldsTree))
      return X;
  }
  return nullptr;
}

std::string checkExitsBefore(ASTContext &Ctx, const FunctionDecl *K,
                             const Stmt *Tree) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = Tree->getBeginLoc();
  const Stmt *X =
      findThreadExit(Ctx, K, SourceLocation(), At, At, [&](const Stmt *P) {
        return SM.isPointWithin(At, P->getBeginLoc(), P->getEndLoc());
      });
  if (!X)
    return "";
  return "line " + std::to_string(SM.getSpellingLineNumber(X->getBeginLoc())) +
         " may take some threads of the block away before the tree (a " +
         X->getStmtClassName() +
         " under a condition that may differ between them); the shuffles "
         "need whole warps";
}

bool isUniformAt(ASTContext &Ctx, const FunctionDecl *K, const Stmt *At,
                 const Expr *E) {
  Uniformity U(Ctx, K);
  // The counters of the for loops around: uniform where the loop is.
  for (const Stmt *Cur = At, *P = getParentStmt(Ctx, At); P;
       Cur = P, P = getParentStmt(Ctx, P))
    if (const auto *F = dyn_cast<ForStmt>(P); F && Cur == F->getBody())
      U.loop(F);
  return U.expr(E);
}

bool refillRunsInEveryThread(ASTContext &Ctx, const FunctionDecl *K,
                             const Stmt *Refill, SourceLocation After,
                             function_ref<bool(const Stmt *)> HoldsTree) {
  // A thread that left before the refill (a return, or a break or continue
  // of a loop around it) does not refill its element.
  return runsInEveryThread(Ctx, K, Refill, HoldsTree) &&
         !findThreadExit(Ctx, K, After, Refill->getEndLoc(),
                         Refill->getBeginLoc(), HoldsTree);
}

} // namespace astra
