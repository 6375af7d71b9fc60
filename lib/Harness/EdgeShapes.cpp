//===- EdgeShapes.cpp - Generated edge shapes inside a spec's domain ------===//
#include "astra/Harness/EdgeShapes.h"
#include "astra/Harness/Spec.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>

using namespace llvm;

namespace astra {

namespace {

uint64_t footprint(const ResolvedLaunch &L) {
  uint64_t B = 0;
  for (const ResolvedArg &A : L.Args)
    B += A.IsScalar ? 0 : A.Bytes;
  return B;
}

/// One element, vector widths +-1 (4-wide f32, 8-wide f16, 16-wide 8-bit
/// types), a prime.
const int64_t ClassicValues[] = {1, 3, 5, 7, 9, 15, 17, 97};

/// \p E on \p S, or \p Default when \p E is empty or does not evaluate.
int64_t evalOr(const SizeExpr &E, const Shape &S, int64_t Default) {
  if (E.empty())
    return Default;
  Expected<int64_t> V = E.eval(S);
  if (!V) {
    consumeError(V.takeError());
    return Default;
  }
  return *V;
}

/// The values to try for a variable with domain \p D (null: unconstrained),
/// bounds evaluated on \p Base: the classic values, then the domain's own
/// edges.
std::vector<int64_t> probeValues(const VarDomain *D, const Shape &Base) {
  std::vector<int64_t> Out(std::begin(ClassicValues), std::end(ClassicValues));
  if (!D)
    return Out;
  int64_t M = std::max<int64_t>(1, evalOr(D->MultipleOf, Base, 1));
  int64_t Lo = std::max<int64_t>(1, evalOr(D->Min, Base, 1));
  auto Add = [&](int64_t V) {
    if (V >= 1 && !is_contained(Out, V))
      Out.push_back(V);
  };
  if (D->PowerOfTwo) {
    int64_t P = 1;
    while (P < std::max(Lo, M) && P < (int64_t(1) << 40))
      P <<= 1;
    for (int K = 0; K < 8; ++K)
      Add(P << K);
  } else if (M > 1) {
    for (int64_t C : ClassicValues)
      if (C <= INT64_MAX / M)
        Add(C * M);
  }
  if (!D->PowerOfTwo && Lo > 1 && Lo <= INT64_MAX - 2 * M) {
    int64_t First = (Lo + M - 1) / M * M; // the smallest multiple >= Lo
    Add(First);
    Add(First + M);
  }
  if (!D->Max.empty())
    Add(evalOr(D->Max, Base, 0));
  return Out;
}

std::string violationsText(ArrayRef<DomainViolation> Vs) {
  std::string Out;
  for (const DomainViolation &V : Vs)
    Out += (Out.empty() ? "" : "; ") + V.Requirement;
  return Out;
}

class Generator {
public:
  Generator(const KernelSpec &K, EdgeShapeSet &Out) : K(K), Out(Out) {}

  void run() {
    const Shape *Base = smallestShape();
    if (!Base)
      return;
    Seen.assign(K.Shapes.begin(), K.Shapes.end());
    for (const auto &[Var, BaseValue] : Base->vars()) {
      const VarDomain *D = K.domainOf(Var);
      if (D && !D->Vary) {
        Out.Skipped.push_back({Var, "", "not varied (\"vary\": false)"});
        continue;
      }
      for (int64_t V : probeValues(D, *Base)) {
        Shape S = *Base;
        S.set(Var, V);
        tryShape(S, Var + "=" + std::to_string(V), *Base, Var);
      }
    }
  }

private:
  const KernelSpec &K;
  EdgeShapeSet &Out;
  std::vector<Shape> Seen;

  /// The spec shape with the fewest buffer bytes that resolves.
  const Shape *smallestShape() const {
    const Shape *Base = nullptr;
    uint64_t BaseBytes = UINT64_MAX;
    for (const Shape &S : K.Shapes) {
      Expected<ResolvedLaunch> L = resolve(K, S);
      if (!L) {
        consumeError(L.takeError());
        continue;
      }
      if (footprint(*L) < BaseBytes) {
        BaseBytes = footprint(*L);
        Base = &S;
      }
    }
    return Base;
  }

  void skip(StringRef Probe, const Shape &S, const Twine &Why) {
    Out.Skipped.push_back({Probe.str(), S.str(), Why.str()});
  }

  /// Shrinks the varied variables other than \p Var that are above 128 to
  /// 128 (rounded up to their multiple_of), one at a time, each only where
  /// the shape stays in the domain.
  void shrinkOthers(Shape &S, const Shape &Base, StringRef Var) {
    for (const auto &[Other, OV] : Base.vars()) {
      const VarDomain *D = K.domainOf(Other);
      if (Other == Var || OV <= 128 || (D && !D->Vary))
        continue;
      int64_t Target = 128;
      if (D) {
        int64_t M = std::max<int64_t>(1, evalOr(D->MultipleOf, S, 1));
        Target = (Target + M - 1) / M * M;
      }
      if (Target >= OV)
        continue;
      Shape Smaller = S;
      Smaller.set(Other, Target);
      if (K.domainViolations(Smaller).empty())
        S = std::move(Smaller);
    }
  }

  void tryShape(Shape S, StringRef Probe, const Shape &Base, StringRef Var) {
    if (is_contained(Seen, S))
      return;
    std::vector<DomainViolation> Vs = K.domainViolations(S);
    if (!Vs.empty())
      return skip(Probe, S, violationsText(Vs));
    Expected<ResolvedLaunch> L = resolve(K, S);
    if (!L) {
      std::string Msg = toString(L.takeError());
      return skip(Probe, S,
                  "not a valid launch: " + StringRef(Msg).split('\n').first);
    }
    if (footprint(*L) > MaxEdgeShapeBytes) {
      uint64_t Big = footprint(*L);
      shrinkOthers(S, Base, Var);
      if (is_contained(Seen, S))
        return;
      L = resolve(K, S);
      if (!L) {
        consumeError(L.takeError());
        return skip(Probe, S,
                    "larger than 64 MiB, and not a valid launch "
                    "with the other variables shrunk");
      }
      if (footprint(*L) > MaxEdgeShapeBytes)
        return skip(Probe, S,
                    "larger than 64 MiB (" + Twine(Big >> 20) + " MiB; " +
                        Twine(footprint(*L) >> 20) +
                        " MiB with the other variables shrunk)");
    }
    Seen.push_back(S);
    Out.Shapes.push_back(std::move(S));
  }
};

} // namespace

EdgeShapeSet deriveEdgeShapes(const KernelSpec &K) {
  EdgeShapeSet Out;
  Generator(K, Out).run();
  return Out;
}

std::vector<std::string> EdgeShapeSet::notes() const {
  std::vector<std::string> Notes;
  std::string Fixed;
  // Reasons in order of first appearance, each with its probes.
  std::vector<std::pair<std::string, std::string>> ByReason;
  for (const SkippedEdgeShape &S : Skipped) {
    if (S.Shape.empty()) {
      Fixed += (Fixed.empty() ? "" : ", ") + S.Probe;
      continue;
    }
    auto It =
        find_if(ByReason, [&](const auto &P) { return P.first == S.Reason; });
    if (It == ByReason.end()) {
      ByReason.push_back({S.Reason, S.Probe});
      continue;
    }
    It->second += ", " + S.Probe;
  }
  if (!Fixed.empty())
    Notes.push_back("edge shapes keep " + Fixed +
                    " fixed (\"vary\": false in the spec)");
  for (const auto &[Reason, Probes] : ByReason)
    Notes.push_back("edge shapes skipped (" + Reason + "): " + Probes);
  return Notes;
}

} // namespace astra
