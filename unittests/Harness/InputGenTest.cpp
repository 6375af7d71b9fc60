//===- InputGenTest.cpp - Deterministic inputs and narrow floats ----------===//
#include "astra/Harness/InputGen.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <set>

using namespace astra;
using namespace llvm;

namespace {

float bitsToFloat(uint32_t X) {
  float F;
  std::memcpy(&F, &X, 4);
  return F;
}

TEST(FloatConvTest, HalfKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(floatToHalf(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);  // below the midpoint
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);  // midpoint, ties to even: Inf
  EXPECT_EQ(floatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(NAN), 0x7e00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie: to even (0)
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // tie 1.5 ulp: to 2
  // Ties in the normal range: 1 + 2^-11 lies between 0x3c00 and 0x3c01.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(bitsToFloat(0x3f800001)), 0x3c00); // just above 1

  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e01)));
}

TEST(FloatConvTest, BF16KnownValues) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBF16(-1.0f), 0xbf80);
  EXPECT_EQ(floatToBF16(3.14159265f), 0x4049);
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);     // tie: even
  EXPECT_EQ(floatToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82); // tie: even
  EXPECT_EQ(floatToBF16(bitsToFloat(0x7f7fffff)), 0x7f80); // rounds to Inf
  EXPECT_EQ(floatToBF16(INFINITY), 0x7f80);
  EXPECT_EQ(floatToBF16(NAN) & 0x7fc0, 0x7fc0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(bitsToFloat(0x7f800001)))));
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
}

TEST(FloatConvTest, Fp8KnownValues) {
  // E4M3: bias 7, max 448, no Inf, NaN 0x7f.
  EXPECT_EQ(floatToFp8E4M3(1.0f), 0x38);
  EXPECT_EQ(floatToFp8E4M3(0.5f), 0x30);
  EXPECT_EQ(floatToFp8E4M3(-2.0f), 0xc0);
  EXPECT_EQ(floatToFp8E4M3(448.0f), 0x7e);
  EXPECT_EQ(floatToFp8E4M3(500.0f), 0x7e); // saturates
  EXPECT_EQ(floatToFp8E4M3(-1e9f), 0xfe);
  EXPECT_EQ(floatToFp8E4M3(INFINITY), 0x7f);
  EXPECT_EQ(floatToFp8E4M3(NAN), 0x7f);
  EXPECT_EQ(floatToFp8E4M3(std::ldexp(1.0f, -6)), 0x08); // smallest normal
  EXPECT_EQ(floatToFp8E4M3(std::ldexp(1.0f, -9)), 0x01); // smallest subnormal
  EXPECT_EQ(floatToFp8E4M3(std::ldexp(1.0f, -10)), 0x00); // tie: even
  EXPECT_EQ(floatToFp8E4M3(1.0625f), 0x38); // tie between 1 and 1.125: even
  EXPECT_EQ(floatToFp8E4M3(1.1875f), 0x3a); // tie between 1.125 and 1.25
  EXPECT_EQ(fp8E4M3ToFloat(0x7e), 448.0f);
  EXPECT_EQ(fp8E4M3ToFloat(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(fp8E4M3ToFloat(0xff)));
  EXPECT_EQ(fp8E4M3ToFloat(0x78), 256.0f);

  // E5M2: bias 15, max 57344, with Inf.
  EXPECT_EQ(floatToFp8E5M2(1.0f), 0x3c);
  EXPECT_EQ(floatToFp8E5M2(57344.0f), 0x7b);
  EXPECT_EQ(floatToFp8E5M2(61440.0f), 0x7c); // tie, odd mantissa: up to Inf
  EXPECT_EQ(floatToFp8E5M2(1e6f), 0x7c);
  EXPECT_EQ(floatToFp8E5M2(-INFINITY), 0xfc);
  EXPECT_EQ(floatToFp8E5M2(NAN), 0x7f);
  EXPECT_EQ(floatToFp8E5M2(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_EQ(fp8E5M2ToFloat(0x7b), 57344.0f);
  EXPECT_EQ(fp8E5M2ToFloat(0x7c), INFINITY);
}

// Every finite code survives decode + encode; every NaN stays NaN.
TEST(FloatConvTest, RoundTripsEveryCode) {
  for (uint32_t H = 0; H < 0x10000; ++H) {
    float F = halfToFloat(uint16_t(H));
    if (std::isnan(F))
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(F))));
    else
      ASSERT_EQ(floatToHalf(F), H) << std::hex << H;
    float B = bf16ToFloat(uint16_t(H));
    if (!std::isnan(B))
      ASSERT_EQ(floatToBF16(B), H) << std::hex << H;
  }
  for (uint32_t C = 0; C < 0x100; ++C) {
    float F = fp8E4M3ToFloat(uint8_t(C));
    if (std::isnan(F))
      EXPECT_EQ(C & 0x7f, 0x7fu);
    else
      ASSERT_EQ(floatToFp8E4M3(F), C) << std::hex << C;
    float G = fp8E5M2ToFloat(uint8_t(C));
    if (!std::isnan(G))
      ASSERT_EQ(floatToFp8E5M2(G), C) << std::hex << C;
  }
}

// Rounding goes to the nearer neighbour: check every midpoint between
// consecutive positive finite halves.
TEST(FloatConvTest, HalfMidpointsRoundToEven) {
  for (uint16_t H = 0; H < 0x7bff; ++H) {
    double Lo = halfToFloat(H), Hi = halfToFloat(uint16_t(H + 1));
    float Mid = float((Lo + Hi) / 2); // exact in binary32
    uint16_t Even = (H & 1) ? uint16_t(H + 1) : H;
    ASSERT_EQ(floatToHalf(Mid), Even) << std::hex << H;
    ASSERT_EQ(floatToHalf(std::nextafter(Mid, 0.0f)), H) << std::hex << H;
    ASSERT_EQ(floatToHalf(std::nextafter(Mid, 1e9f)), H + 1) << std::hex << H;
  }
}

TEST(RngTest, SplitMixSeedingAndXoshiro) {
  // splitmix64(0) gives 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, ...: the
  // first xoshiro256** output is rotl(s[1] * 5, 7) * 9.
  uint64_t S1 = 0x6e789e6aa1b965f4ULL * 5;
  uint64_t Expected = ((S1 << 7) | (S1 >> 57)) * 9;
  Rng R(0);
  EXPECT_EQ(R.next(), Expected);

  Rng A(42), B(42), C(43);
  bool Differs = false;
  for (int I = 0; I < 100; ++I) {
    uint64_t X = A.next();
    EXPECT_EQ(X, B.next());
    Differs |= X != C.next();
  }
  EXPECT_TRUE(Differs);
}

TEST(RngTest, Ranges) {
  Rng R(7);
  double Sum = 0, SumSq = 0;
  const int N = 20000;
  for (int I = 0; I < N; ++I) {
    double U = R.uniform();
    ASSERT_GE(U, 0.0);
    ASSERT_LT(U, 1.0);
    uint64_t K = R.below(10);
    ASSERT_LT(K, 10u);
    double Z = sampleAt(99, uint64_t(I), Dist::Normal);
    ASSERT_LE(std::fabs(Z), 3.5);
    Sum += Z;
    SumSq += Z * Z;
  }
  EXPECT_NEAR(Sum / N, 0.0, 0.05);
  EXPECT_NEAR(SumSq / N, 1.0, 0.05);
}

/// A kernel spec from JSON, for the generator tests.
KernelSpec specOf(StringRef JSON) {
  Expected<LaunchSpecFile> F = parseSpec(JSON, "t.json");
  if (!F) {
    ADD_FAILURE() << toString(F.takeError());
    return KernelSpec();
  }
  return F->Kernels[0];
}

std::vector<std::vector<uint8_t>> generate(const KernelSpec &K,
                                           const GenOptions &O = {},
                                           size_t ShapeIndex = 0) {
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[ShapeIndex]);
  if (!L) {
    ADD_FAILURE() << toString(L.takeError());
    return {};
  }
  auto In = generateInputs(K, K.Shapes[ShapeIndex], *L, O);
  if (!In) {
    ADD_FAILURE() << toString(In.takeError());
    return {};
  }
  return *In;
}

const char *FloatSpec = R"json({
  "kernel": "k",
  "args": [
    {"name": "out", "dtype": "f16", "count": "n", "role": "out"},
    {"name": "x", "dtype": "f16", "count": "n", "role": "in"},
    {"name": "y", "dtype": "bf16", "count": "n", "role": "inout", "dist": "positive"},
    {"name": "z", "dtype": "f32", "count": "n", "role": "in", "specials": true},
    {"name": "q", "dtype": "fp8e4m3", "count": "n", "role": "in"},
    {"name": "n", "dtype": "i32", "value": "n"}
  ],
  "grid": [1], "block": [1], "shapes": [{"n": 5000}, {"n": 7}]
})json";

TEST(InputGenTest, SameSeedSameBytes) {
  KernelSpec K = specOf(FloatSpec);
  GenOptions O;
  O.Seed = 1234;
  auto A = generate(K, O), B = generate(K, O);
  ASSERT_EQ(A.size(), 6u);
  EXPECT_EQ(A, B);
  EXPECT_TRUE(A[0].empty()); // out: not generated
  EXPECT_TRUE(A[5].empty()); // scalar
  EXPECT_EQ(A[1].size(), 5000u * 2);
  EXPECT_EQ(A[4].size(), 5000u);
  O.Seed = 1235;
  auto C = generate(K, O);
  EXPECT_NE(A[1], C[1]);
  // Buffers of one run differ from each other (per-argument streams) and
  // from the same buffer on another shape.
  EXPECT_NE(std::vector<uint8_t>(A[1].begin(), A[1].begin() + 14),
            std::vector<uint8_t>(A[3].begin(), A[3].begin() + 14));
  auto D = generate(K, O, 1);
  EXPECT_NE(std::vector<uint8_t>(C[1].begin(), C[1].begin() + 14), D[1]);
}

// Pins the generated bytes: the same seed must give the same inputs on every
// machine and compiler. A change here breaks reproducibility of recorded
// results; change it only together with the generator's documentation.
TEST(InputGenTest, PinnedBytes) {
  KernelSpec K = specOf(FloatSpec);
  GenOptions O;
  O.Seed = 1;
  auto A = generate(K, O);
  uint64_t H = 0xcbf29ce484222325ULL;
  for (const auto &Buf : A)
    for (uint8_t B : Buf) {
      H ^= B;
      H *= 0x100000001b3ULL;
    }
  EXPECT_EQ(H, 0xf149faa8d04f6ff9ULL) << std::hex << "0x" << H;
}

// Large float buffers are filled in parallel chunks: the bytes are those of
// sampleAt, element by element.
TEST(InputGenTest, ParallelFillMatchesSampleAt) {
  KernelSpec K = specOf(R"json({"kernel": "k", "args": [
      {"name": "x", "dtype": "bf16", "count": "n", "role": "in", "dist": "heavy"}],
    "grid": [1], "block": [1], "shapes": [{"n": 1000003}]})json");
  GenOptions O;
  O.Seed = 5;
  auto A = generate(K, O);
  ASSERT_EQ(A[0].size(), 2u * 1000003);
  uint64_t Stream = streamSeed(5, K.Shapes[0], "x");
  std::vector<uint8_t> Want(A[0].size());
  for (size_t I = 0; I < 1000003; ++I)
    storeElement(Want, DType::BF16, I, sampleAt(Stream, I, Dist::Heavy));
  EXPECT_EQ(A[0], Want);
}

TEST(InputGenTest, Distributions) {
  KernelSpec K = specOf(FloatSpec);
  auto A = generate(K);
  // y fixes 'positive': [0.5, 2) after rounding to bf16.
  for (size_t I = 0; I < 5000; ++I) {
    double V = loadElement(A[2], DType::BF16, I);
    ASSERT_GE(V, 0.5);
    ASSERT_LE(V, 2.0);
  }
  // No specials unless asked.
  for (size_t I = 0; I < 5000; ++I)
    ASSERT_TRUE(std::isfinite(loadElement(A[3], DType::F32, I)));
  // Asked: a few NaN/Inf in z only (1 per 1000 elements: 5).
  GenOptions O;
  O.Specials = true;
  O.Distribution = Dist::Large;
  auto B = generate(K, O);
  unsigned Special = 0;
  double MaxAbs = 0;
  for (size_t I = 0; I < 5000; ++I) {
    double Z = loadElement(B[3], DType::F32, I);
    Special += !std::isfinite(Z);
    if (std::isfinite(Z))
      MaxAbs = std::max(MaxAbs, std::fabs(Z));
    ASSERT_TRUE(std::isfinite(loadElement(B[1], DType::F16, I)));
  }
  EXPECT_GE(Special, 1u);
  EXPECT_LE(Special, 5u);
  EXPECT_GT(MaxAbs, 100.0); // 'large' is scale 1e3
  // y keeps its own distribution under the override.
  for (size_t I = 0; I < 5000; ++I)
    ASSERT_GE(loadElement(B[2], DType::BF16, I), 0.5);
}

TEST(InputGenTest, IntegerRangesAndGenerators) {
  KernelSpec K = specOf(R"json({
    "kernel": "k",
    "args": [
      {"name": "idx", "dtype": "i64", "count": "E", "role": "in", "range": [0, "N"]},
      {"name": "small", "dtype": "i32", "count": "E", "role": "in"},
      {"name": "indptr", "dtype": "i32", "count": "R + 1", "role": "in",
       "gen": {"kind": "csr_indptr", "rows": "R", "min_degree": 2, "max_degree": "dmax"}},
      {"name": "cols", "dtype": "i32", "count": "R * dmax", "role": "in",
       "range": [0, "N"], "gen": {"kind": "csr_indices", "indptr": "indptr"}},
      {"name": "topk", "dtype": "i32", "count": "R * 4", "role": "in",
       "range": [0, 8], "gen": {"kind": "distinct_per_row", "row": 4}},
      {"name": "seg", "dtype": "i64", "count": "E", "role": "in",
       "range": [0, "R"], "gen": {"kind": "sorted"}},
      {"name": "perm", "dtype": "u32", "count": "E", "role": "in",
       "gen": {"kind": "permutation"}},
      {"name": "iota", "dtype": "f32", "count": "E", "role": "in",
       "gen": {"kind": "iota"}},
      {"name": "c", "dtype": "bf16", "count": "E", "role": "in",
       "gen": {"kind": "constant", "value": "0.25"}},
      {"name": "ci", "dtype": "i32", "count": "E", "role": "in",
       "gen": {"kind": "constant", "value": "N - 1"}}
    ],
    "grid": [1], "block": [1],
    "shapes": [{"E": 1000, "N": 37, "R": 50, "dmax": 9}]
  })json");
  for (uint64_t Seed : {1, 2, 3}) {
    GenOptions O;
    O.Seed = Seed;
    auto A = generate(K, O);
    ASSERT_EQ(A.size(), 10u);
    for (size_t I = 0; I < 1000; ++I) {
      int64_t V = loadInteger(A[0], DType::I64, I);
      ASSERT_GE(V, 0);
      ASSERT_LT(V, 37);
      int64_t S = loadInteger(A[1], DType::I32, I);
      ASSERT_GE(S, -64);
      ASSERT_LT(S, 64);
    }
    // csr_indptr: starts at 0, degrees in [2, 9].
    ASSERT_EQ(loadInteger(A[2], DType::I32, 0), 0);
    for (size_t R = 0; R < 50; ++R) {
      int64_t B = loadInteger(A[2], DType::I32, R);
      int64_t E = loadInteger(A[2], DType::I32, R + 1);
      ASSERT_GE(E - B, 2);
      ASSERT_LE(E - B, 9);
      // csr_indices: each row's ids sorted, distinct, in range.
      for (int64_t J = B; J < E; ++J) {
        int64_t C = loadInteger(A[3], DType::I32, J);
        ASSERT_GE(C, 0);
        ASSERT_LT(C, 37);
        if (J > B)
          ASSERT_LT(loadInteger(A[3], DType::I32, J - 1), C);
      }
    }
    // The unused tail still holds valid ids.
    for (size_t J = 0; J < 50 * 9; ++J)
      ASSERT_LT(loadInteger(A[3], DType::I32, J), 37);
    // distinct_per_row: groups of 4 distinct ids from [0, 8).
    for (size_t R = 0; R < 50; ++R) {
      std::set<int64_t> Row;
      for (size_t J = 0; J < 4; ++J) {
        int64_t V = loadInteger(A[4], DType::I32, R * 4 + J);
        ASSERT_GE(V, 0);
        ASSERT_LT(V, 8);
        Row.insert(V);
      }
      ASSERT_EQ(Row.size(), 4u);
    }
    std::set<int64_t> Perm;
    for (size_t I = 0; I < 1000; ++I) {
      if (I > 0)
        ASSERT_LE(loadInteger(A[5], DType::I64, I - 1),
                  loadInteger(A[5], DType::I64, I));
      ASSERT_LT(loadInteger(A[5], DType::I64, I), 50);
      Perm.insert(loadInteger(A[6], DType::U32, I));
      ASSERT_EQ(loadElement(A[7], DType::F32, I), double(I));
      ASSERT_EQ(loadElement(A[8], DType::BF16, I), 0.25);
      ASSERT_EQ(loadInteger(A[9], DType::I32, I), 36);
    }
    EXPECT_EQ(Perm.size(), 1000u);
    EXPECT_EQ(*Perm.rbegin(), 999);
  }
}

TEST(InputGenTest, Informative) {
  std::vector<uint8_t> Zero(16, 0);
  EXPECT_EQ(uninformativeReason(Zero, DType::F32, {}),
            std::optional<std::string>("every output element is zero"));
  std::vector<uint8_t> Const(8);
  for (size_t I = 0; I < 4; ++I)
    storeElement(Const, DType::F16, I, 1.5);
  EXPECT_EQ(uninformativeReason(Const, DType::F16, {}),
            std::optional<std::string>("every output element is equal"));
  std::vector<uint8_t> Out(8), In(12);
  for (size_t I = 0; I < 4; ++I)
    storeElement(Out, DType::F16, I, double(I));
  for (size_t I = 0; I < 6; ++I)
    storeElement(In, DType::F16, I, double(I));
  std::vector<uint8_t> Other(8, 7);
  ArrayRef<uint8_t> Inputs[] = {Other, In};
  EXPECT_EQ(uninformativeReason(Out, DType::F16, Inputs),
            std::optional<std::string>(
                "the output is a copy of input buffer 1"));
  EXPECT_TRUE(isInformative(Out, DType::F16, ArrayRef(Inputs).take_front()));
  // -0.0 and 0.0 are both zero; one element is always informative.
  std::vector<uint8_t> NegZero(8);
  storeElement(NegZero, DType::F32, 0, -0.0);
  EXPECT_FALSE(isInformative(NegZero, DType::F32, {}));
  EXPECT_TRUE(isInformative(std::vector<uint8_t>(4, 0), DType::F32, {}));
}

TEST(InputGenTest, ElementAccess) {
  std::vector<uint8_t> B(16);
  storeElement(B, DType::I8, 0, -3.7);
  EXPECT_EQ(loadInteger(B, DType::I8, 0), -3);
  storeInteger(B, DType::U16, 1, 65535);
  EXPECT_EQ(loadElement(B, DType::U16, 1), 65535.0);
  storeElement(B, DType::F64, 1, 0.1);
  EXPECT_EQ(loadElement(B, DType::F64, 1), 0.1);
  storeElement(B, DType::FP8E5M2, 3, 1.0);
  EXPECT_EQ(B[3], 0x3c);
  storeElement(B, DType::I32, 0, NAN); // not representable: 0
  EXPECT_EQ(loadInteger(B, DType::I32, 0), 0);
}

} // namespace
