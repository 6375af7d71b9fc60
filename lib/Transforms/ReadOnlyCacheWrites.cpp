//===- ReadOnlyCacheWrites.cpp - What a kernel may write ------------------===//
//
// read-only-cache may take a pointer as free of aliasing when "no pointer
// parameter is written and every store goes to local or shared memory". The
// pointer parameters' own uses are PointerTracker's (ReadOnlyCacheUses.cpp);
// this file finds every other write: a store through a pointer the kernel
// got another way (a struct member, a global), a store to a `__device__`
// array, an atomic or a builtin that gets such a pointer, and the writes of
// the device functions the kernel calls (followed through their bodies: a
// write through one of their pointer parameters is a write through the
// argument; any other write, or a call whose callee is not known, may reach
// any memory).
//
//===----------------------------------------------------------------------===//
#include "ReadOnlyCacheWrites.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Where a store lands, as far as the scan can tell.
struct Memory {
  enum Kind { Local, Tracked, Param, Other } K = Other;
  unsigned Index = 0; ///< Param: the parameter's index
};

/// What a function (with what it calls) may write.
struct Summary {
  SmallSet<unsigned, 4> Params;  ///< pointer parameters written through
  const Stmt *OtherAt = nullptr; ///< a write anywhere else, or null
  std::string OtherWhy;
  DenseMap<unsigned, const Stmt *> ParamAt; ///< first write per parameter
};

/// The functions a call may run: its callee, or the candidates of a call
/// that depends on a template parameter (their patterns). Empty when not
/// known (a call through a pointer, a functor of a dependent type).
SmallVector<const FunctionDecl *, 2> getCallees(const CallExpr *C) {
  SmallVector<const FunctionDecl *, 2> Out;
  if (const FunctionDecl *FD = C->getDirectCallee()) {
    Out.push_back(FD);
    return Out;
  }
  if (const auto *OE =
          dyn_cast<OverloadExpr>(C->getCallee()->IgnoreParenImpCasts()))
    for (const NamedDecl *D : OE->decls()) {
      D = D->getUnderlyingDecl();
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
        Out.push_back(FT->getTemplatedDecl());
      else if (const auto *FD = dyn_cast<FunctionDecl>(D))
        Out.push_back(FD);
    }
  return Out;
}

class WriteScan;

/// Summaries of the functions seen so far, shared by the scans of one run.
struct SummaryCache {
  ASTContext &Ctx;
  DenseMap<const FunctionDecl *, Summary> Done;
  SmallPtrSet<const FunctionDecl *, 8> Active; ///< being summarised
  explicit SummaryCache(ASTContext &Ctx) : Ctx(Ctx) {}
  const Summary &get(const FunctionDecl *FD);
};

/// Finds the writes of one function body: in a kernel (Fn null) those to
/// memory outside \p Tracked; in a callee, those through each parameter and
/// those elsewhere.
class WriteScan : public RecursiveASTVisitor<WriteScan> {
public:
  WriteScan(SummaryCache &Cache, const FunctionDecl *Fn,
            const SmallPtrSet<const VarDecl *, 8> &Tracked)
      : Cache(Cache), Ctx(Cache.Ctx), Fn(Fn), Tracked(Tracked) {}
  Summary S;

  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) { return store(E); }
  bool VisitUnaryOperator(UnaryOperator *E) {
    return E->getOpcode() == UO_Deref ? store(E) : true;
  }
  bool VisitMemberExpr(MemberExpr *E) { return store(E); }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    // A `__device__` variable assigned by name.
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (V && !V->hasLocalStorage() && !V->hasAttr<CUDASharedAttr>() &&
        classifyUse(Ctx, E) == UseKind::Write)
      other(E, "a store to the global '" + V->getName().str() + "'");
    return true;
  }
  bool VisitCallExpr(CallExpr *C);
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    StringRef Text = A->getAsmString();
    if (Text.contains("st.") || Text.contains("atom") || Text.contains("red."))
      other(A, "inline assembly that stores");
    return true;
  }

private:
  bool store(const Expr *E) {
    if (classifyUse(Ctx, E) == UseKind::Write)
      record(lvalue(E), E, "a store");
    return true;
  }
  void record(Memory M, const Stmt *At, const Twine &What) {
    if (M.K == Memory::Param) {
      if (S.Params.insert(M.Index).second)
        S.ParamAt[M.Index] = At;
    } else if (M.K == Memory::Other) {
      other(At, What + " through a pointer this rewrite does not track");
    }
  }
  void other(const Stmt *At, const Twine &Why) {
    if (!S.OtherAt) {
      S.OtherAt = At;
      S.OtherWhy = Why.str();
    }
  }
  Memory lvalue(const Expr *L);
  Memory pointee(const Expr *P);

  SummaryCache &Cache;
  ASTContext &Ctx;
  const FunctionDecl *Fn;
  const SmallPtrSet<const VarDecl *, 8> &Tracked;
};

Memory WriteScan::lvalue(const Expr *L) {
  L = L->IgnoreParens();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(L)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && !V->getType()->isReferenceType() &&
        (V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>()))
      return {Memory::Local};
    return {Memory::Other};
  }
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(L))
    return pointee(Sub->getBase());
  if (const auto *UO = dyn_cast<UnaryOperator>(L))
    if (UO->getOpcode() == UO_Deref)
      return pointee(UO->getSubExpr());
  if (const auto *ME = dyn_cast<MemberExpr>(L))
    return ME->isArrow() ? pointee(ME->getBase()) : lvalue(ME->getBase());
  return {Memory::Other};
}

Memory WriteScan::pointee(const Expr *P) {
  P = P->IgnoreParenImpCasts();
  if (P->getType()->isArrayType())
    return lvalue(P); // decays: the array itself
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    if (BO->isAdditiveOp())
      return pointee(BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                              : BO->getRHS());
    if (BO->getOpcode() == BO_Comma)
      return pointee(BO->getRHS());
    return {Memory::Other};
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(P))
    return UO->getOpcode() == UO_AddrOf ? lvalue(UO->getSubExpr())
                                        : Memory{Memory::Other};
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(P))
    return pointee(Cast->getSubExpr());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(P)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && Tracked.count(V))
      return {Memory::Tracked};
    if (const auto *PVD = dyn_cast_or_null<ParmVarDecl>(V))
      if (Fn && PVD->getDeclContext() == Fn)
        return {Memory::Param, PVD->getFunctionScopeIndex()};
  }
  return {Memory::Other};
}

bool WriteScan::VisitCallExpr(CallExpr *C) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C))
    if (Op->isAssignmentOp() || Op->getOperator() == OO_Subscript ||
        Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow)
      return true; // the stores they make are seen as stores
  if (isa<CUDAKernelCallExpr>(C))
    return true;
  SmallVector<const FunctionDecl *, 2> Callees = getCallees(C);
  if (Callees.empty()) {
    other(C, "a call whose callee is not known");
    return true;
  }
  for (const FunctionDecl *FD : Callees) {
    std::string Name = FD->getNameAsString();
    if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->hasBody()) {
      const Summary &Callee = Cache.get(Def);
      if (Callee.OtherAt)
        other(C, "a call of '" + Name + "', which writes memory (" +
                     Callee.OtherWhy + ")");
      for (unsigned I : Callee.Params)
        if (I < C->getNumArgs())
          record(pointee(C->getArg(I)), C, "a call of '" + Name + "'");
      continue;
    }
    // No body (a builtin, an atomic, an external function): it may write
    // through any pointer to non-const it gets.
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      QualType T = I < FD->getNumParams() ? FD->getParamDecl(I)->getType()
                                          : C->getArg(I)->getType();
      if (T->isPointerType() && !T->getPointeeType().isConstQualified())
        record(pointee(C->getArg(I)), C, "a call of '" + Name + "'");
    }
  }
  return true;
}

const Summary &SummaryCache::get(const FunctionDecl *FD) {
  auto It = Done.find(FD);
  if (It != Done.end())
    return It->second;
  if (!Active.insert(FD).second) {
    Summary &R = Done[FD];
    R.OtherAt = FD->getBody();
    R.OtherWhy = "a recursive call";
    return R;
  }
  SmallPtrSet<const VarDecl *, 8> None;
  WriteScan Scan(*this, FD, None);
  Scan.TraverseStmt(FD->getBody());
  Active.erase(FD);
  Summary &R = Done[FD];
  if (!R.OtherAt) // a recursive call may have set it meanwhile
    R = std::move(Scan.S);
  return R;
}

} // namespace

UntrackedWrite
findUntrackedWrite(ASTContext &Ctx, const FunctionDecl *Kernel,
                   const SmallPtrSet<const VarDecl *, 8> &Tracked) {
  SummaryCache Cache(Ctx);
  WriteScan Scan(Cache, nullptr, Tracked);
  Scan.TraverseStmt(Kernel->getBody());
  return {Scan.S.OtherAt, Scan.S.OtherWhy};
}

const Stmt *findWriteThroughParam(ASTContext &Ctx, const FunctionDecl *FD,
                                  unsigned Index) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody())
    return nullptr;
  SummaryCache Cache(Ctx);
  const Summary &S = Cache.get(Def);
  auto It = S.ParamAt.find(Index);
  return It == S.ParamAt.end() ? nullptr : It->second;
}

} // namespace astra
