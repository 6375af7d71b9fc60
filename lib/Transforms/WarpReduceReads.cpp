//===- WarpReduceReads.cpp - What reads a tree's leftovers ----------------===//
//
// A rewritten tree (warp-reduce, fold-blocks' row shuffles) leaves only a[0]
// as the original does; the other elements hold the threads' own values
// where the original leaves partial results. These checks find a read that
// may see them: a later read of another element (checkLaterReads), or the
// tree's own next run when a loop runs it again (checkTreeRerun). Between
// the tree and such a read there must be a refill `a[tid] = ...;` that runs
// every time: in a compound on the way, not under a condition, with no case
// label between (a jump there would skip it) and, for a refill after the
// tree on the way to the next run, no break or continue of the loop that
// could skip it. A kernel with goto is refused: its jumps are not followed.
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// Finds case labels of the enclosing switch (not of a nested one), break
/// or continue statements aimed at the enclosing loop, and gotos.
class JumpFinder : public RecursiveASTVisitor<JumpFinder> {
public:
  bool CaseLabel = false, LoopExit = false, Goto = false;
  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    if (isa<LambdaExpr>(S))
      return true;
    if (isLoop(S)) {
      // Its break and continue are its own; its case labels cannot be.
      ++LoopDepth;
      bool R = RecursiveASTVisitor::TraverseStmt(S);
      --LoopDepth;
      return R;
    }
    if (isa<SwitchStmt>(S)) {
      ++SwitchDepth;
      bool R = RecursiveASTVisitor::TraverseStmt(S);
      --SwitchDepth;
      return R;
    }
    if (isa<SwitchCase>(S) && SwitchDepth == 0)
      CaseLabel = true;
    if (isa<ContinueStmt>(S) && LoopDepth == 0)
      LoopExit = true;
    if (isa<BreakStmt>(S) && LoopDepth == 0 && SwitchDepth == 0)
      LoopExit = true;
    if (isa<GotoStmt, IndirectGotoStmt>(S))
      Goto = true;
    return RecursiveASTVisitor::TraverseStmt(S);
  }

private:
  unsigned LoopDepth = 0, SwitchDepth = 0;
};

/// The jumps in \p S; for a loop, those of its body (its own break and
/// continue included).
JumpFinder findJumps(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S))
    S = F->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(S))
    S = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(S))
    S = D->getBody();
  else if (const auto *R = dyn_cast<CXXForRangeStmt>(S))
    S = R->getBody();
  JumpFinder J;
  J.TraverseStmt(const_cast<Stmt *>(S));
  return J;
}

/// A statement that replaces every element the tree touched: `a[tid] =
/// ...;`, a `{ }` holding one (and no case label a jump could enter by),
/// or an if/else both of whose branches are one.
bool isRefill(ASTContext &Ctx, const FunctionDecl *K, const Stmt *S,
              const VarDecl *Array) {
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    if (findJumps(CS).CaseLabel)
      return false;
    for (const Stmt *Ch : CS->body())
      if (isRefill(Ctx, K, Ch, Array))
        return true;
    return false;
  }
  if (const auto *If = dyn_cast<IfStmt>(S))
    return If->getElse() && !If->getInit() && !If->isConsteval() &&
           isRefill(Ctx, K, If->getThen(), Array) &&
           isRefill(Ctx, K, If->getElse(), Array);
  const auto *E = dyn_cast<Expr>(S);
  BinaryOperatorKind Op;
  const Expr *L, *R;
  return E && matchBinary(E->IgnoreParenImpCasts(), Op, L, R) &&
         Op == BO_Assign && isTidElement(Ctx, K, L, Array);
}

/// What scanning a compound's statements before a child, nearest first,
/// finds first: a refill, a statement for which \p Stop holds, a case label
/// (a jump may enter after any refill before it), or nothing.
enum class Before { Refill, Stop, Label, Nothing };

template <typename StopFn>
Before scanBefore(ASTContext &Ctx, const FunctionDecl *K, const VarDecl *Array,
                  const CompoundStmt *CS, const Stmt *Child, StopFn Stop,
                  const Stmt **Refill = nullptr) {
  std::vector<const Stmt *> Prev;
  for (const Stmt *Ch : CS->body()) {
    if (Ch == Child)
      break;
    Prev.push_back(Ch);
  }
  for (auto It = Prev.rbegin(); It != Prev.rend(); ++It) {
    // A label on the statement itself: a jump there runs it, and skips
    // what comes before it.
    const Stmt *S = *It;
    bool Labelled = false;
    while (const auto *SC = dyn_cast<SwitchCase>(S)) {
      S = SC->getSubStmt();
      Labelled = true;
    }
    if (isRefill(Ctx, K, S, Array)) {
      if (Refill)
        *Refill = S;
      return Before::Refill;
    }
    if (Stop(S))
      return Before::Stop;
    if (Labelled || findJumps(S).CaseLabel)
      return Before::Label;
  }
  return Before::Nothing;
}

bool contains(const SourceManager &SM, const Stmt *Outer, const Stmt *Inner) {
  SourceRange O = Outer->getSourceRange(), I = Inner->getSourceRange();
  return !SM.isBeforeInTranslationUnit(I.getBegin(), O.getBegin()) &&
         !SM.isBeforeInTranslationUnit(O.getEnd(), I.getEnd());
}

class SubscriptCollector : public RecursiveASTVisitor<SubscriptCollector> {
public:
  explicit SubscriptCollector(const VarDecl *A) : A(A) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == A)
      Refs.push_back(E);
    return true;
  }
  const VarDecl *A;
  std::vector<const DeclRefExpr *> Refs;
};

/// The references to \p Array, or to another `extern __shared__` array
/// when \p Array is one (they all start at the same address), outside
/// kernel \p K's body and the other kernels: in device functions \p K may
/// call.
struct OtherUses : RecursiveASTVisitor<OtherUses> {
  const VarDecl *Array;
  const FunctionDecl *K;
  const DeclRefExpr *Found = nullptr;
  bool TraverseFunctionDecl(FunctionDecl *F) {
    if (F->hasAttr<CUDAGlobalAttr>() && F != K)
      return true; // another kernel: another launch
    return RecursiveASTVisitor::TraverseFunctionDecl(F);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || Found)
      return true;
    bool Other = V != Array && Array->hasExternalStorage() &&
                 V->hasExternalStorage() && V->hasAttr<CUDASharedAttr>();
    bool Outside = V == Array && !K->getBody()->getSourceRange().fullyContains(
                                     E->getSourceRange());
    if (Other || Outside)
      Found = E;
    return true;
  }
};

} // namespace

std::string checkOtherAccess(ASTContext &Ctx, const FunctionDecl *K,
                             const VarDecl *Array) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string A = "'" + Array->getNameAsString() + "'";
  if (!Array->isLocalVarDecl() || Array->hasExternalStorage()) {
    OtherUses U;
    U.Array = Array;
    U.K = K;
    U.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (U.Found && U.Found->getDecl() == Array)
      return A + " is declared outside the kernel and used at line " +
             std::to_string(SM.getSpellingLineNumber(U.Found->getBeginLoc())) +
             ", which the check of reads after the tree does not follow";
    if (U.Found)
      return "the extern __shared__ '" + U.Found->getDecl()->getNameAsString() +
             "' (line " +
             std::to_string(SM.getSpellingLineNumber(U.Found->getBeginLoc())) +
             ") shares the memory of " + A +
             ", whose reads the check of reads after the tree does not follow";
  }
  return "";
}

namespace {

const char *GotoReason =
    "the kernel uses goto, whose jumps the check does not follow: a read "
    "after the tree could see what the rewritten tree leaves";

} // namespace

std::string checkLaterReads(ASTContext &Ctx, const FunctionDecl *K,
                            const VarDecl *Array,
                            const SmallPtrSetImpl<const Stmt *> &Trees) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (findJumps(K->getBody()).Goto)
    return GotoReason;
  if (std::string Why = checkOtherAccess(Ctx, K, Array); !Why.empty())
    return Why;
  SourceLocation FirstTree;
  for (const Stmt *T : Trees)
    if (FirstTree.isInvalid() ||
        SM.isBeforeInTranslationUnit(T->getBeginLoc(), FirstTree))
      FirstTree = T->getBeginLoc();
  auto HasTree = [&](const Stmt *S) {
    for (const Stmt *T : Trees)
      if (contains(SM, S, T))
        return true;
    return false;
  };
  SubscriptCollector C(Array);
  C.TraverseStmt(K->getBody());
  for (const DeclRefExpr *Ref : C.Refs) {
    bool InTree = false;
    for (const Stmt *T : Trees)
      InTree |= contains(SM, T, Ref);
    if (InTree)
      continue;
    DynTypedNodeList Ps = Ctx.getParents(*Ref);
    const Expr *Use = Ref;
    while (Ps.size() == 1 && Ps[0].get<ImplicitCastExpr>()) {
      Use = Ps[0].get<ImplicitCastExpr>();
      Ps = Ctx.getParents(*Use);
    }
    const auto *Sub =
        Ps.size() == 1 ? Ps[0].get<ArraySubscriptExpr>() : nullptr;
    std::string Where =
        std::to_string(SM.getSpellingLineNumber(Ref->getBeginLoc()));
    if (!Sub || Sub->getBase() != Use)
      return "'" + Array->getNameAsString() +
             "' is used other than by "
             "subscripts at line " +
             Where;
    // From a review: `float *p = &a[0];` before the tree, `p[1]` after it.
    if (!isElementUse(Ctx, Sub))
      return "line " + Where + " takes the address of " +
             getStmtText(Ctx, Sub) +
             " or binds it to a reference: reads through it after the tree "
             "are not followed";
    const auto *Idx = dyn_cast<IntegerLiteral>(stripCasts(Sub->getIdx()));
    if (Idx && Idx->getValue() == 0)
      continue; // a[0] holds the result, as in the original
    // A plain store is no read.
    DynTypedNodeList SP = Ctx.getParents(*Sub);
    if (SP.size() == 1)
      if (const auto *BO = SP[0].get<BinaryOperator>())
        if (BO->getOpcode() == BO_Assign && BO->getLHS() == Sub)
          continue;
    // Find what precedes the read: a refill of the array, or a tree.
    const Stmt *Cur = Sub;
    const Stmt *PartialRefill = nullptr;
    bool Ok = false, Done = false;
    while (!Done) {
      const Stmt *P = getParentStmt(Ctx, Cur);
      if (!P) {
        Ok = true; // reached the function: no tree before the read
        break;
      }
      if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
        const Stmt *Refill = nullptr;
        switch (scanBefore(Ctx, K, Array, CS, Cur, HasTree, &Refill)) {
        case Before::Refill:
          // Only a refill by every thread replaces every element the tree
          // left (from a review: one by warp 0 alone left a[32]).
          Ok = refillRunsInEveryThread(Ctx, K, Refill, FirstTree, HasTree);
          if (!Ok)
            PartialRefill = Refill;
          Done = true;
          break;
        case Before::Stop:
        case Before::Label:
          Done = true;
          break;
        case Before::Nothing:
          break;
        }
      } else if (isa<SwitchCase>(P)) {
        Done = true; // a jump to the label skips what comes before it
      } else if (isLoop(P) && HasTree(P)) {
        Done = true; // an earlier iteration's tree may precede the read
      }
      Cur = P;
    }
    if (!Ok && PartialRefill)
      return "line " + Where + " reads " + getStmtText(Ctx, Sub) +
             " after a tree, refilled at line " +
             std::to_string(
                 SM.getSpellingLineNumber(PartialRefill->getBeginLoc())) +
             " only by the threads that pass a condition (or stay) there; "
             "the rewritten tree leaves only " +
             Array->getNameAsString() + "[0] as the original does";
    if (!Ok)
      return "line " + Where + " reads " + getStmtText(Ctx, Sub) +
             " after a tree without refilling the array first; the rewritten "
             "tree leaves only " +
             Array->getNameAsString() + "[0] as the original does";
  }
  return "";
}

std::string checkTreeRerun(ASTContext &Ctx, const FunctionDecl *K,
                           const VarDecl *Array, const Stmt *Tree) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (findJumps(K->getBody()).Goto)
    return GotoReason;
  auto Line = [&](const Stmt *S) {
    return std::to_string(SM.getSpellingLineNumber(S->getBeginLoc()));
  };
  std::string NoRefill =
      " of " + Array->getNameAsString() + "[tid] between runs";
  const char *Why = ": the next run reduces what this one left, which the "
                    "rewritten tree does not leave";
  auto Never = [](const Stmt *) { return false; };
  // The compounds from the tree up, each with its child on the way.
  SmallVector<std::pair<const CompoundStmt *, const Stmt *>, 4> Path;
  const Stmt *Cur = Tree;
  while (true) {
    DynTypedNodeList Up = Ctx.getParents(*Cur);
    const Stmt *P = Up.empty() ? nullptr : Up[0].get<Stmt>();
    if (!P)
      return ""; // the function's body: the tree runs once
    if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      // A refill before the tree in the same run: it reduces that.
      Before B = scanBefore(Ctx, K, Array, CS, Cur, Never);
      if (B == Before::Refill)
        return "";
      if (B == Before::Label)
        return "a case label before the tree (in the block at line " +
               Line(CS) + ") lets a jump skip a refill" + NoRefill + Why;
      Path.push_back({CS, Cur});
    } else if (isa<SwitchCase>(P)) {
      return "the tree follows a case label (line " + Line(P) +
             "): a jump there skips any refill" + NoRefill + Why;
    } else if (isLoop(P)) {
      // The loop runs the tree again: from one run to the next, control
      // passes the statements after the tree in each compound up to the
      // loop's body; a refill there also comes first, unless a break or
      // continue of the loop may skip it.
      JumpFinder J = findJumps(P);
      if (!J.LoopExit && !J.CaseLabel)
        for (const auto &[CS, Child] : Path) {
          bool After = false;
          for (const Stmt *Ch : CS->body()) {
            if (After && isRefill(Ctx, K, Ch, Array))
              return "";
            After |= Ch == Child;
          }
        }
      return "the loop at line " + Line(P) +
             " runs the tree again with no refill" + NoRefill +
             (J.LoopExit ? " that every run reaches (a break or continue of "
                           "the loop may skip one)"
                         : "") +
             Why;
    }
    Cur = P;
  }
}

} // namespace astra
