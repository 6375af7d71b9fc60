//===- FoldBlocksScan.cpp - What a kernel holds that a fold must see ------===//
//
// The checks of fold-blocks (FoldBlocks.cpp) on a kernel: the uses of
// blockIdx.<dim> its body makes, and what forbids folding it, in the body
// and in everything it runs (DeviceFunctions.h: callees, constructors with
// their in-class initialisers, destructors, lambdas written elsewhere);
// calls with no known callee and preprocessor conditionals are refused. And
// the kernel's own bound guard.
//
//===----------------------------------------------------------------------===//
#include "FoldBlocks.h"
#include "SiteUtil.h"
#include "astra/Frontend/DeviceFunctions.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// What a kernel body (or a device function it reaches) holds that a fold
/// must see: the uses of blockIdx.<Dim>, and the first thing that forbids it.
struct FoldScan : RecursiveASTVisitor<FoldScan> {
  char Dim;
  bool InKernel; ///< false: a device function (nothing there is rewritten)
  /// What the scan covers when not the kernel, for the reasons.
  std::string Outside = "a device function it calls";
  std::vector<const Expr *> Uses;
  DenseSet<unsigned> Seen;
  std::string Why;
  SourceLocation WhyLoc;

  bool Exact = false; ///< shared arrays and barriers are collected instead
  RowSliceScan Rows;

  FoldScan(char Dim, bool InKernel) : Dim(Dim), InKernel(InKernel) {}
  bool collects() const { return Exact && InKernel; }

  void refuse(const Twine &W, SourceLocation L) {
    if (Why.empty()) {
      Why = W.str();
      WhyLoc = L;
    }
  }
  /// References to the built-in variables, and those that are the base of
  /// a `.x`/`.y`/`.z` access: any other (`uint3 b = blockIdx;`) is refused.
  DenseSet<const DeclRefExpr *> BuiltinRefs, MemberBases;
  const SourceManager *SM = nullptr;

  void builtin(const Expr *E) {
    std::optional<CudaBuiltin> B = matchCudaBuiltin(E);
    if (!B)
      return;
    MemberBases.insert(B->Ref);
    if (!Seen.insert(E->getBeginLoc().getRawEncoding()).second)
      return;
    std::string Name = B->str();
    if (B->Var == "blockIdx" && B->Dim == Dim) {
      if (InKernel)
        Uses.push_back(E);
      else
        refuse(Outside + " reads " + Name +
                   " (only the kernel's body is rewritten)",
               E->getBeginLoc());
    } else if ((B->Var == "threadIdx" || B->Var == "blockDim") &&
               B->Dim != 'x') {
      refuse("it reads " + Name +
                 ": its block is not one row of threads along x",
             E->getBeginLoc());
    } else if (B->Var == "gridDim" && (B->Dim == Dim || !InKernel)) {
      refuse("it reads " + Name + ", which a folded launch changes",
             E->getBeginLoc());
    } else if (!InKernel && B->Var == "blockIdx") {
      refuse(Outside + " reads " + Name +
                 " (only the kernel's body is rewritten)",
             E->getBeginLoc());
    }
  }
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *E) {
    builtin(E);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    builtin(E);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    std::string Name = getCalleeName(C);
    if (Name == "__syncthreads" && collects())
      Rows.Barriers.push_back(C);
    else if (isCollectiveCall(Name))
      refuse("it calls " + Name + ", which a block's rows would share",
             C->getBeginLoc());
    const FunctionDecl *FD = C->getDirectCallee();
    if (FD && !FD->hasBody() && !FD->getBuiltinID() && !isLibraryFunction(FD) &&
        SM && !SM->isInSystemHeader(FD->getLocation()))
      refuse("it calls " + FD->getNameAsString() +
                 ", defined outside this file (what it reads is not known)",
             C->getBeginLoc());
    return true;
  }
  /// Constructors and destructors run are scanned as the device functions
  /// the kernel reaches (findDeviceReach); one defined nowhere is not known.
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    const CXXConstructorDecl *Ctor = E->getConstructor();
    if (Ctor && !Ctor->isTrivial() && !Ctor->isDefined() && SM &&
        !SM->isInSystemHeader(SM->getExpansionLoc(Ctor->getLocation())))
      refuse("it constructs a " + Ctor->getParent()->getNameAsString() +
                 " with a constructor defined outside this file (what it "
                 "reads is not known)",
             E->getBeginLoc());
    return true;
  }
  /// Refuses a built-in variable read as a whole. Call after the traversal.
  void checkWholeReads() {
    for (const DeclRefExpr *R : BuiltinRefs)
      if (!MemberBases.count(R))
        refuse("it reads " + R->getDecl()->getName() +
                   " as a whole (only .x, .y, .z are followed)",
               R->getBeginLoc());
  }
  bool VisitReturnStmt(ReturnStmt *R) {
    Rows.Returns.push_back(R);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (V->hasAttr<CUDASharedAttr>() && collects())
      Rows.Shared.push_back(V);
    else if (V->hasAttr<CUDASharedAttr>())
      refuse("it declares the shared array '" + V->getName() +
                 "', which a block's rows would share",
             V->getLocation());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    StringRef N = E->getDecl()->getName();
    if (N == "blockIdx" || N == "threadIdx" || N == "blockDim" ||
        N == "gridDim")
      BuiltinRefs.insert(E);
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (V && V->hasAttr<CUDASharedAttr>() && collects())
      Rows.SharedRefs.push_back(E);
    else if (V && V->hasAttr<CUDASharedAttr>())
      refuse("it uses the shared variable '" + V->getName() +
                 "', which a block's rows would share",
             E->getBeginLoc());
    return true;
  }
  bool VisitAsmStmt(AsmStmt *S) {
    refuse("it holds inline assembly (a barrier or a collective, possibly)",
           S->getBeginLoc());
    return true;
  }
};

/// Whether \p E computes a value without reading memory or calling
/// anything but the built-in index variables.
bool isPlainValue(const Expr *E) {
  if (!E)
    return true;
  E = E->IgnoreParenImpCasts();
  if (matchCudaBuiltin(E))
    return true;
  if (isa<ArraySubscriptExpr>(E) || isa<CallExpr>(E) ||
      isa<PseudoObjectExpr>(E) || isa<StmtExpr>(E) || isa<LambdaExpr>(E))
    return false;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    if (!CE->getConstructor() || !CE->getConstructor()->isTrivial())
      return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp())
      return false;
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAssignmentOp())
      return false;
  if (const auto *M = dyn_cast<MemberExpr>(E))
    if (M->isArrow())
      return false;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (!isPlainValue(CE))
        return false;
  return true;
}

/// Whether \p E mentions any of threadIdx, blockIdx, also through the
/// initialisers of the locals it reads.
bool readsThreadIndex(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > 16)
    return Depth > 16;
  if (std::optional<CudaBuiltin> B = matchCudaBuiltin(E))
    return B->Var == "threadIdx" || B->Var == "blockIdx";
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (V->isLocalVarDecl() && V->getInit())
        return readsThreadIndex(V->getInit(), Depth + 1);
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (readsThreadIndex(CE, Depth))
        return true;
  return false;
}

/// Whether anything in \p S writes \p V or takes its address.
struct WriteFinder : RecursiveASTVisitor<WriteFinder> {
  const VarDecl *V;
  bool Found = false;
  explicit WriteFinder(const VarDecl *V) : V(V) {}
  bool isV(const Expr *E) { return getReferencedVar(E) == V; }
  bool VisitBinaryOperator(BinaryOperator *B) {
    Found |= B->isAssignmentOp() && isV(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    Found |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
             isV(U->getSubExpr());
    return true;
  }
};

} // namespace

const IfStmt *findGuard(ASTContext &Ctx, const CompoundStmt *Body, char Dim) {
  DenseSet<const VarDecl *> Index;
  auto IsIndex = [&](const Expr *E) {
    if (std::optional<CudaBuiltin> B = matchCudaBuiltin(stripIntCasts(E)))
      return B->Var == "blockIdx" && B->Dim == Dim;
    const VarDecl *V = getIndexVar(E);
    return V && Index.count(V);
  };
  for (const Stmt *S : Body->body()) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        // A destructor would run at the guard's return, on rows past the
        // bound too.
        if (!V || !isPlainValue(V->getInit()) ||
            V->needsDestruction(Ctx) != QualType::DK_none)
          return nullptr;
        if (!V->getType()->isIntegerType() || !V->getInit() ||
            !IsIndex(V->getInit()))
          continue;
        WriteFinder W(V);
        W.TraverseStmt(const_cast<CompoundStmt *>(Body));
        if (!W.Found)
          Index.insert(V);
      }
      continue;
    }
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      return nullptr;
    const Stmt *Then = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Then))
      Then = CS->size() == 1 ? CS->body_front() : nullptr;
    const auto *Ret = dyn_cast_or_null<ReturnStmt>(Then);
    const auto *Cond = dyn_cast<BinaryOperator>(stripParens(If->getCond()));
    if (!Ret || Ret->getRetValue() || !Cond)
      return nullptr;
    const Expr *Idx = nullptr, *Bound = nullptr;
    if (Cond->getOpcode() == BO_GE) {
      Idx = Cond->getLHS();
      Bound = Cond->getRHS();
    } else if (Cond->getOpcode() == BO_LE) {
      Idx = Cond->getRHS();
      Bound = Cond->getLHS();
    }
    if (!Idx || !IsIndex(Idx) || !isPlainValue(Bound) ||
        readsThreadIndex(Bound))
      return nullptr;
    return If;
  }
  return nullptr;
}

namespace {

/// Refuses in \p Scan what \p In (a scan of code the kernel runs but that
/// is not rewritten) found, naming \p Where when not empty.
void merge(FoldScan &Scan, FoldScan &In, StringRef Where) {
  In.checkWholeReads();
  if (In.Why.empty())
    return;
  std::string Why = In.Why;
  if (!Where.empty())
    Why += " [" + Where.str() + "]";
  Scan.refuse(Why, In.WhyLoc);
}

/// The class a constructor or destructor belongs to (its in-class
/// initialisers are its code too), else null.
const CXXRecordDecl *getSpecialMemberClass(const FunctionDecl *Fn) {
  if (isa<CXXConstructorDecl, CXXDestructorDecl>(Fn))
    return cast<CXXMethodDecl>(Fn)->getParent();
  return nullptr;
}

} // namespace

FoldScanResult scanFold(RewriteContext &RC, const FunctionDecl *K, char Dim,
                        bool Exact) {
  const SourceManager &SM = RC.getSourceManager();
  const Stmt *Body = K->getBody();
  FoldScan Scan(Dim, /*InKernel=*/true);
  Scan.SM = &SM;
  Scan.Exact = Exact;
  Scan.TraverseStmt(const_cast<Stmt *>(Body));
  Scan.checkWholeReads();
  const char *NotCompiled = "(the branch not compiled would keep blockIdx)";
  if (hasConditionalDirective(RC, Body->getSourceRange()))
    Scan.refuse(Twine("its body holds a preprocessor conditional ") +
                    NotCompiled,
                Body->getBeginLoc());
  DeviceReach Reach = findDeviceReach(K);
  for (const Expr *E : Reach.Elsewhere) {
    FoldScan In(Dim, /*InKernel=*/false);
    In.SM = &SM;
    In.Outside = "an in-class initialiser or default argument it evaluates";
    In.TraverseStmt(const_cast<Expr *>(E));
    merge(Scan, In, "");
  }
  for (const DeviceFunction &DF : Reach.Functions) {
    if (!DF.HasBody)
      continue;
    FoldScan In(Dim, /*InKernel=*/false);
    In.SM = &SM;
    traverseDeviceFunction(In, DF);
    const CXXRecordDecl *RD = getSpecialMemberClass(DF.Fn);
    if (hasConditionalDirective(RC, RD ? RD->getSourceRange()
                                       : DF.Fn->getSourceRange()))
      In.refuse(Twine("it holds a preprocessor conditional ") + NotCompiled,
                DF.Fn->getLocation());
    merge(Scan, In, DF.Name);
  }
  for (const CallExpr *C : Reach.IndirectCalls)
    Scan.refuse("it makes a call through a pointer (what the callee reads is "
                "not known)",
                C->getBeginLoc());
  FoldScanResult R;
  R.Uses = std::move(Scan.Uses);
  R.Rows = std::move(Scan.Rows);
  R.Why = std::move(Scan.Why);
  R.WhyLoc = Scan.WhyLoc;
  return R;
}

} // namespace astra
