//===- CacheHintsScan.cpp - Global accesses a hint may stream -------------===//
//
// cache-hints' judgement of which accesses touch data once and can take a
// hint as an edit (CacheHints.cpp adds the no-write condition loads need).
// An access is hinted when all of these hold:
//  - it goes through a kernel pointer parameter (PointerOrigin: also through
//    local pointers derived from one and through casts to pack types), as a
//    plain read of the element or a plain assignment to it whose value is
//    unused, not volatile, outside macros and preprocessor conditionals, with
//    no side effects between element and value, of a type with an `__ldcs` /
//    `__stcs` overload and no user operator&;
//  - the parameter is only read, or only written, by the kernel's accesses
//    (a buffer read and written back, or updated by atomics, is reused), and
//    not also gathered;
//  - its address depends on blockIdx (`gamma[i]`, the same in every block,
//    stays cached for the next one) and threadIdx (a per-block value is read
//    by every thread), on no value loaded from memory (a gather may read the
//    same row again), and every loop around it carries a variable of it;
//  - no later loop reads the parameter again (fallbacks and tails aside).
// Variables in the address are followed through their initialisers and every
// value assigned to them (VarUses); one whose address escapes is not.
//
//===----------------------------------------------------------------------===//
#include "CacheHintsScan.h"
#include "Dataflow.h"
#include "SiteUtil.h"
#include "astra/Frontend/PointerOrigin.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace clang;

namespace astra {

SmallPtrSet<const Type *, 32> getHintTypes(ASTContext &Ctx, bool Store) {
  SmallPtrSet<const Type *, 32> Types;
  auto Found = Ctx.getTranslationUnitDecl()->lookup(
      DeclarationName(&Ctx.Idents.get(Store ? "__stcs" : "__ldcs")));
  for (const NamedDecl *D : Found) {
    const FunctionDecl *FD = D->getAsFunction();
    if (!FD || FD->getNumParams() != (Store ? 2u : 1u) ||
        !FD->getParamDecl(0)->getType()->isPointerType())
      continue;
    QualType T = FD->getParamDecl(0)->getType()->getPointeeType();
    Types.insert(Ctx.getCanonicalType(T.getUnqualifiedType()).getTypePtr());
  }
  return Types;
}

namespace {

/// How an element access is used.
enum class Use { Load, Store, Other };

/// What the address of an access depends on.
struct AddressDeps {
  bool Block = false;     ///< blockIdx
  bool Thread = false;    ///< threadIdx
  bool Loaded = false;    ///< a value read from memory
  std::string Unfollowed; ///< a variable whose value is not followed
  /// The local variables it is computed from, through their values.
  SmallPtrSet<const VarDecl *, 8> Vars;
  void merge(const AddressDeps &O) {
    Block |= O.Block;
    Thread |= O.Thread;
    Loaded |= O.Loaded;
    if (Unfollowed.empty())
      Unfollowed = O.Unfollowed;
    Vars.insert(O.Vars.begin(), O.Vars.end());
  }
};

/// Whether \p E reads memory through a pointer (not a local array, which
/// lives in registers or the thread's stack).
bool isMemoryRead(const Expr *E) {
  E = E->IgnoreParens();
  const Expr *Ptr = nullptr;
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
    Ptr = Sub->getBase();
  else if (const auto *UO = dyn_cast<UnaryOperator>(E);
           UO && UO->getOpcode() == UO_Deref)
    Ptr = UO->getSubExpr();
  if (!Ptr)
    return false;
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Ptr->IgnoreParens());
      Cast && Cast->getCastKind() == CK_ArrayToPointerDecay)
    if (const auto *DRE =
            dyn_cast<DeclRefExpr>(Cast->getSubExpr()->IgnoreParens()))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        return !V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>();
  return true;
}

class Scanner {
public:
  Scanner(const RewriteContext &RC, const FunctionDecl *Fn)
      : RC(RC), Ctx(RC.getASTContext()), Fn(Fn), Writes(Fn->getBody()),
        LoopIds(getLoopIds(Fn)) {
    Writes.collectEscapes(Ctx, Fn->getBody());
  }

  std::vector<HintAccess> scan(const SmallPtrSet<const Type *, 32> &LoadTypes,
                               const SmallPtrSet<const Type *, 32> &StoreTypes,
                               const StringSet<> &SideLoops);

private:
  struct Found {
    HintAccess A;
    Use U;
    std::vector<const Stmt *> Loops; ///< enclosing loops, innermost first
    AddressDeps Deps;                ///< of the element's address
  };
  void collect(const Expr *E);
  Use classify(const Expr *E, const Expr *&Assign, const Expr *&Value);
  bool isStatement(const Expr *E);
  bool isInMacro(const HintAccess &A);
  bool storeReorders(const HintAccess &A);
  bool overloadsAddressOf(QualType T);
  AddressDeps depsOf(const Stmt *S);
  const AddressDeps &depsOf(const VarDecl *V);
  std::string judgeAddress(const Found &F);
  std::string judgeReuse(const Found &F, const StringSet<> &SideLoops);
  const ChangedVars &getChanged(const Stmt *Loop);

  const RewriteContext &RC;
  ASTContext &Ctx;
  const FunctionDecl *Fn;
  VarUses Writes;
  DenseMap<const Stmt *, std::string> LoopIds;
  std::vector<Found> Accesses;
  /// Per parameter: whether it is loaded, stored, or used otherwise.
  StringMap<unsigned> Uses;
  DenseMap<const VarDecl *, AddressDeps> VarDeps;
  SmallPtrSet<const VarDecl *, 8> InProgress;
  AddressDeps Partial;
  DenseMap<const Stmt *, std::unique_ptr<ChangedVars>> Changed;

  friend class Visitor;
};

class Visitor : public RecursiveASTVisitor<Visitor> {
public:
  explicit Visitor(Scanner &S) : S(S) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    if (E->getBase()->getType()->isPointerType())
      S.collect(E);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() == UO_Deref)
      S.collect(UO);
    return true;
  }

private:
  Scanner &S;
};

} // namespace

bool Scanner::isInMacro(const HintAccess &A) {
  for (const Expr *E : {A.Element, A.Assign, A.Value})
    if (E && (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID()))
      return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(A.Element))
    if (UO->getSubExpr()->getBeginLoc().isMacroID())
      return true;
  return false;
}

/// Whether `p[i] = v` as `__stcs(&p[i], v)` may compute another address or
/// value: C++17 sequences the value before the element, a call's arguments
/// are not (`out[j++] = in[j]`, `out[i] = in[i++]`).
bool Scanner::storeReorders(const HintAccess &A) {
  if (A.Element->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
    return true;
  VarUses InValue(A.Value);
  for (const Stmt *C : A.Element->children())
    for (const DeclRefExpr *R : findAllRefs(C))
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
        if (InValue.Modified.count(V) || InValue.AddressTaken.count(V))
          return true;
  return false;
}

/// Whether \p T, a class, may have a user's unary operator& (then `&p[i]`
/// is not the element's address).
bool Scanner::overloadsAddressOf(QualType T) {
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  DeclarationName Name = Ctx.DeclarationNames.getCXXOperatorName(OO_Amp);
  for (const NamedDecl *D : RD->lookup(Name))
    if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(D->getAsFunction()))
      if (MD->getNumParams() == 0)
        return true;
  for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(Name))
    if (const FunctionDecl *FD = D->getAsFunction())
      if (FD->getNumParams() == 1)
        return true;
  return false;
}

/// Whether the assignment \p E is a statement of its own (its value unused).
bool Scanner::isStatement(const Expr *E) {
  const Stmt *Cur = E;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    if (Ps.size() != 1)
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      return false;
    if (isa<ExprWithCleanups>(P)) {
      Cur = P;
      continue;
    }
    if (isa<CompoundStmt, AttributedStmt, LabelStmt, CaseStmt, DefaultStmt>(P))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(P))
      return If->getThen() == Cur || If->getElse() == Cur;
    if (const auto *For = dyn_cast<ForStmt>(P))
      return For->getBody() == Cur;
    if (const auto *While = dyn_cast<WhileStmt>(P))
      return While->getBody() == Cur;
    if (const auto *Do = dyn_cast<DoStmt>(P))
      return Do->getBody() == Cur;
    return false;
  }
}

Use Scanner::classify(const Expr *E, const Expr *&Assign, const Expr *&Value) {
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    if (Ps.size() != 1)
      return Use::Other;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      return Use::Other;
    if (isa<ParenExpr>(P)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
      if (Cast->getCastKind() == CK_LValueToRValue)
        return Use::Load;
      if (Cast->getCastKind() == CK_NoOp) {
        Cur = Cast;
        continue;
      }
      return Use::Other;
    }
    // A class-type element copied (`__half h = x[i]`, an argument by
    // value), or converted by a const member (`static_cast<float>(x[i])`).
    if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      const CXXConstructorDecl *C = CE->getConstructor();
      return CE->getNumArgs() == 1 && C &&
                     (C->isCopyConstructor() || C->isMoveConstructor())
                 ? Use::Load
                 : Use::Other;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(P)) {
      const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
      DynTypedNodeList Up = Ctx.getParents(*ME);
      const auto *Call =
          Up.size() == 1 ? Up[0].get<CXXMemberCallExpr>() : nullptr;
      return !ME->isArrow() && MD && MD->isConst() && Call &&
                     Call->getCallee()->IgnoreParens() == ME
                 ? Use::Load
                 : Use::Other;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->getOpcode() != BO_Assign || BO->getLHS() != Cur ||
          !isStatement(BO))
        return Use::Other;
      Assign = BO;
      Value = BO->getRHS();
      return Use::Store;
    }
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P)) {
      const auto *MD = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
      if (OC->getOperator() != OO_Equal || OC->getNumArgs() != 2 || !MD ||
          !(MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()))
        return Use::Other;
      if (OC->getArg(1) == Cur) // copied by the assignment: a read
        return Use::Load;
      if (OC->getArg(0) != Cur || !isStatement(OC))
        return Use::Other;
      Assign = OC;
      Value = OC->getArg(1);
      return Use::Store;
    }
    return Use::Other;
  }
}

void Scanner::collect(const Expr *E) {
  const Expr *Ptr = isa<ArraySubscriptExpr>(E)
                        ? cast<ArraySubscriptExpr>(E)->getBase()
                        : cast<UnaryOperator>(E)->getSubExpr();
  std::optional<PointerOrigin> O = findPointerOrigin(Ptr, Fn, &Writes);
  if (!O || !O->Param)
    return;
  std::string Param = O->Param->getName().str();
  // `&p[i]` is an address: the access is the dereference around its casts
  // (`*reinterpret_cast<const float4 *>(&p[i])`), visited on its own; any
  // other use of the address (an atomic, __ldg, a call) is not followed.
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    const auto *P = Ps.size() == 1 ? Ps[0].get<Expr>() : nullptr;
    if (P && isa<ParenExpr, CastExpr>(P) && Cur != E) {
      Cur = P;
      continue;
    }
    const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
    if (Cur == E && UO && UO->getOpcode() == UO_AddrOf) {
      Cur = UO;
      continue;
    }
    if (Cur == E)
      break;
    if (!(UO && UO->getOpcode() == UO_Deref))
      Uses[Param] |= 1u << unsigned(Use::Other);
    return;
  }
  Found F;
  F.A.Element = E;
  F.A.Param = Param;
  F.U = classify(E, F.A.Assign, F.A.Value);
  F.A.Store = F.U == Use::Store;
  Uses[Param] |= 1u << unsigned(F.U);
  F.Loops = getEnclosingLoops(Ctx, E, LoopIds);
  if (!F.Loops.empty())
    F.A.LoopId = LoopIds.lookup(F.Loops.front());
  Accesses.push_back(std::move(F));
}

const AddressDeps &Scanner::depsOf(const VarDecl *V) {
  auto It = VarDeps.find(V);
  if (It != VarDeps.end())
    return It->second;
  AddressDeps D;
  if (!InProgress.insert(V).second) {
    Partial = AddressDeps(); // a cycle adds nothing new
    return Partial;
  }
  // A const local keeps its initial value whatever its uses (`constexpr
  // int VecW = 4` named in an array bound).
  bool Const = V->getType().isConstQualified();
  if (!Const && (Writes.Escaped.count(V) || Writes.AddressTaken.count(V))) {
    D.Unfollowed = V->getName().str();
  } else {
    if (const Expr *Init = V->getInit())
      D.merge(depsOf(Init));
    auto A = Writes.Assigned.find(V);
    if (!Const && A != Writes.Assigned.end())
      for (const Expr *RHS : A->second)
        D.merge(depsOf(RHS));
  }
  InProgress.erase(V);
  // Inside a cycle the value is partial (the variable in progress counted
  // as nothing): kept only once the outermost variable is done.
  if (!InProgress.empty()) {
    Partial = D;
    return Partial;
  }
  return VarDeps[V] = D;
}

AddressDeps Scanner::depsOf(const Stmt *S) {
  AddressDeps D;
  if (!S)
    return D;
  if (const auto *E = dyn_cast<Expr>(S))
    if (std::optional<CudaBuiltin> B = matchCudaBuiltin(E)) {
      D.Block = B->Var == "blockIdx";
      D.Thread = B->Var == "threadIdx";
      return D;
    }
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(S))
    return depsOf(OVE->getSourceExpr());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      if (V->getName() == "blockIdx")
        D.Block = true;
      else if (V->hasLocalStorage() && !isa<ParmVarDecl>(V)) {
        D.merge(depsOf(V));
        D.Vars.insert(V);
      }
    }
    return D;
  }
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(S);
      Cast && Cast->getCastKind() == CK_LValueToRValue &&
      isMemoryRead(Cast->getSubExpr()))
    D.Loaded = true;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->getName().starts_with("__ld") ||
          FD->getName().starts_with("atomic"))
        D.Loaded = true;
  for (const Stmt *C : S->children())
    D.merge(depsOf(C));
  return D;
}

const ChangedVars &Scanner::getChanged(const Stmt *Loop) {
  std::unique_ptr<ChangedVars> &CV = Changed[Loop];
  if (!CV)
    CV = std::make_unique<ChangedVars>(Ctx, Fn, Loop);
  return *CV;
}

std::string Scanner::judgeAddress(const Found &F) {
  const Expr *Element = F.A.Element;
  const AddressDeps &D = F.Deps;
  if (D.Loaded)
    return "its address depends on a value loaded from memory (a gather may "
           "read the same data again)";
  if (!D.Unfollowed.empty())
    return "its address depends on '" + D.Unfollowed +
           "', whose address is taken (its values are not followed)";
  if (!D.Block)
    return "its address does not depend on blockIdx: every block touches the "
           "same data, which should stay cached";
  if (!D.Thread)
    return "its address does not depend on threadIdx: every thread of the "
           "block touches it";
  // Every loop around it must carry a variable the address is computed
  // from (changed by the loop and kept across its iterations), else the
  // address repeats on each of its iterations and is touched again: a
  // loop's bound `e < indptr[row + 1]`, a row walked again by an outer
  // loop. A for loop's init runs once.
  const SourceManager &SM = RC.getSourceManager();
  for (const Stmt *L : F.Loops) {
    const auto *For = dyn_cast<ForStmt>(L);
    const Stmt *Init = For ? For->getInit() : nullptr;
    if (Init && SM.isPointWithin(Element->getBeginLoc(), Init->getBeginLoc(),
                                 Init->getEndLoc()))
      continue;
    const ChangedVars &CV = getChanged(L);
    bool Carried = any_of(D.Vars, [&](const VarDecl *V) {
      if (!CV.mayChange(V))
        return false;
      if (!CV.isDeclaredInside(V))
        return true;
      return Init && SM.isPointWithin(V->getLocation(), Init->getBeginLoc(),
                                      Init->getEndLoc());
    });
    if (!Carried)
      return "its address is the same on every iteration of " +
             LoopIds.lookup(L) + ": it is touched again";
  }
  return "";
}

/// A later read of the same parameter in another loop (not a rewrite's
/// fallback or tail, which touch other elements or run instead) may read
/// the same data: only the last pass over a row streams (a norm's first
/// pass stays cached for the second).
std::string Scanner::judgeReuse(const Found &F, const StringSet<> &SideLoops) {
  if (F.A.Store)
    return "";
  for (const Found &G : Accesses)
    if (G.U == Use::Load && G.A.Param == F.A.Param && G.A.Key != ~0u &&
        G.A.Key > F.A.Key && G.A.LoopId != F.A.LoopId &&
        !SideLoops.contains(G.A.LoopId))
      return "'" + F.A.Param + "' is read again later, at " +
             getLineCol(RC, G.A.Element->getBeginLoc()) +
             ": only its last read streams";
  return "";
}

std::vector<HintAccess>
Scanner::scan(const SmallPtrSet<const Type *, 32> &LoadTypes,
              const SmallPtrSet<const Type *, 32> &StoreTypes,
              const StringSet<> &SideLoops) {
  Visitor(*this).TraverseStmt(Fn->getBody());
  PrintingPolicy Policy(Ctx.getLangOpts());
  for (Found &F : Accesses) {
    CharSourceRange FR = getEditableRange(
        RC, (F.A.Store ? F.A.Assign : F.A.Element)->getSourceRange());
    F.A.Key =
        FR.isValid() ? RC.getSourceManager().getFileOffset(FR.getBegin()) : ~0u;
  }
  // Parameters read through gathers: their other reads may meet the same
  // rows (a node's own row is also its neighbours' neighbour).
  StringMap<std::string> Gathered;
  for (Found &F : Accesses) {
    for (const Stmt *C : F.A.Element->children())
      F.Deps.merge(depsOf(C));
    if (F.Deps.Loaded && !Gathered.count(F.A.Param))
      Gathered[F.A.Param] = getLineCol(RC, F.A.Element->getBeginLoc());
  }
  std::vector<HintAccess> Out;
  for (Found &F : Accesses) {
    HintAccess A = F.A;
    SourceRange R = (A.Store ? A.Assign : A.Element)->getSourceRange();
    unsigned U = Uses.lookup(A.Param);
    QualType T = A.Element->getType().getUnqualifiedType();
    const Type *CT = Ctx.getCanonicalType(T).getTypePtr();
    if (F.U == Use::Other)
      A.Why = "neither a plain read of the element nor an assignment to it "
              "on its own";
    else if (isInMacro(A))
      A.Why = "written in a macro's expansion or argument (its text may be "
              "stringified or shared)";
    else if (hasConditionalDirective(RC, R))
      A.Why = "a preprocessor conditional lies inside it";
    else if (A.Store && storeReorders(A))
      A.Why = "its element and value have side effects on each other: the "
              "intrinsic's arguments would be evaluated in another order";
    else if (overloadsAddressOf(T))
      A.Why = "its type has an overloaded unary operator&";
    else if (U != (1u << unsigned(F.U)))
      A.Why = "'" + A.Param + "' is " +
              (A.Store ? "also read" : "also written") +
              " or used otherwise in the kernel: its data is used again";
    else if (A.Element->getType().isVolatileQualified())
      A.Why = "a volatile access: the hint's intrinsic would drop volatile";
    else if (!(A.Store ? StoreTypes : LoadTypes).count(CT))
      A.Why = std::string("no ") + (A.Store ? "__stcs" : "__ldcs") +
              " overload for '" + T.getAsString(Policy) + "'";
    else if (A.Store && T->isRecordType() &&
             Ctx.getCanonicalType(
                 A.Value->IgnoreImplicit()->getType().getUnqualifiedType()) !=
                 Ctx.getCanonicalType(T))
      A.Why = "the assignment converts its value to '" + T.getAsString(Policy) +
              "'";
    else if (A.Key == ~0u)
      A.Why = getMacroReason(RC, R);
    else if ((A.Why = judgeAddress(F)).empty() && Gathered.count(A.Param))
      A.Why = "'" + A.Param + "' is also gathered (at " +
              Gathered.lookup(A.Param) + "): its data may be read again";
    else if (A.Why.empty())
      A.Why = judgeReuse(F, SideLoops);
    Out.push_back(std::move(A));
  }
  return Out;
}

std::vector<HintAccess>
scanHintAccesses(const RewriteContext &RC, const FunctionDecl *Fn,
                 const SmallPtrSet<const Type *, 32> &Loads,
                 const SmallPtrSet<const Type *, 32> &Stores,
                 const StringSet<> &SideLoops) {
  return Scanner(RC, Fn).scan(Loads, Stores, SideLoops);
}

} // namespace astra
