//===- RegisterCacheChecks.cpp - What a chain's code may do besides rows --===//
//
// The cached path gives each thread other elements of a row than the
// original does (packs instead of every blockDim-th element) and loads and
// stores whole packs. So, besides the row accesses analyzeBody collects
// (from a review, each confirmed wrong on an H100 before these checks):
// - no loop body of the chain reads threadIdx or a local computed from it,
//   and none reads a value another loop of the chain accumulates per thread
//   (both see which elements the thread owns);
// - no row access sits under a condition (the pack would be read or
//   written whole: an optional pointer could be null, another block could
//   own the other elements);
// - no integer accumulates a float (truncating at each step: its result
//   depends on the grouping);
// - calls in the loop bodies and between them are to library functions
//   that write nothing (no atomics, no non-const member calls, no lambdas,
//   no inline assembly);
// - a store between the loops has the same address in every thread (the
//   guard that checks it must take one path for the whole block);
// - a row of the chain is not touched before or after it (code there may
//   rely on the original's ownership with no barrier).
//
//===----------------------------------------------------------------------===//
#include "RegisterCacheChecks.h"
#include "Dataflow.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace llvm;
using namespace clang;

namespace astra {

bool isThreadDependent(const Expr *E, unsigned Depth,
                       const SmallPtrSetImpl<const VarDecl *> &Ignore,
                       bool AlsoBlock) {
  struct Finder : RecursiveASTVisitor<Finder> {
    unsigned Depth;
    const SmallPtrSetImpl<const VarDecl *> *Ignore;
    bool AlsoBlock;
    bool Found = false;
    bool VisitExpr(Expr *E) {
      std::string Name = getBuiltinVarName(E);
      StringRef B = Name;
      if (B.starts_with("threadIdx") ||
          (AlsoBlock && B.starts_with("blockIdx")))
        Found = true;
      return !Found;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      const auto *V = dyn_cast<VarDecl>(E->getDecl());
      if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
          !Ignore->count(V))
        Found |= !V->getInit() || Depth == 0 ||
                 isThreadDependent(V->getInit(), Depth - 1, *Ignore, AlsoBlock);
      return !Found;
    }
  } F;
  F.Depth = Depth;
  F.Ignore = &Ignore;
  F.AlsoBlock = AlsoBlock;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

std::string checkCall(const CallExpr *C) {
  std::string N = getCalleeName(C);
  if (N == "__syncthreads")
    return "";
  const FunctionDecl *FD = C->getDirectCallee();
  StringRef Name(N);
  if (!FD || !isLibraryFunction(FD) || Name.starts_with("atomic") ||
      Name.starts_with("__st") || Name.starts_with("mem"))
    return "calls '" + N + "', which may write memory";
  if (FD->getQualifiedNameAsString().find("atomic") != std::string::npos)
    return "calls '" + N + "', an atomic operation";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (!MD->isConst() && !MD->isStatic() && !isa<CXXConversionDecl>(MD))
      return "calls '" + N + "', a member function that may change its object";
  return "";
}

namespace {

std::string checkConstruct(const CXXConstructExpr *E) {
  if (E->getType().getAsString().find("atomic") != std::string::npos)
    return "makes an atomic reference ('" + E->getType().getAsString() + "')";
  return "";
}

/// The first call, construction, lambda or inline assembly that may write
/// memory.
struct WriterScan : RecursiveASTVisitor<WriterScan> {
  std::string Why;
  const Stmt *Where = nullptr;
  bool fail(const Stmt *S, std::string W) {
    if (Why.empty()) {
      Why = std::move(W);
      Where = S;
    }
    return false;
  }
  bool VisitCallExpr(CallExpr *C) {
    // An assignment operator is a store, which the callers look at.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C))
      if (Op->isAssignmentOp())
        return true;
    std::string W = checkCall(C);
    return W.empty() ? true : fail(C, W);
  }
  bool VisitLambdaExpr(LambdaExpr *L) { return fail(L, "holds a lambda"); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    std::string W = checkConstruct(E);
    return W.empty() ? true : fail(E, W);
  }
  bool VisitAsmStmt(AsmStmt *S) { return fail(S, "holds inline assembly"); }
};

/// An integer that accumulates a floating value.
struct IntAccumulation : RecursiveASTVisitor<IntAccumulation> {
  const Stmt *Found = nullptr;
  bool VisitCompoundAssignOperator(CompoundAssignOperator *B) {
    if (B->getLHS()->getType()->isIntegerType() &&
        B->getRHS()->IgnoreImpCasts()->getType()->isRealFloatingType())
      Found = B;
    return !Found;
  }
};

} // namespace

std::string findMemoryWriter(const Stmt *S, const Stmt *&Where) {
  WriterScan W;
  W.TraverseStmt(const_cast<Stmt *>(S));
  Where = W.Where;
  return W.Why;
}

namespace {

/// Whether \p E lies under a condition below \p Top.
bool isConditional(ASTContext &Ctx, const Expr *E, const Stmt *Top) {
  DynTypedNode Cur = DynTypedNode::create(*E);
  while (true) {
    const Stmt *CurS = Cur.get<Stmt>();
    if (CurS == Top)
      return false;
    DynTypedNodeList Up = Ctx.getParents(Cur);
    if (Up.empty())
      return false;
    if (const auto *S = Up[0].get<Stmt>()) {
      if (const auto *If = dyn_cast<IfStmt>(S))
        if (CurS != If->getCond())
          return true;
      if (const auto *CO = dyn_cast<AbstractConditionalOperator>(S))
        if (CurS != CO->getCond())
          return true;
      if (const auto *B = dyn_cast<BinaryOperator>(S))
        if (B->isLogicalOp() && CurS == B->getRHS())
          return true;
      if (isa<SwitchStmt, SwitchCase, WhileStmt, DoStmt, ForStmt>(S))
        return true;
    }
    Cur = Up[0];
  }
}

/// Whether the use \p R of a pointer to const elements only reads: through
/// parentheses, implicit conversions and pointer arithmetic it reaches a
/// load or copy of an element, a comparison, or an explicit conversion to an
/// integer or to another pointer to const (`reinterpret_cast<size_t>(x) %
/// 16`, `reinterpret_cast<const uint4 *>(x + i)`). A conversion that drops
/// the const, a call argument or anything else is not known to only read.
bool onlyReads(ASTContext &Ctx, const DeclRefExpr *R) {
  auto ConstPointee = [](QualType T) {
    return T->isPointerType() && T->getPointeeType().isConstQualified();
  };
  if (!ConstPointee(R->getType()))
    return false;
  const Expr *E = R;
  for (DynTypedNodeList Up = Ctx.getParents(*E); Up.size() == 1;
       Up = Ctx.getParents(*E)) {
    const auto *P = Up[0].get<Expr>();
    if (!P)
      return false;
    if (const auto *C = dyn_cast<ExplicitCastExpr>(P))
      return C->getType()->isIntegerType() || ConstPointee(C->getType());
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      if (IC->getCastKind() == CK_LValueToRValue && E != R)
        return true; // an element's load
      if (IC->getType()->isPointerType() && !ConstPointee(IC->getType()))
        return false;
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (B->isComparisonOp())
        return true;
      if (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub)
        return false;
    } else if (const auto *U = dyn_cast<UnaryOperator>(P)) {
      if (U->getOpcode() != UO_Deref)
        return false;
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      // An element of class type (__half) copied.
      return E != R && CE->getConstructor()->isCopyOrMoveConstructor();
    } else if (!isa<ParenExpr, ArraySubscriptExpr>(P)) {
      return false;
    }
    E = P;
  }
  return false;
}

} // namespace

std::string checkChainCode(RewriteContext &RC, const FunctionDecl *K,
                           ArrayRef<const ForStmt *> Loops,
                           ArrayRef<const VarDecl *> IVs,
                           ArrayRef<const BodyFacts *> Facts,
                           ArrayRef<const VarDecl *> Rows) {
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) { return getLineCol(RC, S->getBeginLoc()); };
  for (size_t L = 0; L < Loops.size(); ++L) {
    const Stmt *Body = Loops[L]->getBody();
    const Stmt *Where = nullptr;
    std::string Writes = findMemoryWriter(Body, Where);
    if (!Writes.empty())
      return "the loop at line " + Line(Loops[L]) + " " + Writes + " (line " +
             Line(Where) + ")";
    IntAccumulation IA;
    IA.TraverseStmt(const_cast<Stmt *>(Body));
    if (IA.Found)
      return "the loop at line " + Line(Loops[L]) +
             " accumulates a floating value into an integer (it truncates at "
             "each step: the grouping changes it) (line " +
             Line(IA.Found) + ")";
    // The loop's own index, and what the body computes from it, stand for
    // the element; anything else from threadIdx stands for the thread.
    SmallPtrSet<const VarDecl *, 8> Ignore;
    Ignore.insert(IVs[L]);
    for (const VarDecl *V : Facts[L]->DeclaredInBody)
      Ignore.insert(V);
    struct Tid : RecursiveASTVisitor<Tid> {
      const SmallPtrSetImpl<const VarDecl *> *Ignore;
      const Expr *Found = nullptr;
      bool VisitExpr(Expr *E) {
        if (!Found &&
            (isa<DeclRefExpr>(E) || !StringRef(getBuiltinVarName(E)).empty()) &&
            isThreadDependent(E, 4, *Ignore))
          Found = E;
        return !Found;
      }
    } T;
    T.Ignore = &Ignore;
    T.TraverseStmt(const_cast<Stmt *>(Body));
    if (T.Found)
      return "the loop at line " + Line(Loops[L]) + " reads the thread's " +
             "index at line " + Line(T.Found) +
             " (the cached path gives each thread other elements)";
    for (const BodyAccess &A : Facts[L]->Accesses)
      if (isConditional(Ctx, A.E, Body))
        return "the loop at line " + Line(Loops[L]) +
               " accesses a row under a condition at line " + Line(A.E) +
               " (the cached path reads and writes whole packs)";
    // A value accumulated per thread, read by a later loop.
    for (const VarDecl *V : Facts[L]->WrittenInBody) {
      if (Facts[L]->DeclaredInBody.count(V))
        continue;
      for (size_t L2 = L + 1; L2 < Loops.size(); ++L2)
        if (!findRefs(Loops[L2]->getBody(), V).empty())
          return "the loop at line " + Line(Loops[L2]) + " reads '" +
                 V->getNameAsString() + "', which the loop at line " +
                 Line(Loops[L]) +
                 " accumulates per thread (the cached path gives each "
                 "thread other elements)";
    }
  }
  // Rows in global memory (a pointer into a __shared__ array may be
  // written between the loops by other threads' plain stores).
  for (const VarDecl *P : Rows) {
    if (P->getType()->isPointerType() &&
        P->getType()->getPointeeType().isVolatileQualified())
      return "'" + P->getNameAsString() + "' points to volatile elements";
    if (const Expr *Init = P->getInit())
      for (const DeclRefExpr *R : findAllRefs(Init))
        if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
          if (V->hasAttr<CUDASharedAttr>())
            return "'" + P->getNameAsString() +
                   "' points into the __shared__ array '" +
                   V->getNameAsString() + "'";
  }
  // Rows: not touched outside the chain's loops and what lies between
  // them, but for reads of a row of const elements the chain does not
  // store: which thread reads which element there does not matter, and
  // no store elsewhere can race with the cached path's loads.
  SourceLocation Begin = Loops.front()->getBeginLoc(),
                 End = Loops.back()->getEndLoc();
  for (const VarDecl *P : Rows) {
    bool Stored = false;
    for (const BodyFacts *F : Facts)
      for (const BodyGroup &G : F->Groups)
        Stored |= G.Ptr == P && G.Stored;
    for (const DeclRefExpr *R : findRefs(K->getBody(), P)) {
      SourceLocation L = R->getBeginLoc();
      if (SM.isPointWithin(L, Begin, End) || (!Stored && onlyReads(Ctx, R)))
        continue;
      return "line " + getLineCol(RC, L) + " uses '" + P->getNameAsString() +
             "' outside the loops, whose row the chain keeps in registers "
             "(code there may rely on which thread owns which element)";
    }
  }
  return "";
}

} // namespace astra
