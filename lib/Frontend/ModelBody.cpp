//===- ModelBody.cpp - Walk a kernel body for the model -------------------===//
//
// One walk over a kernel's body (and the bodies of the device helpers it
// calls) that keeps the stack of enclosing loops and records loops, global
// accesses, calls and shared memory.
//
//===----------------------------------------------------------------------===//
#include "ModelBody.h"
#include "astra/Frontend/DeviceFunctions.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace astra {

namespace {
struct LoopFacts {
  const Stmt *S = nullptr;
  const VarDecl *IV = nullptr;
};

class BodyWalker : public RecursiveASTVisitor<BodyWalker> {
  using Base = RecursiveASTVisitor<BodyWalker>;

public:
  BodyWalker(const ModelSource &Src, const FunctionDecl *Kernel, KernelInfo &K)
      : Src(Src), Kernel(Kernel), K(K), Writes(Kernel->getBody()) {}

  void run() {
    const Stmt *Body = Kernel->getBody();
    std::vector<const Stmt *> Loops = collectLoops(Body);
    for (unsigned I = 0; I < Loops.size(); ++I) {
      LoopFacts F;
      F.S = Loops[I];
      LoopInfo L = describeLoop(Src, F.S, Writes, F.IV);
      L.Id = makeLoopId(K.Name, I);
      K.Loops.push_back(std::move(L));
      Facts.push_back(F);
      Index[Loops[I]] = I;
    }
    Visited.insert(Kernel);
    TraverseStmt(const_cast<Stmt *>(Body));
    // What only instantiations reach: functions passed as template
    // arguments (`act_and_mul<silu>`), functors' operator().
    for (const DeviceFunction &DF : findDeviceFunctions(Kernel))
      if (DF.HasBody)
        enterHelper(DF.Fn);
  }

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseForStmt(ForStmt *S) {
    return inLoop(S, [&] { return Base::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return inLoop(S, [&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return inLoop(S, [&] { return Base::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop(S, [&] { return Base::TraverseCXXForRangeStmt(S); });
  }

  bool VisitExpr(Expr *E);
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *A);
  bool VisitCallExpr(CallExpr *C);
  bool VisitVarDecl(VarDecl *V);
  bool VisitDeclRefExpr(DeclRefExpr *D);

private:
  template <typename Fn> bool inLoop(const Stmt *S, Fn Traverse) {
    auto It = Index.find(S);
    // Loops of helper functions are not numbered: the call site's loop stays
    // the innermost one.
    if (It == Index.end() || !Function.empty())
      return Traverse();
    LoopInfo &L = K.Loops[It->second];
    if (!Stack.empty()) {
      L.ParentId = K.Loops[Stack.back()].Id;
      L.Depth = K.Loops[Stack.back()].Depth + 1;
    }
    Stack.push_back(It->second);
    bool R = Traverse();
    Stack.pop_back();
    return R;
  }

  std::string currentLoopId() const {
    return Stack.empty() ? "" : K.Loops[Stack.back()].Id;
  }

  void addAccess(const Expr *Access, const Expr *Pointer, const Expr *Idx);
  /// An access to the element at \p Address.
  void addAccess(const Expr *Access, const Expr *Address);
  void addCall(std::vector<CallInfo> &List, const Expr *E, std::string Name);
  void addShared(const VarDecl *V);
  void enterHelpers(const CallExpr *C);
  void enterHelper(const FunctionDecl *Def);

  const ModelSource &Src;
  const FunctionDecl *Kernel;
  KernelInfo &K;
  VarUses Writes; ///< those of the kernel body
  std::vector<LoopFacts> Facts;
  LoopIndexMap Index;
  std::vector<unsigned> Stack;
  /// Assignment targets and what happens to them.
  llvm::DenseMap<const Expr *, AccessKind> Targets;
  llvm::DenseSet<const Expr *> AddressTaken;
  llvm::DenseSet<const Decl *> Visited;
  llvm::DenseSet<const VarDecl *> SharedSeen;
  /// The helper being walked; empty in the kernel body.
  std::string Function;
};
} // namespace

static bool isFloatLike(ASTContext &Ctx, QualType T) {
  if (T.isNull())
    return false;
  if (T->isDependentType() || T->isRealFloatingType())
    return true;
  unsigned Lanes;
  std::optional<DType> D = getDtype(Ctx, T, &Lanes);
  return D && isHalfDType(*D);
}

bool BodyWalker::VisitExpr(Expr *E) {
  if (isa<ParenExpr>(E))
    return true; // seen as the expression inside
  BinaryOperatorKind BOp;
  UnaryOperatorKind UOp;
  const Expr *LHS, *RHS, *Sub;
  if (matchBinary(E, BOp, LHS, RHS)) {
    if (BOp == BO_Assign)
      Targets[LHS->IgnoreParens()] = AccessKind::Store;
    else if (BinaryOperator::isCompoundAssignmentOp(BOp))
      Targets[LHS->IgnoreParens()] = AccessKind::LoadStore;
    if ((BOp == BO_Div || BOp == BO_DivAssign) &&
        isFloatLike(Src.getASTContext(), E->getType()))
      addCall(K.MathCalls, E, BOp == BO_Div ? "/" : "/=");
    return true;
  }
  if (!matchUnary(E, UOp, Sub))
    return true;
  if (UnaryOperator::isIncrementDecrementOp(UOp))
    Targets[Sub->IgnoreParens()] = AccessKind::LoadStore;
  else if (UOp == UO_AddrOf)
    AddressTaken.insert(Sub->IgnoreParens());
  else if (UOp == UO_Deref && !AddressTaken.count(E))
    addAccess(E, Sub);
  return true;
}

void BodyWalker::addAccess(const Expr *Access, const Expr *Address) {
  // p, p + i, &p[i], through casts (reinterpret_cast<const float4 *>(&p[i])).
  const Expr *Ptr = stripCasts(Address);
  const Expr *Idx = nullptr;
  const Expr *A, *B, *Sub;
  BinaryOperatorKind Op;
  UnaryOperatorKind UOp;
  if (matchBinary(Ptr, Op, A, B) && Op == BO_Add) {
    // The pointer is the side that leads to a parameter (types may be
    // dependent in a template).
    PointerRoot Probe;
    bool LeftPtr = findPointerRoot(Src, Kernel, Writes, A, Probe) ||
                   (!findPointerRoot(Src, Kernel, Writes, B, Probe) &&
                    stripCasts(A)->getType()->isPointerType());
    Idx = LeftPtr ? B : A;
    Ptr = LeftPtr ? A : B;
  } else if (matchUnary(Ptr, UOp, Sub) && UOp == UO_AddrOf) {
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub->IgnoreParens())) {
      Ptr = AS->getBase();
      Idx = AS->getIdx();
    }
  }
  addAccess(Access, Ptr, Idx);
  // The address computation inside is not a second access.
  AddressTaken.insert(stripCasts(Address));
}

bool BodyWalker::VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
  if (AddressTaken.count(A))
    return true;
  addAccess(A, A->getBase(), A->getIdx());
  return true;
}

void BodyWalker::addAccess(const Expr *Access, const Expr *Pointer,
                           const Expr *Idx) {
  if (!Function.empty())
    return;
  PointerRoot Root;
  if (!findPointerRoot(Src, Kernel, Writes, Pointer, Root))
    return;
  AccessInfo AI;
  AI.Pointer = Root.Param->getName().str();
  AI.Via = Root.Via;
  AI.BaseOffset = Root.Offset;
  auto It = Targets.find(Access);
  AI.Kind = It == Targets.end() ? AccessKind::Load : It->second;
  AI.Index = Idx ? Src.getText(Idx) : "0";
  AI.Text = Src.getText(Access);
  QualType PT = Pointer->IgnoreParenImpCasts()->getType();
  QualType Elt = PT->isPointerType() ? PT->getPointeeType() : Access->getType();
  AI.ElementType = Src.print(Elt.getUnqualifiedType());
  AI.Loc = Src.getLoc(Access->getExprLoc());
  if (!Stack.empty()) {
    const LoopFacts &F = Facts[Stack.back()];
    AI.LoopId = currentLoopId();
    Stride S;
    if (Idx) {
      S = getStride(Src, Idx, F.IV, F.S);
    } else if (F.IV) {
      S.Known = true; // *p: the same element every iteration
    }
    if (S.Known && S.Runtime.empty()) {
      AI.UnitStride = S.Coef == 1;
      if (S.Coef != 1)
        AI.ConstStride = S.Coef;
    } else if (S.Known) {
      AI.RuntimeStride =
          S.Coef == 1 ? S.Runtime : std::to_string(S.Coef) + " * " + S.Runtime;
    }
  }
  K.Accesses.push_back(std::move(AI));
}

void BodyWalker::addCall(std::vector<CallInfo> &List, const Expr *E,
                         std::string Name) {
  CallInfo C;
  C.Name = std::move(Name);
  C.Text = Src.getText(E);
  if (!E->getType()->isDependentType())
    C.Type = Src.print(E->getType());
  C.Loc = Src.getLoc(E->getExprLoc());
  C.LoopId = currentLoopId();
  C.Function = Function;
  List.push_back(std::move(C));
}

/// The functions a call may go to (several for an unresolved call in a
/// template).
static std::vector<const FunctionDecl *> getCallees(const CallExpr *C) {
  std::vector<const FunctionDecl *> Result;
  if (const FunctionDecl *FD = C->getDirectCallee()) {
    Result.push_back(FD);
    return Result;
  }
  if (const auto *OE =
          dyn_cast<OverloadExpr>(C->getCallee()->IgnoreParenImpCasts()))
    for (const NamedDecl *ND : OE->decls()) {
      ND = ND->getUnderlyingDecl();
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(ND))
        Result.push_back(FT->getTemplatedDecl());
      else if (const auto *FD = dyn_cast<FunctionDecl>(ND))
        Result.push_back(FD);
    }
  return Result;
}

static const FunctionDecl *getUserDefinition(const ModelSource &Src,
                                             const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  if (!FD->hasBody(Def) || !Def)
    return nullptr;
  // The user's code: the main file and project headers, not the CUDA,
  // Clang or C++ library headers (system headers).
  const SourceManager &SM = Src.getSourceManager();
  if (SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation())))
    return nullptr;
  return Def;
}

bool BodyWalker::VisitCallExpr(CallExpr *C) {
  std::string Name = getCalleeName(C);
  bool User = false;
  for (const FunctionDecl *FD : getCallees(C))
    User |= getUserDefinition(Src, FD) != nullptr;
  // __ldg(&p[i]), __ldcs(p + i), __stcs(&p[i], v): accesses through the
  // cache-hint intrinsics; atomicAdd(&p[i], v), atomicCAS(p + i, ...):
  // atomic read-modify-writes.
  bool Load = llvm::is_contained(
      {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}, Name);
  bool Store =
      llvm::is_contained({"__stwb", "__stcg", "__stcs", "__stwt"}, Name);
  bool Atomic = llvm::StringRef(Name).starts_with("atomic");
  if ((Load || Store || Atomic) && C->getNumArgs() >= 1 && !User) {
    Targets[C] = Store  ? AccessKind::Store
                 : Load ? AccessKind::Load
                        : AccessKind::LoadStore;
    size_t Before = K.Accesses.size();
    addAccess(C, C->getArg(0));
    if (Atomic && K.Accesses.size() > Before)
      K.Accesses.back().Atomic = true;
  }
  switch (classifyCall(Name, User)) {
  case CallCategory::Math:
    addCall(K.MathCalls, C, Name);
    break;
  case CallCategory::Barrier:
    addCall(K.Barriers, C, Name);
    break;
  case CallCategory::Warp:
    addCall(K.WarpIntrinsics, C, Name);
    break;
  case CallCategory::Intrinsic:
    addCall(K.Intrinsics, C, Name);
    break;
  case CallCategory::None:
    break;
  }
  if (User)
    enterHelpers(C);
  return true;
}

void BodyWalker::enterHelpers(const CallExpr *C) {
  for (const FunctionDecl *FD : getCallees(C))
    if (const FunctionDecl *Def = getUserDefinition(Src, FD))
      enterHelper(Def);
}

void BodyWalker::enterHelper(const FunctionDecl *Def) {
  if (Def->hasAttr<CUDAGlobalAttr>() || !Visited.insert(Def).second)
    return;
  std::string Name = Def->getQualifiedNameAsString();
  if (!llvm::is_contained(K.DeviceCalls, Name))
    K.DeviceCalls.push_back(Name);
  std::string Saved = Function;
  Function = Name;
  TraverseStmt(Def->getBody());
  Function = Saved;
}

bool BodyWalker::VisitVarDecl(VarDecl *V) {
  if (V->hasAttr<CUDASharedAttr>())
    addShared(V);
  return true;
}

bool BodyWalker::VisitDeclRefExpr(DeclRefExpr *D) {
  // __shared__ variables at namespace scope used by the kernel.
  if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
    if (V->hasAttr<CUDASharedAttr>() && !V->isLocalVarDecl())
      addShared(V);
  return true;
}

void BodyWalker::addShared(const VarDecl *V) {
  if (!SharedSeen.insert(V).second)
    return;
  ASTContext &Ctx = Src.getASTContext();
  SharedArrayInfo S;
  S.Name = V->getName().str();
  S.Loc = Src.getLoc(V->getLocation());
  S.Dynamic = V->hasExternalStorage();
  QualType T = V->getType();
  std::vector<std::string> Dims;
  TypeLoc TL =
      V->getTypeSourceInfo() ? V->getTypeSourceInfo()->getTypeLoc() : TypeLoc();
  while (const ArrayType *AT = Ctx.getAsArrayType(T)) {
    ArrayTypeLoc ATL = TL ? TL.getAsAdjusted<ArrayTypeLoc>() : ArrayTypeLoc();
    if (ATL && ATL.getSizeExpr())
      Dims.push_back(Src.getText(ATL.getSizeExpr()));
    else if (const auto *CAT = dyn_cast<ConstantArrayType>(AT))
      Dims.push_back(std::to_string(CAT->getSize().getZExtValue()));
    T = AT->getElementType();
    TL = ATL ? ATL.getElementLoc() : TypeLoc();
  }
  S.ElementType = Src.print(T.getUnqualifiedType());
  S.Size = llvm::join(Dims, " * ");
  QualType VT = V->getType();
  if (!VT->isDependentType() && !VT->isIncompleteType())
    S.Bytes = Ctx.getTypeSizeInChars(VT).getQuantity();
  K.SharedArrays.push_back(std::move(S));
}

void analyzeKernelBody(const ModelSource &Src, const FunctionDecl *FD,
                       KernelInfo &K) {
  if (!FD->getBody())
    return;
  BodyWalker(Src, FD, K).run();
}

} // namespace astra
