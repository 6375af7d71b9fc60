//===- VectorizeLoadsOwnership.cpp - Elements handed to other threads -----===//
//
// A thread-partitioned loop in packs hands element i to another thread than
// the original did (thread t takes the packs t, t + P, ..., not the elements
// t, t + P, ...). That is right only when what an iteration computes does
// not depend on which thread runs it, and when every thread that shares the
// loop reaches it. whyNotReassignable refuses, for a loop whose partition
// depends on \p PartitionDeps (threadIdx.d; also blockIdx.d for a grid-stride
// loop):
//
//   - inline assembly anywhere in the kernel (it may read %tid);
//   - in the loop's body: threadIdx / blockIdx of those dimensions, or the
//     whole builtin (`uint3 t = threadIdx`); a variable from before the loop
//     that the body reads without writing it, whose value depends on them,
//     or that is a local array or structure (the dependence analysis does
//     not follow elements); a call of a function of the file that reads a
//     thread or block builtin or holds assembly;
//   - a `return` before the loop under a condition that depends on them
//     (threads that leave would leave elements that others now own).
//
// Variables the body writes are the reductions the analysis accepts: each
// thread's partial changes, the combination over the threads does not.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsMemory.h"
#include "VectorizeLoadsUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {

bool isThreadBuiltinName(StringRef N) {
  return N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
         N == "gridDim";
}

/// Whether \p F, a function of the user's code (not of a system header
/// such as CUDA's, whose conversions hold assembly), reads a thread or block
/// builtin or holds assembly, itself or through the functions it calls.
bool readsThreadStateIn(const FunctionDecl *F,
                        SmallPtrSetImpl<const FunctionDecl *> &Seen) {
  if (!F || !F->hasBody() || !Seen.insert(F).second ||
      F->getASTContext().getSourceManager().isInSystemHeader(F->getLocation()))
    return false;
  struct V : RecursiveASTVisitor<V> {
    SmallPtrSetImpl<const FunctionDecl *> *Seen;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (isThreadBuiltinName(DR->getDecl()->getName()))
        Found = true;
      return !Found;
    }
    bool VisitStmt(Stmt *S) {
      Found |= isa<AsmStmt>(S);
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) {
      if (readsThreadStateIn(C->getDirectCallee(), *Seen))
        Found = true;
      return !Found;
    }
  } Vis;
  Vis.Seen = &Seen;
  Vis.TraverseStmt(F->getBody());
  return Vis.Found;
}

/// Reads in the loop's body that tie an iteration to its thread.
struct BodyReads : RecursiveASTVisitor<BodyReads> {
  unsigned Deps = 0;
  DependenceInfo *Info = nullptr;
  SmallPtrSet<const VarDecl *, 8> Own;     ///< the loop's own variables
  SmallPtrSet<const VarDecl *, 8> Written; ///< written in the body
  SmallPtrSet<const Expr *, 8> MatchedBuiltins;
  SourceLocation Where;
  std::string Why;
  void fail(SourceLocation L, std::string W) {
    if (Why.empty()) {
      Where = L;
      Why = std::move(W);
    }
  }
  bool VisitExpr(Expr *E) {
    std::optional<CudaBuiltin> B = matchCudaBuiltin(E);
    if (!B)
      return true;
    MatchedBuiltins.insert(E);
    if ((B->Var == "threadIdx" && (Deps & depBit(DepTid, B->Dim))) ||
        (B->Var == "blockIdx" && (Deps & depBit(DepBid, B->Dim))))
      fail(E->getBeginLoc(), "the loop's body reads " + B->Var + "." +
                                 std::string(1, B->Dim) +
                                 ": each pack's elements go to another thread");
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    StringRef N = DR->getDecl()->getName();
    if (N == "threadIdx" || N == "blockIdx") {
      // Part of `threadIdx.x` (visited before, as the enclosing
      // expression) or the whole builtin.
      bool Part = false;
      for (const Expr *M : MatchedBuiltins)
        Part |= M->getBeginLoc() == DR->getBeginLoc();
      if (!Part)
        fail(DR->getBeginLoc(),
             "the loop's body reads " + N.str() + " as a whole");
      return true;
    }
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD || Own.count(VD) || Written.count(VD))
      return true;
    QualType T = VD->getType();
    if (VD->hasLocalStorage() && !VD->hasAttr<CUDASharedAttr>() &&
        (T->isArrayType() || T->isRecordType()))
      fail(DR->getBeginLoc(),
           "the loop's body reads '" + VD->getNameAsString() +
               "', a local array or structure from before the loop "
               "(whether its elements depend on the thread is not known)");
    else if (Info->get(DR) & (Deps | DepUnknown))
      fail(DR->getBeginLoc(),
           "the loop's body reads '" + VD->getNameAsString() +
               "', which depends on the thread other than through the "
               "loop's variable: each pack's elements go to another thread");
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    if (F && readsThreadState(F))
      fail(C->getBeginLoc(), "the loop's body calls " + F->getNameAsString() +
                                 ", which reads the thread's or block's "
                                 "index or size");
    return true;
  }
};

} // namespace

void collectLoopVars(const ForStmt *Loop, const VarDecl *IV,
                     SmallPtrSetImpl<const VarDecl *> &Out) {
  Out.insert(IV);
  struct Decls : RecursiveASTVisitor<Decls> {
    SmallPtrSetImpl<const VarDecl *> *Out;
    bool VisitVarDecl(VarDecl *VD) {
      Out->insert(VD);
      return true;
    }
  } D;
  D.Out = &Out;
  D.TraverseStmt(const_cast<Stmt *>(Loop->getBody()));
}

bool readsThreadState(const FunctionDecl *F) {
  SmallPtrSet<const FunctionDecl *, 8> Seen;
  return readsThreadStateIn(F, Seen);
}

std::string whyNotReassignable(const FunctionDecl *Kernel, const ForStmt *Loop,
                               const VarDecl *IV, unsigned PartitionDeps,
                               SourceLocation &Where) {
  Where = Loop->getBeginLoc();
  const Stmt *KBody = Kernel->getBody();
  struct Asm : RecursiveASTVisitor<Asm> {
    SourceLocation At;
    bool VisitStmt(Stmt *S) {
      if (isa<AsmStmt>(S) && At.isInvalid())
        At = S->getBeginLoc();
      return true;
    }
  } A;
  A.TraverseStmt(const_cast<Stmt *>(KBody));
  if (A.At.isValid()) {
    Where = A.At;
    return "the kernel holds inline assembly, which may read the thread's "
           "index";
  }
  VarUses Writes;
  Writes.collect(KBody);
  VarUses BodyWrites;
  BodyWrites.collect(Loop->getBody());
  DependenceInfo Info(Writes);
  BodyReads R;
  R.Deps = PartitionDeps;
  R.Info = &Info;
  collectLoopVars(Loop, IV, R.Own);
  for (const VarDecl *V : BodyWrites.Modified)
    R.Written.insert(V);
  R.TraverseStmt(const_cast<Stmt *>(Loop->getBody()));
  if (!R.Why.empty()) {
    Where = R.Where;
    return R.Why;
  }
  // A return before the loop under a condition that depends on the
  // thread: the threads that leave no longer take their packs.
  ASTContext &Ctx = Kernel->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  struct Returns : RecursiveASTVisitor<Returns> {
    std::vector<const ReturnStmt *> Found;
    bool VisitReturnStmt(ReturnStmt *S) {
      Found.push_back(S);
      return true;
    }
  } Rets;
  Rets.TraverseStmt(const_cast<Stmt *>(KBody));
  for (const ReturnStmt *Ret : Rets.Found) {
    if (!SM.isBeforeInTranslationUnit(Ret->getBeginLoc(), Loop->getBeginLoc()))
      continue;
    for (DynTypedNodeList Ps = Ctx.getParents(*Ret); !Ps.empty();
         Ps = Ctx.getParents(Ps[0])) {
      const Stmt *P = Ps[0].get<Stmt>();
      if (!P || P == KBody)
        break;
      const Expr *Cond = nullptr;
      if (const auto *If = dyn_cast<IfStmt>(P))
        Cond = If->getCond();
      else if (const auto *W = dyn_cast<WhileStmt>(P))
        Cond = W->getCond();
      else if (const auto *F = dyn_cast<ForStmt>(P))
        Cond = F->getCond();
      else if (const auto *Do = dyn_cast<DoStmt>(P))
        Cond = Do->getCond();
      else if (const auto *Sw = dyn_cast<SwitchStmt>(P))
        Cond = Sw->getCond();
      if (Cond && (Info.get(Cond) & (PartitionDeps | DepUnknown))) {
        Where = Ret->getBeginLoc();
        return "a return before the loop depends on the thread: the "
               "threads that leave would leave packs that are theirs in "
               "the rewrite";
      }
    }
  }
  return "";
}

} // namespace vectorize
} // namespace astra
