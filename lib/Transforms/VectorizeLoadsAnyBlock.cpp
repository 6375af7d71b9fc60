//===- VectorizeLoadsAnyBlock.cpp - Statements around, for any block ------===//
//
// The any-block form of vectorize-loads (`any-grid=1` at a per-block index
// `i = threadIdx.x`; VectorizeLoadsCodegen.cpp) covers every element below
// the bound with however many threads the block has, so that
// `launch:block-x-div` may shrink the block. The statements around the
// per-element region stay per thread, with the original index: with a
// smaller block, the threads past its end no longer run them. That is
// harmless when what they do has no effect outside the thread, except on
// thread 0, which exists in every block:
//
//   - every write to memory that is not the thread's own (through a
//     pointer, to a global or a __shared__ variable) is inside
//     `if (i == 0 ...)` (or `threadIdx.x == 0`); its else branch counts as
//     every thread's (a call that may write memory is refused before, by
//     findMemoryClash);
//   - no warp collective (__shfl, __ballot, ...): a smaller block may leave
//     a warp partial;
//   - blockDim is not read anywhere in the kernel: its value changes.
//
// Barriers stay right (every thread of the block reaches them, as in the
// original), and what thread 0 computes does not change: it has the same
// index, and the region's memory is disjoint from that of the statements
// around it (findMemoryClash).
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsMemory.h"
#include "VectorizeLoadsUtil.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {

/// Whether \p E is `X == 0` (or `0 == X`) with X the index \p IV or
/// `threadIdx.<Dim>`.
bool isThreadZeroTest(const Expr *E, const VarDecl *IV, char Dim) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!B || B->getOpcode() != BO_EQ)
    return false;
  auto IsZero = [](const Expr *X) {
    const auto *L = dyn_cast<IntegerLiteral>(X->IgnoreParenImpCasts());
    return L && L->getValue() == 0;
  };
  auto IsThread = [&](const Expr *X) {
    const auto *DR = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    char D;
    return (DR && DR->getDecl() == IV) ||
           (matchBuiltin(X, "threadIdx", D) && D == Dim);
  };
  return (IsZero(B->getRHS()) && IsThread(B->getLHS())) ||
         (IsZero(B->getLHS()) && IsThread(B->getRHS()));
}

/// Whether \p Cond holds on thread 0 only: one of its `&&` terms is a
/// thread-zero test.
bool onThreadZeroOnly(const Expr *Cond, const VarDecl *IV, char Dim) {
  const auto *B = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (B && B->getOpcode() == BO_LAnd)
    return onThreadZeroOnly(B->getLHS(), IV, Dim) ||
           onThreadZeroOnly(B->getRHS(), IV, Dim);
  return isThreadZeroTest(Cond, IV, Dim);
}

/// The parts of \p S that threads other than thread 0 may run: all of it
/// but the bodies of `if (i == 0 ...)` (within blocks).
void collectEveryThread(const Stmt *S, const VarDecl *IV, char Dim,
                        std::vector<const Stmt *> &Out) {
  if (!S)
    return;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *C : CS->body())
      collectEveryThread(C, IV, Dim, Out);
    return;
  }
  const auto *If = dyn_cast<IfStmt>(S);
  if (If && !If->getInit() && !If->getConditionVariable() &&
      onThreadZeroOnly(If->getCond(), IV, Dim)) {
    Out.push_back(If->getCond());
    collectEveryThread(If->getElse(), IV, Dim, Out);
    return;
  }
  Out.push_back(S);
}

/// Whether the variable \p VD is the thread's own (a local or a parameter
/// that is not __shared__).
bool isThreadPrivate(const VarDecl *VD) {
  return VD && VD->hasLocalStorage() && !VD->hasAttr<CUDASharedAttr>();
}
/// Whether the memory an access starts from at \p Root is the thread's own:
/// a local array (a pointer parameter points elsewhere).
bool isThreadPrivateMemory(const VarDecl *Root) {
  return isThreadPrivate(Root) && Root->getType()->isArrayType();
}

/// The first read of blockDim, and the first warp collective called.
struct BlockSizeUses : RecursiveASTVisitor<BlockSizeUses> {
  SourceLocation BlockDim, Collective;
  std::string CollectiveName;
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (BlockDim.isInvalid() && DR->getDecl()->getName() == "blockDim")
      BlockDim = DR->getBeginLoc();
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    if (!F || Collective.isValid() || !F->getIdentifier())
      return true;
    StringRef N = F->getName();
    // __syncthreads_count / _and / _or return what the block's threads
    // passed: a smaller block changes it.
    if (isBarrierOrCollective(N) && N != "__syncthreads" &&
        !N.starts_with("__barrier")) {
      Collective = C->getBeginLoc();
      CollectiveName = N.str();
    }
    return true;
  }
};

/// The first variable that is not the thread's own (a __shared__ or global
/// scalar) assigned, incremented or whose address is taken, by name.
struct SharedScalarWrites : RecursiveASTVisitor<SharedScalarWrites> {
  const VarDecl *Var = nullptr;
  SourceLocation Loc;
  void note(const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (VD && !Var && !isThreadPrivate(VD)) {
      Var = VD;
      Loc = DR->getBeginLoc();
    }
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      note(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      note(U->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->getNumArgs() >= 1 &&
        (C->isAssignmentOp() || C->getOperator() == OO_PlusPlus ||
         C->getOperator() == OO_MinusMinus))
      note(C->getArg(0));
    return true;
  }
};

} // namespace

/// Why the statements \p Around, each thread's for its original index,
/// may act differently when the block has fewer threads: a warp collective
/// (a warp may be left partial), or a write to memory that not only thread
/// 0 makes (`if (<IndexName> == 0)`, \p IV the index variable or null).
static std::string whyAroundDiffers(const VarDecl *IV, StringRef IndexName,
                                    char ThreadDim, const VarUses &Writes,
                                    ArrayRef<const Stmt *> Around,
                                    SourceLocation &Where) {
  for (const Stmt *S : Around) {
    BlockSizeUses A;
    A.TraverseStmt(const_cast<Stmt *>(S));
    if (A.Collective.isValid()) {
      Where = A.Collective;
      return "a statement outside the per-element ones calls " +
             A.CollectiveName +
             ", which a smaller block may leave without "
             "a full warp";
    }
  }
  std::vector<const Stmt *> Every;
  for (const Stmt *S : Around)
    collectEveryThread(S, IV, ThreadDim, Every);
  MemoryUses M;
  scanMemory(Writes, Every, M);
  // A call that may write memory (the per-block form refuses it before, in
  // findMemoryClash, since it may access the region's memory too).
  if (M.UnknownCall.isValid()) {
    Where = M.UnknownCall;
    return "a call outside the per-element statements may write memory, "
           "and not only on thread 0: a smaller block would leave the "
           "writes of its missing threads out";
  }
  auto Written = [&](const VarDecl *Root, SourceLocation Loc) {
    Where = Loc;
    return "'" + (Root ? Root->getNameAsString() : std::string("memory")) +
           "' is written outside the per-element statements, and not only "
           "on thread 0 (`if (" +
           IndexName.str() +
           " == 0)`): a smaller block would leave the writes of its missing "
           "threads out";
  };
  for (auto &[Root, Use] : M.ByRoot)
    if (Use.Write && !isThreadPrivateMemory(Root))
      return Written(Root, Use.Loc);
  SharedScalarWrites Scalars;
  for (const Stmt *S : Every)
    Scalars.TraverseStmt(const_cast<Stmt *>(S));
  if (Scalars.Var)
    return Written(Scalars.Var, Scalars.Loc);
  return "";
}

std::string whyNotAnyBlock(const FunctionDecl *Kernel, const VarDecl *IV,
                           char ThreadDim, const VarUses &Writes,
                           ArrayRef<const Stmt *> Around,
                           SourceLocation &Where) {
  BlockSizeUses Uses;
  Uses.TraverseStmt(Kernel->getBody());
  if (Uses.BlockDim.isValid()) {
    Where = Uses.BlockDim;
    return "the kernel reads blockDim, whose value a smaller block changes";
  }
  return whyAroundDiffers(IV, IV->getName(), ThreadDim, Writes, Around, Where);
}

namespace {
/// In a block-stride loop's kernel: the first read of blockDim.<Dim>
/// outside the loop's step (\p Skip), or of blockDim as a whole; the first
/// call of a function of the user's code that reads the thread's or block's
/// index or size; within the loop's body, the first barrier or warp
/// collective. (What the body reads of the thread is whyNotReassignable's.)
struct LoopBlockUses : RecursiveASTVisitor<LoopBlockUses> {
  const Stmt *Skip = nullptr, *Body = nullptr;
  char Dim = 'x';
  SourceLocation BlockDim, StateCall, CallInBody;
  std::string CallName, StateCallName;
  SmallVector<SourceLocation, 8> OtherDims; ///< blockDim.<other dims> read
  unsigned InBody = 0;
  bool TraverseStmt(Stmt *S) {
    if (!S || S == Skip)
      return true;
    bool Enter = S == Body;
    InBody += Enter;
    bool R = RecursiveASTVisitor::TraverseStmt(S);
    InBody -= Enter;
    return R;
  }
  bool VisitExpr(Expr *E) {
    char D;
    if (!matchBuiltin(E, "blockDim", D))
      return true;
    if (D != Dim)
      OtherDims.push_back(E->getBeginLoc());
    else if (BlockDim.isInvalid())
      BlockDim = E->getBeginLoc();
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    // blockDim as a whole (`dim3 b = blockDim;`): the enclosing
    // `blockDim.y`, when there is one, was visited first.
    if (DR->getDecl()->getName() == "blockDim" && BlockDim.isInvalid() &&
        !is_contained(OtherDims, DR->getBeginLoc()))
      BlockDim = DR->getBeginLoc();
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    if (!F || !F->getIdentifier())
      return true;
    if (InBody && CallInBody.isInvalid() &&
        isBarrierOrCollective(F->getName())) {
      CallInBody = C->getBeginLoc();
      CallName = F->getName().str();
    }
    if (StateCall.isInvalid() && readsThreadState(F)) {
      StateCall = C->getBeginLoc();
      StateCallName = F->getNameAsString();
    }
    return true;
  }
};
} // namespace

std::string whyNotAnyBlockLoop(const FunctionDecl *Kernel, const ForStmt *Loop,
                               const VarDecl *IV, char Dim,
                               SourceLocation &Where) {
  Where = Loop->getBeginLoc();
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel->getBody());
  if (!Body || !is_contained(Body->body(), Loop))
    return "the loop is not a statement of the kernel's body (it sits in "
           "a branch or another loop)";
  if (Dim != 'x')
    return std::string("the loop strides over blockDim.") + Dim +
           "; only the block's x extent is divided";
  LoopBlockUses U;
  U.Skip = Loop->getInc();
  U.Body = Loop->getBody();
  U.Dim = Dim;
  U.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (U.BlockDim.isValid()) {
    Where = U.BlockDim;
    return "the kernel reads blockDim.x outside the loop's step, and a "
           "smaller block changes its value";
  }
  if (U.StateCall.isValid()) {
    Where = U.StateCall;
    return "the kernel calls " + U.StateCallName +
           ", which reads the thread's or block's index or size";
  }
  if (U.CallInBody.isValid()) {
    Where = U.CallInBody;
    return "the loop's body calls " + U.CallName +
           ", which must see every thread's original iterations";
  }
  // A value the body carries out of the loop (a partial sum, a count):
  // each thread's share of the elements changes with the block, and the
  // threads past a smaller block's end carry nothing.
  llvm::SmallPtrSet<const VarDecl *, 8> Own;
  collectLoopVars(Loop, IV, Own);
  VarUses BodyWrites;
  BodyWrites.collect(Loop->getBody());
  for (const VarDecl *V : BodyWrites.Modified)
    if (!Own.count(V) && V->hasLocalStorage() && !V->hasAttr<CUDASharedAttr>())
      return "'" + V->getNameAsString() +
             "' is carried out of the loop: each thread's share of the "
             "elements changes with the block";
  VarUses Writes;
  Writes.collect(Body);
  std::vector<const Stmt *> Around;
  for (const Stmt *S : Body->body())
    if (S != Loop)
      Around.push_back(S);
  return whyAroundDiffers(nullptr, "threadIdx.x", Dim, Writes, Around, Where);
}

} // namespace vectorize
} // namespace astra
