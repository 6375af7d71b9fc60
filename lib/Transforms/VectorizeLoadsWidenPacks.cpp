//===- VectorizeLoadsWidenPacks.cpp - Vector accesses of a widened body ---===//
//
// Which accesses `p[e]` of a widened body become lanes of one vector access
// (e Aff, unconditional in its per-lane statement, aligned at lane 0), the
// rules that keep every stored pointer's elements in their original order,
// the guard, and the driver of the whole analysis.
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsWiden.h"
#include "VectorizeLoadsWidenImpl.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

static void flattenTerms(const Expr *E, bool Neg,
                         SmallVectorImpl<std::pair<const Expr *, bool>> &Out) {
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (matchBinary(stripIntCasts(E), Op, L, R) &&
      (Op == BO_Add || Op == BO_Sub)) {
    flattenTerms(L, Neg, Out);
    flattenTerms(R, Op == BO_Sub ? !Neg : Neg, Out);
    return;
  }
  Out.push_back({E, Neg});
}

/// The statement of \p Units that holds \p S, or null.
static const Stmt *findUnit(const Widener &W, const Stmt *S) {
  for (; S; S = W.parent(S))
    if (W.Units.count(S))
      return S;
  return nullptr;
}

void Widener::findPacks() {
  for (const ArraySubscriptExpr *A : Subscripts) {
    const VarDecl *P = getIndexVar(A->getBase());
    if (!P || RegionVars.count(P) || !P->getType()->isPointerType() ||
        formOf(A->getIdx()) != Lane::Aff)
      continue;
    const Stmt *Unit = findUnit(*this, A);
    if (!Unit || !runsEveryTime(Ctx, A, Unit))
      continue;
    // The index must be computable before the lanes run.
    SmallPtrSet<const VarDecl *, 8> Vars;
    collectVars(A->getIdx(), Vars);
    SourceRange UR = Unit->getSourceRange();
    if (any_of(Vars, [&](const VarDecl *VD) {
          SourceLocation L = VD->getLocation();
          return RegionVars.count(VD) &&
                 !SM.isBeforeInTranslationUnit(L, UR.getBegin()) &&
                 !SM.isBeforeInTranslationUnit(UR.getEnd(), L);
        }))
      continue;
    PackUse U;
    U.Access = A;
    U.Replace = A;
    U.Unit = Unit;
    const Stmt *Par = parent(A);
    while (Par && isa<ParenExpr>(Par))
      Par = parent(Par);
    if (WriteKind WK = writeOf(Par, A); WK != WriteKind::None) {
      U.Write = true;
      U.Read = WK == WriteKind::Update;
    } else if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Par)) {
      if (UO->getOpcode() == UO_AddrOf) {
        const Stmt *G = parent(UO);
        while (G && isa<ImplicitCastExpr, ParenExpr>(G))
          G = parent(G);
        const auto *C = dyn_cast_or_null<CallExpr>(G);
        std::string Callee = C ? getCalleeName(C) : "";
        if (C && Callee == "__ldg" && C->getNumArgs() == 1) {
          U.Replace = C;
          U.Read = true;
        } else if (C && Callee == "atomicAdd" && C->getNumArgs() == 2 &&
                   C == Unit && // the whole statement; its value unused
                   P->getType()->getPointeeType()->isSpecificBuiltinType(
                       BuiltinType::Float)) {
          U.Atomic = C;
          U.Write = true;
        } else {
          continue; // an address per lane
        }
      }
    } else if (isa_and_nonnull<MemberExpr>(Par)) {
      continue;
    } else {
      U.Read = true;
    }
    // At lane 0, the index is a multiple of W plus terms the guard knows.
    SmallVector<std::pair<const Expr *, bool>, 4> Terms;
    flattenTerms(A->getIdx(), false, Terms);
    std::string Base;
    std::vector<std::string> Conds;
    bool Aligned = true;
    for (auto [T, Neg] : Terms) {
      if (isGuardEvaluable(T)) {
        std::string TT = text(T->getSourceRange());
        Base +=
            Base.empty() ? (Neg ? "-" + TT : TT) : (Neg ? " - " : " + ") + TT;
        continue;
      }
      if (!isMultipleOfWidth(T, Conds)) {
        Aligned = false;
        break;
      }
    }
    if (!Aligned)
      continue;
    if (Terms.size() > 1 && !Base.empty())
      Base = "(" + Base + ")";
    unsigned IndexTerms = 0;
    for (auto [T, Neg] : Terms) {
      if (isGuardEvaluable(T)) {
        std::string TT = text(T->getSourceRange());
        erase_if(TT, [](char C) { return isSpace(C); });
        U.InvTerms.push_back({(Neg ? "-" : "+") + TT, T});
      } else {
        IndexTerms += !Neg && isExactIndex(*this, T) ? 1 : 2;
      }
    }
    U.InvariantPlusIndex = IndexTerms == 1;
    for (const std::string &C : Conds)
      if (!is_contained(Plan.DivisibleBy, C))
        Plan.DivisibleBy.push_back(C);
    U.Key =
        P->getName().str() + "[" + text(A->getIdx()->getSourceRange()) + "]";
    erase_if(U.Key, [](char C) { return isSpace(C); });
    // The group: one per pointer and index.
    unsigned G = 0;
    while (G < Plan.Groups.size() && Plan.Groups[G].Var != U.Key)
      ++G;
    if (G == Plan.Groups.size()) {
      VecGroup NG;
      NG.Ptr = P->getNameAsString();
      NG.Base = Base;
      NG.Var = U.Key; // replaced by a local name once all are known
      QualType PT = P->getType();
      NG.UseLdg = isa<ParmVarDecl>(P) && PT.isRestrictQualified() &&
                  PT->getPointeeType().isConstQualified();
      if (std::string Why = describeElement(Ctx, P, Plan, NG); !Why.empty()) {
        refuse(A->getBeginLoc(), Why);
        return;
      }
      Plan.Groups.push_back(std::move(NG));
    }
    U.Group = G;
    Plan.Groups[G].Load |= U.Read;
    Plan.Groups[G].Store |= U.Write;
    if (U.Replace != A)
      Plan.Groups[G].UseLdg = true;
    PackOf[U.Replace] = Packs.size();
    if (U.Atomic) {
      AtomicOf[U.Atomic] = Packs.size();
      Plan.VectorAtomics = true;
    }
    Packs.push_back(std::move(U));
  }
}

void Widener::checkPointers() {
  struct Uses {
    bool Scalar = false, ScalarWrite = false, Atomic = false, PackWrite = false,
         PackPlain = false, Other = false;
    StringSet<> Keys;
    const Expr *First = nullptr;
  };
  MapVector<const VarDecl *, Uses> ByPtr;
  SmallPtrSet<const DeclRefExpr *, 16> AsBase;
  for (const ArraySubscriptExpr *A : Subscripts) {
    const VarDecl *P = getIndexVar(A->getBase());
    if (!P || RegionVars.count(P) || !P->getType()->isPointerType()) {
      const Stmt *Par = parent(A);
      while (Par && isa<ParenExpr>(Par))
        Par = parent(Par);
      const auto *UO = dyn_cast_or_null<UnaryOperator>(Par);
      if (writeOf(Par, A) != WriteKind::None ||
          (UO && UO->getOpcode() == UO_AddrOf)) {
        refuse(A->getBeginLoc(),
               "the body writes '" + text(A->getSourceRange()) +
                   "'; only stores through pointer variables declared "
                   "outside the body can be reordered over the lanes");
        return;
      }
      continue;
    }
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts()))
      AsBase.insert(DR);
    Uses &U = ByPtr[P];
    if (!U.First)
      U.First = A;
    auto It = find_if(Packs, [&](const PackUse &PU) { return PU.Access == A; });
    const Stmt *Par = parent(A);
    while (Par && isa<ParenExpr>(Par))
      Par = parent(Par);
    const auto *UO = dyn_cast_or_null<UnaryOperator>(Par);
    bool Writes = writeOf(Par, A) != WriteKind::None;
    if (It != Packs.end()) {
      U.Keys.insert(It->Key);
      U.Atomic |= It->Atomic != nullptr;
      U.PackWrite |= It->Write && !It->Atomic;
      U.PackPlain |= !It->Atomic;
      continue;
    }
    bool AtomicAddr = false;
    if (UO && UO->getOpcode() == UO_AddrOf) {
      const Stmt *G = parent(UO);
      while (G && isa<ImplicitCastExpr, ParenExpr>(G))
        G = parent(G);
      const auto *C = dyn_cast_or_null<CallExpr>(G);
      AtomicAddr = C && StringRef(getCalleeName(C)).starts_with("atomic");
      Writes |= !AtomicAddr && !(C && getCalleeName(C) == "__ldg");
    }
    if (AtomicAddr) {
      U.Atomic = true;
      continue;
    }
    U.Scalar = true;
    U.ScalarWrite |= Writes;
    if (Writes && formOf(A->getIdx()) == Lane::Inv) {
      refuse(A->getBeginLoc(), "the store to '" + text(A->getSourceRange()) +
                                   "' is the same element for every element "
                                   "of a pack");
      return;
    }
  }
  // Any other use of a stored pointer could reach its elements unseen.
  struct RefFinder : RecursiveASTVisitor<RefFinder> {
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      Refs.push_back(DR);
      return true;
    }
  } RF;
  for (const Stmt *S : Region)
    RF.TraverseStmt(const_cast<Stmt *>(S));
  for (const DeclRefExpr *DR : RF.Refs)
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      if (ByPtr.count(VD) && !AsBase.count(DR))
        ByPtr[VD].Other = true;
  for (auto &[P, U] : ByPtr) {
    bool Stored = U.ScalarWrite || U.PackWrite || U.Atomic;
    if (!Stored)
      continue;
    std::string Name = P->getName().str();
    std::string Why; // why offsets of a stored pointer may overlap
    if (U.Other)
      refuse(U.First->getBeginLoc(), "'" + Name +
                                         "' is stored and also used other "
                                         "than as `" +
                                         Name + "[...]`");
    else if (U.Atomic && (U.Scalar || U.PackPlain))
      refuse(U.First->getBeginLoc(), "'" + Name +
                                         "' is updated by atomics "
                                         "and also read or written directly");
    else if (U.PackWrite && U.Scalar)
      refuse(U.First->getBeginLoc(),
             "'" + Name +
                 "' is stored as a vector and also accessed at "
                 "another offset or per element; vector order "
                 "could change what is read");
    else if (U.PackWrite && U.Keys.size() > 1 &&
             !(Why = checkApart(*this, P)).empty())
      refuse(U.First->getBeginLoc(),
             "'" + Name +
                 "' is stored as a vector and also accessed at "
                 "another offset or per element; vector order "
                 "could change what is read (" +
                 Why + ")");
    else if (U.ScalarWrite && !U.Keys.empty())
        refuse(U.First->getBeginLoc(),
               "'" + Name +
                   "' is stored per element (a conditional store or "
                   "an index that is not unit-stride) and also "
                   "accessed as a vector");
    if (!Reason.empty())
      return;
  }
}

std::string Widener::buildGroups(SourceLocation &Where) {
  if (Packs.empty())
    return "no access `p[e]` has an index e that is unit-stride in '" +
           IV->getName().str() +
           "' and aligned at the start of a pack (e.g. `base + " +
           IV->getName().str() + "`, `" + IV->getName().str() +
           " % d` with d a multiple of the width)";
  if (std::string Why = checkElementWidths(Plan); !Why.empty())
    return Why;
  // Local names: one union variable per group, one value array per atomic.
  StringSet<> Used = chooseNames(Ctx, K, Plan);
  for (PackUse &U : Packs)
    if (U.Atomic)
      AtomicVarOf[&U - Packs.data()] =
          pickName(Used, Plan.Groups[U.Group].Ptr + "Add");
  Plan.RegroupsFloatReduction = Plan.VectorAtomics;
  Where = Packs.front().Access->getBeginLoc();
  return "";
}

std::string Widener::run(SourceLocation &Where) {
  scan();
  if (Reason.empty())
    computeForms();
  if (Reason.empty())
    classify(Region);
  if (Reason.empty())
    findPacks();
  if (Reason.empty())
    checkPointers();
  if (!Reason.empty()) {
    Where = ReasonLoc;
    return Reason;
  }
  if (std::string Why = buildGroups(Where); !Why.empty())
    return Why;
  if (std::string Why = prepareUnits(Where); !Why.empty())
    return Why;
  Plan.WidenedBody = emit();
  return "";
}

} // namespace vectorize
} // namespace astra
