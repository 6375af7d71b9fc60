//===- Compare.h - Element-wise comparison of outputs -----------*- C++ -*-===//
//
// How the worker compares a candidate's outputs with the original's: bits,
// NaN, poison (unwritten, and left unwritten), integer and float tolerances,
// and the original's own run-to-run spread, and the refusal that a
// comparison's tally gives (CompareReport.cpp). Pure host code over
// downloaded buffers, parallel in chunks. Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_COMPARE_H
#define ASTRA_LIB_HARNESS_COMPARE_H

#include "astra/Harness/InputGen.h"
#include "astra/Harness/Spec.h"
#include "astra/Harness/Verdict.h"
#include "llvm/ADT/ArrayRef.h"
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace astra {
namespace worker {

/// Output poisons, one per run: 0xFF (NaN / -1) and 0x7F.
constexpr uint8_t Poison[2] = {0xFF, 0x7F};

/// The poison byte of each of the two candidate runs compared: Poison[0]
/// then Poison[1] in a correctness case; Poison[0] twice for a timed launch's
/// output (compared as both runs; every timed launch is poisoned with it).
using RunPoisons = std::array<uint8_t, 2>;
constexpr RunPoisons CaseRunPoisons = {Poison[0], Poison[1]};

/// What the comparison of one output found.
struct Tally {
  size_t Unwritten = 0, FirstUnwritten = SIZE_MAX;
  /// Elements the original leaves unwritten (its runs' poisons) that the
  /// candidate writes: not its run's poison in some run (the first such
  /// run of FirstExtra is ExtraRun). Counted once per element.
  size_t Extra = 0, FirstExtra = SIZE_MAX;
  unsigned ExtraRun = 0;
  size_t Nondet = 0, FirstNondet = SIZE_MAX;
  size_t NanBad = 0, FirstNan = SIZE_MAX;
  unsigned NanRun = 0; ///< the candidate run of FirstNan
  size_t Bad = 0, FirstBad = SIZE_MAX, WorstIdx = SIZE_MAX;
  unsigned WorstRun = 0;
  double Worst = -1;
  /// The atol used: the tolerance's, times outputScale() when an element
  /// failed the tolerance's own (0 when every element was bit-identical and
  /// nothing was compared).
  double Atol = 0;

  /// The first element that differs in any way; SIZE_MAX for none.
  size_t firstMismatch() const {
    return std::min({FirstUnwritten, FirstExtra, FirstNan, FirstBad});
  }
  size_t mismatches() const { return Unwritten + Extra + NanBad + Bad; }

  void merge(const Tally &O) {
    Unwritten += O.Unwritten;
    FirstUnwritten = std::min(FirstUnwritten, O.FirstUnwritten);
    Extra += O.Extra;
    if (O.FirstExtra < FirstExtra) {
      FirstExtra = O.FirstExtra;
      ExtraRun = O.ExtraRun;
    }
    Nondet += O.Nondet;
    FirstNondet = std::min(FirstNondet, O.FirstNondet);
    NanBad += O.NanBad;
    if (O.FirstNan < FirstNan) {
      FirstNan = O.FirstNan;
      NanRun = O.NanRun;
    }
    Bad += O.Bad;
    FirstBad = std::min(FirstBad, O.FirstBad);
    if (O.Worst > Worst) {
      Worst = O.Worst;
      WorstIdx = O.WorstIdx;
      WorstRun = O.WorstRun;
    }
  }
};

/// How the original's two runs differ on one output: not at all
/// (deterministic), and else by how much at most (absolute, finite values).
/// Elements that hold each run's poison (an `out` buffer's elements the
/// original leaves unwritten) are counted apart, not as a difference.
struct Spread {
  bool Differs = false;
  double MaxAbs = 0;
  size_t Unwritten = 0;
};

/// Compares the candidate's two runs (C0, C1) with the original's (O0, O1)
/// on the \p N elements (see compareRange in Compare.cpp). \p IsOut: an
/// `out` buffer, whose elements poisoned in both original runs are not
/// written by the original: the candidate's runs must hold their poisons
/// (\p CandPoison) there too (Tally::Extra), and are not compared otherwise.
/// A float \p Tol's atol is scaled by outputScale() (Tally::Atol).
Tally compareOutputs(llvm::ArrayRef<uint8_t> O0, llvm::ArrayRef<uint8_t> O1,
                     llvm::ArrayRef<uint8_t> C0, llvm::ArrayRef<uint8_t> C1,
                     DType T, size_t N, bool IsOut, Tolerance Tol, Spread S,
                     RunPoisons CandPoison = CaseRunPoisons);

/// A refusal that a comparison found: its reason and its evidence.
struct Mismatch {
  Reason Why = Reason::None;
  std::string Msg;
};

/// The refusal of the candidate that the tally \p All of output \p Name
/// (\p N elements of \p T, tolerance \p Tol) gives, checked in the order
/// of docs/harness.md ("Correctness"); std::nullopt when it passes. \p O0
/// is the original's run 0, \p C0 and \p C1 the candidate's runs (the
/// values the evidence names); \p OrigUnwritten the elements the original
/// leaves unwritten (Spread::Unwritten); a nondeterministic candidate fails
/// only when \p OrigDeterministic. \p Where ends the evidence (the case).
std::optional<Mismatch>
describeMismatch(const Tally &All, llvm::StringRef Name, DType T, size_t N,
                 Tolerance Tol, size_t OrigUnwritten, bool OrigDeterministic,
                 llvm::ArrayRef<uint8_t> O0, llvm::ArrayRef<uint8_t> C0,
                 llvm::ArrayRef<uint8_t> C1, llvm::StringRef Where);

/// max(1, RMS) of the finite elements the original writes (run 0) of a float
/// output; 1 for integers. A float output's atol is stated for unit-scale
/// values and is multiplied by this: the `large` inputs (x1e3) scale the
/// outputs, and the rounding errors of a cancellation with them.
double outputScale(llvm::ArrayRef<uint8_t> O0, llvm::ArrayRef<uint8_t> O1,
                   DType T, size_t N, bool IsOut);

/// How the original's two runs O0, O1 differ.
Spread originalSpread(llvm::ArrayRef<uint8_t> O0, llvm::ArrayRef<uint8_t> O1,
                      DType T, size_t N, bool IsOut);

/// Element \p I of \p B, printed ("%.9g" or the integer).
std::string fmtElem(llvm::ArrayRef<uint8_t> B, DType T, size_t I);

} // namespace worker
} // namespace astra

#endif // ASTRA_LIB_HARNESS_COMPARE_H
