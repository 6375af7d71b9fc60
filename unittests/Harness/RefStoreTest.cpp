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
  EXPECT_EQ(std::vector<uint8_t>(origRun1(ROut, 2).begin(),
                                 origRun1(ROut, 2).end()),
            Out[1][2]);
  EXPECT_EQ(std::vector<uint8_t>(origRun1(ROut, 3).begin(),
                                 origRun1(ROut, 3).end()),
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

} // namespace
