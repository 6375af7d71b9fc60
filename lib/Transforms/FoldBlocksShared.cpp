//===- FoldBlocksShared.cpp - Rows of a folded block with shared memory ---===//
//
// fold-blocks:exact=1 (FoldBlocks.cpp) on a kernel with shared arrays and
// barriers. Each row of a folded block takes the slice
// `a + threadIdx.y * blockDim.x` of every shared array, which is legal when
// the rows' slices cannot overlap and the barriers are the block's:
//
//   - the array is declared in the kernel's body, one-dimensional, with at
//     least 1024 elements (a block's most threads: blockDim.x * blockDim.y
//     elements fit, whatever the fold);
//   - every index into it lies in [0, blockDim.x): 0, threadIdx.x (or a
//     local holding it that nothing changes), or an index inside a tree
//     reduction over blockDim.x (WarpReduceMatch.h: `if (tid < s) a[tid] op=
//     a[tid + s]` with s from blockDim.x / 2 down);
//   - every __syncthreads() is reached by every row: no enclosing condition
//     reads threadIdx, blockIdx (folded: one value per row), memory or a
//     variable the kernel changes, except a for loop's own counter stepped
//     by uniform values; and the kernel has no return statement.
//
// A tree over a row narrower than a warp (coarsen's 8- or 16-thread rows)
// then pays a block barrier per level. For a tree whose strides are
// blockDim.x / 2, ..., 1: where the rows are a power of two of threads up to
// 32 (so no row straddles a warp) and the block is whole warps,
// the tree runs instead as xor shuffles in registers, paired as the tree
// pairs them (lane 0 ends with the tree's a[0], bit for bit), lane 0 stores
// it, and __syncwarp() makes it visible to the row (a row is in one warp);
// elsewhere the tree runs as before. Only where nothing else reads an
// element other than a[0] (the shuffles leave the others as they were; other
// trees on the array included), for a tree no loop runs again, and for
// element types __shfl_xor_sync takes.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "FoldBlocks.h"
#include "FreshName.h"
#include "Indent.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class Uniformity {
public:
  Uniformity(ASTContext &Ctx, const FunctionDecl *K)
      : K(K), CV(Ctx, K, K->getBody()) {}

  /// Whether \p E has one value for every thread of a folded block.
  bool isUniform(const Expr *E, const DenseSet<const VarDecl *> &Counters,
                 unsigned Depth = 0) const {
    if (!E || Depth > 16)
      return false;
    E = E->IgnoreParenImpCasts();
    if (std::optional<CudaBuiltin> B = matchCudaBuiltin(E))
      return B->Var == "blockDim" || B->Var == "gridDim";
    if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
        isa<CXXBoolLiteralExpr>(E) || isa<CharacterLiteral>(E))
      return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (isa<EnumConstantDecl>(DRE->getDecl()))
        return true;
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V)
        return false;
      if (Counters.count(V))
        return true;
      if (CV.mayChange(V))
        return false;
      if (isa<ParmVarDecl>(V))
        return true;
      if (V->getType().isConstQualified() && V->hasGlobalStorage() &&
          V->getInit())
        return isUniform(V->getInit(), Counters, Depth + 1);
      return V->hasLocalStorage() && V->getInit() &&
             !V->getType()->isReferenceType() &&
             isUniform(V->getInit(), Counters, Depth + 1);
    }
    if (isa<ArraySubscriptExpr>(E) || isa<CallExpr>(E) || isa<MemberExpr>(E) ||
        isa<StmtExpr>(E) || isa<LambdaExpr>(E))
      return false;
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp())
        return false;
    if (const auto *Bin = dyn_cast<BinaryOperator>(E))
      if (Bin->isAssignmentOp())
        return false;
    if (!isa<BinaryOperator>(E) && !isa<UnaryOperator>(E) &&
        !isa<ConditionalOperator>(E) && !isa<CastExpr>(E))
      return false;
    for (const Stmt *C : E->children())
      if (!isUniform(dyn_cast_or_null<Expr>(C), Counters, Depth))
        return false;
    return true;
  }

  /// Whether \p F steps a counter of its own by uniform values: `for (T s =
  /// U; COND(s, U); s OP= U)` with the body leaving s alone. Adds s.
  bool isUniformLoop(const ForStmt *F, DenseSet<const VarDecl *> &Counters,
                     ASTContext &Ctx) const {
    const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
    const auto *V = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    if (!V || !V->getInit() || !isUniform(V->getInit(), Counters))
      return false;
    DenseSet<const VarDecl *> With = Counters;
    With.insert(V);
    const Expr *Inc = F->getInc();
    if (!F->getCond() || !isUniform(F->getCond(), With) || !Inc)
      return false;
    Inc = Inc->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(Inc)) {
      if (!U->isIncrementDecrementOp() ||
          getReferencedVar(U->getSubExpr()) != V)
        return false;
    } else if (const auto *B = dyn_cast<BinaryOperator>(Inc)) {
      if (!B->isAssignmentOp() || getReferencedVar(B->getLHS()) != V ||
          !isUniform(B->getRHS(), With))
        return false;
    } else {
      return false;
    }
    ChangedVars InBody(Ctx, K, F->getBody());
    if (InBody.mayChange(V))
      return false;
    Counters.insert(V);
    return true;
  }

private:
  const FunctionDecl *K;
  ChangedVars CV;
};

/// Whether \p S holds a break, continue or goto.
struct JumpFinder : RecursiveASTVisitor<JumpFinder> {
  bool Found = false;
  bool VisitBreakStmt(BreakStmt *) { return !(Found = true); }
  bool VisitContinueStmt(ContinueStmt *) { return !(Found = true); }
  bool VisitGotoStmt(GotoStmt *) { return !(Found = true); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return !(Found = true); }
};
bool hasJump(const Stmt *S) {
  JumpFinder J;
  J.TraverseStmt(const_cast<Stmt *>(S));
  return J.Found;
}

/// Why the barrier \p Call may not be reached by every row; empty if it is.
std::string checkBarrier(ASTContext &Ctx, const FunctionDecl *K,
                         const Uniformity &U, const CallExpr *Call) {
  // The enclosing statements, innermost first, up to the body.
  std::vector<DynTypedNode> Chain;
  DynTypedNode N = DynTypedNode::create(*Call);
  for (unsigned Guard = 0; Guard < 256; ++Guard) {
    DynTypedNodeList Ps = Ctx.getParents(N);
    if (Ps.size() != 1)
      return "the statement around it is not known";
    N = Ps[0];
    if (N.get<FunctionDecl>() == K)
      break;
    if (N.get<Decl>())
      return "it sits in a lambda or a local class (where it is called is "
             "not followed)";
    Chain.push_back(N);
  }
  DenseSet<const VarDecl *> Counters;
  for (auto It = Chain.rbegin(); It != Chain.rend(); ++It) {
    const Expr *Cond = nullptr;
    if (const auto *If = It->get<IfStmt>())
      Cond = If->getCond();
    else if (const auto *W = It->get<WhileStmt>()) {
      if (hasJump(W->getBody()))
        return "the loop around it holds a break or continue (rows could "
               "leave it at different iterations)";
      Cond = W->getCond();
    } else if (const auto *D = It->get<DoStmt>()) {
      if (hasJump(D->getBody()))
        return "the loop around it holds a break or continue (rows could "
               "leave it at different iterations)";
      Cond = D->getCond();
    } else if (const auto *Sw = It->get<SwitchStmt>())
      Cond = Sw->getCond();
    else if (const auto *F = It->get<ForStmt>()) {
      if (!U.isUniformLoop(F, Counters, Ctx))
        return "the loop around it does not step a counter of its own by "
               "values every row shares";
      if (hasJump(F->getBody()))
        return "the loop around it holds a break or continue (rows could "
               "leave it at different iterations)";
      continue;
    } else if (It->get<ConditionalOperator>() ||
               It->get<BinaryConditionalOperator>() ||
               It->get<CXXForRangeStmt>()) {
      return "it sits under a condition";
    } else if (const auto *B = It->get<BinaryOperator>()) {
      if (B->isLogicalOp())
        return "it sits under a condition";
      continue;
    } else {
      continue;
    }
    if (!U.isUniform(Cond, Counters))
      return "the condition around it may differ between rows";
  }
  return "";
}

/// Whether \p Index lies in [0, blockDim.x).
bool isRowIndex(ASTContext &Ctx, const FunctionDecl *K, const Expr *Index,
                const ChangedVars &CV) {
  const Expr *E = stripIntCasts(Index);
  if (const auto *L = dyn_cast<IntegerLiteral>(E))
    return L->getValue() == 0;
  if (getBuiltinVarName(E) == "threadIdx.x")
    return true;
  const VarDecl *V = getReferencedVar(E);
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
         getBuiltinVarName(V->getInit()) == "threadIdx.x" && !CV.mayChange(V);
}

/// Whether \p S holds a goto or a label.
struct GotoFinder : RecursiveASTVisitor<GotoFinder> {
  bool Found = false;
  bool VisitGotoStmt(GotoStmt *) { return !(Found = true); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return !(Found = true); }
  bool VisitLabelStmt(LabelStmt *) { return !(Found = true); }
};
bool hasGoto(const Stmt *S) {
  GotoFinder G;
  G.TraverseStmt(const_cast<Stmt *>(S));
  return G.Found;
}

/// Whether __shfl_xor_sync takes values of \p T: 4- or 8-byte integers,
/// float and double.
bool isShuffleType(const ASTContext &Ctx, QualType T) {
  const auto *BT = T.getCanonicalType()->getAs<BuiltinType>();
  if (!BT || BT->isBooleanType())
    return false;
  if (BT->getKind() == BuiltinType::Float ||
      BT->getKind() == BuiltinType::Double)
    return true;
  uint64_t Bits = Ctx.getTypeSize(T);
  return BT->isInteger() && (Bits == 32 || Bits == 64);
}

/// Whether \p S starts its line (only blanks before it).
bool startsLine(const SourceManager &SM, const Stmt *S) {
  SourceLocation L = S->getBeginLoc();
  if (L.isMacroID() || !SM.isWrittenInMainFile(L))
    return false;
  std::pair<FileID, unsigned> D = SM.getDecomposedLoc(L);
  StringRef Buf = SM.getBufferData(D.first);
  return Buf.slice(getLineStart(Buf, D.second), D.second).trim().empty();
}

} // namespace

std::vector<RowTreeShuffle> findRowTreeShuffles(ASTContext &Ctx,
                                                const FunctionDecl *K,
                                                StringSet<> &Taken) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::pair<const ForStmt *, TreeMatch>> Trees;
  std::vector<const Stmt *> Loops = collectLoops(K->getBody());
  for (const Stmt *L : Loops) {
    TreeMatch M;
    if (isHalvingLoop(L) && matchTree(Ctx, K, cast<ForStmt>(L), M).empty() &&
        StringRef(M.FirstStride).contains("blockDim.x"))
      Trees.push_back({cast<ForStmt>(L), M});
  }
  std::vector<RowTreeShuffle> Out;
  for (const auto &[Loop, M] : Trees) {
    // The tree's strides are then blockDim.x / 2, ..., 1, as the shuffles'.
    StringRef S0 = StringRef(M.FirstStride).trim();
    if (S0 != "blockDim.x / 2" && S0 != "blockDim.x >> 1" &&
        S0 != "blockDim.x/2" && S0 != "blockDim.x>>1")
      continue;
    const auto *AT = Ctx.getAsArrayType(M.Array->getType());
    // Every read of the array outside this tree, other trees' included,
    // must see a[0] only: the shuffles leave the other elements as the
    // threads wrote them, where the tree leaves partial results. So must
    // the tree's own next run when a loop runs it again.
    SmallPtrSet<const Stmt *, 1> Self;
    Self.insert(Loop);
    if (!AT || !isShuffleType(Ctx, AT->getElementType()) ||
        !checkLaterReads(Ctx, K, M.Array, Self).empty() ||
        !checkTreeRerun(Ctx, K, M.Array, Loop).empty() || !startsLine(SM, Loop))
      continue;
    std::string V = makeFreshName(Ctx, "foldTree", Taken);
    std::string O = makeFreshName(Ctx, "foldLane", Taken);
    std::string Row =
        "(" + M.Array->getNameAsString() + " + threadIdx.y * blockDim.x)";
    std::string Shfl = "__shfl_xor_sync(0xffffffffu, " + V + ", " + O + ")";
    std::string Combined = M.Op == TreeOp::Sum
                               ? V + " + " + Shfl
                               : M.Combine + "(" + V + ", " + Shfl + ")";
    Out.push_back(
        {Loop,
         // Rows of whole warps: blockDim.x * blockDim.y a multiple of 32
         // (then so is the block, whatever blockDim.z). A guard that also
         // read blockDim.z and the tree's first stride cost 8 registers
         // and the gain on an H100 (benchmarks.md).
         "if (blockDim.x <= 32 && (blockDim.x & (blockDim.x - 1)) == 0 &&\n"
         "    blockDim.x * blockDim.y % 32 == 0) {\n"
         "// astra-opt fold-blocks: the row's tree by xor shuffles (rows "
         "of a power of two up to 32 threads never straddle a warp; the "
         "block is whole warps), paired as the tree pairs them; lane 0 "
         "stores the result, __syncwarp() shows it to the row\n" +
             M.ElemType + " " + V + " = " + Row + "[threadIdx.x];\n" +
             "for (unsigned int " + O + " = blockDim.x / 2; " + O + " > 0; " +
             O + " >>= 1)\n  " + V + " = " + Combined +
             ";\nif (threadIdx.x == 0)\n  " + Row + "[0] = " + V +
             ";\n__syncwarp();\n} else"});
  }
  return Out;
}

std::string checkRowSlices(ASTContext &Ctx, const FunctionDecl *K,
                           const RowSliceScan &S, SourceLocation &WhyLoc) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!S.Barriers.empty() && hasGoto(K->getBody())) {
    WhyLoc = K->getBody()->getBeginLoc();
    return "it holds a goto, and its rows share barriers";
  }
  if (!S.Barriers.empty() && !S.Returns.empty()) {
    WhyLoc = S.Returns.front()->getBeginLoc();
    return "it returns, and its rows share barriers (a row that returned "
           "would leave the others waiting)";
  }
  // The trees over blockDim.x, whose indices stay below it.
  std::vector<const ForStmt *> Trees;
  for (const Stmt *L : collectLoops(K->getBody())) {
    TreeMatch M;
    if (isHalvingLoop(L) && matchTree(Ctx, K, cast<ForStmt>(L), M).empty() &&
        StringRef(M.FirstStride).contains("blockDim.x"))
      Trees.push_back(cast<ForStmt>(L));
  }
  auto InTree = [&](SourceLocation L) {
    for (const ForStmt *T : Trees)
      if (SM.isPointWithin(L, T->getBeginLoc(), T->getEndLoc()))
        return true;
    return false;
  };
  for (const VarDecl *V : S.Shared) {
    WhyLoc = V->getLocation();
    const auto *AT = Ctx.getAsConstantArrayType(V->getType());
    if (!V->isLocalVarDecl() || !AT)
      return "the shared '" + V->getNameAsString() +
             "' is not an array of fixed size declared in the kernel";
    if (Ctx.getAsArrayType(AT->getElementType()))
      return "the shared array '" + V->getNameAsString() +
             "' has more than one dimension";
    if (AT->getSize().getZExtValue() < 1024)
      return "the shared array '" + V->getNameAsString() + "' has " +
             std::to_string(AT->getSize().getZExtValue()) +
             " elements: fewer than a block's 1024 threads, so the rows' "
             "slices could overlap";
  }
  ChangedVars CV(Ctx, K, K->getBody());
  for (const DeclRefExpr *R : S.SharedRefs) {
    WhyLoc = R->getBeginLoc();
    DynTypedNodeList Ps = Ctx.getParents(*R);
    const Stmt *Up = Ps.size() == 1 ? Ps[0].get<Stmt>() : nullptr;
    while (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Up)) {
      DynTypedNodeList PP = Ctx.getParents(*IC);
      Up = PP.size() == 1 ? PP[0].get<Stmt>() : nullptr;
    }
    const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Up);
    if (!Sub || Sub->getBase()->IgnoreParenImpCasts() != R ||
        !isElementUse(Ctx, Sub))
      return "the shared array '" + R->getDecl()->getNameAsString() +
             "' is used other than by reading or writing an element (its "
             "address or a reference taken)";
    if (!InTree(R->getBeginLoc()) && !isRowIndex(Ctx, K, Sub->getIdx(), CV))
      return "an index into the shared array '" +
             R->getDecl()->getNameAsString() +
             "' may reach past the row (only 0, threadIdx.x and a tree "
             "reduction over blockDim.x are followed)";
  }
  Uniformity U(Ctx, K);
  for (const CallExpr *B : S.Barriers) {
    WhyLoc = B->getBeginLoc();
    std::string Why = checkBarrier(Ctx, K, U, B);
    if (!Why.empty())
      return "a barrier the rows would share: " + Why;
  }
  WhyLoc = SourceLocation();
  return "";
}

} // namespace astra
