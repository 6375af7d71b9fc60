//===- WarpReduceTuple.cpp - Any tree step, in the tree's own order -------===//
//
// warp-reduce on a tree whose step is not one sum, max or min: an arg-max
// over a value array and an index array, a (value, count) pair, any code
// that combines a[tid] with a[tid + s] of one or more __shared__ arrays
// (moe_topk_softmax's top-k rounds):
//
//     __syncthreads();
//     for (int s = blockDim.x / 2; s > 0; s >>= 1) {
//       if (tid < s) {
//         int a = idx[tid], b = idx[tid + s];
//         float va = val[tid], vb = val[tid + s];
//         if (b >= 0 && (a < 0 || vb > va)) { idx[tid] = b; val[tid] = vb; }
//       }
//       __syncthreads();
//     }
//
// Such a step need not be associative (a NaN kept or dropped by where it
// stands), so the rewrite keeps the original's pairs and their order: node
// e meets node e + s at stride s, for every s. Lane l of warp w holds node
// l * W + w (W = blockDim.x / 32 warps), so the strides blockDim.x / 2 down
// to W pair lanes of one warp (shuffles down by 16, 8, ..., 1), and lane 0
// of warp w ends with node w; the strides W / 2 down to 1 run in warp 0 over
// those W nodes, after one barrier. Each array's element becomes a register
// per thread (`treeOwn`), its partner's a shuffled copy (`treePartner`), and
// the step runs where the original's did (`lane < offset` is `e < s`), on
// the same values: the result in a[0] is the original's, bit for bit.
//
// Guard: blockDim.x a multiple of 32 with a power-of-two warp count, a one-
// row block, 2 * S0 == blockDim.x (the tree covers the block, every partner
// inside it); else the tree runs. What the step may do (matchTupleTree):
// read and write a[tid] and read a[tid + s] of __shared__ arrays of 32- or
// 64-bit integers or floats, read locals it does not write, declare its own,
// call pure math functions; no other memory, no thread index, no jumps.
//
//===----------------------------------------------------------------------===//
#include "CoarsenScan.h"
#include "Dataflow.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Walks a tree's step and collects its accesses; Why is the first reason
/// it cannot be rewritten.
class StepScan {
public:
  StepScan(ASTContext &Ctx, const FunctionDecl *K, TupleTree &T)
      : Ctx(Ctx), K(K), T(T), IsTid(Ctx, K), Writes(T.Frame.Step->getThen()) {}

  std::string run() {
    visit(T.Frame.Step->getThen());
    if (Why.empty() &&
        none_of(T.Members, [](const TupleMember &M) { return M.Written; }))
      Why = "the tree step stores no a[tid]";
    if (Why.empty() &&
        none_of(T.Accesses, [](const auto &A) { return A.Partner; }))
      Why = "the tree step reads no a[tid + s]";
    return Why;
  }

private:
  ASTContext &Ctx;
  const FunctionDecl *K;
  TupleTree &T;
  TidMatcher IsTid;
  VarUses Writes; ///< variables the step assigns
  /// Whether each variable from outside the step has one value in the block.
  DenseMap<const VarDecl *, bool> Uniform;
  std::string Why;

  std::string text(const Stmt *S) const { return getStmtText(Ctx, S); }

  void refuse(const std::string &W) {
    if (Why.empty())
      Why = W;
  }

  bool addAccess(const ArraySubscriptExpr *Sub) {
    const VarDecl *S = T.Frame.Stride;
    bool Partner = false;
    const VarDecl *A = getTreeElemArray(IsTid, Sub, S, false);
    if (!A) {
      A = getTreeElemArray(IsTid, Sub, S, true);
      Partner = A != nullptr;
    }
    if (!A)
      return false;
    if (!A->hasAttr<CUDASharedAttr>()) {
      refuse("'" + A->getNameAsString() + "' is not a __shared__ array");
      return true;
    }
    const SourceManager &SM = Ctx.getSourceManager();
    if (inRange(SM, A->getLocation(), T.Frame.Step->getThen())) {
      refuse("the tree step declares the array '" + A->getNameAsString() + "'");
      return true;
    }
    const auto *Base = dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreImpCasts());
    if (!Base || Base->hasQualifier()) {
      refuse("the tree step names '" + A->getNameAsString() +
             "' with a qualifier (the rewrite names the array as it is "
             "declared)");
      return true;
    }
    if (Sub->getBeginLoc().isMacroID() || Sub->getEndLoc().isMacroID()) {
      refuse("the tree step accesses '" + A->getNameAsString() +
             "' through a macro (the rewrite edits the access's text)");
      return true;
    }
    const ArrayType *AT = Ctx.getAsArrayType(A->getType());
    QualType ET = AT ? AT->getElementType() : QualType();
    std::string Elem = getShuffleType(ET);
    if (Elem.empty()) {
      refuse("'" + A->getNameAsString() +
             "' is not an array of 32- or 64-bit integers or floats (what "
             "warp shuffles move)");
      return true;
    }
    if (!isElementUse(Ctx, Sub)) {
      refuse("the tree step takes the address of '" + text(Sub) + "'");
      return true;
    }
    bool Written = classifyUse(Ctx, Sub) == UseKind::Write;
    if (Written && Partner) {
      refuse("the tree step stores the partner '" + text(Sub) +
             "' (only a[tid] may be stored)");
      return true;
    }
    unsigned I = 0;
    while (I < T.Members.size() && T.Members[I].Array != A)
      ++I;
    if (I == T.Members.size()) {
      TupleMember M;
      M.Array = A;
      M.ElemType = Elem;
      T.Members.push_back(M);
    }
    T.Members[I].Written |= Written;
    T.Accesses.push_back({Sub, I, Partner});
    return true;
  }

  void visitRef(const DeclRefExpr *R) {
    const ValueDecl *D = R->getDecl();
    if (isa<BindingDecl>(D)) {
      // From a review: a structured binding reads (or writes) its object,
      // which the checks below do not follow.
      if (!inRange(Ctx.getSourceManager(), D->getLocation(),
                   T.Frame.Step->getThen()))
        refuse("the tree step names the structured binding '" +
               D->getNameAsString() + "', declared outside it");
      return;
    }
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return; // functions (callees are checked at the call), enumerators
    const SourceManager &SM = Ctx.getSourceManager();
    if (inRange(SM, V->getLocation(), T.Frame.Step->getThen())) {
      if (V->isStaticLocal())
        refuse("the tree step declares the static '" + V->getNameAsString() +
               "'");
      return;
    }
    if (V == T.Frame.Stride) {
      refuse("the tree step reads the stride '" + V->getNameAsString() +
             "' outside a[tid + s]");
      return;
    }
    if (V->hasAttr<CUDASharedAttr>() || V->getType()->isArrayType() ||
        V->getType()->isPointerType() || V->getType()->isReferenceType()) {
      refuse("the tree step reads '" + V->getNameAsString() +
             "' other than as a[tid] or a[tid + s]");
      return;
    }
    if (Writes.isModified(V)) {
      refuse("the tree step writes '" + V->getNameAsString() +
             "', declared outside it");
      return;
    }
    // The thread that runs node e's step is no longer thread e: what the
    // step reads from outside must be the same in every thread.
    auto [It, New] = Uniform.try_emplace(V, false);
    if (New)
      It->second = isUniformAt(Ctx, K, T.Frame.Loop, R);
    if (!It->second)
      refuse("the tree step reads '" + V->getNameAsString() +
             "', which may differ between the threads (the rewritten tree "
             "runs node e's step in another thread than e)");
  }

  void visit(const Stmt *S) {
    if (!S || !Why.empty())
      return;
    if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, BreakStmt,
            ContinueStmt, AsmStmt, SwitchStmt>(S)) {
      refuse(std::string("the tree step holds a ") + S->getStmtClassName());
      return;
    }
    if (isa<LambdaExpr, CXXThrowExpr, StmtExpr, CXXNewExpr, CXXDeleteExpr,
            CXXConstructExpr, CXXTemporaryObjectExpr>(S)) {
      refuse("the tree step holds '" + text(S) + "'");
      return;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      std::string B = getBuiltinVarName(E);
      if (!B.empty()) {
        if (StringRef(B).starts_with("threadIdx"))
          refuse("the tree step reads " + B + " outside a[tid] and a[tid + s]");
        return; // blockIdx, blockDim, gridDim: one value per block
      }
    }
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(S)) {
      if (!addAccess(Sub))
        refuse("the tree step accesses '" + text(Sub) +
               "', not a[tid] or a[tid + s] of a __shared__ array");
      return;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(S))
      if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf) {
        refuse("the tree step accesses memory through '" + text(U) + "'");
        return;
      }
    if (const auto *M = dyn_cast<MemberExpr>(S))
      if (M->isArrow()) {
        refuse("the tree step accesses memory through '" + text(M) + "'");
        return;
      }
    if (const auto *C = dyn_cast<CallExpr>(S)) {
      // The arguments first: what they access says more than the call.
      for (const Expr *A : C->arguments())
        visit(A);
      const FunctionDecl *FD = C->getDirectCallee();
      std::string Name = getCalleeName(C);
      if (!FD || !isLibraryFunction(FD) || !isPureMathFunction(Name) ||
          isa<CXXOperatorCallExpr>(C))
        refuse("the tree step calls '" + (Name.empty() ? text(C) : Name) +
               "' (only pure math functions)");
      return;
    }
    if (const auto *R = dyn_cast<DeclRefExpr>(S)) {
      visitRef(R);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D);
            V &&
            (isa<DecompositionDecl>(V) || V->getType()->isReferenceType())) {
          // A reference (or a binding through one) may write what the
          // checks of the step's names do not see.
          refuse("the tree step declares the reference or binding '" +
                 V->getNameAsString() + "'");
          return;
        }
    for (const Stmt *C : S->children())
      visit(C);
  }
};

} // namespace

std::string matchTupleTree(ASTContext &Ctx, const FunctionDecl *K,
                           const ForStmt *Loop, TupleTree &T, bool &FrameOk) {
  FrameOk = false;
  std::string Why = matchTreeFrame(Ctx, K, Loop, T.Frame);
  if (!Why.empty())
    return Why;
  FrameOk = true;
  return StepScan(Ctx, K, T).run();
}

std::string getTupleGuard(const TupleTree &T) {
  const std::string &S0 = T.Frame.FirstStride;
  bool Name = all_of(S0, [](char C) { return isAlnum(C) || C == '_'; });
  return "blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 && 2 * " +
         (Name ? S0 : "(" + S0 + ")") +
         " == blockDim.x && ((blockDim.x / 32) & (blockDim.x / 32 - 1)) == 0";
}

std::string generateTupleTree(RewriteContext &RC, const TupleTree &T,
                              const TupleNames &N, StringRef LoopText) {
  // The step's text with a[tid] as the thread's register and a[tid + s] as
  // its partner's.
  const Stmt *Then = T.Frame.Step->getThen();
  TextEdits Edits;
  for (const TupleTree::Access &A : T.Accesses)
    Edits.push_back({A.E->getSourceRange(),
                     A.Partner ? N.Partner[A.Member] : N.Own[A.Member]});
  std::string Step =
      spliceText(RC, Then->getSourceRange(), Edits,
                 isa<CompoundStmt>(Then) ? 0 : stmtEnd(RC, Then));
  std::string Body = isa<CompoundStmt>(Then) ? Step : "{\n" + Step + "\n}";

  std::string Out;
  raw_string_ostream OS(Out);
  auto Shuffles = [&]() {
    for (unsigned I = 0; I < T.Members.size(); ++I)
      OS << "const " << T.Members[I].ElemType << " " << N.Partner[I]
         << " = __shfl_down_sync(0xffffffffu, " << N.Own[I] << ", " << N.Offset
         << ");\n";
    OS << "if (" << N.Lane << " < " << N.Offset << ") " << Body << "\n";
  };
  std::string Arrays;
  for (const TupleMember &M : T.Members)
    Arrays += (Arrays.empty() ? "" : ", ") + M.Array->getNameAsString();
  OS << "if (" << getTupleGuard(T) << ") {\n"
     << "// astra-opt warp-reduce: the tree over " << Arrays
     << " by warp shuffles, its pairs in the original's order (lane l of "
        "warp w holds node l * warps + w); the tree is the fallback.\n";
  for (unsigned I = 0; I < T.Members.size(); ++I)
    OS << "__shared__ " << T.Members[I].ElemType << " " << N.Partial[I]
       << "[32];\n";
  OS << "const unsigned " << N.Warps << " = blockDim.x / 32;\n"
     << "const unsigned " << N.Lane << " = threadIdx.x % 32;\n";
  for (unsigned I = 0; I < T.Members.size(); ++I)
    OS << T.Members[I].ElemType << " " << N.Own[I] << " = "
       << T.Members[I].Array->getNameAsString() << "[" << N.Lane << " * "
       << N.Warps << " + threadIdx.x / 32];\n";
  OS << "#pragma unroll\n"
     << "for (unsigned " << N.Offset << " = 16; " << N.Offset << " > 0; "
     << N.Offset << " >>= 1) {\n";
  Shuffles();
  OS << "}\n"
     << "if (" << N.Lane << " == 0) {\n";
  for (unsigned I = 0; I < T.Members.size(); ++I)
    OS << N.Partial[I] << "[threadIdx.x / 32] = " << N.Own[I] << ";\n";
  OS << "}\n"
     << "__syncthreads();\n"
     << "if (threadIdx.x < 32) {\n";
  for (unsigned I = 0; I < T.Members.size(); ++I)
    OS << N.Own[I] << " = " << N.Partial[I] << "[" << N.Lane << " < " << N.Warps
       << " ? " << N.Lane << " : 0];\n";
  OS << "for (unsigned " << N.Offset << " = " << N.Warps << " / 2; " << N.Offset
     << " > 0; " << N.Offset << " >>= 1) {\n";
  Shuffles();
  OS << "}\n"
     << "if (threadIdx.x == 0) {\n";
  for (unsigned I = 0; I < T.Members.size(); ++I)
    if (T.Members[I].Written)
      OS << T.Members[I].Array->getNameAsString() << "[0] = " << N.Own[I]
         << ";\n";
  OS << "}\n"
     << "}\n"
     << "__syncthreads();\n"
     << "} else {\n"
     << LoopText << "\n}";
  return Out;
}

} // namespace astra
