//===- VectorizeLoadsWidenScan.cpp - What a widened body declares, writes -===//
//
// The first step of the widened form: collects the body's declarations,
// writes and accesses, and refuses what cannot run once per pack (control
// transfers out of the body, barriers and warp collectives, writes of
// variables declared outside it, calls that may access memory unseen, uses
// of the thread coordinates that pick the element).
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsWidenImpl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

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
    if (isBarrierOrCollective(Name))
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
    const VarDecl *VD = getIndexVar(Target);
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
    const VarDecl *RV = getIndexVar(Root);
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
      if (const VarDecl *VD = getIndexVar(U->getSubExpr()))
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

} // namespace vectorize
} // namespace astra
