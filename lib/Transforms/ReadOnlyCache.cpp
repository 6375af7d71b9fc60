//===- ReadOnlyCache.cpp - __ldg loads through read-only pointers ---------===//
//
// read-only-cache[:assume-noalias=1]: for each pointer parameter of a kernel
// that is only read, loads `p[i]` / `*p` become `__ldg(&p_ro[i])` through a
// local `const T *__restrict__ p_ro = p;`. The signature is not changed, so
// the mangled name and the host launchers stay as they are.
//
// Legality. The pointer must never be stored through, reassigned, passed to a
// function that may write through it, or cast to another pointer type (copies
// into local pointers are followed). The read-only (non-coherent) cache is
// only correct when nothing the kernel writes overlaps the buffer, and that is
// a run-time fact; a pointer-range guard would need buffer sizes the kernel
// does not know, and an equality check is not enough. So the rewrite requires
// one of: the parameter is declared __restrict__ (the author promises no
// overlap), no pointer parameter is written at all and every store goes to
// local or shared memory (the device functions it calls included, and no
// atomic or store through another pointer: ReadOnlyCacheWrites.cpp), or the
// caller passes assume-noalias=1 (the launch
// spec's "noalias"). `const` alone does not rule out aliasing. The harness
// verifies the outputs on the device in any case.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "ReadOnlyCacheWrites.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/PointerOrigin.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class ReadOnlyCache : public Rewrite {
public:
  StringRef getName() const override { return "read-only-cache"; }
  StringRef getDescription() const override {
    return "loads through read-only pointer parameters -> __ldg through a "
           "local const __restrict__ alias (signature unchanged)";
  }
  std::vector<ParamDesc> getParams() const override {
    return {{"assume-noalias",
             RewriteParamKind::Bool,
             "0",
             {"0", "1"},
             "1: no pointer argument overlaps a buffer the kernel writes"}};
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// Everything a kernel does with one pointer parameter.
struct PointerUses {
  std::vector<const Expr *> Loads;  ///< `p[i]` / `*p` read as values
  std::vector<const Expr *> Stores; ///< stored through
  /// Uses of the parameter itself that the rewrite renames to the alias.
  std::vector<const DeclRefExpr *> Renames;
  std::string Blocker; ///< first use that makes it not read-only
  SmallPtrSet<const VarDecl *, 4> Copies; ///< local pointers derived from it
};

/// Follows the uses of one pointer parameter through pointer arithmetic,
/// address-of and copies into local pointer variables.
class PointerTracker {
public:
  PointerTracker(RewriteContext &RC, const FunctionDecl *Kernel,
                 const ParmVarDecl *Param)
      : RC(RC), Ctx(RC.getASTContext()),
        ConstPointee(Param->getType()->getPointeeType().isConstQualified()),
        Derived(findPointerCopies(Kernel, Param)) {
    Visited.insert(Param);
    collect(Kernel, Param);
  }
  PointerUses Uses;

private:
  void collect(const FunctionDecl *Kernel, const VarDecl *V);
  void followPointer(const Expr *E, const DeclRefExpr *Root);
  void access(const Expr *A, const DeclRefExpr *Root);
  void block(const Stmt *At, const Twine &Why) {
    if (Uses.Blocker.empty())
      Uses.Blocker = (Why + " at " + getLineCol(RC, At->getBeginLoc())).str();
  }
  /// `'<text>' (<what it is>)` for a message: which use is meant.
  std::string describeUse(const Stmt *S);
  /// `'<text>'`, shortened to a line.
  std::string quote(const Stmt *S);
  const Stmt *parentOf(const Stmt *S, const Decl **D = nullptr) {
    DynTypedNodeList Ps = Ctx.getParents(*S);
    if (Ps.size() != 1)
      return nullptr;
    if (D)
      *D = Ps[0].get<Decl>();
    return Ps[0].get<Stmt>();
  }

  RewriteContext &RC;
  ASTContext &Ctx;
  bool ConstPointee;
  /// The local pointers derived from the parameter (PointerOrigin); the
  /// walk follows those it reaches through the forms it understands.
  SmallPtrSet<const VarDecl *, 4> Derived;
  SmallPtrSet<const VarDecl *, 4> Visited;
};

/// A reader's name for the kind of \p S.
static std::string kindOf(const Stmt *S) {
  if (isa<ConditionalOperator, BinaryConditionalOperator>(S))
    return "a ?: expression";
  if (isa<InitListExpr>(S))
    return "an initialiser list";
  if (isa<CXXConstructExpr>(S))
    return "a constructor call";
  if (isa<ReturnStmt>(S))
    return "a return statement";
  if (isa<LambdaExpr>(S))
    return "a lambda";
  if (isa<MemberExpr>(S))
    return "a member access through '->'";
  if (isa<CallExpr>(S))
    return "a call";
  if (isa<DeclRefExpr>(S))
    return "a name";
  if (const auto *UO = dyn_cast<UnaryOperator>(S))
    return ("the operator '" + UnaryOperator::getOpcodeStr(UO->getOpcode()) +
            "'")
        .str();
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    return ("the operator '" + BO->getOpcodeStr() + "'").str();
  if (const auto *CE = dyn_cast<CastExpr>(S))
    return std::string("a cast (") + CE->getCastKindName() + ")";
  return std::string("a ") + S->getStmtClassName();
}

std::string PointerTracker::describeUse(const Stmt *S) {
  std::string Q = quote(S);
  return Q.empty() ? kindOf(S) : Q + " (" + kindOf(S) + ")";
}

std::string PointerTracker::quote(const Stmt *S) {
  std::string Text;
  for (char C : RC.getText(S->getSourceRange()))
    if (!isSpace(C) || (!Text.empty() && Text.back() != ' '))
      Text += isSpace(C) ? ' ' : C;
  if (Text.size() > 48)
    Text = Text.substr(0, 45) + "...";
  return Text.empty() ? "" : "'" + Text + "'";
}

void PointerTracker::collect(const FunctionDecl *Kernel, const VarDecl *V) {
  for (const DeclRefExpr *Ref : findRefs(Kernel->getBody(), V)) {
    if (classifyUse(Ctx, Ref) == UseKind::Write) {
      block(Ref, "'" + V->getName() + "' is modified");
      continue;
    }
    followPointer(Ref, isa<ParmVarDecl>(V) ? Ref : nullptr);
  }
  // Copies are tracked like the parameter itself.
  for (const VarDecl *Copy :
       SmallVector<const VarDecl *, 4>(Uses.Copies.begin(), Uses.Copies.end()))
    if (Copy != V && Visited.insert(Copy).second)
      collect(Kernel, Copy);
}

void PointerTracker::followPointer(const Expr *E, const DeclRefExpr *Root) {
  const Expr *Cur = E;
  while (true) {
    const Decl *D = nullptr;
    const Stmt *P = parentOf(Cur, &D);
    if (const auto *Var = dyn_cast_or_null<VarDecl>(D)) {
      // `const T *row = p + off;`: a copy, followed like the parameter.
      if (!Derived.count(Var))
        return block(Cur, "'" + Var->getName() + "' is initialised from it");
      Uses.Copies.insert(Var);
      // `float *row = inp + off;` keeps the parameter: the const alias
      // cannot initialise a pointer to non-const (its loads still go
      // through __ldg).
      if (Root &&
          (ConstPointee || Var->getType()->getPointeeType().isConstQualified()))
        Uses.Renames.push_back(Root);
      return;
    }
    if (!P)
      return block(Cur, "the pointer is used in " + describeUse(Cur) +
                            ", which is not part of an expression or "
                            "declaration this rewrite follows");
    if (isa<ParenExpr>(P) ||
        (isa<ImplicitCastExpr>(P) &&
         cast<ImplicitCastExpr>(P)->getCastKind() != CK_PointerToBoolean)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      // Template-dependent `p + off` (operator+ overloads are visible).
      if ((Op->getOperator() == OO_Plus || Op->getOperator() == OO_Minus) &&
          Op->isTypeDependent()) {
        Cur = Op;
        continue;
      }
      return block(Op, "the pointer is used in an overloaded operator");
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAdditiveOp() &&
          (BO->getType()->isPointerType() || BO->isTypeDependent())) {
        Cur = BO;
        continue;
      }
      if (BO->isComparisonOp() || BO->isLogicalOp())
        return;
      return block(BO, "the pointer is used in '" +
                           BinaryOperator::getOpcodeStr(BO->getOpcode()) + "'");
    }
    if (isa<ImplicitCastExpr>(P) ||
        (isa<UnaryOperator>(P) &&
         cast<UnaryOperator>(P)->getOpcode() == UO_LNot))
      return; // tested for null
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(P)) {
      if (Sub->getBase() != Cur)
        return block(P, "the pointer is used as an index");
      return access(Sub, Root);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_Deref)
        return access(UO, Root);
      return block(UO, "the pointer is modified or its address is taken");
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      for (unsigned I = 0; FD && I < Call->getNumArgs(); ++I)
        if (Call->getArg(I) == Cur && I < FD->getNumParams() &&
            FD->getParamDecl(I)->getType()->isPointerType() &&
            FD->getParamDecl(I)
                ->getType()
                ->getPointeeType()
                .isConstQualified()) {
          // Read-only argument: fine, but not rewritten, unless the callee
          // casts const away and writes.
          if (const Stmt *W = findWriteThroughParam(Ctx, FD, I))
            return block(Call, "passed to '" + FD->getName() +
                                   "', which casts const away and writes "
                                   "through it (" +
                                   getLineCol(RC, W->getBeginLoc()) + ")");
          return;
        }
      if (!FD && ConstPointee)
        return;
      if (FD)
        return block(Call, "passed to '" + FD->getName() +
                               "', which may write through it");
      return block(Call, "passed to " + quote(Call->getCallee()) +
                             ", an indirect or unresolved call whose "
                             "parameters are not known, so it may write "
                             "through it");
    }
    if (isa<ExplicitCastExpr>(P))
      return block(P, "cast to another type in " + describeUse(P));
    return block(P, "the pointer is used in " + describeUse(P) +
                        ", which this rewrite does not follow (it cannot "
                        "tell whether the data is written there)");
  }
}

void PointerTracker::access(const Expr *A, const DeclRefExpr *Root) {
  // How the element is used: loaded, stored, or its address taken.
  const Expr *Cur = A;
  while (true) {
    const Decl *D = nullptr;
    const Stmt *P = parentOf(Cur, &D);
    if (const auto *Var = dyn_cast_or_null<VarDecl>(D)) {
      if (!Var->getType()->isReferenceType())
        break; // initialises a value: a load
      if (ConstPointee || Var->getType()->getPointeeType().isConstQualified())
        return block(A, "an element is bound to a reference");
      return block(A, "an element is bound to a non-const reference");
    }
    if (!P)
      return block(A, "the element " + quote(A) +
                          " is used outside an expression this rewrite "
                          "follows");
    if (isa<ParenExpr>(P) ||
        (isa<ImplicitCastExpr>(P) &&
         cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(P)) {
      if (ME->isArrow())
        return block(ME, "the element is used in " + describeUse(ME) +
                             ", which follows a pointer stored in it");
      Cur = ME; // `p[i].x`: the member is loaded or stored
      continue;
    }
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(P)) {
      if (ICE->getCastKind() == CK_LValueToRValue)
        break;
      return block(A, "the element " + quote(A) + " is converted by " +
                          kindOf(ICE) +
                          ", which is neither a load nor a "
                          "store this rewrite knows");
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->isIncrementDecrementOp()) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
      if (UO->getOpcode() == UO_AddrOf && Cur == A)
        return followPointer(UO, nullptr);
      if (UO->getOpcode() == UO_AddrOf)
        return block(A, "the address of a member is taken");
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      // `out[i] = make_float4(...)`: class types assign through operator=.
      if (Op->isAssignmentOp() && Op->getArg(0) == Cur) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
    }
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(P))
      if (Ctor->getConstructor()->isCopyOrMoveConstructor())
        break; // `float4 v = in[i];`: a load
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAssignmentOp() && BO->getLHS() == Cur) {
        Uses.Stores.push_back(A);
        return block(A, "stored through");
      }
    }
    // Template-dependent code has no implicit loads: a const element can
    // only be read.
    if (ConstPointee)
      break;
    return block(A, "the element " + quote(A) + " is used in " +
                        describeUse(P) +
                        ", which this rewrite cannot classify as a load or "
                        "a store");
  }
  Uses.Loads.push_back(A);
  if (Root)
    Uses.Renames.push_back(Root);
}

/// The element types that have an __ldg overload in this translation unit
/// (float, int, vector types; __half and __nv_bfloat16 once their headers
/// are included).
SmallPtrSet<const Type *, 32> getLdgTypes(ASTContext &Ctx) {
  SmallPtrSet<const Type *, 32> Types;
  auto Found = Ctx.getTranslationUnitDecl()->lookup(
      DeclarationName(&Ctx.Idents.get("__ldg")));
  for (const NamedDecl *D : Found)
    if (const FunctionDecl *FD = D->getAsFunction())
      if (FD->getNumParams() == 1 &&
          FD->getParamDecl(0)->getType()->isPointerType())
        Types.insert(Ctx.getCanonicalType(FD->getParamDecl(0)
                                              ->getType()
                                              ->getPointeeType()
                                              .getUnqualifiedType())
                         .getTypePtr());
  return Types;
}

/// Why the element type of parameter \p Index has no __ldg, or empty.
std::string checkElementType(ASTContext &Ctx, const FunctionDecl *Kernel,
                             unsigned Index,
                             const SmallPtrSet<const Type *, 32> &Ldg) {
  std::vector<const FunctionDecl *> Fns = {Kernel};
  QualType Pointee = Kernel->getParamDecl(Index)->getType()->getPointeeType();
  if (Pointee->isDependentType()) {
    Fns = getInstantiations(Kernel);
    if (Fns.empty())
      return "the element type '" + Pointee.getAsString() +
             "' depends on a template parameter and the file instantiates no "
             "specialisation to check";
  }
  for (const FunctionDecl *F : Fns) {
    QualType T = F->getParamDecl(Index)->getType()->getPointeeType();
    if (!Ldg.count(Ctx.getCanonicalType(T.getUnqualifiedType()).getTypePtr()))
      return "no __ldg overload for element type '" +
             T.getUnqualifiedType().getAsString() + "'" +
             (F != Kernel ? " (in " + F->getNameAsString() + "<...>)" : "");
  }
  return "";
}

} // namespace

/// Declares the restrict alias at the start of \p Body and turns the loads
/// into __ldg through it.
static void editLoads(const RewriteContext &RC, EditBatch &Edits,
                      const CompoundStmt *Body, StringRef Decl, StringRef Alias,
                      ArrayRef<const DeclRefExpr *> Renames,
                      ArrayRef<const Expr *> Loads) {
  insertAtBodyStart(RC, Edits, Body, Decl);
  for (const DeclRefExpr *R : Renames)
    Edits.replace(R->getSourceRange(), Alias);
  for (const Expr *L : Loads) {
    if (const auto *UO = dyn_cast<UnaryOperator>(L)) {
      const Expr *Sub = stripParens(UO->getSubExpr());
      Edits.replace(Edits.beginOf(UO->getOperatorLoc()),
                    Edits.beginOf(Sub->getSourceRange()), "__ldg(");
      Edits.replace(Edits.endOf(Sub->getSourceRange()),
                    Edits.endOf(UO->getSourceRange()), ")");
    } else {
      Edits.insert(Edits.beginOf(L->getSourceRange()), "__ldg(&");
      Edits.insert(Edits.endOf(L->getSourceRange()), ")");
    }
  }
}

Expected<std::vector<Rewrite::PlannedSite>>
ReadOnlyCache::plan(RewriteContext &RC, const RewriteParams &P) const {
  Expected<int64_t> NoAlias = P.getInt("assume-noalias", 0);
  if (!NoAlias)
    return NoAlias.takeError();
  ASTContext &Ctx = RC.getASTContext();
  SmallPtrSet<const Type *, 32> Ldg = getLdgTypes(Ctx);
  std::vector<PlannedSite> Sites;
  PrintingPolicy Policy(Ctx.getLangOpts());

  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    StringSet<> Taken; // alias names are local to the kernel
    // Uses of every pointer parameter first: aliasing needs all of them.
    std::vector<std::pair<unsigned, PointerUses>> Params;
    SmallPtrSet<const VarDecl *, 8> Tracked;
    for (unsigned I = 0; I < K->getNumParams(); ++I) {
      const ParmVarDecl *PVD = K->getParamDecl(I);
      if (!PVD->getType()->isPointerType() || PVD->getName().empty())
        continue;
      PointerTracker T(RC, K, PVD);
      Tracked.insert(PVD);
      Tracked.insert(T.Uses.Copies.begin(), T.Uses.Copies.end());
      Params.emplace_back(I, std::move(T.Uses));
    }
    std::vector<std::string> Written;
    for (auto &[I, U] : Params)
      if (!U.Blocker.empty())
        Written.push_back(K->getParamDecl(I)->getName().str());
    UntrackedWrite Untracked = findUntrackedWrite(Ctx, K, Tracked);

    for (auto &[I, U] : Params) {
      const ParmVarDecl *PVD = K->getParamDecl(I);
      StringRef Name = PVD->getName();
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.Loc = RC.getDiagLoc(PVD->getLocation());
      Site.Selected = isSelected(P, Kernel, "");
      auto Refuse = [&](const Twine &Why) {
        Site.Detail = ("'" + Name + "': " + Why).str();
        Sites.push_back({Site, nullptr});
      };
      if (!U.Blocker.empty()) {
        Refuse("not read-only: " + U.Blocker);
        continue;
      }
      std::string TypeWhy = checkElementType(Ctx, K, I, Ldg);
      if (!TypeWhy.empty()) {
        Refuse(TypeWhy);
        continue;
      }
      bool Restrict = PVD->getType().isRestrictQualified();
      if (!*NoAlias && !Restrict) {
        std::vector<std::string> Others;
        for (const std::string &W : Written)
          if (W != Name)
            Others.push_back(W);
        if (!Others.empty() || Untracked.At) {
          std::string What =
              !Others.empty()
                  ? "'" + join(Others, "', '") + "', which the kernel writes"
                  : "memory the kernel writes (" + Untracked.Why + " at " +
                        getLineCol(RC, Untracked.At->getBeginLoc()) + ")";
          Refuse("may alias " + What +
                 " (const does not rule out aliasing); declare it __restrict__ "
                 "or pass assume-noalias=1 when the buffers never overlap");
          continue;
        }
      }
      // Loads written inside macro expansions stay as they are.
      std::vector<const Expr *> Loads;
      std::string MacroWhy;
      for (const Expr *L : U.Loads) {
        std::string Why = getMacroReason(RC, L->getSourceRange());
        (Why.empty() ? Loads.push_back(L) : (void)(MacroWhy = Why));
      }
      if (Loads.empty()) {
        Refuse(U.Loads.empty() ? "no load through it in the kernel body"
                               : "every load is " + MacroWhy);
        continue;
      }
      std::string Alias = makeFreshName(Ctx, (Name + "_ro").str(), Taken);
      std::string ElemType =
          PVD->getType()->getPointeeType().getUnqualifiedType().getAsString(
              Policy);
      Site.Applicable = true;
      Site.Detail = ("'" + Name + "': " + Twine(Loads.size()) +
                     " load(s) -> __ldg through 'const " + ElemType +
                     " *__restrict__ " + Alias + "'" +
                     (Restrict   ? ""
                      : *NoAlias ? " (assume-noalias=1)"
                                 : " (no pointer parameter is written)") +
                     (U.Loads.size() != Loads.size()
                          ? "; loads " + MacroWhy + " unchanged"
                          : ""))
                        .str();
      bool Assumed =
          !Restrict && *NoAlias && (!Written.empty() || Untracked.At);
      if (Assumed)
        Site.Assumes =
            "'" + Name.str() + "' overlaps no buffer the kernel writes";
      std::string Decl = "const " + ElemType + " *__restrict__ " + Alias +
                         " = " + Name.str() + ";";
      std::vector<const DeclRefExpr *> Renames;
      SmallPtrSet<const DeclRefExpr *, 8> Renamed;
      for (const DeclRefExpr *R : U.Renames)
        if (getMacroReason(RC, R->getSourceRange()).empty() &&
            Renamed.insert(R).second)
          Renames.push_back(R);
      Sites.push_back(
          {Site, [&RC, K, Decl, Alias, Renames, Loads](EditBatch &Edits) {
             editLoads(RC, Edits, cast<CompoundStmt>(K->getBody()), Decl, Alias,
                       Renames, Loads);
           }});
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createReadOnlyCache() {
  return std::make_unique<ReadOnlyCache>();
}

} // namespace astra
