//===- VectorizeLoadsPairsAccess.cpp - Vector accesses of the pairs form --===//
//
// Which accesses of a pairs-form body become lanes of vector accesses, the
// rules on stored buffers (one pointer,
// accessed only as packs whose distances are loop-invariant and checked to
// be non-zero) and the groups that feed the guard. See
// VectorizeLoadsPairs.cpp for why this is correct.
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsPairs.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {
/// Signed terms as one sum: {"+a", "-b"} -> "a - b".
std::string joinTerms(ArrayRef<std::string> Terms) {
  std::string S;
  for (const std::string &T : Terms) {
    bool Neg = T[0] == '-';
    std::string Body = T.substr(1);
    if (S.empty())
      S = Neg ? "-" + Body : Body;
    else
      S += (Neg ? " - " : " + ") + Body;
  }
  return S;
}

/// Whether \p E is used as a write target (`=`, `op=`, `++`, `--`); sets
/// \p Reads for the forms that also read it.
bool isWriteTarget(ASTContext &Ctx, const Expr *E, bool &Reads) {
  const Expr *Cur = E;
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(*Cur);
    if (Ps.empty())
      return false;
    const auto *P = Ps[0].get<Expr>();
    if (!P)
      return false;
    if (isa<ParenExpr>(P)) {
      Cur = P;
      continue;
    }
    BinaryOperatorKind Op;
    const Expr *L, *R;
    if (matchBinary(P, Op, L, R) && BinaryOperator::isAssignmentOp(Op) &&
        L->IgnoreParens() == E->IgnoreParens()) {
      Reads = Op != BO_Assign;
      return true;
    }
    UnaryOperatorKind UOp;
    const Expr *Sub;
    if (matchUnary(P, UOp, Sub) && UnaryOperator::isIncrementDecrementOp(UOp)) {
      Reads = true;
      return true;
    }
    return false;
  }
}

std::string stripBlanks(StringRef S) {
  std::string Out;
  for (char C : S)
    if (!isSpace(C))
      Out += C;
  return Out;
}
} // namespace

void PairsAnalyzer::checkThreadUses() {
  // The lanes of a pack run on one thread: the body may depend on the
  // thread coordinates that pick the element only through the index.
  struct Uses : RecursiveASTVisitor<Uses> {
    PairsAnalyzer &P;
    explicit Uses(PairsAnalyzer &P) : P(P) {}
    bool VisitExpr(Expr *E) {
      const auto *DR = dyn_cast<DeclRefExpr>(E);
      const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      bool Outside =
          VD && VD != P.IV && !P.Forms.count(VD) && !P.ParamArg.count(VD);
      char Dim = 0;
      bool Builtin =
          matchBuiltin(E, "threadIdx", Dim) || matchBuiltin(E, "blockIdx", Dim);
      if ((Outside || Builtin) && (P.Deps.get(E) & P.PartitionDeps))
        return P.refuse(E->getBeginLoc(),
                        "the body uses '" + P.text(E) +
                            "', which differs between the original's threads "
                            "and the pack's");
      return true;
    }
  } U(*this);
  for (const Stmt *S : Body)
    if (!CallOf.count(S))
      U.TraverseStmt(const_cast<Stmt *>(S));
  for (const InlinedCall &C : Calls)
    for (const Expr *A : C.Call->arguments())
      U.TraverseStmt(const_cast<Expr *>(A));
}

void PairsAnalyzer::flatten(const Expr *E, bool Neg,
                            SmallVectorImpl<std::pair<const Expr *, bool>> &Out,
                            unsigned Depth) {
  E = stripIntCasts(seeThrough(E));
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (Depth < 8 && matchBinary(E, Op, L, R) && (Op == BO_Add || Op == BO_Sub)) {
    flatten(L, Neg, Out, Depth + 1);
    flatten(R, Op == BO_Sub ? !Neg : Neg, Out, Depth + 1);
    return;
  }
  // A body variable that holds a sum: its terms.
  if (const VarDecl *VD = getIndexVar(E); Depth < 8 && VD && VD != IV &&
                                          Forms.count(VD) && VD->getInit() &&
                                          Forms.lookup(VD) != Lane::Var) {
    const Expr *Init = stripIntCasts(VD->getInit());
    if (matchBinary(Init, Op, L, R) && (Op == BO_Add || Op == BO_Sub)) {
      flatten(Init, Neg, Out, Depth + 1);
      return;
    }
  }
  Out.push_back({E, Neg});
}

bool PairsAnalyzer::resolvePointer(
    const Expr *E, SmallVectorImpl<std::pair<const Expr *, bool>> &Terms,
    const VarDecl *&Root, unsigned Depth) {
  if (Depth > 8)
    return false;
  E = seeThrough(E);
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD || !VD->getType()->isPointerType())
      return false;
    if (Forms.count(VD))
      return VD->getInit() &&
             resolvePointer(VD->getInit(), Terms, Root, Depth + 1);
    Root = VD;
    RootRef = DR;
    return true;
  }
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!matchBinary(E, Op, L, R) || (Op != BO_Add && Op != BO_Sub))
    return false;
  // In a template, `p + n` with p of type `T *` is type-dependent: the
  // pointer is then the operand that is not an integer.
  auto IsPtr = [](const Expr *X, const Expr *Other) {
    QualType T = X->IgnoreParenImpCasts()->getType();
    return T->isPointerType() || T->isArrayType() ||
           (X->isTypeDependent() && !Other->isTypeDependent() &&
            Other->getType()->isIntegerType());
  };
  if (IsPtr(L, R)) {
    flatten(R, Op == BO_Sub, Terms);
    return resolvePointer(L, Terms, Root, Depth + 1);
  }
  if (Op == BO_Add && IsPtr(R, L)) {
    flatten(L, false, Terms);
    return resolvePointer(R, Terms, Root, Depth + 1);
  }
  return false;
}

const VarDecl *PairsAnalyzer::originOf(const VarDecl *Root) {
  for (unsigned Depth = 0; Root && Depth < 8; ++Depth) {
    if (isa<ParmVarDecl>(Root) || !Root->getInit() ||
        KernelWrites.isModified(Root) || !Root->getType()->isPointerType())
      return Root;
    SmallVector<std::pair<const Expr *, bool>, 6> Ignored;
    const VarDecl *Next = nullptr;
    if (!resolvePointer(Root->getInit(), Ignored, Next) || !Next)
      return Root;
    Root = Next;
  }
  return Root;
}

bool PairsAnalyzer::isUnconditional(const Expr *E) const {
  const Stmt *Child = E;
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(*Child);
    if (Ps.empty())
      return true;
    const auto *P = Ps[0].get<Stmt>();
    if (!P || !isa<Expr>(P))
      return true;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P))
      if (Child != CO->getCond())
        return false;
    if (const auto *B = dyn_cast<BinaryOperator>(P))
      if (B->isLogicalOp() && Child == B->getRHS())
        return false;
    Child = P;
  }
}

bool PairsAnalyzer::describeAccess(const ArraySubscriptExpr *A, PairAccess &PA,
                                   std::string &Why) {
  SmallVector<std::pair<const Expr *, bool>, 6> Terms;
  if (!resolvePointer(A->getBase(), Terms, PA.Root)) {
    Why = "its pointer is not a pointer declared before the loop plus an "
          "offset";
    return false;
  }
  PA.Origin = originOf(PA.Root);
  // The guard checks the pointer's alignment: it must be the same for the
  // threads that share the loop.
  if (Deps.get(RootRef) & (PartitionDeps | DepUnknown)) {
    Why = "its pointer '" + PA.Root->getName().str() +
          "' may differ between the threads that share the loop, so the "
          "run-time check would not be uniform";
    return false;
  }
  if (formOf(A->getIdx()) == Lane::Var) {
    Why = "its index varies over the elements of a pack other than by one "
          "per element";
    return false;
  }
  flatten(A->getIdx(), false, Terms);
  unsigned AffTerms = 0;
  std::vector<std::string> Vary, Conds;
  for (auto [T, Neg] : Terms) {
    Lane F = formOf(T);
    if (F == Lane::Var) {
      Why = "the term '" + text(T) + "' varies over the elements of a pack";
      return false;
    }
    if (F == Lane::Inv && isGuardEvaluable(T)) {
      PA.BaseTerms.push_back((Neg ? "-" : "+") + kernelText(T));
      continue;
    }
    if (F == Lane::Aff && (Neg || AffTerms++)) {
      Why = "it is not unit-stride in '" + IV->getName().str() + "'";
      return false;
    }
    if (!isMultipleOfWidth(T, Conds)) {
      Why = "the term '" + text(T) +
            "' is neither known before the loop nor a multiple of the "
            "vector width at the start of a pack";
      return false;
    }
    Vary.push_back((Neg ? "-" : "+") + stripBlanks(kernelText(T)));
  }
  if (AffTerms != 1) {
    Why = "it does not move with '" + IV->getName().str() + "'";
    return false;
  }
  if (!isUnconditional(A)) {
    Why = "it is evaluated only on some paths";
    return false;
  }
  for (const std::string &C : Conds)
    requireDivisible(C);
  llvm::sort(Vary);
  PA.VaryKey = join(Vary, " ");
  PA.Addr = "&" + kernelText(A);
  PA.A = A;
  return true;
}

void PairsAnalyzer::findAccesses() {
  for (const ArraySubscriptExpr *A : Subscripts) {
    bool Reads = false;
    bool Write = isWriteTarget(Ctx, A, Reads);
    PairAccess PA;
    std::string Why;
    if (!A->getBase()->getType()->isPointerType() &&
        !A->getBase()->isTypeDependent()) {
      Scalars.push_back({A, nullptr, Write});
      continue;
    }
    if (!describeAccess(A, PA, Why)) {
      ScalarAccess SA{A, nullptr, Write};
      SmallVector<std::pair<const Expr *, bool>, 6> Ignored;
      const VarDecl *Root = nullptr;
      if (resolvePointer(A->getBase(), Ignored, Root))
        SA.Origin = originOf(Root);
      Scalars.push_back(SA);
      ScalarWhy[A] = Why;
      continue;
    }
    PA.Write = Write;
    PA.Read = !Write || Reads;
    AccessOf[A] = Accesses.size();
    Accesses.push_back(std::move(PA));
  }
}

void PairsAnalyzer::checkStoredBuffers() {
  struct Buffer {
    bool Stored = false;
    std::vector<unsigned> Packs;
    std::vector<const ScalarAccess *> Others;
    StringSet<> Texts;
  };
  MapVector<const VarDecl *, Buffer> Buffers;
  for (const PairAccess &PA : Accesses) {
    Buffer &B = Buffers[PA.Origin];
    B.Packs.push_back(&PA - Accesses.data());
    B.Stored |= PA.Write;
    B.Texts.insert(stripBlanks(text(PA.A)));
  }
  for (const ScalarAccess &SA : Scalars) {
    if (!SA.Origin) {
      if (SA.Write) {
        refuse(SA.A->getBeginLoc(), "the body writes '" + text(SA.A) +
                                        "' through a pointer whose buffer "
                                        "is not known");
        return;
      }
      continue;
    }
    Buffer &B = Buffers[SA.Origin];
    B.Others.push_back(&SA);
    B.Stored |= SA.Write;
    B.Texts.insert(stripBlanks(text(SA.A)));
  }
  for (auto &[Origin, B] : Buffers) {
    if (!B.Stored)
      continue;
    std::string Name = Origin->getName().str();
    Candidate |= B.Texts.size() > 1;
    if (!B.Others.empty()) {
      const ScalarAccess *SA = B.Others.front();
      refuse(SA->A->getBeginLoc(),
             "'" + Name + "' is stored, and its access '" + text(SA->A) +
                 "' cannot be a lane of a vector access: " +
                 ScalarWhy.lookup(SA->A));
      return;
    }
    const PairAccess &First = Accesses[B.Packs.front()];
    std::vector<std::vector<std::string>> Bases;
    for (unsigned I : B.Packs) {
      const PairAccess &PA = Accesses[I];
      if (PA.Root != First.Root) {
        refuse(PA.A->getBeginLoc(),
               "'" + Name + "' is stored through two pointers ('" +
                   First.Root->getName() + "' and '" + PA.Root->getName() +
                   "'); the form compares offsets of one pointer only");
        return;
      }
      if (PA.VaryKey != First.VaryKey) {
        refuse(PA.A->getBeginLoc(),
               "'" + Name + "' is accessed at '" + text(First.A) + "' and '" +
                   text(PA.A) +
                   "', whose distance is not loop-invariant, so their packs "
                   "may overlap");
        return;
      }
      std::vector<std::string> Base = PA.BaseTerms;
      llvm::sort(Base);
      if (!is_contained(Bases, Base))
        Bases.push_back(std::move(Base));
    }
    // Two packs of one iteration must not overlap: the guard makes their
    // distance a multiple of the width, and checks that it is not zero.
    for (size_t I = 0; I < Bases.size(); ++I)
      for (size_t J = I + 1; J < Bases.size(); ++J) {
        std::vector<std::string> Plus, Minus;
        std::vector<std::string> Rest = Bases[I];
        for (const std::string &T : Bases[J]) {
          auto It = find(Rest, T);
          if (It != Rest.end())
            Rest.erase(It);
          else
            Plus.push_back(T);
        }
        Minus = std::move(Rest);
        std::string D;
        if (Minus.empty())
          D = joinTerms(Plus);
        else if (Plus.empty())
          D = joinTerms(Minus);
        else
          D = "(" + joinTerms(Plus) + ") - (" + joinTerms(Minus) + ")";
        if (!is_contained(Plan.NonZero, D))
          Plan.NonZero.push_back(D);
      }
  }
  if (!Reason.empty())
    return;
  // A stored buffer's pointer used in any other way could reach its
  // elements unseen.
  struct Escapes : RecursiveASTVisitor<Escapes> {
    PairsAnalyzer &P;
    const MapVector<const VarDecl *, Buffer> &Buffers;
    Escapes(PairsAnalyzer &P, const MapVector<const VarDecl *, Buffer> &B)
        : P(P), Buffers(B) {}
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
      if (!VD ||
          !(VD->getType()->isPointerType() || VD->getType()->isArrayType()))
        return true;
      SmallVector<std::pair<const Expr *, bool>, 6> Ignored;
      const VarDecl *Root = nullptr;
      if (!P.resolvePointer(DR, Ignored, Root))
        return true;
      auto It = Buffers.find(P.originOf(Root));
      if (It == Buffers.end() || !It->second.Stored)
        return true;
      const Stmt *Child = DR;
      for (;;) {
        DynTypedNodeList Ps = P.Ctx.getParents(*Child);
        if (Ps.empty())
          break;
        if (const auto *VD2 = Ps[0].get<VarDecl>())
          return P.Forms.count(VD2) ||
                 P.refuse(DR->getBeginLoc(), "the stored pointer '" +
                                                 VD->getName() + "' is copied");
        const auto *Par = Ps[0].get<Stmt>();
        if (!Par)
          break;
        BinaryOperatorKind Op;
        const Expr *L, *R;
        if (isa<ParenExpr, ImplicitCastExpr>(Par) ||
            (isa<Expr>(Par) && matchBinary(cast<Expr>(Par), Op, L, R) &&
             (Op == BO_Add || Op == BO_Sub))) {
          Child = Par;
          continue;
        }
        if (const auto *A = dyn_cast<ArraySubscriptExpr>(Par);
            A && A->getBase() == Child && P.AccessOf.count(A))
          return true;
        if (const auto *C = dyn_cast<CallExpr>(Par);
            C && any_of(P.Calls,
                        [&](const InlinedCall &IC) { return IC.Call == C; }))
          return true;
        break;
      }
      return P.refuse(DR->getBeginLoc(), "the stored pointer '" +
                                             VD->getName() +
                                             "' is used other than as `" +
                                             VD->getName() + "[...]`");
    }
  } E(*this, Buffers);
  for (const Stmt *S : Body)
    E.TraverseStmt(const_cast<Stmt *>(S));
  for (const InlinedCall &C : Calls)
    E.TraverseStmt(C.Callee->getBody());
}

std::string PairsAnalyzer::buildGroups() {
  if (Accesses.empty())
    return "no access `p[e]` has an index that is unit-stride in '" +
           IV->getName().str() + "' and aligned at the start of a pack";
  std::vector<std::string> Keys;
  for (PairAccess &PA : Accesses) {
    std::vector<std::string> Sorted = PA.BaseTerms;
    llvm::sort(Sorted);
    std::string Key = PA.Root->getName().str() + "|" + join(Sorted, " ");
    auto It = find(Keys, Key);
    PA.Group = It - Keys.begin();
    if (It == Keys.end()) {
      Keys.push_back(Key);
      VecGroup G;
      G.Ptr = PA.Root->getNameAsString();
      G.Base = joinTerms(PA.BaseTerms);
      if (PA.BaseTerms.size() > 1)
        G.Base = "(" + G.Base + ")";
      if (std::string Why = describeElement(Ctx, PA.Root, Plan, G);
          !Why.empty())
        return Why;
      Plan.Groups.push_back(std::move(G));
      GroupAddr.push_back(PA.Addr);
    }
    VecGroup &G = Plan.Groups[PA.Group];
    G.Load |= PA.Read;
    G.Store |= PA.Write;
  }
  for (VecGroup &G : Plan.Groups) {
    const PairAccess &PA = *find_if(Accesses, [&](const PairAccess &A) {
      return &Plan.Groups[A.Group] == &G;
    });
    QualType PT = PA.Root->getType();
    G.UseLdg = !G.Store && isa<ParmVarDecl>(PA.Root) &&
               PT.isRestrictQualified() &&
               PT->getPointeeType().isConstQualified();
  }
  if (std::string Why = checkElementWidths(Plan); !Why.empty())
    return Why;
  // Local names: none may be one the inlined functions use.
  StringSet<> Used = chooseNames(Ctx, K, Plan);
  StringSet<> KernelIds = collectIdentifiers(Ctx, K);
  StringSet<> CalleeIds;
  for (const InlinedCall &C : Calls)
    for (const auto &Id : collectIdentifiers(Ctx, C.Callee))
      CalleeIds.insert(Id.getKey());
  for (const auto &Id : CalleeIds)
    Used.insert(Id.getKey());
  for (std::string *N : {&Plan.NameW, &Plan.NameLane})
    if (CalleeIds.count(*N))
      *N = pickName(Used, *N);
  for (VecGroup &G : Plan.Groups)
    if (CalleeIds.count(G.Var))
      G.Var = pickName(Used, G.Var);
  for (InlinedCall &C : Calls) {
    for (const ParmVarDecl *P : C.Callee->parameters()) {
      std::string N = P->getNameAsString();
      if (N.empty() || KernelIds.count(N) || N == Plan.NameW ||
          N == Plan.NameLane || N == Plan.NameIdx ||
          any_of(Plan.Groups, [&](const VecGroup &G) { return G.Var == N; }))
        N = pickName(Used, N.empty() ? "arg" : N);
      C.ParamNames.push_back(N);
    }
    if (!is_contained(Plan.Inlined, C.Callee->getNameAsString()))
      Plan.Inlined.push_back(C.Callee->getNameAsString());
  }
  return "";
}

} // namespace vectorize
} // namespace astra
