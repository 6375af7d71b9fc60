//===- ReadOnlyCacheUses.cpp - What a kernel does with a pointer ----------===//
//
// read-only-cache's classification of one pointer parameter's uses
// (ReadOnlyCache.cpp says what the rewrite needs): the walk from each use
// through pointer arithmetic, address-of and copies into local pointers to
// the element it reaches, which is loaded, stored, or used in a way the
// rewrite cannot follow (the first such use is the parameter's blocker).
//
//===----------------------------------------------------------------------===//
#include "ReadOnlyCacheUses.h"
#include "Dataflow.h"
#include "ReadOnlyCacheWrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/PointerOrigin.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {

PointerTracker::PointerTracker(RewriteContext &RC, const FunctionDecl *Kernel,
                               const ParmVarDecl *Param)
    : RC(RC), Ctx(RC.getASTContext()),
      ConstPointee(Param->getType()->getPointeeType().isConstQualified()),
      Derived(findPointerCopies(Kernel, Param)) {
  Visited.insert(Param);
  collect(Kernel, Param);
}

void PointerTracker::block(const Stmt *At, const Twine &Why) {
  if (Uses.Blocker.empty())
    Uses.Blocker = (Why + " at " + getLineCol(RC, At->getBeginLoc())).str();
}

const Stmt *PointerTracker::parentOf(const Stmt *S, const Decl **D) {
  DynTypedNodeList Ps = Ctx.getParents(*S);
  if (Ps.size() != 1)
    return nullptr;
  if (D)
    *D = Ps[0].get<Decl>();
  return Ps[0].get<Stmt>();
}

/// A reader's name for the kind of \p S.
static std::string kindOf(const Stmt *S) {
  if (isa<ConditionalOperator, BinaryConditionalOperator>(S))
    return "a ?: expression";
  if (isa<InitListExpr>(S))
    return "an initialiser list";
  if (isa<CXXConstructExpr>(S))
    return "a constructor call";
  if (isa<ReturnStmt>(S))
    return "a return statement";
  if (isa<LambdaExpr>(S))
    return "a lambda";
  if (isa<MemberExpr>(S))
    return "a member access through '->'";
  if (isa<CallExpr>(S))
    return "a call";
  if (isa<DeclRefExpr>(S))
    return "a name";
  if (const auto *UO = dyn_cast<UnaryOperator>(S))
    return ("the operator '" + UnaryOperator::getOpcodeStr(UO->getOpcode()) +
            "'")
        .str();
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    return ("the operator '" + BO->getOpcodeStr() + "'").str();
  if (const auto *CE = dyn_cast<CastExpr>(S))
    return std::string("a cast (") + CE->getCastKindName() + ")";
  return std::string("a ") + S->getStmtClassName();
}

std::string PointerTracker::describeUse(const Stmt *S) {
  std::string Q = quote(S);
  return Q.empty() ? kindOf(S) : Q + " (" + kindOf(S) + ")";
}

std::string PointerTracker::quote(const Stmt *S) {
  std::string Text;
  for (char C : RC.getText(S->getSourceRange()))
    if (!isSpace(C) || (!Text.empty() && Text.back() != ' '))
      Text += isSpace(C) ? ' ' : C;
  if (Text.size() > 48)
    Text = Text.substr(0, 45) + "...";
  return Text.empty() ? "" : "'" + Text + "'";
}

void PointerTracker::collect(const FunctionDecl *Kernel, const VarDecl *V) {
  for (const DeclRefExpr *Ref : findRefs(Kernel->getBody(), V)) {
    if (classifyUse(Ctx, Ref) == UseKind::Write) {
      block(Ref, "'" + V->getName() + "' is modified");
      continue;
    }
    followPointer(Ref, isa<ParmVarDecl>(V) ? Ref : nullptr);
  }
  // Copies are tracked like the parameter itself.
  for (const VarDecl *Copy :
       SmallVector<const VarDecl *, 4>(Uses.Copies.begin(), Uses.Copies.end()))
    if (Copy != V && Visited.insert(Copy).second)
      collect(Kernel, Copy);
}

void PointerTracker::followPointer(const Expr *E, const DeclRefExpr *Root) {
  const Expr *Cur = E;
  while (true) {
    const Decl *D = nullptr;
    const Stmt *P = parentOf(Cur, &D);
    if (const auto *Var = dyn_cast_or_null<VarDecl>(D)) {
      // `const T *row = p + off;`: a copy, followed like the parameter.
      if (!Derived.count(Var))
        return block(Cur, "'" + Var->getName() + "' is initialised from it");
      Uses.Copies.insert(Var);
      // `float *row = inp + off;` keeps the parameter: the const alias
      // cannot initialise a pointer to non-const (its loads still go
      // through __ldg).
      if (Root &&
          (ConstPointee || Var->getType()->getPointeeType().isConstQualified()))
        Uses.Renames.push_back(Root);
      return;
    }
    if (!P)
      return block(Cur, "the pointer is used in " + describeUse(Cur) +
                            ", which is not part of an expression or "
                            "declaration this rewrite follows");
    if (isa<ParenExpr>(P) ||
        (isa<ImplicitCastExpr>(P) &&
         cast<ImplicitCastExpr>(P)->getCastKind() != CK_PointerToBoolean)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      // Template-dependent `p + off` (operator+ overloads are visible).
      if ((Op->getOperator() == OO_Plus || Op->getOperator() == OO_Minus) &&
          Op->isTypeDependent()) {
        Cur = Op;
        continue;
      }
      return block(Op, "the pointer is used in an overloaded operator");
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAdditiveOp() &&
          (BO->getType()->isPointerType() || BO->isTypeDependent())) {
        Cur = BO;
        continue;
      }
      if (BO->isComparisonOp() || BO->isLogicalOp())
        return;
      return block(BO, "the pointer is used in '" +
                           BinaryOperator::getOpcodeStr(BO->getOpcode()) + "'");
    }
    if (isa<ImplicitCastExpr>(P) ||
        (isa<UnaryOperator>(P) &&
         cast<UnaryOperator>(P)->getOpcode() == UO_LNot))
      return; // tested for null
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(P)) {
      if (Sub->getBase() != Cur)
        return block(P, "the pointer is used as an index");
      return access(Sub, Root);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_Deref)
        return access(UO, Root);
      return block(UO, "the pointer is modified or its address is taken");
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      for (unsigned I = 0; FD && I < Call->getNumArgs(); ++I)
        if (Call->getArg(I) == Cur && I < FD->getNumParams() &&
            FD->getParamDecl(I)->getType()->isPointerType() &&
            FD->getParamDecl(I)
                ->getType()
                ->getPointeeType()
                .isConstQualified()) {
          // Read-only argument: fine, but not rewritten, unless the callee
          // casts const away and writes.
          if (const Stmt *W = findWriteThroughParam(Ctx, FD, I))
            return block(Call, "passed to '" + FD->getName() +
                                   "', which casts const away and writes "
                                   "through it (" +
                                   getLineCol(RC, W->getBeginLoc()) + ")");
          return;
        }
      if (!FD && ConstPointee)
        return;
      if (FD)
        return block(Call, "passed to '" + FD->getName() +
                               "', which may write through it");
      return block(Call, "passed to " + quote(Call->getCallee()) +
                             ", an indirect or unresolved call whose "
                             "parameters are not known, so it may write "
                             "through it");
    }
    if (isa<ExplicitCastExpr>(P))
      return block(P, "cast to another type in " + describeUse(P));
    return block(P, "the pointer is used in " + describeUse(P) +
                        ", which this rewrite does not follow (it cannot "
                        "tell whether the data is written there)");
  }
}

void PointerTracker::access(const Expr *A, const DeclRefExpr *Root) {
  // How the element is used: loaded, stored, or its address taken.
  const Expr *Cur = A;
  while (true) {
    const Decl *D = nullptr;
    const Stmt *P = parentOf(Cur, &D);
    if (const auto *Var = dyn_cast_or_null<VarDecl>(D)) {
      if (!Var->getType()->isReferenceType())
        break; // initialises a value: a load
      if (ConstPointee || Var->getType()->getPointeeType().isConstQualified())
        return block(A, "an element is bound to a reference");
      return block(A, "an element is bound to a non-const reference");
    }
    if (!P)
      return block(A, "the element " + quote(A) +
                          " is used outside an expression this rewrite "
                          "follows");
    if (isa<ParenExpr>(P) ||
        (isa<ImplicitCastExpr>(P) &&
         cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(P)) {
      if (ME->isArrow())
        return block(ME, "the element is used in " + describeUse(ME) +
                             ", which follows a pointer stored in it");
      Cur = ME; // `p[i].x`: the member is loaded or stored
      continue;
    }
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(P)) {
      if (ICE->getCastKind() == CK_LValueToRValue)
        break;
      return block(A, "the element " + quote(A) + " is converted by " +
                          kindOf(ICE) +
                          ", which is neither a load nor a "
                          "store this rewrite knows");
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->isIncrementDecrementOp()) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
      if (UO->getOpcode() == UO_AddrOf && Cur == A)
        return followPointer(UO, nullptr);
      if (UO->getOpcode() == UO_AddrOf)
        return block(A, "the address of a member is taken");
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      // `out[i] = make_float4(...)`: class types assign through operator=.
      if (Op->isAssignmentOp() && Op->getArg(0) == Cur) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
    }
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(P))
      if (Ctor->getConstructor()->isCopyOrMoveConstructor())
        break; // `float4 v = in[i];`: a load
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAssignmentOp() && BO->getLHS() == Cur) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
    }
    // Template-dependent code has no implicit loads: a const element can
    // only be read.
    if (ConstPointee)
      break;
    return block(A, "the element " + quote(A) + " is used in " +
                        describeUse(P) +
                        ", which this rewrite cannot classify as a load or "
                        "a store");
  }
  Uses.Loads.push_back(A);
  if (Root)
    Uses.Renames.push_back(Root);
}

ParamDesc getNoAliasParam() {
  return {"assume-noalias",
          RewriteParamKind::Bool,
          "0",
          {"0", "1"},
          "1: no pointer argument overlaps a buffer the kernel writes"};
}

KernelPointerWrites::KernelPointerWrites(RewriteContext &RC,
                                         const FunctionDecl *Kernel)
    : Kernel(Kernel) {
  SmallPtrSet<const VarDecl *, 8> Tracked;
  for (unsigned I = 0; I < Kernel->getNumParams(); ++I) {
    const ParmVarDecl *PVD = Kernel->getParamDecl(I);
    if (!PVD->getType()->isPointerType() || PVD->getName().empty())
      continue;
    PointerTracker T(RC, Kernel, PVD);
    Tracked.insert(PVD);
    Tracked.insert(T.Uses.Copies.begin(), T.Uses.Copies.end());
    Params.emplace_back(I, std::move(T.Uses));
  }
  for (auto &[I, U] : Params)
    if (!U.Blocker.empty())
      Written.push_back(Kernel->getParamDecl(I)->getName().str());
  Untracked = findUntrackedWrite(RC.getASTContext(), Kernel, Tracked);
}

const PointerUses *KernelPointerWrites::getUses(const ParmVarDecl *P) const {
  for (const auto &[I, U] : Params)
    if (Kernel->getParamDecl(I) == P)
      return &U;
  return nullptr;
}

bool KernelPointerWrites::needsNoAlias(const ParmVarDecl *P) const {
  return !P->getType().isRestrictQualified() &&
         (Untracked.At ||
          any_of(Written, [&](StringRef W) { return W != P->getName(); }));
}

std::string KernelPointerWrites::whyMayAlias(RewriteContext &RC,
                                             const ParmVarDecl *P,
                                             bool NoAlias) const {
  if (NoAlias || !needsNoAlias(P))
    return "";
  std::vector<std::string> Others;
  for (const std::string &W : Written)
    if (W != P->getName())
      Others.push_back(W);
  std::string What =
      !Others.empty()
          ? "'" + join(Others, "', '") + "', which the kernel writes"
          : "memory the kernel writes (" + Untracked.Why + " at " +
                getLineCol(RC, Untracked.At->getBeginLoc()) + ")";
  return "may alias " + What +
         " (const does not rule out aliasing); declare it __restrict__ or pass "
         "assume-noalias=1 when the buffers never overlap";
}

} // namespace astra
