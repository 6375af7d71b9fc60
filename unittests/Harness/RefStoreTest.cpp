//===- RefStoreTest.cpp - The original's cases on disk --------------------===//
#include "RefStore.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

struct TempDir {
  SmallString<128> Path;
  TempDir() { EXPECT_FALSE(sys::fs::createUniqueDirectory("refstore", Path)); }
  ~TempDir() { sys::fs::remove_directories(Path); }
  bool has(StringRef Name) const {
    SmallString<128> P(Path);
    sys::path::append(P, Name);
    return sys::fs::exists(P);
  }
};

std::vector<uint8_t> bytes(size_t N, uint8_t Seed) {
  std::vector<uint8_t> B(N);
  for (size_t I = 0; I < N; ++I)
    B[I] = uint8_t(Seed + I * 7);
  return B;
}

// Arguments: 0 an input, 1 a scalar (empty), 2 an output the original
// writes the same in both runs, 3 an output whose runs differ.
TEST(RefStoreTest, DeterministicRunStoredOnce) {
  TempDir D;
  ArgBuffers In = {bytes(64, 1), {}, {}, {}};
  ArgBuffers Out[2] = {{{}, {}, bytes(32, 5), bytes(16, 9)},
                       {{}, {}, bytes(32, 5), bytes(16, 10)}};
  ASSERT_FALSE(errorToBool(writeRefCase(D.Path, "s0_c0", In, Out)));
  EXPECT_TRUE(D.has("s0_c0.in0.bin"));
  EXPECT_FALSE(D.has("s0_c0.in1.bin"));
  EXPECT_TRUE(D.has("s0_c0.out0_2.bin"));
  EXPECT_FALSE(D.has("s0_c0.out1_2.bin")); // equal to run 0: not stored
  EXPECT_TRUE(D.has("s0_c0.out1_3.bin"));

  ArgBuffers RIn, ROut[2];
  ASSERT_FALSE(errorToBool(readRefCase(D.Path, "s0_c0", 4, RIn, ROut)));
  EXPECT_EQ(RIn[0], In[0]);
  EXPECT_TRUE(RIn[1].empty());
  EXPECT_EQ(ROut[0][2], Out[0][2]);
  EXPECT_TRUE(ROut[1][2].empty());
  // Run 1 of output 2 is run 0's buffer itself; output 3 keeps its own.
  EXPECT_EQ(origRun1(ROut, 2).data(), ROut[0][2].data());
  EXPECT_EQ(
      std::vector<uint8_t>(origRun1(ROut, 2).begin(), origRun1(ROut, 2).end()),
      Out[1][2]);
  EXPECT_EQ(
      std::vector<uint8_t>(origRun1(ROut, 3).begin(), origRun1(ROut, 3).end()),
      Out[1][3]);
  EXPECT_TRUE(origRun1(ROut, 1).empty());
}

TEST(RefStoreTest, AbsentBuffersReadBackEmpty) {
  TempDir D;
  ArgBuffers In = {bytes(8, 1)};
  ArgBuffers Out[2] = {{{}}, {{}}};
  ASSERT_FALSE(errorToBool(writeRefCase(D.Path, "s1_c0", In, Out)));
  ArgBuffers RIn, ROut[2];
  // Nothing stored under another prefix: every buffer reads back empty.
  ASSERT_FALSE(errorToBool(readRefCase(D.Path, "s9_c9", 1, RIn, ROut)));
  EXPECT_TRUE(RIn[0].empty());
}

// Five cases written under distinct contents; the prefetcher hands out
// each case's own buffers in order, after a skip, and out of order.
struct FiveCases {
  TempDir D;
  std::vector<std::string> Prefixes;
  FiveCases() {
    for (uint8_t C = 0; C < 5; ++C) {
      std::string P = "s0_c" + std::to_string(C);
      ArgBuffers In = {bytes(4096 + C, C)};
      ArgBuffers Out[2] = {{bytes(100 + C, 50 + C)}, {bytes(100 + C, 90 + C)}};
      EXPECT_FALSE(errorToBool(writeRefCase(D.Path, P, In, Out)));
      Prefixes.push_back(P);
    }
  }
  void expectCase(RefPrefetcher &R, uint8_t C) {
    ArgBuffers In, Out[2];
    ASSERT_FALSE(errorToBool(R.take("s0_c" + std::to_string(C), In, Out)));
    EXPECT_EQ(In[0], bytes(4096 + C, C));
    EXPECT_EQ(Out[0][0], bytes(100 + C, 50 + C));
    EXPECT_EQ(Out[1][0], bytes(100 + C, 90 + C));
  }
};

TEST(RefStoreTest, PrefetcherInOrderSkipAndRepeat) {
  FiveCases F;
  RefPrefetcher R(F.D.Path.str().str(), F.Prefixes, 1);
  F.expectCase(R, 0);
  F.expectCase(R, 1);
  F.expectCase(R, 3); // case 2 skipped
  F.expectCase(R, 3); // asked for again: read directly
  F.expectCase(R, 4);
  F.expectCase(R, 0); // after the end
}

TEST(RefStoreTest, PrefetcherStopsEarly) {
  FiveCases F;
  {
    RefPrefetcher R(F.D.Path.str().str(), F.Prefixes, 1);
    F.expectCase(R, 0);
  } // the worker failed: the reader stops without being drained
  RefPrefetcher R(F.D.Path.str().str(), F.Prefixes, 1);
}

TEST(RefStoreTest, PrefetcherReportsAMissingCase) {
  FiveCases F;
  SmallString<128> P(F.D.Path);
  sys::path::append(P, "s0_c1.in0.bin");
  ASSERT_FALSE(sys::fs::remove(P));
  ASSERT_FALSE(sys::fs::create_directory(P)); // unreadable as a file
  RefPrefetcher R(F.D.Path.str().str(), F.Prefixes, 1);
  F.expectCase(R, 0);
  ArgBuffers In, Out[2];
  Error E = R.take("s0_c1", In, Out);
  EXPECT_TRUE(errorToBool(std::move(E)));
  F.expectCase(R, 2);
}

} // namespace
