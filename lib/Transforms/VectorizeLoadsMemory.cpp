//===- VectorizeLoadsMemory.cpp - What statements do to memory ------------===//
//
// The memory accesses of a list of statements, by the variable each access
// starts from, and the clash test of the one-element-per-thread form
// (VectorizeLoadsMemory.h).
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsMemory.h"
#include "SiteUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {

/// Whether \p FD, a function with a body, touches memory only through its
/// parameters: no global variable, no call of a function that is not a
/// library one, no assembly.
bool reachesOnlyArguments(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def)
    return false;
  struct Scan : RecursiveASTVisitor<Scan> {
    bool Ok = true;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *V = dyn_cast<VarDecl>(E->getDecl()))
        Ok &= V->hasLocalStorage();
      return Ok;
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      BinaryOperatorKind B;
      UnaryOperatorKind U;
      const Expr *L, *R, *S;
      bool Op = isa<CXXOperatorCallExpr>(C) && !F &&
                (matchBinary(C, B, L, R) || matchUnary(C, U, S));
      Ok &= Op || (F && isLibraryFunction(F));
      return Ok;
    }
    bool VisitAsmStmt(AsmStmt *) { return Ok = false; }
  } S;
  S.TraverseStmt(Def->getBody());
  return S.Ok;
}

/// Whether every function \p C may call (\p FD, or in a template each
/// candidate of an unresolved name) reaches memory only through its
/// arguments.
bool calleesReachOnlyArguments(const CallExpr *C, const FunctionDecl *FD) {
  if (FD)
    return reachesOnlyArguments(FD);
  const auto *U =
      dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts());
  if (!U || U->getNumDecls() == 0)
    return false;
  for (const NamedDecl *D : U->decls()) {
    D = D->getUnderlyingDecl();
    if (const auto *T = dyn_cast<FunctionTemplateDecl>(D))
      D = T->getTemplatedDecl();
    const auto *F = dyn_cast<FunctionDecl>(D);
    if (!F || !reachesOnlyArguments(F))
      return false;
  }
  return true;
}

/// Whether \p Base names a variable of record type whose member \p Name is
/// an array.
bool isArrayMember(const Expr *Base, DeclarationName Name) {
  const auto *DR = dyn_cast<DeclRefExpr>(Base->IgnoreParens());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  const RecordDecl *RD = VD ? VD->getType()->getAsRecordDecl() : nullptr;
  if (!RD)
    return false;
  for (const NamedDecl *D : RD->lookup(Name))
    if (const auto *F = dyn_cast<FieldDecl>(D))
      return F->getType()->isArrayType();
  return false;
}

class MemoryScan : public RecursiveASTVisitor<MemoryScan> {
public:
  MemoryScan(const VarUses &Writes, MemoryUses &Out)
      : Writes(Writes), Out(Out) {}

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      Written.insert(B->getLHS()->IgnoreParens());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    OverloadedOperatorKind Op = C->getOperator();
    if (C->getNumArgs() >= 1 &&
        (C->isAssignmentOp() || Op == OO_PlusPlus || Op == OO_MinusMinus))
      Written.insert(C->getArg(0)->IgnoreParens());
    return true;
  }
  /// Casts are visited before their operands: the outermost cast of a
  /// chain says whether an address under it may be written through.
  bool VisitCastExpr(CastExpr *C) {
    if (InnerCasts.count(C))
      return true;
    QualType T = C->getType();
    bool ToConst = T->isPointerType() && T->getPointeeType().isConstQualified();
    const Expr *E = C->getSubExpr();
    while (true) {
      E = E->IgnoreParens();
      const auto *Inner = dyn_cast<CastExpr>(E);
      if (!Inner)
        break;
      InnerCasts.insert(Inner);
      E = Inner->getSubExpr();
    }
    const auto *U = dyn_cast<UnaryOperator>(E);
    if (ToConst && U && U->getOpcode() == UO_AddrOf)
      ReadOnlyAddr.insert(U);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    // An address taken may be written through (atomics, user calls), unless
    // it becomes a pointer to const at once (a 16-byte load's
    // `*reinterpret_cast<const uint4 *>(&x[j])`).
    if (U->isIncrementDecrementOp() ||
        (U->getOpcode() == UO_AddrOf && !ReadOnlyAddr.count(U)))
      Written.insert(U->getSubExpr()->IgnoreParens());
    if (U->getOpcode() == UO_Deref)
      add(U->getSubExpr(), U);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
    add(A->getBase(), A);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *M) {
    if (M->isArrow())
      add(M->getBase(), M);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (FD && isLibraryFunction(FD))
      return true;
    // An operator on a template's values (`p + k` with p of type T *): the
    // builtin operation, not a call (its operands are visited).
    BinaryOperatorKind BOp;
    UnaryOperatorKind UOp;
    const Expr *L, *R, *Sub;
    if (isa<CXXOperatorCallExpr>(C) && !FD &&
        (matchBinary(C, BOp, L, R) ||
         (matchUnary(C, UOp, Sub) && UOp != UO_Deref && UOp != UO_AddrOf)))
      return true;
    // A function of the file that reaches memory only through its pointer
    // arguments: it may read and write where they point.
    if (calleesReachOnlyArguments(C, FD)) {
      for (const Expr *A : C->arguments())
        if (A->getType()->isPointerType()) {
          Written.insert(C);
          add(A, C);
        }
      return true;
    }
    for (const Expr *A : C->arguments())
      if (A->isTypeDependent() || A->getType()->isPointerType() ||
          A->getType()->isReferenceType())
        if (Out.UnknownCall.isInvalid())
          Out.UnknownCall = C->getBeginLoc();
    return true;
  }

private:
  const VarDecl *rootOf(const Expr *E) const {
    for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
      E = E->IgnoreParenCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(E)) {
        const auto *A =
            dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens());
        if (U->getOpcode() != UO_AddrOf || !A)
          return nullptr;
        E = A->getBase();
        continue;
      }
      BinaryOperatorKind Op;
      const Expr *L, *R;
      if (matchBinary(E, Op, L, R)) {
        if (Op != BO_Add && Op != BO_Sub)
          return nullptr;
        E = R->getType()->isPointerType() ? R : L;
        continue;
      }
      // A member array of an object (`pack.v[lane]`, the packs
      // vectorize-loads writes): the object is the root.
      if (const auto *M = dyn_cast<MemberExpr>(E)) {
        if (M->isArrow() || !M->getType()->isArrayType())
          return nullptr;
        E = M->getBase();
        continue;
      }
      // The same in a template, where the object's type depends on a
      // parameter: the member is looked up in the object's record.
      if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
        if (M->isArrow() || M->isImplicitAccess() ||
            !isArrayMember(M->getBase(), M->getMember()))
          return nullptr;
        E = M->getBase();
        continue;
      }
      const auto *DR = dyn_cast<DeclRefExpr>(E);
      const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (!VD)
        return nullptr;
      // A local object or array is its own memory; a global one is too.
      if (isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
          VD->getType()->isArrayType() || VD->getType()->isRecordType())
        return VD;
      if (!VD->getInit() || Writes.Modified.count(VD))
        return nullptr;
      E = VD->getInit();
    }
    return nullptr;
  }
  void add(const Expr *Base, const Expr *Access) {
    MemoryUses::Use &U = Out.ByRoot[rootOf(Base)];
    if (U.Loc.isInvalid())
      U.Loc = Access->getBeginLoc();
    U.Write |= Written.count(Access) != 0;
  }

  const VarUses &Writes;
  MemoryUses &Out;
  SmallPtrSet<const Expr *, 16> Written;
  SmallPtrSet<const CastExpr *, 8> InnerCasts;
  SmallPtrSet<const UnaryOperator *, 8> ReadOnlyAddr;
};
} // namespace

void scanMemory(const VarUses &Writes, ArrayRef<const Stmt *> Stmts,
                MemoryUses &Out) {
  MemoryScan Scan(Writes, Out);
  for (const Stmt *S : Stmts)
    Scan.TraverseStmt(const_cast<Stmt *>(S));
}

std::string findMemoryClash(const VarUses &Writes,
                            ArrayRef<const Stmt *> Region,
                            ArrayRef<const Stmt *> Around,
                            SourceLocation &Where) {
  MemoryUses In, Out;
  scanMemory(Writes, Region, In);
  scanMemory(Writes, Around, Out);
  if (Out.UnknownCall.isValid() && !In.ByRoot.empty()) {
    Where = Out.UnknownCall;
    return "a call outside the per-element statements may access the "
           "memory they access";
  }
  for (auto &[RIn, UIn] : In.ByRoot)
    for (auto &[ROut, UOut] : Out.ByRoot) {
      if (RIn && ROut && RIn != ROut)
        continue;
      if (!UIn.Write && !UOut.Write)
        continue;
      Where = UOut.Loc;
      std::string Name = RIn    ? RIn->getNameAsString()
                         : ROut ? ROut->getNameAsString()
                                : std::string("memory");
      return "'" + Name +
             "' is accessed both by the per-element statements and "
             "outside them, where each thread keeps its original element, "
             "and one of them writes it";
    }
  return "";
}

} // namespace vectorize
} // namespace astra
