//===- PointerOrigin.cpp - Which parameter a pointer derives from ---------===//
#include "astra/Frontend/PointerOrigin.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace astra {

namespace {
class OriginFinder {
public:
  OriginFinder(const FunctionDecl *Kernel, const VarUses *Writes)
      : Kernel(Kernel), Writes(Writes) {}

  bool find(const Expr *E, PointerOrigin &O, int Depth) {
    if (!E || Depth > 8)
      return false;
    E = stripCasts(E);
    BinaryOperatorKind Op;
    UnaryOperatorKind UOp;
    const Expr *LHS, *RHS, *Sub;
    if (matchBinary(E, Op, LHS, RHS) && (Op == BO_Add || Op == BO_Sub)) {
      // In a template the operands' types may be dependent, so the pointer
      // is the side that leads to a parameter.
      const Expr *Off = RHS;
      if (!find(LHS, O, Depth + 1)) {
        if (Op != BO_Add || !find(RHS, O, Depth + 1))
          return false;
        Off = LHS;
      }
      O.Offsets.push_back({Off, Op == BO_Sub});
      return true;
    }
    if (matchUnary(E, UOp, Sub) && UOp == UO_AddrOf) {
      // &p[i]: p + i; &*p: p.
      const Expr *Elt = Sub->IgnoreParens();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Elt)) {
        if (!find(AS->getBase(), O, Depth + 1))
          return false;
        O.Offsets.push_back({AS->getIdx(), false});
        return true;
      }
      const Expr *Ptr;
      return matchUnary(Elt, UOp, Ptr) && UOp == UO_Deref &&
             find(Ptr, O, Depth + 1);
    }
    const VarDecl *V = getReferencedVar(E);
    if (!V)
      return false;
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      // `n + p`: the integer parameter is the offset.
      QualType T = P->getType().getNonReferenceType();
      if (P->getDeclContext() != Kernel ||
          !(T->isPointerType() || T->isDependentType()))
        return false;
      O.Param = P;
      return true;
    }
    if (!V->isLocalVarDecl() || !V->getInit() ||
        V->getType()->isReferenceType() || (Writes && Writes->isModified(V)))
      return false;
    if (!find(V->getInit(), O, Depth + 1))
      return false;
    // The outermost local is the one the pointer goes through.
    O.Via = V;
    return true;
  }

private:
  const FunctionDecl *Kernel;
  const VarUses *Writes;
};
} // namespace

std::optional<PointerOrigin> findPointerOrigin(const Expr *E,
                                               const FunctionDecl *Kernel,
                                               const VarUses *Writes) {
  PointerOrigin O;
  if (!OriginFinder(Kernel, Writes).find(E, O, 0))
    return std::nullopt;
  return O;
}

llvm::SmallPtrSet<const VarDecl *, 4>
findPointerCopies(const FunctionDecl *Kernel, const ParmVarDecl *Param) {
  struct Locals : RecursiveASTVisitor<Locals> {
    std::vector<const VarDecl *> Found;
    bool VisitVarDecl(VarDecl *V) {
      if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
          V->getType()->isPointerType() && V->getInit())
        Found.push_back(V);
      return true;
    }
  } L;
  llvm::SmallPtrSet<const VarDecl *, 4> Copies;
  if (!Kernel || !Kernel->getBody())
    return Copies;
  L.TraverseStmt(const_cast<Stmt *>(Kernel->getBody()));
  for (const VarDecl *V : L.Found) {
    std::optional<PointerOrigin> O =
        findPointerOrigin(V->getInit(), Kernel, nullptr);
    if (O && O->Param == Param)
      Copies.insert(V);
  }
  return Copies;
}

} // namespace astra
