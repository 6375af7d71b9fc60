//===- LaunchBlockUses.cpp - Code tied to the old block size --------------===//
//
// `launch:block=N` writes the new block size into `__launch_bounds__`, the
// `<<<...>>>` of the kernel and the constant or template argument that holds
// it. That is right for a kernel whose code follows blockDim (or the
// constant) wherever it depends on the block size. These checks find code
// that shows otherwise:
//
// - a launch that passes dynamic shared memory bytes (third `<<<...>>>`
//   argument) to a kernel with an `extern __shared__` array: the bytes are
//   not edited, so a larger block writes past the array;
// - without a spec variable that vouches for the new block: a literal equal
//   to the old block size as a `__shared__` array size, or, in a kernel that
//   never reads blockDim, anywhere in its body (`blockIdx.x * 256`);
// - a constant or template parameter that holds the block size and is used
//   in the kernel for anything but `__launch_bounds__`, a `__shared__` array
//   size, a for loop's start, bound or step, or a comparison with threadIdx
//   (a row length, say, `x[blockIdx.x * kRow + threadIdx.x]`), with no spec
//   variable that vouches for the new block: changing it changes what the
//   kernel computes. `blockIdx.x * BLOCK` is accepted in a kernel that reads
//   blockIdx nowhere else (a flat index, where BLOCK stands for blockDim.x).
//
//===----------------------------------------------------------------------===//
#include "LaunchBlockUses.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Whether \p S names threadIdx or blockDim (\p Name).
bool mentions(const Stmt *S, StringRef Name) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (DRE->getDecl()->getName() == Name)
      return true;
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(S))
    return mentions(OV->getSourceExpr(), Name);
  for (const Stmt *C : S->children())
    if (mentions(C, Name))
      return true;
  return false;
}

/// How many times \p S names \p Name.
unsigned countNames(const Stmt *S, StringRef Name) {
  if (!S)
    return 0;
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) // `blockIdx.x`
    return countNames(PO->getSyntacticForm(), Name);
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(S))
    return countNames(OV->getSourceExpr(), Name);
  unsigned N = 0;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    N += DRE->getDecl()->getName() == Name;
  for (const Stmt *C : S->children())
    N += countNames(C, Name);
  return N;
}

/// Whether \p R stands in `blockIdx.x * R` (either order).
bool scalesBlockIdx(ASTContext &Ctx, const Expr *R) {
  const Expr *Cur = R;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    const auto *P = Ps.size() == 1 ? Ps[0].get<Expr>() : nullptr;
    if (isa_and_nonnull<ParenExpr, ImplicitCastExpr>(P)) {
      Cur = P;
      continue;
    }
    const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
    return BO && BO->getOpcode() == BO_Mul &&
           mentions(BO->getLHS() == Cur ? BO->getRHS() : BO->getLHS(),
                    "blockIdx");
  }
}

/// The references to \p D in \p S, and the integer literals equal to
/// \p Literal (0: none).
struct UseFinder : RecursiveASTVisitor<UseFinder> {
  const ValueDecl *D = nullptr;
  int64_t Literal = 0;
  std::vector<const DeclRefExpr *> Refs;
  std::vector<const IntegerLiteral *> Literals;
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (D && E->getDecl() == D)
      Refs.push_back(E);
    return true;
  }
  bool VisitSubstNonTypeTemplateParmExpr(SubstNonTypeTemplateParmExpr *) {
    return true;
  }
  bool VisitIntegerLiteral(IntegerLiteral *L) {
    if (Literal && L->getValue().getLimitedValue() == uint64_t(Literal))
      Literals.push_back(L);
    return true;
  }
};

/// Whether the use \p E of a block size is one that follows the block: the
/// size of a __shared__ array (a use outside any statement), the start or
/// the step of a for loop, or a comparison with threadIdx.
bool followsBlock(ASTContext &Ctx, const Expr *E) {
  DynTypedNode Cur = DynTypedNode::create(*E);
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(Cur);
    if (Ps.size() != 1)
      return false;
    if (const auto *V = Ps[0].get<VarDecl>()) {
      if (V->hasAttr<CUDASharedAttr>() && V->getType()->isArrayType())
        return true;
      // `for (int s = BLOCK / 2; ...)`: the start of a for loop.
      DynTypedNodeList Up = Ctx.getParents(*V);
      const auto *DS = Up.size() == 1 ? Up[0].get<DeclStmt>() : nullptr;
      DynTypedNodeList Loop =
          DS ? Ctx.getParents(*DS) : DynTypedNodeList(DynTypedNode());
      const auto *F = DS && Loop.size() == 1 ? Loop[0].get<ForStmt>() : nullptr;
      return F && F->getInit() == DS;
    }
    if (Ps[0].get<TypeLoc>())
      return true; // an array size in a type: checked at its VarDecl
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      return false;
    const Stmt *CurS = Cur.get<Stmt>();
    if (const auto *F = dyn_cast<ForStmt>(P))
      return CurS == F->getInc() || CurS == F->getInit() ||
             CurS == F->getCond();
    if (const auto *BO = dyn_cast<BinaryOperator>(P))
      if (BO->isComparisonOp())
        return mentions(BO->getLHS() == CurS ? BO->getRHS() : BO->getLHS(),
                        "threadIdx");
    if (!isa<Expr>(P))
      return false;
    Cur = Ps[0];
  }
}

} // namespace

std::string findBlockTies(const RewriteContext &RC, const FunctionDecl *K,
                          ArrayRef<const CUDAKernelCallExpr *> Launches,
                          ArrayRef<const ValueDecl *> Holders,
                          std::optional<int64_t> OldBlock, bool Vouched,
                          bool MacroHolder) {
  ASTContext &Ctx = const_cast<RewriteContext &>(RC).getASTContext();
  const Stmt *Body = K->getBody();
  if (!Body)
    return "";
  // Dynamic shared memory sized by the caller for the old block.
  struct ExternShared : RecursiveASTVisitor<ExternShared> {
    const VarDecl *Found = nullptr;
    bool VisitVarDecl(VarDecl *V) {
      if (!Found && V->hasAttr<CUDASharedAttr>() && V->hasExternalStorage())
        Found = V;
      return true;
    }
  } Extern;
  Extern.TraverseStmt(const_cast<Stmt *>(Body));
  if (Extern.Found)
    for (const CUDAKernelCallExpr *Call : Launches) {
      const CallExpr *Config = Call->getConfig();
      if (Config->getNumArgs() < 3 || isa<CXXDefaultArgExpr>(Config->getArg(2)))
        continue;
      return "the launch at " + getLineCol(RC, Call->getBeginLoc()) +
             " passes bytes of dynamic shared memory ('" +
             RC.getText(Config->getArg(2)->getSourceRange()).str() +
             "') for the kernel's extern __shared__ '" +
             Extern.Found->getName().str() +
             "', which a new block does not resize; change the launch by hand";
    }
  // Constants and template parameters that hold the block size (a spec
  // variable vouches for the new instantiation or value).
  for (const ValueDecl *D : Vouched ? ArrayRef<const ValueDecl *>() : Holders) {
    UseFinder Uses;
    Uses.D = D;
    Uses.TraverseStmt(const_cast<Stmt *>(Body));
    // `blockIdx.x * BLOCK + threadIdx.x` in a kernel that reads blockIdx
    // nowhere else: BLOCK stands for blockDim.x (elements are not tied to
    // blocks otherwise, as a row `s[blockIdx.x]` would tie them).
    unsigned Scaled = llvm::count_if(Uses.Refs, [&](const DeclRefExpr *R) {
      return scalesBlockIdx(Ctx, R);
    });
    bool Flat = Scaled && Scaled == countNames(Body, "blockIdx");
    for (const DeclRefExpr *R : Uses.Refs)
      if (!followsBlock(Ctx, R) && !(Flat && scalesBlockIdx(Ctx, R)))
        return "the block size '" + D->getName().str() + "' is also used at " +
               getLineCol(RC, R->getBeginLoc()) +
               " for something other than __launch_bounds__, a __shared__ "
               "array size, a loop's start, bound or step or a comparison with "
               "threadIdx (a row length, a stride): a new block would "
               "change what the kernel computes there";
  }
  if (Vouched || !OldBlock || *OldBlock < 2)
    return "";
  // Literals equal to the old block size, with no spec variable that says
  // the kernel is correct for the new one.
  UseFinder Lits;
  Lits.Literal = *OldBlock;
  Lits.TraverseStmt(const_cast<Stmt *>(Body));
  bool ReadsBlockDim = mentions(Body, "blockDim");
  for (const IntegerLiteral *L : Lits.Literals) {
    if (MacroHolder && L->getBeginLoc().isMacroID())
      continue; // the block size's macro, edited at its definition
    DynTypedNodeList Ps = Ctx.getParents(*L);
    bool ArraySize = !Ps.empty() && Ps[0].get<TypeLoc>();
    if (ArraySize || !ReadsBlockDim)
      return "the kernel writes the old block size " +
             std::to_string(*OldBlock) + " as a literal at " +
             getLineCol(RC, L->getBeginLoc()) +
             (ArraySize ? " (an array size)" : " and never reads blockDim") +
             ": it may depend on that block (a shared array, an index); "
             "give the spec's tunable variable that vouches for the new "
             "block, or change the kernel";
  }
  // __shared__ arrays declared with the old size through a literal.
  struct SharedArrays : RecursiveASTVisitor<SharedArrays> {
    int64_t Size;
    const VarDecl *Found = nullptr;
    bool VisitVarDecl(VarDecl *V) {
      if (const auto *AT = dyn_cast_or_null<ConstantArrayType>(
              V->getType()->getAsArrayTypeUnsafe()))
        if (!Found && V->hasAttr<CUDASharedAttr>() &&
            AT->getSize() == uint64_t(Size))
          Found = V;
      return true;
    }
  } Shared;
  Shared.Size = *OldBlock;
  Shared.TraverseStmt(const_cast<Stmt *>(Body));
  if (Shared.Found && Holders.empty() && !MacroHolder)
    return "the kernel's __shared__ '" + Shared.Found->getName().str() +
           "' at " + getLineCol(RC, Shared.Found->getLocation()) +
           " has the old block size's " + std::to_string(*OldBlock) +
           " elements: it may be indexed per thread; give the spec's "
           "tunable variable that vouches for the new block, or change the "
           "kernel";
  return "";
}

} // namespace astra
