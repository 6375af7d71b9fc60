//===- ModelAccesses.cpp - Pointer roots and index strides ----------------===//
#include "ModelBody.h"
#include "astra/Frontend/PointerOrigin.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace astra {

/// A local variable whose value is fixed by its initialiser, as far as a
/// simple analysis can tell: a local with an initialiser that is never
/// assigned after it.
static bool isAssigned(const VarDecl *V, const Stmt *Scope);

static const Expr *getFixedInit(const VarDecl *V, const Stmt *Scope) {
  if (!V || !V->isLocalVarDecl() || !V->getInit() || isa<ParmVarDecl>(V))
    return nullptr;
  if (V->getType()->isReferenceType() || isAssigned(V, Scope))
    return nullptr;
  return V->getInit();
}

static bool isAssigned(const VarDecl *V, const Stmt *Scope) {
  return !Scope || VarUses(Scope).isModified(V);
}

static const Stmt *getBody(const VarDecl *V) {
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  return FD ? FD->getBody() : nullptr;
}

bool findPointerRoot(const ModelSource &Src, const FunctionDecl *Kernel,
                     const VarUses &Writes, const Expr *E, PointerRoot &Root) {
  Root = PointerRoot();
  std::optional<PointerOrigin> O = findPointerOrigin(E, Kernel, &Writes);
  if (!O)
    return false;
  Root.Param = O->Param;
  if (O->Via)
    Root.Via = O->Via->getName().str();
  std::vector<std::string> Offsets;
  for (const PointerOffset &Off : O->Offsets) {
    std::string Text = Src.getText(Off.Offset);
    Offsets.push_back(Off.Negated ? "-(" + Text + ")" : Text);
  }
  Root.Offset = llvm::join(Offsets, " + ");
  return true;
}

namespace {
/// Linear form of an index in the induction variable (see Stride).
class StrideFinder {
public:
  StrideFinder(const ModelSource &Src, const VarDecl *IV, const Stmt *Loop)
      : Src(Src), IV(IV), Loop(Loop) {}

  /// True when \p E may change between iterations of the loop: it names
  /// the induction variable or a variable assigned in the loop (through
  /// locals that keep their initial value).
  bool mentionsIV(const Expr *E, int Depth = 0) {
    if (!E || Depth > 6)
      return E != nullptr;
    if (const VarDecl *V = getReferencedVar(E)) {
      if (V == IV)
        return true;
      if (const Expr *Init = getFixedInit(V, getBody(V)))
        return mentionsIV(Init, Depth + 1);
      return isAssigned(V, Loop);
    }
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        if (mentionsIV(CE, Depth))
          return true;
    return false;
  }

  Stride get(const Expr *E, int Depth = 0) {
    Stride S;
    if (!E || Depth > 6)
      return S;
    E = stripCasts(E);
    if (!mentionsIV(E)) {
      S.Known = true;
      return S;
    }
    if (const VarDecl *V = getReferencedVar(E)) {
      if (V == IV) {
        S.Known = true;
        S.Coef = 1;
        return S;
      }
      return get(getFixedInit(V, getBody(V)), Depth + 1);
    }
    BinaryOperatorKind Op;
    const Expr *LHS, *RHS;
    if (!matchBinary(E, Op, LHS, RHS))
      return S;
    if (Op == BO_Add || Op == BO_Sub)
      return add(get(LHS, Depth + 1), get(RHS, Depth + 1), Op == BO_Sub);
    if (Op == BO_Mul) {
      if (!mentionsIV(LHS))
        return scale(get(RHS, Depth + 1), LHS);
      if (!mentionsIV(RHS))
        return scale(get(LHS, Depth + 1), RHS);
    }
    return S;
  }

private:
  static Stride add(Stride A, Stride B, bool Negate) {
    Stride S;
    if (!A.Known || !B.Known)
      return S;
    if (Negate)
      B.Coef = -B.Coef;
    if (B.Coef == 0)
      return A;
    if (A.Coef == 0)
      return B;
    if (A.Runtime.empty() && B.Runtime.empty()) {
      S.Known = true;
      S.Coef = A.Coef + B.Coef;
    }
    return S;
  }

  Stride scale(Stride S, const Expr *Factor) {
    if (!S.Known || S.Coef == 0)
      return S;
    if (!Factor->isValueDependent() && !Factor->isTypeDependent()) {
      Expr::EvalResult R;
      if (Factor->EvaluateAsInt(R, Src.getASTContext())) {
        S.Coef *= R.Val.getInt().getExtValue();
        return S;
      }
    }
    std::string Text = Src.getText(Factor);
    S.Runtime = S.Runtime.empty() ? Text : Text + " * " + S.Runtime;
    return S;
  }

  const ModelSource &Src;
  const VarDecl *IV;
  const Stmt *Loop;
};
} // namespace

Stride getStride(const ModelSource &Src, const Expr *Index, const VarDecl *IV,
                 const Stmt *Loop) {
  if (!IV || !Loop)
    return Stride();
  return StrideFinder(Src, IV, Loop).get(Index);
}

} // namespace astra
