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

} // namespace
