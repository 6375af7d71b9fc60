//===- CompareReport.cpp - The refusal a comparison gives -----------------===//
//
// From the tally of one output's comparison (Compare.cpp) to the refusal and
// its evidence: the checks of docs/harness.md ("Correctness") in the order a
// refusal names them, each naming the output, the count and the first or
// worst element with its values.
//
//===----------------------------------------------------------------------===//
#include "Compare.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {
namespace worker {

/// The tolerance that \p All was checked with, in words.
static std::string toleranceText(const Tally &All, DType T, Tolerance Tol) {
  if (!isFloatDType(T))
    return Tol.Atol > 0 ? formatv("atol {0}", int64_t(Tol.Atol)).str()
                        : std::string("bit-equality");
  std::string S = formatv("rtol {0:e1}, atol {1:e1}", Tol.Rtol, All.Atol);
  if (All.Atol > Tol.Atol)
    S += formatv(" (the spec's {0:e1} x the output's RMS)", Tol.Atol).str();
  return S;
}

std::optional<Mismatch>
describeMismatch(const Tally &All, StringRef Name, DType T, size_t N,
                 Tolerance Tol, size_t OrigUnwritten, bool OrigDeterministic,
                 ArrayRef<uint8_t> O0, ArrayRef<uint8_t> C0,
                 ArrayRef<uint8_t> C1, StringRef Where) {
  auto Refuse = [](Reason Why, const Twine &Msg) {
    return Mismatch{Why, Msg.str()};
  };
  if (All.Unwritten)
    return Refuse(Reason::UnwrittenOutput,
                  Twine(All.Unwritten) + " of " + Twine(N) + " elements of '" +
                      Name +
                      "' that the original writes are left unwritten (first "
                      "at index " +
                      Twine(All.FirstUnwritten) + ") " + Where);
  if (All.Extra) {
    size_t E = All.FirstExtra;
    return Refuse(Reason::WritesUnwritten,
                  Twine(All.Extra) + " of the " + Twine(OrigUnwritten) +
                      " elements of '" + Name +
                      "' that the original leaves unwritten are written "
                      "(first at index " +
                      Twine(E) + ": " + fmtElem(All.ExtraRun ? C1 : C0, T, E) +
                      " in the candidate's run " + Twine(All.ExtraRun) +
                      ", where the original keeps the poison) " + Where);
  }
  if (All.Nondet && OrigDeterministic)
    return Refuse(Reason::Nondeterministic,
                  "two runs on the same inputs differ in " + Twine(All.Nondet) +
                      " elements of '" + Name + "' (first at index " +
                      Twine(All.FirstNondet) + ": " +
                      fmtElem(C0, T, All.FirstNondet) + " then " +
                      fmtElem(C1, T, All.FirstNondet) +
                      ") while the original is deterministic " + Where);
  if (All.NanBad)
    return Refuse(Reason::NanMismatch,
                  Twine(All.NanBad) + " elements of '" + Name +
                      "' are NaN in one and not the other (first at index " +
                      Twine(All.FirstNan) + ": candidate " +
                      fmtElem(All.NanRun ? C1 : C0, T, All.FirstNan) +
                      ", original " + fmtElem(O0, T, All.FirstNan) + ") " +
                      Where);
  if (All.Bad) {
    size_t W = All.WorstIdx;
    return Refuse(Reason::WrongResult,
                  Twine(All.Bad) + " element checks of '" + Name + "' fail " +
                      toleranceText(All, T, Tol) + " (worst at index " +
                      Twine(W) + ": candidate " +
                      fmtElem(All.WorstRun ? C1 : C0, T, W) + ", original " +
                      fmtElem(O0, T, W) + ") " + Where);
  }
  return std::nullopt;
}

} // namespace worker
} // namespace astra
