//===- CoarsenScan.cpp - What coarsen reads in a kernel -------------------===//
//
// See CoarsenScan.h.
//
//===----------------------------------------------------------------------===//
#include "CoarsenScan.h"
#include "Dataflow.h"
#include "EditBatch.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/DeviceFunctions.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"

using namespace llvm;
using namespace clang;

namespace astra {

/// The builtin variable threadIdx or blockDim.
static bool isIndexVar(const ValueDecl *D) {
  const auto *V = dyn_cast_or_null<VarDecl>(D);
  return V && !V->hasLocalStorage() &&
         (V->getName() == "threadIdx" || V->getName() == "blockDim");
}

void CoarsenScan::refuse(const Twine &W, SourceLocation L) {
  if (Why.empty()) {
    Why = W.str();
    WhyLoc = L;
  }
}

void CoarsenScan::builtin(const Expr *E) {
  std::optional<CudaBuiltin> B = matchCudaBuiltin(E);
  if (!B || !Seen.insert(E->getBeginLoc().getRawEncoding()).second)
    return;
  if ((B->Var == "threadIdx" || B->Var == "blockDim") && B->Dim != 'x')
    refuse("it reads " + B->str() + ": its block is not one row along x",
           E->getBeginLoc());
  else if (B->str() == "threadIdx.x" && E->getBeginLoc().isMacroID())
    // From a review: `#define IDX (t + threadIdx.x)` was left unedited, so
    // every copy stored to the coarsened thread's one element.
    refuse("it reads threadIdx.x inside a macro, which the rewrite cannot "
           "edit",
           SM.getExpansionLoc(E->getBeginLoc()));
  else if (B->str() == "threadIdx.x")
    ThreadX.push_back(E);
  else if (B->str() == "blockDim.x")
    BlockDimX.push_back(E);
}

bool CoarsenScan::VisitMemberExpr(MemberExpr *E) {
  builtin(E);
  return true;
}

bool CoarsenScan::VisitMSPropertyRefExpr(MSPropertyRefExpr *E) {
  builtin(E);
  return true;
}

bool CoarsenScan::VisitCallExpr(CallExpr *C) {
  std::string Name = getCalleeName(C);
  if (Name == "__syncthreads")
    Barriers.push_back(C);
  else if (isCollectiveCall(Name) ||
           StringRef(Name).starts_with("__threadfence") ||
           StringRef(Name).starts_with("atomic"))
    refuse("it calls " + Name +
               " (threads of the original block would "
               "run it in another order)",
           C->getBeginLoc());
  const FunctionDecl *FD = C->getDirectCallee();
  if (FD && !FD->hasBody() && !FD->getBuiltinID() && !isLibraryFunction(FD) &&
      !SM.isInSystemHeader(FD->getLocation()))
    refuse("it calls " + FD->getNameAsString() +
               ", defined outside this file (what it reads is not known)",
           C->getBeginLoc());
  return true;
}

bool CoarsenScan::VisitVarDecl(VarDecl *V) {
  if (V->hasAttr<CUDASharedAttr>() && V != Array)
    refuse("it declares the shared '" + V->getName() +
               "' besides the tree's array",
           V->getLocation());
  return true;
}

bool CoarsenScan::VisitDeclRefExpr(DeclRefExpr *E) {
  if (E->getDecl() == Array)
    ArrayRefs.push_back(E);
  if (isIndexVar(E->getDecl()))
    WholeIndex.push_back(E);
  return true;
}

bool CoarsenScan::VisitReturnStmt(ReturnStmt *R) {
  refuse("it returns (a thread would leave the C threads it runs)",
         R->getBeginLoc());
  return true;
}

bool CoarsenScan::VisitAsmStmt(AsmStmt *S) {
  refuse("it holds inline assembly", S->getBeginLoc());
  return true;
}

void ReadsIndex::builtin(const Expr *E) {
  if (std::optional<CudaBuiltin> B = matchCudaBuiltin(E))
    Found |= B->Var == "threadIdx" || B->Var == "blockDim";
}

bool ReadsIndex::VisitMemberExpr(MemberExpr *E) {
  builtin(E);
  return true;
}

bool ReadsIndex::VisitMSPropertyRefExpr(MSPropertyRefExpr *E) {
  builtin(E);
  return true;
}

bool isWholeIndexVar(ASTContext &Ctx, const DeclRefExpr *E) {
  if (!isIndexVar(E->getDecl()))
    return false;
  // Up through the wrappers of `threadIdx.x` (a property read: the base
  // may sit in an OpaqueValueExpr or a cast).
  const Stmt *Cur = E;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    const Stmt *P = Ps.size() >= 1 ? Ps[0].get<Stmt>() : nullptr;
    if (isa_and_nonnull<OpaqueValueExpr, ImplicitCastExpr, ParenExpr>(P)) {
      Cur = P;
      continue;
    }
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
      return !ME->getMemberDecl()->getName().starts_with("__fetch_builtin_");
    return !isa_and_nonnull<MSPropertyRefExpr, PseudoObjectExpr>(P);
  }
}

bool ReadsIndex::VisitDeclRefExpr(DeclRefExpr *E) {
  Found |= isIndexVar(E->getDecl());
  return true;
}

bool ReadsIndex::VisitCallExpr(CallExpr *C) {
  std::string Name = getCalleeName(C);
  StringRef N(Name);
  if (Other.empty() &&
      (isCollectiveCall(Name) || N == "__syncthreads" ||
       N.starts_with("__syncthreads_") || N.starts_with("__threadfence") ||
       N.starts_with("atomic")))
    Other = "calls " + Name;
  return true;
}

bool ReadsIndex::VisitAsmStmt(AsmStmt *) {
  if (Other.empty())
    Other = "holds inline assembly";
  return true;
}

bool ReadsIndex::VisitVarDecl(VarDecl *V) {
  if (Other.empty() && V->hasAttr<CUDASharedAttr>())
    Other = "declares the shared '" + V->getNameAsString() + "'";
  return true;
}

bool inRange(const SourceManager &SM, SourceLocation L, const Stmt *S) {
  return SM.isPointWithin(SM.getFileLoc(L), SM.getFileLoc(S->getBeginLoc()),
                          SM.getFileLoc(S->getEndLoc()));
}

/// The variables a statement declares at its own level.
std::vector<const VarDecl *> declaredBy(const Stmt *S) {
  std::vector<const VarDecl *> Out;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        Out.push_back(V);
  return Out;
}

/// Whether \p S reads threadIdx.x or one of \p Vars.
bool reads(const Stmt *S, const DenseSet<const VarDecl *> &Vars) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    if (getBuiltinVarName(E) == "threadIdx.x")
      return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (Vars.count(V))
        return true;
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (reads(V->getInit(), Vars))
          return true;
    return false;
  }
  for (const Stmt *C : S->children())
    if (reads(C, Vars))
      return true;
  return false;
}

bool CoarsenScan::VisitLabelStmt(LabelStmt *S) {
  refuse("it holds the label '" + std::string(S->getName()) +
             "' (copied into both versions)",
         S->getBeginLoc());
  return true;
}

bool CoarsenScan::VisitGotoStmt(GotoStmt *S) {
  refuse("it holds a goto", S->getBeginLoc());
  return true;
}

bool CoarsenScan::VisitIndirectGotoStmt(IndirectGotoStmt *S) {
  refuse("it holds a goto", S->getBeginLoc());
  return true;
}

namespace {
struct WriteScan : RecursiveASTVisitor<WriteScan> {
  std::vector<std::pair<const VarDecl *, SourceLocation>> Written;
  void wrote(const Expr *E) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        Written.push_back({V, E->getBeginLoc()});
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      wrote(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      wrote(U->getSubExpr());
    return true;
  }
};
} // namespace

const VarDecl *findOuterWrite(const SourceManager &SM,
                              ArrayRef<const Stmt *> Stmts,
                              SourceLocation &Where) {
  WriteScan W;
  for (const Stmt *S : Stmts)
    W.TraverseStmt(const_cast<Stmt *>(S));
  for (auto &[V, L] : W.Written) {
    bool Inside = llvm::any_of(
        Stmts, [&](const Stmt *S) { return inRange(SM, V->getLocation(), S); });
    if (!Inside) {
      Where = L;
      return V;
    }
  }
  return nullptr;
}

const Decl *findNonVarDecl(ArrayRef<const Stmt *> Stmts) {
  for (const Stmt *S : Stmts)
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (!isa<VarDecl>(D))
          return D;
  return nullptr;
}

unsigned stmtEnd(RewriteContext &RC, const Stmt *S) {
  EditBatch Offsets(RC);
  unsigned End = Offsets.endOf(S->getSourceRange());
  StringRef File = RC.getSourceManager().getBufferData(
      RC.getSourceManager().getMainFileID());
  size_t At = File.find_first_not_of(" \t\r\n", End);
  return At != StringRef::npos && File[At] == ';' ? At + 1 : End;
}

TextEdits copyEdits(const SourceManager &SM, const Stmt *S,
                    ArrayRef<const Expr *> ThreadX,
                    const DenseSet<const VarDecl *> &PerThread,
                    StringRef ThreadText, StringRef K) {
  TextEdits Edits;
  for (const Expr *E : ThreadX)
    if (inRange(SM, E->getBeginLoc(), S))
      Edits.push_back({E->getSourceRange(), ThreadText.str()});
  for (const VarDecl *V : PerThread)
    for (const DeclRefExpr *R : findRefs(S, V))
      Edits.push_back(
          {R->getSourceRange(), V->getNameAsString() + "[" + K.str() + "]"});
  return Edits;
}

std::string spliceText(RewriteContext &RC, SourceRange R,
                       std::vector<std::pair<SourceRange, std::string>> Edits,
                       unsigned End) {
  EditBatch Offsets(RC);
  unsigned Begin = Offsets.beginOf(R);
  if (!End)
    End = Offsets.endOf(R);
  StringRef File = RC.getSourceManager().getBufferData(
      RC.getSourceManager().getMainFileID());
  std::vector<std::tuple<unsigned, unsigned, std::string>> Sorted;
  for (auto &[ER, T] : Edits)
    Sorted.push_back({Offsets.beginOf(ER), Offsets.endOf(ER), T});
  // Outer edits first: an edit nested in one already made is skipped.
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return std::get<0>(A) != std::get<0>(B) ? std::get<0>(A) < std::get<0>(B)
                                            : std::get<1>(A) > std::get<1>(B);
  });
  std::string Out;
  unsigned At = Begin;
  for (auto &[B, E, T] : Sorted) {
    if (B < At || E > End)
      continue; // nested in an edit already made, or outside
    Out += File.slice(At, B).str() + T;
    At = E;
  }
  Out += File.slice(At, End).str();
  return Out;
}

void checkReach(const SourceManager &SM, const FunctionDecl *K,
                CoarsenScan &Scan) {
  DeviceReach Reach = findDeviceReach(K);
  for (const Expr *E : Reach.Elsewhere) {
    ReadsIndex RI;
    RI.TraverseStmt(const_cast<Expr *>(E));
    if (RI.Found || !RI.Other.empty())
      Scan.refuse("an in-class initialiser or default argument it evaluates " +
                      (RI.Found ? std::string("reads threadIdx or blockDim")
                                : RI.Other) +
                      " (not rewritten)",
                  E->getBeginLoc());
  }
  for (const CallExpr *C : Reach.IndirectCalls)
    Scan.refuse("it makes a call through a pointer (what the callee reads is "
                "not known)",
                C->getBeginLoc());
  for (const DeviceFunction &DF : Reach.Functions) {
    if (!DF.HasBody || SM.isInSystemHeader(DF.Fn->getLocation()))
      continue;
    ReadsIndex RI;
    traverseDeviceFunction(RI, DF);
    if (RI.Found)
      Scan.refuse("it calls " + DF.Name +
                      ", which reads threadIdx or blockDim (not rewritten)",
                  DF.Fn->getLocation());
    else if (!RI.Other.empty())
      Scan.refuse("it calls " + DF.Name + ", which " + RI.Other +
                      " (threads of the original block would run it in "
                      "another order or grouping)",
                  DF.Fn->getLocation());
  }
}

/// Whether the tree loop \p Loop starts from `blockDim.x / 2` or
/// `blockDim.x >> 1` (through casts to integers).
bool isHalfBlock(const ForStmt *Loop) {
  const auto *DS = cast<DeclStmt>(Loop->getInit());
  const Expr *E = cast<VarDecl>(DS->getSingleDecl())->getInit();
  auto Strip = [](const Expr *X) {
    while (true) {
      X = X->IgnoreParens();
      const auto *C = dyn_cast<CastExpr>(X);
      if (!C || !C->getType()->isIntegerType() ||
          !C->getSubExpr()->getType()->isIntegerType())
        return X;
      X = C->getSubExpr();
    }
  };
  const auto *B = dyn_cast<BinaryOperator>(Strip(E));
  const auto *L = B ? dyn_cast<IntegerLiteral>(Strip(B->getRHS())) : nullptr;
  return L && getBuiltinVarName(Strip(B->getLHS())) == "blockDim.x" &&
         ((B->getOpcode() == BO_Div && L->getValue() == 2) ||
          (B->getOpcode() == BO_Shr && L->getValue() == 1));
}

void checkArrayUses(ASTContext &Ctx, const FunctionDecl *K, CoarsenScan &Scan,
                    const BinaryOperator *Leaf, const ForStmt *Tree,
                    ArrayRef<const Stmt *> After) {
  const SourceManager &SM = Scan.SM;
  const VarDecl *A = Scan.Array;
  // From a review: a file-scope array a device function reads.
  if (std::string Why = checkOtherAccess(Ctx, K, A); !Why.empty())
    Scan.refuse(Why, A->getLocation());
  for (const DeclRefExpr *R : Scan.ArrayRefs) {
    if (inRange(SM, R->getBeginLoc(), Leaf->getRHS()))
      Scan.refuse("the leaf's value reads '" + A->getNameAsString() + "'",
                  R->getBeginLoc());
    if (inRange(SM, R->getBeginLoc(), Tree) ||
        inRange(SM, R->getBeginLoc(), Leaf))
      continue;
    bool Zero = false;
    for (const Stmt *S : After) {
      if (Zero || !inRange(SM, R->getBeginLoc(), S))
        continue;
      DynTypedNodeList Ps = Ctx.getParents(*R);
      const Stmt *Up = Ps.size() == 1 ? Ps[0].get<Stmt>() : nullptr;
      while (isa_and_nonnull<ImplicitCastExpr>(Up)) {
        DynTypedNodeList PP = Ctx.getParents(*Up);
        Up = PP.size() == 1 ? PP[0].get<Stmt>() : nullptr;
      }
      const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Up);
      const auto *Lit =
          Sub ? dyn_cast<IntegerLiteral>(stripIntCasts(Sub->getIdx()))
              : nullptr;
      Zero = Lit && Lit->getValue() == 0 && isElementUse(Ctx, Sub);
    }
    if (!Zero)
      Scan.refuse("it uses '" + A->getNameAsString() +
                      "' other than by the leaf, the tree and element 0 "
                      "after it (its address not taken)",
                  R->getBeginLoc());
  }
}

} // namespace astra
