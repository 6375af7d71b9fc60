//===- VectorizeCodegenTest.cpp - vectorize-loads text generation ---------===//
#include "VectorizeLoadsPlan.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

VecLoopPlan makePlan(LoopPartition Part) {
  VecLoopPlan P;
  P.Partition = Part;
  P.IVType = "int";
  P.IVName = "i";
  P.Start = Part == LoopPartition::Sequential ? "0" : "threadIdx.x";
  P.Step = Part == LoopPartition::Sequential ? "1" : "blockDim.x";
  P.End = "n";
  P.LoopText = "for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
               "    out[i] = in[i];";
  P.BodyText = "out[i] = in[i];";
  P.NameW = "VecW";
  P.NameEnd = "vecEnd";
  P.NameIdx = "vecIdx";
  P.NameBase = "vecBase";
  P.NameLane = "lane";
  VecGroup Out{"out", "", "__half", 2, false, false, true, false, "outVec"};
  VecGroup In{"in", "r * n", "__half", 2, false, true, false, true, "inVec"};
  P.Groups = {Out, In};
  // "out[i]" at 0, "in[i]" at 9.
  P.BodyEdits = {{0, 6, "outVec.v[lane]"}, {9, 5, "inVec.v[lane]"}};
  return P;
}

void setElem(VecLoopPlan &P, const char *Type, unsigned Bytes, bool IsFloat) {
  for (VecGroup &G : P.Groups) {
    G.ElemType = Type;
    G.ElemBytes = Bytes;
    G.IsFloat = IsFloat;
  }
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

TEST(VectorizeCodegen, WidthFromTheWidestElement) {
  VecLoopPlan P = makePlan(LoopPartition::Block);
  EXPECT_EQ(getVectorWidth(P), 8u);
  P.WidthBytes = 8;
  EXPECT_EQ(getVectorWidth(P), 4u);
  P.Groups[1].ElemType = "float";
  P.Groups[1].ElemBytes = 4;
  EXPECT_EQ(getVectorWidth(P), 2u);
  P.DependentElem = "T";
  EXPECT_EQ(getVectorWidth(P), 0u);
}

TEST(VectorizeCodegen, BlockStrideLoop) {
  std::string S = generateVectorLoop(makePlan(LoopPartition::Block));
  EXPECT_TRUE(contains(S, "if (reinterpret_cast<size_t>(out) % 16 == 0 && "
                          "reinterpret_cast<size_t>(in + r * n) % 16 "
                          "== 0) {"));
  EXPECT_TRUE(contains(S, "constexpr int VecW = 8;"));
  EXPECT_TRUE(contains(S, "union VecF16 {\n  uint4 u;\n  __half v[VecW];\n};"));
  EXPECT_TRUE(contains(S, "for (int vecIdx = threadIdx.x; vecIdx < n / VecW; "
                          "vecIdx += blockDim.x) {"));
  // Only the read group is loaded, through __ldg; only `out` is stored.
  EXPECT_TRUE(contains(
      S, "inVec.u = __ldg(reinterpret_cast<const uint4 *>(in + r * n + "
         "vecBase));"));
  EXPECT_FALSE(contains(S, "outVec.u = "));
  EXPECT_TRUE(
      contains(S, "*reinterpret_cast<uint4 *>(out + vecBase) = outVec.u;"));
  EXPECT_TRUE(contains(S, "outVec.v[lane] = inVec.v[lane];"));
  // The body no longer names i: no unused per-lane index.
  EXPECT_FALSE(contains(S, "const int i = vecBase + lane;"));
  // The tail starts at the first index >= vecEnd of this thread's sequence.
  EXPECT_TRUE(contains(S, "const auto vecEnd = n / VecW * VecW;\n"
                          "int i = threadIdx.x;\n"
                          "if (i < vecEnd)\n"
                          "  i += ((vecEnd - i - 1) / blockDim.x + 1) * "
                          "blockDim.x;\n"
                          "for (; i < n; i += blockDim.x) {\nout[i] = "
                          "in[i];\n}"));
  // The fallback is the original loop, verbatim.
  EXPECT_TRUE(contains(S, "} else {\nfor (int i = threadIdx.x; i < n; i += "
                          "blockDim.x)\n    out[i] = in[i];\n}"));
}

TEST(VectorizeCodegen, SequentialTailAndLaneIndex) {
  VecLoopPlan P = makePlan(LoopPartition::Sequential);
  P.BodyText = "out[i] = in[i] + i;";
  std::string S = generateVectorLoop(P);
  EXPECT_TRUE(contains(S, "const int i = vecBase + lane;"));
  EXPECT_TRUE(contains(S, "for (int i = n / VecW * VecW; i < n; ++i) {"));
}

TEST(VectorizeCodegen, TemplateElementAndRuntimeStride) {
  VecLoopPlan P = makePlan(LoopPartition::Block);
  setElem(P, "T", 0, false);
  P.DependentElem = "T";
  P.UnitStrides = {"cs", "a + b"};
  std::string S = generateVectorLoop(P);
  EXPECT_TRUE(contains(S, "static_assert(16 % sizeof(T) == 0"));
  EXPECT_TRUE(contains(S, "constexpr int VecW = 16 / sizeof(T);"));
  EXPECT_TRUE(contains(S, "union VecT {\n  uint4 u;\n  T v[VecW];\n};"));
  EXPECT_TRUE(contains(S, "% 16 == 0 && cs == 1 && (a + b) == 1) {"));
}

TEST(VectorizeCodegen, FloatUsesFloatVectors) {
  VecLoopPlan P = makePlan(LoopPartition::Grid);
  setElem(P, "float", 4, true);
  P.WidthBytes = 8;
  std::string S = generateVectorLoop(P);
  EXPECT_TRUE(contains(S, "constexpr int VecW = 2;"));
  EXPECT_TRUE(contains(S, "union VecF32 {\n  float2 u;\n  float v[VecW];"));
  EXPECT_TRUE(contains(S, "reinterpret_cast<size_t>(out) % 8 == 0"));
}

/// A one-element-per-thread plan: the index `i`, the bound check replaced.
VecLoopPlan makePerThreadPlan(bool PerBlock, bool Trailing) {
  VecLoopPlan P = makePlan(LoopPartition::Grid);
  P.PerThread = true;
  P.PerBlock = PerBlock;
  P.HasTrailing = Trailing;
  P.Step = PerBlock ? "static_cast<int>(blockDim.x)"
                    : "static_cast<int>(gridDim.x) * "
                      "static_cast<int>(blockDim.x)";
  P.OtherExits = {"!(on)"};
  P.LoopText = "if (i < n && on) {\n    out[i] = in[i];\n  }";
  P.RegionText = "out[i] = in[i];";
  P.WidenedBody = "WIDENED\n";
  P.NameStride = "vecStride";
  P.NameLimit = "vecLimit";
  return P;
}

TEST(VectorizeCodegen, PerThreadExitReturnsWhenNothingFollows) {
  std::string S = generatePerThread(makePerThreadPlan(false, false));
  EXPECT_TRUE(contains(S, "if (!(on))\n  return;\n"));
  EXPECT_FALSE(contains(S, "if (!(!(on))) {"));
  EXPECT_TRUE(contains(S, "const int vecStride = static_cast<int>(gridDim.x) "
                          "* static_cast<int>(blockDim.x);"));
}

TEST(VectorizeCodegen, PerBlockExitSkipsWhenStatementsFollow) {
  std::string S = generatePerThread(makePerThreadPlan(true, true));
  EXPECT_FALSE(contains(S, "return;"));
  EXPECT_TRUE(contains(S, "if (!(!(on))) {\n"));
  EXPECT_TRUE(
      contains(S, "const int vecStride = static_cast<int>(blockDim.x);\n"
                  "const int vecLimit = n < vecStride ? "
                  "static_cast<int>(n) : vecStride;\n"
                  "for (int vecIdx = i; vecIdx < vecLimit / VecW; vecIdx += "
                  "vecStride) {\nconst int i = vecIdx * VecW;\nWIDENED\n}"));
  // The skipped block closes after the tail, before the fallback.
  EXPECT_TRUE(contains(S, "i < vecLimit) {\nout[i] = in[i];\n}\n}\n} else {"));
}

TEST(VectorizeCodegen, AnyBlockStridesByTheBlockAndSkipsWhenStatementsFollow) {
  VecLoopPlan P = makePerThreadPlan(true, true);
  P.AnyGrid = true;
  std::string S = generatePerThread(P);
  EXPECT_TRUE(contains(S, std::string("// ") + AnyBlockMarker + "\n"));
  EXPECT_FALSE(contains(S, AnyGridMarker));
  EXPECT_FALSE(contains(S, "return;"));
  EXPECT_FALSE(contains(S, "vecLimit"));
  EXPECT_TRUE(
      contains(S, "const int vecStride = static_cast<int>(blockDim.x);\nif ("));
  // Packs, then the tail, block-stride, inside the skipped block.
  EXPECT_TRUE(contains(S, "if (!(!(on))) {\n"));
  EXPECT_TRUE(contains(S, "for (int vecIdx = i; vecIdx < n / VecW; vecIdx += "
                          "vecStride) {\nconst int i = vecIdx * VecW;\n"
                          "WIDENED\n}\n"));
  EXPECT_TRUE(contains(S, "// Scalar tail: the last n % VecW elements, "
                          "block-stride.\nfor (int vecIdx = n / VecW * VecW "
                          "+ i; vecIdx < n; vecIdx += vecStride) {\nconst "
                          "int i = vecIdx;\nout[i] = in[i];\n}\n}\n} "
                          "else {\n// The original, block-stride.\n"));
  EXPECT_TRUE(contains(S, "for (int vecIdx = i; vecIdx < n; vecIdx += "
                          "vecStride) {\nconst int i = vecIdx;\n"));
}

TEST(VectorizeCodegen, AnyGridStillReturnsWhenNothingFollows) {
  VecLoopPlan P = makePerThreadPlan(false, false);
  P.AnyGrid = true;
  std::string S = generatePerThread(P);
  EXPECT_TRUE(contains(S, std::string("// ") + AnyGridMarker + "\n"));
  EXPECT_TRUE(contains(S, "if (!(on))\n  return;\n"));
  EXPECT_TRUE(contains(S, "elements, grid-stride.\n"));
}

TEST(VectorizeCodegen, ApartGuardJoinsTheGuard) {
  VecLoopPlan P = makePlan(LoopPartition::Block);
  P.ApartGuards = {"(stride) >= (n)"};
  std::string S = generateVectorLoop(P);
  EXPECT_TRUE(contains(S, "% 16 == 0 && (stride) >= (n)) {"));
}

} // namespace
