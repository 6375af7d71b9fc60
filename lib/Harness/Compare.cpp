//===- Compare.cpp - Element-wise comparison of outputs -------------------===//
#include "Compare.h"
#include "WorkerPhases.h"
#include "llvm/Support/Parallel.h"
#include <cmath>
#include <cstring>
#include <vector>

using namespace llvm;

namespace astra {
namespace worker {

static bool elemIsNan(ArrayRef<uint8_t> B, DType T, size_t I) {
  return isFloatDType(T) && std::isnan(loadElement(B, T, I));
}

static bool sameBits(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, unsigned Size,
                     size_t I) {
  return std::memcmp(X.data() + I * Size, Y.data() + I * Size, Size) == 0;
}

/// Equal bits, or both NaN (NaN payloads may differ).
static bool sameValue(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, DType T,
                      size_t I) {
  return sameBits(X, Y, dtypeSize(T), I) ||
         (elemIsNan(X, T, I) && elemIsNan(Y, T, I));
}

static bool isPoison(ArrayRef<uint8_t> B, unsigned Size, size_t I, uint8_t P) {
  for (unsigned J = 0; J < Size; ++J)
    if (B[I * Size + J] != P)
      return false;
  return true;
}

/// |X[I] - Y[I]| for an integer dtype.
static double intDistance(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, DType T,
                          size_t I) {
  int64_t A = loadInteger(X, T, I), B = loadInteger(Y, T, I);
  if (T == DType::U64)
    return double(uint64_t(A) > uint64_t(B) ? uint64_t(A) - uint64_t(B)
                                            : uint64_t(B) - uint64_t(A));
  int64_t D;
  if (__builtin_sub_overflow(A, B, &D))
    return HUGE_VAL;
  return std::fabs(double(D)); // exact while it matters (|D| < 2^53)
}

std::string fmtElem(ArrayRef<uint8_t> B, DType T, size_t I) {
  if (isFloatDType(T)) {
    char Buf[64];
    snprintf(Buf, sizeof(Buf), "%.9g", loadElement(B, T, I));
    return Buf;
  }
  return std::to_string(loadInteger(B, T, I));
}

/// Whether bytes [Begin, End) elements of \p X and \p Y are identical.
static bool sameRange(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, unsigned Size,
                      size_t Begin, size_t End) {
  return std::memcmp(X.data() + Begin * Size, Y.data() + Begin * Size,
                     (End - Begin) * Size) == 0;
}

/// Compares the candidate's two runs (C0, C1) with the original's (O0, O1)
/// on the elements the original writes; on those it leaves unwritten, the
/// candidate's runs must hold their poisons (CP) too. Where the original is
/// not deterministic (S.Differs), a candidate value passes when it matches
/// either original run within the tolerance widened by twice the original's
/// own largest spread.
static Tally compareRange(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1,
                          ArrayRef<uint8_t> C0, ArrayRef<uint8_t> C1, DType T,
                          size_t Begin, size_t End, bool IsOut, Tolerance Tol,
                          Spread S, RunPoisons CP) {
  Tally R;
  unsigned Size = dtypeSize(T);
  bool IsFloat = isFloatDType(T);
  double Slack = S.Differs ? 2 * S.MaxAbs : 0;
  auto Written = [&](ArrayRef<uint8_t> R0, ArrayRef<uint8_t> R1, size_t E,
                     RunPoisons P) {
    return !IsOut ||
           !(isPoison(R0, Size, E, P[0]) && isPoison(R1, Size, E, P[1]));
  };
  for (size_t E = Begin; E < End; ++E) {
    if (!Written(O0, O1, E, CaseRunPoisons)) {
      // Left unwritten by the original: each candidate run must have left
      // its poison in place as well (an `out` buffer; the poisons are known,
      // so this is exact).
      bool Kept0 = isPoison(C0, Size, E, CP[0]);
      if ((!Kept0 || !isPoison(C1, Size, E, CP[1])) && !R.Extra++) {
        R.FirstExtra = E;
        R.ExtraRun = Kept0 ? 1 : 0;
      }
      continue;
    }
    // With one poison for both candidate "runs" (the timed launches' copies)
    // a value equal to it may be a written one (an int8 -1 under 0xFF): judge
    // such an element by its value against the reference instead.
    if (CP[0] != CP[1] && !Written(C0, C1, E, CP)) {
      if (!R.Unwritten++)
        R.FirstUnwritten = E;
      continue;
    }
    if (!sameValue(C0, C1, T, E) && !R.Nondet++)
      R.FirstNondet = E;
    for (unsigned Run = 0; Run < 2; ++Run) {
      ArrayRef<uint8_t> C = Run ? C1 : C0;
      if (sameBits(C, O0, Size, E) || (S.Differs && sameBits(C, O1, Size, E)))
        continue;
      if (!IsFloat) {
        // An integer output's own atol (docs/spec.md, "Tolerance").
        if (Tol.Atol > 0 &&
            (intDistance(C, O0, T, E) <= Tol.Atol ||
             (S.Differs && intDistance(C, O1, T, E) <= Tol.Atol)))
          continue;
        ++R.Bad;
        R.FirstBad = std::min(R.FirstBad, E);
        if (R.Worst < 1) {
          R.Worst = 1;
          R.WorstIdx = E;
          R.WorstRun = Run;
        }
        continue;
      }
      double Cv = loadElement(C, T, E), Ov = loadElement(O0, T, E);
      double Ov1 = S.Differs ? loadElement(O1, T, E) : Ov;
      bool CNan = std::isnan(Cv);
      if (CNan != std::isnan(Ov) && CNan != std::isnan(Ov1)) {
        if (!R.NanBad++ || E < R.FirstNan) {
          R.FirstNan = E;
          R.NanRun = Run;
        }
        continue;
      }
      if (CNan)
        continue;
      auto Within = [&](double O) {
        if (std::isnan(O))
          return false;
        if (std::isinf(O) || std::isinf(Cv))
          return O == Cv;
        return std::fabs(Cv - O) <= Tol.Atol + Tol.Rtol * std::fabs(O) + Slack;
      };
      if (Within(Ov) || (S.Differs && Within(Ov1)))
        continue;
      ++R.Bad;
      R.FirstBad = std::min(R.FirstBad, E);
      double Rel = std::fabs(Cv - Ov) / std::max(std::fabs(Ov), 1e-30);
      if (std::isnan(Rel) || std::isinf(Rel))
        Rel = 1e300;
      if (Rel > R.Worst) {
        R.Worst = Rel;
        R.WorstIdx = E;
        R.WorstRun = Run;
      }
    }
  }
  return R;
}

template <typename Fn> static void forChunks(size_t N, Fn F) {
  const size_t Chunk = 1 << 16;
  parallelFor(0, (N + Chunk - 1) / Chunk,
              [&](size_t C) { F(C, C * Chunk, std::min(N, (C + 1) * Chunk)); });
}

Spread originalSpread(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1, DType T,
                      size_t N, bool IsOut) {
  worker::ScopedPhase P(worker::Phase::Compare);
  if (O0.data() == O1.data())
    return Spread(); // one stored run (RefStore.h): no spread
  unsigned Size = dtypeSize(T);
  std::vector<Spread> Parts((N + (1 << 16) - 1) >> 16);
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    Spread &P = Parts[C];
    if (sameRange(O0, O1, Size, B, E))
      return; // identical runs: no spread here
    for (size_t I = B; I < E; ++I) {
      if (IsOut && isPoison(O0, Size, I, Poison[0]) &&
          isPoison(O1, Size, I, Poison[1])) {
        ++P.Unwritten;
        continue;
      }
      if (sameValue(O0, O1, T, I))
        continue;
      P.Differs = true;
      if (isFloatDType(T)) {
        double D = std::fabs(loadElement(O0, T, I) - loadElement(O1, T, I));
        if (std::isfinite(D))
          P.MaxAbs = std::max(P.MaxAbs, D);
      }
    }
  });
  Spread All;
  for (const Spread &P : Parts) {
    All.Differs |= P.Differs;
    All.MaxAbs = std::max(All.MaxAbs, P.MaxAbs);
    All.Unwritten += P.Unwritten;
  }
  return All;
}

double outputScale(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1, DType T,
                   size_t N, bool IsOut) {
  if (!isFloatDType(T) || !N)
    return 1;
  unsigned Size = dtypeSize(T);
  struct Part {
    double SumSq = 0;
    size_t Count = 0;
  };
  std::vector<Part> Parts((N + (1 << 16) - 1) >> 16);
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    Part &P = Parts[C];
    for (size_t I = B; I < E; ++I) {
      if (IsOut && isPoison(O0, Size, I, Poison[0]) &&
          isPoison(O1, Size, I, Poison[1]))
        continue;
      double V = loadElement(O0, T, I);
      if (!std::isfinite(V))
        continue;
      P.SumSq += V * V;
      ++P.Count;
    }
  });
  double SumSq = 0;
  size_t Count = 0;
  for (const Part &P : Parts) {
    SumSq += P.SumSq;
    Count += P.Count;
  }
  return Count ? std::max(1.0, std::sqrt(SumSq / double(Count))) : 1.0;
}

Tally compareOutputs(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1,
                     ArrayRef<uint8_t> C0, ArrayRef<uint8_t> C1, DType T,
                     size_t N, bool IsOut, Tolerance Tol, Spread S,
                     RunPoisons CandPoison) {
  worker::ScopedPhase P(worker::Phase::Compare);
  std::vector<Tally> Parts((N + (1 << 16) - 1) >> 16);
  // Bit-identical everywhere (most rewrites): nothing to tally, and no
  // scale to compute. (Where the original's runs are identical, it leaves
  // no element unwritten: its runs' poisons differ.)
  std::vector<char> Same(Parts.size());
  unsigned Size = dtypeSize(T);
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    Same[C] = sameRange(O0, O1, Size, B, E) && sameRange(C0, O0, Size, B, E) &&
              sameRange(C1, O1, Size, B, E);
  });
  Tally All;
  if (llvm::all_of(Same, [](char X) { return X; }))
    return All;
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    if (!Same[C])
      Parts[C] =
          compareRange(O0, O1, C0, C1, T, B, E, IsOut, Tol, S, CandPoison);
  });
  // atol is stated for unit-scale outputs: it grows with the output's RMS.
  // A wider atol only passes more elements, so the scale (a pass over the
  // output) is computed only when some element fails the spec's atol, and
  // only those chunks are compared again.
  if (isFloatDType(T) && any_of(Parts, [](const Tally &P) { return P.Bad; })) {
    double Scale = outputScale(O0, O1, T, N, IsOut);
    if (Scale > 1) {
      Tol.Atol *= Scale;
      forChunks(N, [&](size_t C, size_t B, size_t E) {
        if (Parts[C].Bad)
          Parts[C] =
              compareRange(O0, O1, C0, C1, T, B, E, IsOut, Tol, S, CandPoison);
      });
    }
  }
  All.Atol = Tol.Atol;
  for (const Tally &P : Parts)
    All.merge(P);
  return All;
}

} // namespace worker
} // namespace astra
