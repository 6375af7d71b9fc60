//===- VectorizeLoadsWiden.cpp - Lane forms of a widened body -------------===//
//
// What the widened form may assume, and why it is correct:
//
// - A pack holds the elements vecBase .. vecBase + W - 1, vecBase a multiple
//   of W and >= 0. In the vector code the index variable is bound to
//   vecBase, every Inv or Aff value declared by the body is computed once
//   from it (so it holds its lane-0 value), and a per-lane statement reads
//   an Aff value v as `(v + lane)`, a Var one as `v[lane]`: every lane sees
//   exactly the value its element had in the original.
// - `i / d` is Inv and `i % d` Aff only when d is a multiple of W (a guard
//   condition) and i is the index itself (>= 0): no multiple of d then lies
//   inside a pack.
// - Shared (Inv) statements run once per pack instead of once per element;
//   they write only variables the body declares, so they compute the same
//   values. Anything else (stores, atomics, calls of user functions) runs
//   once per lane.
// - A vector access covers W elements each of which the original accessed:
//   it is unconditional in its per-lane statement. Its index at lane 0 is a
//   multiple of W plus terms known before the loop, which the guard checks
//   together with the pointer's alignment.
// - A pointer that is stored is accessed in one way only (one vector offset,
//   or per lane, or through atomics): each element keeps its own order of
//   reads and writes. As in the plain form, different stored pointers are
//   assumed not to overlap other accessed ranges except element for element.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsWiden.h"
#include "SiteUtil.h"
#include "VectorizeLoadsWidenImpl.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

std::vector<const Stmt *> getSequence(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return std::vector<const Stmt *>(CS->body_begin(), CS->body_end());
  if (!S)
    return {};
  return {S};
}

Widener::Widener(ASTContext &Ctx, const FunctionDecl *K, const VarDecl *IV,
                 unsigned PartitionDeps, ArrayRef<const Stmt *> Region,
                 VecLoopPlan &Plan)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), K(K), IV(IV),
      PartitionDeps(PartitionDeps), Region(Region.begin(), Region.end()),
      Plan(Plan) {
  KernelWrites.collect(K->getBody());
}

std::string Widener::text(SourceRange R) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM,
                              Ctx.getLangOpts())
      .str();
}

const Stmt *Widener::parent(const Stmt *S) const {
  DynTypedNodeList Ps = Ctx.getParents(*S);
  // A variable's initializer: its parent statement is the declaration's.
  while (!Ps.empty()) {
    if (const auto *P = Ps[0].get<Stmt>())
      return P;
    const auto *VD = Ps[0].get<VarDecl>();
    if (!VD)
      return nullptr;
    Ps = Ctx.getParents(*VD);
  }
  return nullptr;
}

namespace {
/// Collects what the region declares, writes and accesses, and refuses what
/// the widened form cannot run per pack.
struct Scanner : RecursiveASTVisitor<Scanner> {
  Widener &W;
  unsigned SwitchDepth = 0;
  explicit Scanner(Widener &W) : W(W) {}

  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++SwitchDepth;
    bool R = RecursiveASTVisitor::TraverseSwitchStmt(S);
    --SwitchDepth;
    return R;
  }
  bool TraverseLambdaExpr(LambdaExpr *E) {
    return W.refuse(E->getBeginLoc(), "the body contains a lambda");
  }
  bool VisitReturnStmt(ReturnStmt *S) {
    return W.refuse(S->getBeginLoc(), "the body contains a return");
  }
  bool VisitGotoStmt(GotoStmt *S) {
    return W.refuse(S->getBeginLoc(), "the body contains a goto");
  }
  bool VisitContinueStmt(ContinueStmt *S) {
    return W.refuse(S->getBeginLoc(), "the body contains a continue");
  }
  bool VisitBreakStmt(BreakStmt *S) {
    return SwitchDepth ||
           W.refuse(S->getBeginLoc(), "the body contains a break");
  }
  bool VisitCallExpr(CallExpr *C) {
    std::string Name = getCalleeName(C);
    for (StringRef P :
         {"__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync",
          "__all_sync", "__match", "__reduce_", "__activemask", "__barrier"})
      if (StringRef(Name).starts_with(P))
        return W.refuse(C->getBeginLoc(),
                        "the body calls '" + Name +
                            "'; a barrier or warp collective must see every "
                            "thread's original elements");
    // A user function that receives a pointer (or, in a template, an
    // unresolved call with a pointer argument) may access anything.
    const FunctionDecl *FD = C->getDirectCallee();
    bool Unknown = FD ? !isLibraryFunction(FD)
                      : !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(C);
    if (Unknown)
      for (const Expr *A : C->arguments())
        if (A->isTypeDependent() || A->getType()->isPointerType() ||
            (FD && any_of(FD->parameters(), [](const ParmVarDecl *P) {
               return P->getType()->isReferenceType();
             })))
          return W.refuse(C->getBeginLoc(),
                          "the body calls '" + Name +
                              "' with a pointer or reference; the rewrite "
                              "cannot see what it accesses");
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    W.RegionVars.insert(VD);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    W.Subscripts.push_back(E);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD || VD == W.IV || W.RegionVars.count(VD) ||
        W.RegionWrites.Modified.count(VD))
      return true; // a written outer variable is refused as a write
    DependenceInfo Deps(W.KernelWrites);
    if (Deps.get(DR) & (W.PartitionDeps | DepUnknown))
      return W.refuse(DR->getBeginLoc(),
                      "'" + VD->getName() +
                          "' depends on the thread's place among the threads "
                          "that share the elements");
    return true;
  }
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *E) {
    char Dim;
    unsigned Bit = matchBuiltin(E, "threadIdx", Dim)  ? depBit(DepTid, Dim)
                   : matchBuiltin(E, "blockIdx", Dim) ? depBit(DepBid, Dim)
                                                      : 0;
    if (Bit & W.PartitionDeps)
      return W.refuse(E->getBeginLoc(),
                      "the body reads '" + W.text(E->getSourceRange()) +
                          "', which differs between the threads that share "
                          "the elements");
    return true;
  }
  void write(const Expr *Target, const Expr *Write, const Expr *Value) {
    Target = Target->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr>(Target))
      return; // a store; checked with the accesses
    const VarDecl *VD = getRefVar(Target);
    if (VD && VD == W.IV) {
      W.refuse(Write->getBeginLoc(),
               "the body modifies the index '" + VD->getName() + "'");
      return;
    }
    if (VD && W.RegionVars.count(VD)) {
      W.VarWritesIn[VD].push_back({Write, Value});
      return;
    }
    const Expr *Root = Target;
    while (const auto *M = dyn_cast<MemberExpr>(Root))
      Root = M->getBase()->IgnoreParenImpCasts();
    const VarDecl *RV = getRefVar(Root);
    if (RV && W.RegionVars.count(RV) && Root != Target) {
      W.VarWritesIn[RV].push_back({Write, nullptr});
      return;
    }
    W.refuse(Write->getBeginLoc(),
             "the body writes '" + W.text(Target->getSourceRange()) +
                 "', which it does not declare; the widened form takes only "
                 "stores `p[...]` and values declared in the body");
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      write(B->getLHS(), B, B->getRHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      write(U->getSubExpr(), U, nullptr);
    if (U->getOpcode() == UO_AddrOf)
      if (const VarDecl *VD = getRefVar(U->getSubExpr()))
        W.AddressTaken.insert(VD);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    OverloadedOperatorKind Op = C->getOperator();
    if (C->getNumArgs() >= 1 &&
        (C->isAssignmentOp() || Op == OO_PlusPlus || Op == OO_MinusMinus))
      write(C->getArg(0), C,
            C->getNumArgs() > 1 && Op != OO_PlusPlus && Op != OO_MinusMinus
                ? C->getArg(1)
                : nullptr);
    return true;
  }
};
} // namespace

void Widener::scan() {
  // Declarations first, so that writes and references know what is local.
  struct Decls : RecursiveASTVisitor<Decls> {
    Widener &W;
    explicit Decls(Widener &W) : W(W) {}
    bool VisitVarDecl(VarDecl *VD) {
      W.RegionVars.insert(VD);
      return true;
    }
  } D(*this);
  for (const Stmt *S : Region)
    D.TraverseStmt(const_cast<Stmt *>(S));
  for (const Stmt *S : Region)
    RegionWrites.collect(S);
  Scanner Sc(*this);
  for (const Stmt *S : Region)
    if (Reason.empty())
      Sc.TraverseStmt(const_cast<Stmt *>(S));
}

static Lane join(Lane A, Lane B) { return std::max(A, B); }

static bool isIntegral(const Expr *E) {
  return E->getType()->isIntegerType() && !E->isTypeDependent();
}

Lane Widener::formOfVar(const VarDecl *VD) {
  if (VD == IV)
    return Lane::Aff;
  if (!RegionVars.count(VD))
    return Lane::Inv;
  auto It = Forms.find(VD);
  return It == Forms.end() ? Lane::Inv : It->second;
}

/// Whether \p E is the index itself, directly or through a body variable
/// that only copies it: a value known to be >= 0 and a multiple of W at
/// lane 0.
static bool isIndexCopy(const Widener &W, const Expr *E) {
  const VarDecl *VD = getRefVar(E);
  for (unsigned Depth = 0; VD && Depth < 4; ++Depth) {
    if (VD == W.IV)
      return true;
    if (!W.RegionVars.count(VD) || W.VarWritesIn.count(VD) ||
        W.AddressTaken.count(VD) || !VD->getInit())
      return false;
    VD = getRefVar(VD->getInit());
  }
  return false;
}

Lane Widener::formOf(const Expr *E) {
  if (!E)
    return Lane::Inv;
  E = E->IgnoreParens();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      return formOfVar(VD);
    return Lane::Inv;
  }
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          CXXNullPtrLiteralExpr, UnaryExprOrTypeTraitExpr, MSPropertyRefExpr,
          PseudoObjectExpr>(E))
    return Lane::Inv;
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    Lane L = formOf(C->getSubExpr());
    if (L != Lane::Aff)
      return L;
    // An index stays Aff through casts to integers at least as wide.
    const Expr *Sub = C->getSubExpr();
    if (isIntegral(E) && isIntegral(Sub) &&
        Ctx.getTypeSize(E->getType()) >= Ctx.getTypeSize(Sub->getType()))
      return Lane::Aff;
    return Lane::Var;
  }
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    if (PackOf.count(A))
      return Lane::Var;
    Lane L = join(formOf(A->getBase()), formOf(A->getIdx()));
    if (L != Lane::Inv)
      return Lane::Var;
    // An element every lane reads: shared, unless the body stores through
    // the same pointer.
    const VarDecl *P = getRefVar(A->getBase());
    if (!P || RegionVars.count(P))
      return Lane::Var;
    for (const ArraySubscriptExpr *S : Subscripts)
      if (getRefVar(S->getBase()) == P) {
        const Stmt *Par = parent(S);
        while (Par && isa<ParenExpr>(Par))
          Par = parent(Par);
        const auto *B = dyn_cast_or_null<BinaryOperator>(Par);
        const auto *U = dyn_cast_or_null<UnaryOperator>(Par);
        if ((B && B->isAssignmentOp() && B->getLHS()->IgnoreParens() == S) ||
            (U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)))
          return Lane::Var;
      }
    return Lane::Inv;
  }
  BinaryOperatorKind Op;
  const Expr *LHS, *RHS;
  if (matchBinary(E, Op, LHS, RHS)) {
    if (BinaryOperator::isAssignmentOp(Op)) {
      // Shared only as a write of a shared body variable with a shared value.
      const VarDecl *VD = getRefVar(LHS);
      if (VD && RegionVars.count(VD) && formOfVar(VD) == Lane::Inv &&
          formOf(RHS) == Lane::Inv)
        return Lane::Inv;
      return Lane::Var;
    }
    Lane L = formOf(LHS), R = formOf(RHS);
    if (L == Lane::Inv && R == Lane::Inv)
      return Lane::Inv;
    if (!isIntegral(E) || L == Lane::Var || R == Lane::Var)
      return Lane::Var;
    if (Op == BO_Add && (L == Lane::Inv || R == Lane::Inv))
      return Lane::Aff;
    if (Op == BO_Sub && R == Lane::Inv)
      return Lane::Aff;
    if ((Op == BO_Div || Op == BO_Rem) && R == Lane::Inv &&
        isIndexCopy(*this, LHS) && isGuardEvaluable(RHS)) {
      // A constant divisor: a multiple of every width (16), or no claim.
      Expr::EvalResult C;
      if (!RHS->isValueDependent() && RHS->EvaluateAsInt(C, Ctx)) {
        if (C.Val.getInt() == 0 || C.Val.getInt().srem(16) != 0)
          return Lane::Var;
        return Op == BO_Div ? Lane::Inv : Lane::Aff;
      }
      std::string D = text(stripIntCasts(RHS)->getSourceRange());
      if (!is_contained(Plan.DivisibleBy, D))
        Plan.DivisibleBy.push_back(D);
      return Op == BO_Div ? Lane::Inv : Lane::Aff;
    }
    return Lane::Var;
  }
  UnaryOperatorKind UOp;
  const Expr *Sub;
  if (matchUnary(E, UOp, Sub)) {
    if (UnaryOperator::isIncrementDecrementOp(UOp)) {
      const VarDecl *VD = getRefVar(Sub);
      return VD && RegionVars.count(VD) && formOfVar(VD) == Lane::Inv
                 ? Lane::Inv
                 : Lane::Var;
    }
    if (UOp == UO_Deref || UOp == UO_AddrOf)
      return Lane::Var;
    return formOf(Sub) == Lane::Inv ? Lane::Inv : Lane::Var;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    bool Pure = isa<CXXMemberCallExpr>(C)
                    ? isa_and_nonnull<CXXConversionDecl>(FD)
                    : FD && isLibraryFunction(FD) &&
                          !StringRef(getCalleeName(C)).starts_with("atomic");
    if (!Pure)
      return Lane::Var;
  }
  // Anything else: shared when all its parts are.
  Lane L = Lane::Inv;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      L = join(L, formOf(CE) == Lane::Inv ? Lane::Inv : Lane::Var);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    L = join(L, formOf(MC->getImplicitObjectArgument()) == Lane::Inv
                    ? Lane::Inv
                    : Lane::Var);
  return L;
}

bool Widener::isGuardEvaluable(const Expr *E) const {
  struct Check : RecursiveASTVisitor<Check> {
    const Widener &W;
    bool OK = true;
    explicit Check(const Widener &W) : W(W) {}
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD == W.IV || W.RegionVars.count(VD))
          OK = false;
      return OK;
    }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) { return OK = false; }
    bool VisitCallExpr(CallExpr *) { return OK = false; }
    bool VisitBinaryOperator(BinaryOperator *B) {
      return OK = OK && !B->isAssignmentOp();
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      return OK = OK && !U->isIncrementDecrementOp();
    }
  } C(*this);
  C.TraverseStmt(const_cast<Expr *>(E));
  return C.OK;
}

/// Whether the write \p W runs only on some lanes' paths: under a branch or
/// loop whose condition is not shared.
bool Widener::isControlled(const Expr *W) {
  const Stmt *Child = W;
  for (const Stmt *P = parent(W); P; Child = P, P = parent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Child != If->getCond() && formOf(If->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (Child != F->getInit() && formOf(F->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *Wh = dyn_cast<WhileStmt>(P)) {
      if (formOf(Wh->getCond()) != Lane::Inv)
        return true;
    } else if (isa<DoStmt, SwitchStmt>(P)) {
      return true;
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (Child != CO->getCond() && formOf(CO->getCond()) != Lane::Inv)
        return true;
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (B->isLogicalOp() && Child == B->getRHS() &&
          formOf(B->getLHS()) != Lane::Inv)
        return true;
    }
    if (is_contained(Region, P))
      return false;
  }
  return false;
}

void Widener::computeForms() {
  for (unsigned Round = 0; Round < 32; ++Round) {
    bool Changed = false;
    for (const VarDecl *VD : RegionVars) {
      Lane Old = formOfVar(VD);
      if (Old == Lane::Var)
        continue;
      Lane New = VD->getInit() ? formOf(VD->getInit()) : Lane::Inv;
      QualType T = VD->getType();
      if (AddressTaken.count(VD) || !T->isScalarType())
        New = Lane::Var;
      auto It = VarWritesIn.find(VD);
      if (It != VarWritesIn.end() && New != Lane::Var) {
        New = New == Lane::Aff ? Lane::Var : Lane::Inv;
        for (auto [Write, Value] : It->second)
          if (isControlled(Write) || formOf(Value) != Lane::Inv)
            New = Lane::Var;
      }
      New = std::max(New, Old);
      if (New != Old) {
        Forms[VD] = New;
        Changed = true;
      }
    }
    if (!Changed)
      return;
  }
}

/// Structural statements keep their header and hold further statements:
/// blocks, and loops and branches whose header every lane shares.
bool Widener::isStructural(const Stmt *S) {
  if (isa<CompoundStmt>(S))
    return true;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (F->getCond() && formOf(F->getCond()) != Lane::Inv)
      return false;
    if (const auto *E = dyn_cast_or_null<Expr>(F->getInc()))
      if (formOf(E) != Lane::Inv)
        return false;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (formOfVar(VD) != Lane::Inv)
            return false;
    } else if (const auto *E = dyn_cast_or_null<Expr>(F->getInit())) {
      if (formOf(E) != Lane::Inv)
        return false;
    }
    return !F->getConditionVariable();
  }
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return !W->getConditionVariable() && formOf(W->getCond()) == Lane::Inv;
  if (const auto *If = dyn_cast<IfStmt>(S))
    return !If->getInit() && !If->getConditionVariable() &&
           !If->isConsteval() && formOf(If->getCond()) == Lane::Inv;
  return false;
}

void Widener::classify(ArrayRef<const Stmt *> Seq) {
  for (const Stmt *S : Seq) {
    if (!S || isa<NullStmt>(S))
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      bool Shared = all_of(DS->decls(), [&](const Decl *D) {
        const auto *VD = dyn_cast<VarDecl>(D);
        return VD && formOfVar(VD) != Lane::Var;
      });
      if (!Shared)
        Units.insert(S);
      continue;
    }
    if (isStructural(S)) {
      Structural.insert(S);
      if (const auto *F = dyn_cast<ForStmt>(S))
        classify(getSequence(F->getBody()));
      else if (const auto *W = dyn_cast<WhileStmt>(S))
        classify(getSequence(W->getBody()));
      else if (const auto *If = dyn_cast<IfStmt>(S)) {
        classify(getSequence(If->getThen()));
        classify(getSequence(If->getElse()));
      } else
        classify(getSequence(S));
      continue;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      if (formOf(E) == Lane::Inv)
        continue; // a shared statement
    Units.insert(S);
  }
}

} // namespace vectorize

std::string widenRegion(ASTContext &Ctx, const FunctionDecl *K,
                        const VarDecl *IV, unsigned PartitionDeps,
                        ArrayRef<const Stmt *> Region, VecLoopPlan &Plan,
                        SourceLocation &Where) {
  vectorize::Widener W(Ctx, K, IV, PartitionDeps, Region, Plan);
  return W.run(Where);
}

} // namespace astra
