//===- CompareTest.cpp - Element comparison, fast path and slow path ------===//
#include "Compare.h"
#include "gtest/gtest.h"
#include <cstring>
#include <limits>
#include <vector>

using namespace astra;
using namespace astra::worker;

namespace {

/// N floats, deterministic values spanning several 64 Ki-element chunks.
std::vector<uint8_t> floats(size_t N, float Scale = 1) {
  std::vector<uint8_t> B(N * 4);
  for (size_t I = 0; I < N; ++I) {
    float V = Scale * float(I % 1000) / 7.0f;
    std::memcpy(&B[I * 4], &V, 4);
  }
  return B;
}

void setFloat(std::vector<uint8_t> &B, size_t I, float V) {
  std::memcpy(&B[I * 4], &V, 4);
}

const size_t N = 300000; // about 4.6 chunks
const Tolerance Tol{1e-5, 1e-6};

TEST(CompareTest, IdenticalOutputsTallyNothing) {
  std::vector<uint8_t> O = floats(N);
  Tally T = compareOutputs(O, O, O, O, DType::F32, N, true, Tol, Spread());
  EXPECT_EQ(T.mismatches(), 0u);
  EXPECT_EQ(T.Nondet, 0u);
  EXPECT_EQ(T.firstMismatch(), SIZE_MAX);
  EXPECT_FALSE(originalSpread(O, O, DType::F32, N, true).Differs);
}

TEST(CompareTest, OneWrongElementInOneChunkIsFound) {
  std::vector<uint8_t> O = floats(N), C = O;
  setFloat(C, 200001, 12345.0f);
  Tally T = compareOutputs(O, O, C, C, DType::F32, N, true, Tol, Spread());
  EXPECT_EQ(T.Bad, 2u); // both candidate runs
  EXPECT_EQ(T.FirstBad, 200001u);
  EXPECT_EQ(T.WorstIdx, 200001u);
}

TEST(CompareTest, WithinToleranceIsNotBad) {
  std::vector<uint8_t> O = floats(N), C = O;
  float V;
  std::memcpy(&V, &O[77 * 4], 4);
  setFloat(C, 77, V * (1 + 1e-7f));
  Tally T = compareOutputs(O, O, C, C, DType::F32, N, true, Tol, Spread());
  EXPECT_EQ(T.mismatches(), 0u);
}

TEST(CompareTest, UnwrittenAndNondeterministicElements) {
  std::vector<uint8_t> O = floats(N), C0 = O, C1 = O;
  // Element 5: the candidate leaves the poison of each run in place.
  std::memset(&C0[5 * 4], Poison[0], 4);
  std::memset(&C1[5 * 4], Poison[1], 4);
  // Element 150000: the candidate's second run differs from its first.
  setFloat(C1, 150000, 1.0e6f);
  Tally T = compareOutputs(O, O, C0, C1, DType::F32, N, true, Tol, Spread());
  EXPECT_EQ(T.Unwritten, 1u);
  EXPECT_EQ(T.FirstUnwritten, 5u);
  EXPECT_EQ(T.Nondet, 1u);
  EXPECT_EQ(T.FirstNondet, 150000u);
}

TEST(CompareTest, OriginalSpreadSeesTheDifferingRun) {
  std::vector<uint8_t> O0 = floats(N), O1 = O0;
  float V;
  std::memcpy(&V, &O0[250000 * 4], 4);
  setFloat(O1, 250000, V + 0.5f);
  Spread S = originalSpread(O0, O1, DType::F32, N, true);
  EXPECT_TRUE(S.Differs);
  EXPECT_NEAR(S.MaxAbs, 0.5, 1e-3);
}

// atol grows with the output's RMS: an absolute error of 5e-5 at an element
// near zero is a rounding of a cancellation in an output of scale ~1e3, and
// a real error in an output of scale ~0.1.
TEST(CompareTest, AtolScalesWithTheOutputsRms) {
  const Tolerance Loose{1e-3, 1e-5};
  for (float Scale : {1e3f, 0.1f}) {
    std::vector<uint8_t> O = floats(N, Scale / 70.0f), C = O;
    setFloat(O, 1000, 3.2e-4f);
    setFloat(C, 1000, 3.7e-4f);
    double RMS = outputScale(O, O, DType::F32, N, true);
    Tally T = compareOutputs(O, O, C, C, DType::F32, N, true, Loose, Spread());
    if (Scale > 1) {
      EXPECT_GT(RMS, 300.0);
      EXPECT_NEAR(T.Atol, 1e-5 * RMS, 1e-9);
      EXPECT_EQ(T.mismatches(), 0u);
    } else {
      EXPECT_EQ(RMS, 1.0); // never below the spec's own atol
      EXPECT_EQ(T.Atol, 1e-5);
      EXPECT_EQ(T.Bad, 2u);
    }
  }
  // Poisoned (unwritten) and non-finite elements do not count.
  std::vector<uint8_t> O0 = floats(N, 1e3f / 70.0f), O1 = O0;
  double Before = outputScale(O0, O1, DType::F32, N, true);
  setFloat(O0, 7, std::numeric_limits<float>::infinity());
  std::memset(&O0[8 * 4], Poison[0], 4);
  std::memset(&O1[8 * 4], Poison[1], 4);
  EXPECT_NEAR(outputScale(O0, O1, DType::F32, N, true), Before, Before * 1e-4);
  // Integers keep their atol.
  EXPECT_EQ(outputScale(O0, O1, DType::I32, N, true), 1.0);
}

/// The original's runs O0, O1 over floats(N), with elements [From, To) left
/// unwritten: each holds its run's poison.
void leaveUnwritten(std::vector<uint8_t> &R0, std::vector<uint8_t> &R1,
                    size_t From, size_t To) {
  std::memset(&R0[From * 4], Poison[0], (To - From) * 4);
  std::memset(&R1[From * 4], Poison[1], (To - From) * 4);
}

void expectExtra(const Tally &T, size_t Count, size_t First, unsigned Run) {
  EXPECT_EQ(T.Extra, Count);
  EXPECT_EQ(T.FirstExtra, First);
  EXPECT_EQ(T.ExtraRun, Run);
}

// An element the original leaves unwritten must keep each run's poison in
// the candidate's runs as well: leaving it is accepted, writing it (any
// value, in either run) is not. Elements 100000..100009 and 270000.
TEST(CompareTest, WritingWhatTheOriginalLeavesUnwrittenIsFound) {
  std::vector<uint8_t> O0 = floats(N), O1 = O0;
  leaveUnwritten(O0, O1, 100000, 100010);
  leaveUnwritten(O0, O1, 270000, 270001);
  Spread S = originalSpread(O0, O1, DType::F32, N, true);
  EXPECT_FALSE(S.Differs);
  EXPECT_EQ(S.Unwritten, 11u);

  // The candidate leaves them: nothing to tally.
  Tally Same = compareOutputs(O0, O1, O0, O1, DType::F32, N, true, Tol, S);
  EXPECT_EQ(Same.mismatches(), 0u);
  EXPECT_EQ(Same.firstMismatch(), SIZE_MAX);

  // Written in run 0 only (a value), in run 1 only (run 0's poison: the
  // bytes the device comparison finds bit-identical to the original's run
  // 0), and in both.
  std::vector<uint8_t> C0 = O0, C1 = O1;
  setFloat(C0, 100003, 2.5f);
  std::memset(&C1[100007 * 4], Poison[0], 4);
  setFloat(C0, 270000, 0.0f);
  setFloat(C1, 270000, 0.0f);
  Tally T = compareOutputs(O0, O1, C0, C1, DType::F32, N, true, Tol, S);
  expectExtra(T, 3, 100003, 0);
  EXPECT_EQ(T.firstMismatch(), 100003u);
  EXPECT_EQ(T.Unwritten + T.NanBad + T.Bad + T.Nondet, 0u);

  // The first one in run 1 only: the run is named.
  std::vector<uint8_t> D0 = O0, D1 = O1;
  std::memset(&D1[100000 * 4], 0, 4);
  Tally U = compareOutputs(O0, O1, D0, D1, DType::F32, N, true, Tol, S);
  expectExtra(U, 1, 100000, 1);

  // An `inout` buffer is not poisoned: no element is "left unwritten".
  Tally InOut = compareOutputs(O0, O1, C0, C1, DType::F32, N, false, Tol, S);
  EXPECT_EQ(InOut.Extra, 0u);
}

// Integers: the same rule, on the bytes of the poison.
TEST(CompareTest, IntegerElementsLeftUnwrittenMustKeepThePoison) {
  const size_t M = 1000;
  std::vector<uint8_t> O0(M * 2), O1;
  for (size_t I = 0; I < M; ++I)
    O0[2 * I] = uint8_t(I);
  O1 = O0;
  std::memset(&O0[500 * 2], Poison[0], 2 * 500);
  std::memset(&O1[500 * 2], Poison[1], 2 * 500);
  Spread S = originalSpread(O0, O1, DType::I16, M, true);
  EXPECT_EQ(S.Unwritten, 500u);
  EXPECT_EQ(
      compareOutputs(O0, O1, O0, O1, DType::I16, M, true, {}, S).mismatches(),
      0u);
  // 0xFF7F is neither run's poison.
  std::vector<uint8_t> C1 = O1;
  C1[999 * 2] = Poison[0];
  Tally T = compareOutputs(O0, O1, O0, C1, DType::I16, M, true, {}, S);
  expectExtra(T, 1, 999, 1);
}

// A timed launch's output is compared as both candidate runs, each poisoned
// with Poison[0]: there, Poison[0] is what "left unwritten" looks like.
TEST(CompareTest, TimedOutputsLeaveRunZerosPoison) {
  std::vector<uint8_t> R0 = floats(N), R1 = R0;
  leaveUnwritten(R0, R1, 5, 50);
  Spread S = originalSpread(R0, R1, DType::F32, N, true);
  std::vector<uint8_t> Got = R0;
  setFloat(Got, 1000, 1.0e6f); // one wrong value among the written ones
  Tally T = compareOutputs(R0, R1, Got, Got, DType::F32, N, true, Tol, S,
                           {Poison[0], Poison[0]});
  EXPECT_EQ(T.Extra, 0u);
  EXPECT_EQ(T.Bad, 2u);
  // With a correctness case's poisons the same buffer writes them all.
  EXPECT_EQ(compareOutputs(R0, R1, Got, Got, DType::F32, N, true, Tol, S).Extra,
            45u);
  // And an element the original writes that the timed launch left holding
  // the poison differs from the reference (one poison cannot tell "left
  // unwritten" from "wrote the poison's bytes": it is judged by value).
  std::memset(&Got[60 * 4], Poison[0], 4);
  Tally U = compareOutputs(R0, R1, Got, Got, DType::F32, N, true, Tol, S,
                           {Poison[0], Poison[0]});
  EXPECT_EQ(U.Unwritten, 0u);
  EXPECT_EQ(U.NanBad + U.Bad, 4u); // elements 60 and 1000, twice each
}

// An int8 output whose written value has the poison's bytes (-1 under 0xFF):
// in a timed launch's copy it is the right value, not an unwritten element
// (corpus-accept-quant-step.test on an H100 refused quant.one_step so).
TEST(CompareTest, TimedOutputsMayWriteThePoisonsBytes) {
  const size_t M = 256;
  std::vector<uint8_t> R0(M), R1(M);
  for (size_t I = 0; I < M; ++I)
    R0[I] = R1[I] = uint8_t(I); // includes 0xFF: -1
  Spread S = originalSpread(R0, R1, DType::I8, M, true);
  EXPECT_EQ(S.Unwritten, 0u);
  Tally T = compareOutputs(R0, R1, R0, R0, DType::I8, M, true, {}, S,
                           {Poison[0], Poison[0]});
  EXPECT_EQ(T.mismatches(), 0u);
}

// The refusal each tally gives, in the order of docs/harness.md, with the
// evidence a refusal must carry.
TEST(CompareTest, DescribeNamesTheReasonAndTheElement) {
  std::vector<uint8_t> O0 = floats(N), O1 = O0;
  leaveUnwritten(O0, O1, 64, 128);
  Spread S = originalSpread(O0, O1, DType::F32, N, true);
  std::vector<uint8_t> C0 = O0, C1 = O1;
  setFloat(C0, 70, 1.5f);
  setFloat(C1, 70, 1.5f);
  Tally T = compareOutputs(O0, O1, C0, C1, DType::F32, N, true, Tol, S);
  std::optional<Mismatch> M =
      describeMismatch(T, "out", DType::F32, N, Tol, S.Unwritten, true, O0, C0,
                       C1, "on shape n=1");
  ASSERT_TRUE(M.has_value());
  EXPECT_EQ(M->Why, Reason::WritesUnwritten);
  EXPECT_EQ(M->Msg, "1 of the 64 elements of 'out' that the original leaves "
                    "unwritten are written (first at index 70: 1.5 in the "
                    "candidate's run 0, where the original keeps the poison) "
                    "on shape n=1");
  // An element the original writes left unwritten comes first.
  std::memset(&C0[3 * 4], Poison[0], 4);
  std::memset(&C1[3 * 4], Poison[1], 4);
  T = compareOutputs(O0, O1, C0, C1, DType::F32, N, true, Tol, S);
  M = describeMismatch(T, "out", DType::F32, N, Tol, S.Unwritten, true, O0, C0,
                       C1, "here");
  ASSERT_TRUE(M.has_value());
  EXPECT_EQ(M->Why, Reason::UnwrittenOutput);
  // Nothing wrong: no refusal.
  T = compareOutputs(O0, O1, O0, O1, DType::F32, N, true, Tol, S);
  EXPECT_FALSE(describeMismatch(T, "out", DType::F32, N, Tol, S.Unwritten, true,
                                O0, O0, O1, "here")
                   .has_value());
  // A nondeterministic candidate only where the original is deterministic.
  std::vector<uint8_t> D1 = O1;
  setFloat(D1, 1000, 7.0f);
  T = compareOutputs(O0, O1, O0, D1, DType::F32, N, true, Tol, S);
  EXPECT_EQ(describeMismatch(T, "out", DType::F32, N, Tol, S.Unwritten, true,
                             O0, O0, D1, "here")
                ->Why,
            Reason::Nondeterministic);
  EXPECT_EQ(describeMismatch(T, "out", DType::F32, N, Tol, S.Unwritten, false,
                             O0, O0, D1, "here")
                ->Why,
            Reason::WrongResult);
}

} // namespace
