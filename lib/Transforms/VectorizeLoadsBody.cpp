//===- VectorizeLoadsBody.cpp - The loop body seen by vectorize-loads -----===//
//
// Static legality of a loop body: every access through a pointer variable is
// `p[base + i]` (or `p[base + i * s]` with a runtime stride s, versioned on
// s == 1) or does not depend on i at all; a pointer that is stored is accessed
// at one offset only; the only values carried from one iteration to the next
// are scalar reductions; no break, continue, return, goto, barrier or warp
// collective; no nested loop; the induction variable is not modified.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsBody.h"
#include "SiteUtil.h"
#include "VectorizeLoadsUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
using namespace vectorize;

namespace {
enum class Role { Read, Write, ReadWrite, Ldg, AddrOf, Member };

class BodyAnalyzer : public RecursiveASTVisitor<BodyAnalyzer> {
public:
  BodyAnalyzer(ASTContext &Ctx, const ForStmt *Loop, const VarDecl *IV,
               BodyFacts &Facts)
      : Ctx(Ctx), Loop(Loop), IV(IV), Facts(Facts) {}

  std::string run(SourceLocation &Where);

  // Walk: control flow, barriers, declarations, and what to look at later.
  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++SwitchDepth;
    bool R = RecursiveASTVisitor::TraverseSwitchStmt(S);
    --SwitchDepth;
    return R;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitReturnStmt(ReturnStmt *S) {
    return refuse(S->getBeginLoc(), "the loop body contains a return");
  }
  bool VisitGotoStmt(GotoStmt *S) {
    return refuse(S->getBeginLoc(), "the loop body contains a goto");
  }
  bool VisitContinueStmt(ContinueStmt *S) {
    return refuse(S->getBeginLoc(), "the loop body contains a continue");
  }
  bool VisitBreakStmt(BreakStmt *S) {
    return SwitchDepth ||
           refuse(S->getBeginLoc(), "the loop body contains a break");
  }
  bool VisitCallExpr(CallExpr *C) {
    std::string Name = getCalleeName(C);
    if (isBarrierOrCollective(Name))
      return refuse(C->getBeginLoc(),
                    "the loop body calls '" + Name +
                        "'; a barrier or warp collective must see every "
                        "thread's original iterations");
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    Facts.DeclaredInBody.insert(VD);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    Subscripts.push_back(E);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    Refs.push_back(DR);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      Writes.push_back(B);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->isAssignmentOp() || C->getOperator() == OO_PlusPlus ||
        C->getOperator() == OO_MinusMinus)
      Writes.push_back(C);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      Writes.push_back(U);
    return true;
  }

private:
  bool refuse(SourceLocation L, const Twine &Why) {
    if (Reason.empty()) {
      Reason = Why.str();
      ReasonLoc = L;
    }
    return false;
  }
  std::string text(const Expr *E) const {
    return Lexer::getSourceText(
               CharSourceRange::getTokenRange(E->getSourceRange()),
               Ctx.getSourceManager(), Ctx.getLangOpts())
        .str();
  }
  const Stmt *parent(const Stmt *S) const {
    auto Ps = Ctx.getParents(*S);
    return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
  }
  Role classify(const Expr *E, const Expr *&Replace) const;
  bool isUnconditional(const Expr *Write) const;
  void checkSubscript(const ArraySubscriptExpr *E);
  void checkPointers();
  void checkConditional();
  void checkScalarWrites();
  bool checkReduction(const VarDecl *V, const Expr *W,
                      SmallPtrSetImpl<const Expr *> &Covered, std::string &Op);

  ASTContext &Ctx;
  const ForStmt *Loop;
  const VarDecl *IV;
  BodyFacts &Facts;
  unsigned SwitchDepth = 0;
  std::string Reason;
  SourceLocation ReasonLoc;
  std::vector<const ArraySubscriptExpr *> Subscripts;
  std::vector<const DeclRefExpr *> Refs;
  std::vector<const Expr *> Writes;
  /// Accesses of each pointer whose index does not depend on i.
  DenseMap<const VarDecl *, const Expr *> InvariantAccess;
  SmallPtrSet<const DeclRefExpr *, 16> SubscriptBases;
};
} // namespace

/// How the element \p E is used; \p Replace is the expression that stands
/// for the element's value (E itself, or the whole `__ldg(&E)`).
Role BodyAnalyzer::classify(const Expr *E, const Expr *&Replace) const {
  Replace = E;
  const Stmt *Child = E;
  const Stmt *P = parent(E);
  while (P && isa<ParenExpr>(P)) {
    Child = P;
    P = parent(P);
  }
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(P)) {
    if (B->isAssignmentOp() && B->getLHS()->IgnoreParens() == E)
      return B->isCompoundAssignmentOp() ? Role::ReadWrite : Role::Write;
  } else if (const auto *U = dyn_cast_or_null<UnaryOperator>(P)) {
    if (U->isIncrementDecrementOp())
      return Role::ReadWrite;
    if (U->getOpcode() == UO_AddrOf) {
      const Stmt *G = parent(U);
      while (G && isa<ImplicitCastExpr, ParenExpr>(G))
        G = parent(G);
      const auto *C = dyn_cast_or_null<CallExpr>(G);
      if (C && getCalleeName(C) == "__ldg" && C->getNumArgs() == 1) {
        Replace = C;
        return Role::Ldg;
      }
      return Role::AddrOf;
    }
  } else if (const auto *C = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
    if (C->getNumArgs() >= 1 && C->getArg(0)->IgnoreParens() == E) {
      if (C->getOperator() == OO_Equal)
        return Role::Write;
      if (C->isAssignmentOp() || C->getOperator() == OO_PlusPlus ||
          C->getOperator() == OO_MinusMinus)
        return Role::ReadWrite;
    }
  } else if (const auto *M = dyn_cast_or_null<MemberExpr>(P)) {
    // `static_cast<float>(x[i])` on a class element (at::Half, __half): a
    // const conversion operator only reads the element.
    const auto *Conv = dyn_cast<CXXConversionDecl>(M->getMemberDecl());
    if (Conv && Conv->isConst() && isa_and_nonnull<CXXMemberCallExpr>(parent(M)))
      return Role::Read;
    return Role::Member;
  }
  (void)Child;
  return Role::Read;
}

/// Whether the write \p W runs on every iteration: it is a statement of the
/// body itself or of a plain block in it.
bool BodyAnalyzer::isUnconditional(const Expr *W) const {
  const Stmt *S = parent(W);
  while (S && isa<ParenExpr, ExprWithCleanups>(S))
    S = parent(S);
  while (S && isa<CompoundStmt>(S)) {
    if (S == Loop->getBody())
      return true;
    S = parent(S);
  }
  return S == Loop;
}

static void flattenSum(const Expr *E, bool Neg,
                       SmallVectorImpl<std::pair<const Expr *, bool>> &Out) {
  const Expr *S = E->IgnoreImpCasts();
  if (const auto *P = dyn_cast<ParenExpr>(S)) {
    const auto *In =
        dyn_cast<BinaryOperator>(P->getSubExpr()->IgnoreImpCasts());
    if (In && (In->getOpcode() == BO_Add || In->getOpcode() == BO_Sub))
      S = In;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    if (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub) {
      flattenSum(B->getLHS(), Neg, Out);
      flattenSum(B->getRHS(), B->getOpcode() == BO_Sub ? !Neg : Neg, Out);
      return;
    }
  Out.push_back({E, Neg});
}

void BodyAnalyzer::checkSubscript(const ArraySubscriptExpr *E) {
  const Expr *Replace;
  Role R = classify(E, Replace);
  bool Writes = R == Role::Write || R == Role::ReadWrite;
  const auto *BaseRef =
      dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
  const auto *Ptr = BaseRef ? dyn_cast<VarDecl>(BaseRef->getDecl()) : nullptr;
  if (!Ptr || !Ptr->getType()->isPointerType() ||
      Facts.DeclaredInBody.count(Ptr)) {
    if (Writes || R == Role::AddrOf || R == Role::Member)
      refuse(E->getBeginLoc(),
             "the loop writes '" + text(E) +
                 "'; only stores `p[base + i]` through pointer variables "
                 "declared outside the loop can be vectorized");
    return;
  }
  SubscriptBases.insert(BaseRef);
  if (R == Role::AddrOf || R == Role::Member) {
    refuse(E->getBeginLoc(), "the address or a member of '" + text(E) +
                                 "' is used; only whole-element reads and "
                                 "writes can be vectorized");
    return;
  }
  const Expr *Idx = E->getIdx();
  if (!mentions(Idx, IV)) {
    if (Writes)
      refuse(E->getBeginLoc(),
             "the store to '" + text(E) +
                 "' does not "
                 "depend on '" +
                 IV->getName() + "'; every iteration writes the same element");
    InvariantAccess.try_emplace(Ptr, E);
    return;
  }
  SmallVector<std::pair<const Expr *, bool>, 4> Terms;
  flattenSum(Idx, false, Terms);
  const Expr *IVTerm = nullptr;
  std::string Base;
  BodyGroup G;
  unsigned NumBase = 0;
  for (auto [T, Neg] : Terms) {
    if (mentions(T, IV)) {
      if (IVTerm || Neg) {
        refuse(E->getBeginLoc(), "the index of '" + text(E) +
                                     "' is not of the form `base + " +
                                     IV->getName() + "`");
        return;
      }
      IVTerm = T;
      continue;
    }
    std::string TT = text(T);
    Base += Base.empty() ? (Neg ? "-" + TT : TT) : (Neg ? " - " : " + ") + TT;
    G.BaseTerms.push_back(T);
    ++NumBase;
  }
  const Expr *Stride = nullptr;
  if (getIndexVar(IVTerm) != IV) {
    const auto *M = dyn_cast<BinaryOperator>(stripIntCasts(IVTerm));
    if (M && M->getOpcode() == BO_Mul) {
      if (getIndexVar(M->getLHS()) == IV && !mentions(M->getRHS(), IV))
        Stride = M->getRHS();
      else if (getIndexVar(M->getRHS()) == IV && !mentions(M->getLHS(), IV))
        Stride = M->getLHS();
    }
    if (!Stride) {
      refuse(E->getBeginLoc(), "the index of '" + text(E) +
                                   "' is not of the form `base + " +
                                   IV->getName() + "`");
      return;
    }
    Expr::EvalResult Val;
    if (!Stride->isValueDependent() && Stride->EvaluateAsInt(Val, Ctx)) {
      if (Val.Val.getInt() != 1) {
        refuse(E->getBeginLoc(), "'" + text(E) + "' is not unit-stride in '" +
                                     IV->getName() + "' (stride " +
                                     toString(Val.Val.getInt(), 10) + ")");
        return;
      }
    } else {
      Facts.UnitStrides.push_back(Stride);
    }
  }
  if (NumBase > 1 || (NumBase == 1 && Base[0] == '-'))
    Base = "(" + Base + ")";
  G.Ptr = Ptr;
  G.PtrRef = BaseRef;
  G.Base = Base;
  G.BaseKey = Base;
  erase_if(G.BaseKey, [](char C) { return isSpace(C); });
  G.FirstAccess = E;
  unsigned Index = 0;
  while (Index < Facts.Groups.size() &&
         !(Facts.Groups[Index].Ptr == Ptr &&
           Facts.Groups[Index].BaseKey == G.BaseKey))
    ++Index;
  if (Index == Facts.Groups.size())
    Facts.Groups.push_back(std::move(G));
  BodyGroup &Group = Facts.Groups[Index];
  if (R != Role::Ldg)
    Group.AllLdg = false;
  bool Every = runsEveryTime(Ctx, E, Loop->getBody());
  Group.EveryStep |= Every;
  if (Writes)
    (Every ? Group.EveryStepStore : Group.CondStore) = true;
  if (Writes) {
    Group.Stored = true;
    const Stmt *Assign = parent(E);
    while (Assign && isa<ParenExpr>(Assign))
      Assign = parent(Assign);
    if (R == Role::ReadWrite || !isa_and_nonnull<Expr>(Assign) ||
        !isUnconditional(cast<Expr>(Assign)))
      Group.NeedsLoad = true;
  } else {
    Group.NeedsLoad = true;
  }
  Facts.Accesses.push_back({Replace, Index});
}

/// The vector path reads and writes whole packs on every step: a group
/// accessed only under a condition would be touched where the original
/// leaves it alone (an optional pointer may be null, the condition may guard
/// the bounds, another pointer or thread may write the other elements).
void BodyAnalyzer::checkConditional() {
  for (const BodyGroup &G : Facts.Groups) {
    std::string Why;
    if (G.CondStore && !G.EveryStepStore)
      Why = "' is stored only under a condition; the vector path writes "
            "whole packs back (an optional output may be null, another "
            "pointer or thread may write the other elements)";
    else if (!G.EveryStep)
      Why = "' is read only under a condition; the vector path reads whole "
            "packs on every step (an optional pointer may be null, the "
            "condition may guard the bounds)";
    if (!Why.empty()) {
      refuse(G.FirstAccess->getBeginLoc(), "'" + G.Ptr->getName() + Why);
      return;
    }
  }
}

void BodyAnalyzer::checkPointers() {
  for (const BodyGroup &G : Facts.Groups) {
    if (!G.Stored)
      continue;
    for (const BodyGroup &O : Facts.Groups)
      if (O.Ptr == G.Ptr && O.BaseKey != G.BaseKey) {
        refuse(O.FirstAccess->getBeginLoc(),
               "'" + G.Ptr->getName() + "' is stored at offset '" +
                   (G.Base.empty() ? "0" : G.Base) +
                   "' and also accessed at offset '" +
                   (O.Base.empty() ? "0" : O.Base) +
                   "'; vector order could change what is read");
        return;
      }
    auto It = InvariantAccess.find(G.Ptr);
    if (It != InvariantAccess.end()) {
      refuse(It->second->getBeginLoc(),
             "'" + G.Ptr->getName() +
                 "' is stored in the loop and also read "
                 "at '" +
                 text(It->second) + "', which does not depend on '" +
                 IV->getName() + "'");
      return;
    }
  }
  for (const DeclRefExpr *DR : Refs)
    for (const BodyGroup &G : Facts.Groups)
      if (DR->getDecl() == G.Ptr && !SubscriptBases.count(DR)) {
        refuse(DR->getBeginLoc(), "pointer '" + G.Ptr->getName() +
                                      "' is used other than as `" +
                                      G.Ptr->getName() + "[...]`");
        return;
      }
}

/// Whether the write \p W to the outer variable \p V is a reduction step
/// `v op= e`, `v = v op e`, `v = max(v, e)`, ... with e free of v.
bool BodyAnalyzer::checkReduction(const VarDecl *V, const Expr *W,
                                  SmallPtrSetImpl<const Expr *> &Covered,
                                  std::string &Op) {
  const Expr *LHS = nullptr, *RHS = nullptr;
  std::string Kind;
  if (const auto *U = dyn_cast<UnaryOperator>(W)) {
    LHS = U->getSubExpr();
    Kind = "+";
  } else if (const auto *B = dyn_cast<BinaryOperator>(W)) {
    LHS = B->getLHS();
    RHS = B->getRHS();
    if (B->isCompoundAssignmentOp())
      Kind = BinaryOperator::getOpcodeStr(B->getOpcode()).drop_back().str();
  } else if (const auto *C = dyn_cast<CXXOperatorCallExpr>(W)) {
    LHS = C->getArg(0);
    RHS = C->getNumArgs() > 1 ? C->getArg(1) : nullptr;
    if (C->getOperator() == OO_PlusPlus || C->getOperator() == OO_MinusMinus)
      Kind = "+";
    else if (C->getOperator() != OO_Equal)
      Kind = StringRef(getOperatorSpelling(C->getOperator())).drop_back().str();
  }
  const auto *L =
      LHS ? dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts()) : nullptr;
  if (!L || L->getDecl() != V)
    return false;
  Covered.insert(L);
  if (Kind == "-")
    Kind = "+";
  if (Kind.empty() && RHS) { // v = v op e, v = f(v, e)
    const Expr *R = RHS->IgnoreParenImpCasts();
    const Expr *A = nullptr, *B2 = nullptr;
    if (const auto *Bin = dyn_cast<BinaryOperator>(R)) {
      A = Bin->getLHS();
      B2 = Bin->getRHS();
      Kind = Bin->getOpcodeStr().str();
      if (Kind == "-" && getIndexVar(A) == V)
        Kind = "+";
    } else if (const auto *Call = dyn_cast<CallExpr>(R)) {
      Kind = getCalleeName(Call);
      if (Call->getNumArgs() == 2 && !isa<CXXOperatorCallExpr>(Call)) {
        A = Call->getArg(0);
        B2 = Call->getArg(1);
      }
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call)) {
        Kind = getOperatorSpelling(OC->getOperator());
        if (OC->getNumArgs() == 2) {
          A = OC->getArg(0);
          B2 = OC->getArg(1);
        }
      }
    }
    static const char *const Ops[] = {"+",     "*",      "&",     "|",    "^",
                                      "fmaxf", "fminf",  "fmax",  "fmin", "max",
                                      "min",   "__hmax", "__hmin"};
    if (!A || !is_contained(Ops, Kind))
      return false;
    if (getIndexVar(B2) == V)
      std::swap(A, B2);
    if (getIndexVar(A) != V || mentions(B2, V))
      return false;
    Covered.insert(dyn_cast<DeclRefExpr>(stripIntCasts(A)));
    RHS = nullptr;
  }
  if (Kind.empty() || (RHS && mentions(RHS, V)))
    return false;
  if (!Op.empty() && Op != Kind)
    return false;
  Op = Kind;
  return true;
}

void BodyAnalyzer::checkScalarWrites() {
  DenseMap<const VarDecl *, std::string> Ops;
  SmallPtrSet<const Expr *, 16> Covered;
  SmallPtrSet<const VarDecl *, 8> Reduced;
  for (const Expr *W : Writes) {
    const Expr *Target =
        isa<UnaryOperator>(W)    ? cast<UnaryOperator>(W)->getSubExpr()
        : isa<BinaryOperator>(W) ? cast<BinaryOperator>(W)->getLHS()
                                 : cast<CXXOperatorCallExpr>(W)->getArg(0);
    Target = Target->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr>(Target))
      continue; // checked with the subscripts
    const auto *DR = dyn_cast<DeclRefExpr>(Target);
    const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (V == IV) {
      refuse(W->getBeginLoc(), "the loop body modifies the induction "
                               "variable '" +
                                   IV->getName() + "'");
      return;
    }
    if (V && Facts.DeclaredInBody.count(V))
      continue;
    if (!V) {
      // A member or a dereference: fine only on the body's own variables.
      const Expr *Root = Target;
      while (true) {
        if (const auto *M = dyn_cast<MemberExpr>(Root))
          Root = M->getBase()->IgnoreParenImpCasts();
        else
          break;
      }
      const VarDecl *RV = getIndexVar(Root);
      if (RV && Facts.DeclaredInBody.count(RV) && isa<MemberExpr>(Target))
        continue;
      refuse(W->getBeginLoc(), "the loop writes '" + text(Target) +
                                   "'; only vectorized stores and scalar "
                                   "reductions may write outside the body");
      return;
    }
    if (!checkReduction(V, W, Covered, Ops[V])) {
      refuse(W->getBeginLoc(),
             "'" + V->getName() +
                 "' carries a value from one iteration to "
                 "the next and is not a reduction (`v += e`, `v = max(v, e)`, "
                 "...)");
      return;
    }
    Reduced.insert(V);
    if (!V->getType()->isIntegerType() && (Ops[V] == "+" || Ops[V] == "*"))
      Facts.FloatReduction = true;
  }
  for (const DeclRefExpr *DR : Refs) {
    const auto *V = dyn_cast<VarDecl>(DR->getDecl());
    if (V && Reduced.count(V) && !Covered.count(DR)) {
      refuse(DR->getBeginLoc(), "the reduction variable '" + V->getName() +
                                    "' is read in the loop body outside its "
                                    "update (loop-carried dependence)");
      return;
    }
  }
}

std::string BodyAnalyzer::run(SourceLocation &Where) {
  const Stmt *Body = Loop->getBody();
  std::vector<const Stmt *> Inner = collectLoops(Body);
  // collectLoops includes Body when Body itself is a loop.
  if (!Inner.empty()) {
    Where = Inner.front()->getBeginLoc();
    return "the loop body contains a nested loop; only innermost loops are "
           "vectorized";
  }
  TraverseStmt(const_cast<Stmt *>(Body));
  VarUses BodyWrites;
  BodyWrites.collect(Body);
  for (const VarDecl *VD : BodyWrites.Modified)
    Facts.WrittenInBody.insert(VD);
  if (Reason.empty())
    for (const ArraySubscriptExpr *E : Subscripts)
      if (Reason.empty())
        checkSubscript(E);
  if (Reason.empty())
    checkScalarWrites();
  if (Reason.empty())
    checkPointers();
  if (Reason.empty())
    checkConditional();
  if (Reason.empty() && BodyWrites.AddressTaken.count(IV))
    refuse(Loop->getBeginLoc(), "the address of the induction variable is "
                                "taken");
  if (!Reason.empty())
    Where = ReasonLoc;
  return Reason;
}

std::string analyzeBody(ASTContext &Ctx, const ForStmt *Loop, const VarDecl *IV,
                        BodyFacts &Facts, SourceLocation &Where) {
  BodyAnalyzer A(Ctx, Loop, IV, Facts);
  return A.run(Where);
}

} // namespace astra
