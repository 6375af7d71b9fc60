//===- VectorizeLoadsWidenApart.cpp - Offsets of one pointer kept apart ---===//
//
// A widened body may store one pointer at several offsets when they cannot
// touch the same element. The GraphSAGE concatenation
//
//   for (int f = threadIdx.x; f < F; f += blockDim.x) {
//     ...
//     out[(int64_t)i * 2 * F + f] = mean;
//     out[(int64_t)i * 2 * F + F + f] = x[(int64_t)i * F + f];
//   }
//
// stores `out` at b + f and b + F + f with b the same for every iteration and
// thread of the loop. Every index the loop visits (original or vector, tail
// included) lies in [0, n), n the loop's extent (F here; for a per-thread
// kernel the bound n of its check), so the two offsets cover [b, b + n) and
// [b + d, b + d + n) with d = F: disjoint exactly when |d| >= n. Each element
// of `out` is then reached through one offset only, which keeps its reads
// and writes in their original order, as for a pointer with one offset.
//
// Accepted: offsets that are sums of terms the guard can evaluate (no body
// variable, no load) and one copy of the index, differing in one term d. When
// d is the extent as written (`F` beside `f < F`, up to casts that keep the
// value) the ranges are disjoint by construction; for another d that is not
// a constant the guard checks `d >= n` (a negative d, or one below n, takes
// the original loop). Constant distances stay refused: they are below the
// extent of any but the shortest loops.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsWidenImpl.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

/// \p E without parentheses and integer casts that keep every value (to a
/// type at least as wide, of the same signedness or wider).
static const Expr *stripWideningCasts(ASTContext &Ctx, const Expr *E) {
  while (E) {
    E = E->IgnoreParens();
    const auto *C = dyn_cast<CastExpr>(E);
    if (!C)
      return E;
    const Expr *Sub = C->getSubExpr();
    QualType To = E->getType(), From = Sub->getType();
    bool Keeps = C->getCastKind() == CK_NoOp ||
                 C->getCastKind() == CK_LValueToRValue ||
                 (C->getCastKind() == CK_IntegralCast && To->isIntegerType() &&
                  From->isIntegerType() &&
                  (Ctx.getTypeSize(To) > Ctx.getTypeSize(From) ||
                   (Ctx.getTypeSize(To) == Ctx.getTypeSize(From) &&
                    To->isSignedIntegerType() == From->isSignedIntegerType())));
    if (!Keeps)
      return E;
    E = Sub;
  }
  return E;
}

bool isExactIndex(const Widener &W, const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    const auto *DR = dyn_cast<DeclRefExpr>(stripWideningCasts(W.Ctx, E));
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (VD && VD == W.IV)
      return true;
    // A body variable initialised once and never written or escaped.
    if (!VD || !W.RegionVars.count(VD) || W.VarWritesIn.count(VD) ||
        W.AddressTaken.count(VD))
      return false;
    E = VD->getInit();
  }
  return false;
}

/// \p S without blanks and without parentheses around the whole.
static std::string squash(StringRef S) {
  std::string T = S.str();
  erase_if(T, [](char C) { return isSpace(C); });
  while (T.size() > 2 && T.front() == '(' && T.back() == ')') {
    // Only when the outer parentheses match each other.
    int Depth = 0;
    bool Whole = true;
    for (size_t I = 0; I + 1 < T.size(); ++I) {
      Depth += T[I] == '(' ? 1 : T[I] == ')' ? -1 : 0;
      if (Depth == 0) {
        Whole = false;
        break;
      }
    }
    if (!Whole)
      break;
    T = T.substr(1, T.size() - 2);
  }
  return T;
}

std::string checkApart(Widener &W, const VarDecl *P) {
  // One use per offset of P.
  std::vector<const PackUse *> ByKey;
  for (const PackUse &U : W.Packs)
    if (getIndexVar(U.Access->getBase()) == P &&
        none_of(ByKey, [&](const PackUse *O) { return O->Key == U.Key; }))
      ByKey.push_back(&U);
  for (size_t I = 0; I < ByKey.size(); ++I)
    for (size_t J = I + 1; J < ByKey.size(); ++J) {
      const PackUse &A = *ByKey[I], &B = *ByKey[J];
      if (!A.InvariantPlusIndex || !B.InvariantPlusIndex)
        return "an offset is not terms known before the loop plus the index";
      // The terms of one offset that the other lacks (as a multiset).
      std::vector<std::pair<std::string, const Expr *>> OnlyA = A.InvTerms,
                                                        OnlyB;
      for (const auto &T : B.InvTerms) {
        auto It =
            find_if(OnlyA, [&](const auto &O) { return O.first == T.first; });
        if (It != OnlyA.end())
          OnlyA.erase(It);
        else
          OnlyB.push_back(T);
      }
      if (OnlyA.size() + OnlyB.size() != 1)
        return "the offsets '" + W.text(A.Access->getIdx()->getSourceRange()) +
               "' and '" + W.text(B.Access->getIdx()->getSourceRange()) +
               "' differ in more than one term";
      const Expr *D = OnlyA.empty() ? OnlyB[0].second : OnlyA[0].second;
      std::string DText = W.text(D->getSourceRange());
      Expr::EvalResult C;
      if (D->isValueDependent() || D->EvaluateAsInt(C, W.Ctx))
        return "the offsets are a compile-time constant '" + DText +
               "' apart, less than the extent of all but the shortest loops";
      std::string Name = P->getNameAsString();
      if (squash(W.text(stripWideningCasts(W.Ctx, D)->getSourceRange())) ==
          squash(W.Plan.End)) {
        std::string Note = "'" + Name + "' at offsets " + DText + " apart";
        if (!is_contained(W.Plan.ApartByExtent, Note))
          W.Plan.ApartByExtent.push_back(Note);
        continue;
      }
      std::string Cond = "(" + DText + ") >= (" + W.Plan.End + ")";
      if (!is_contained(W.Plan.ApartGuards, Cond))
        W.Plan.ApartGuards.push_back(Cond);
    }
  return "";
}

} // namespace vectorize
} // namespace astra
