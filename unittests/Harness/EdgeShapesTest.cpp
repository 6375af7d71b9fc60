//===- EdgeShapesTest.cpp - Generated edge shapes inside the domain -------===//
#include "astra/Harness/EdgeShapes.h"
#include "astra/Harness/Spec.h"
#include "gtest/gtest.h"
#include <algorithm>

using namespace astra;
using namespace llvm;

// Succeeded / failed, printing the error (LLVMTestingSupport is not linked).
#define ASSERT_OK(E)                                                           \
  ASSERT_TRUE(static_cast<bool>(E)) << toString((E).takeError())

namespace {

LaunchSpecFile spec(StringRef Json) {
  Expected<LaunchSpecFile> F = parseSpec(Json, "t.astra.json");
  if (!F) {
    ADD_FAILURE() << toString(F.takeError());
    return LaunchSpecFile();
  }
  return std::move(*F);
}

std::vector<std::string> names(const EdgeShapeSet &E) {
  std::vector<std::string> Out;
  for (const Shape &S : E.Shapes)
    Out.push_back(S.str());
  return Out;
}

bool has(const std::vector<std::string> &V, StringRef S) {
  return std::find(V.begin(), V.end(), S) != V.end();
}

/// The reason \p Probe was skipped, or "" when it was not.
std::string reasonFor(const EdgeShapeSet &E, StringRef Probe) {
  for (const SkippedEdgeShape &S : E.Skipped)
    if (S.Probe == Probe)
      return S.Reason;
  return "";
}

TEST(EdgeShapesTest, FromTheSmallestShape) {
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [
      {"name": "out", "dtype": "f16", "count": "T*d", "role": "out"},
      {"name": "x", "dtype": "f16", "count": "T*2*d", "role": "in"},
      {"name": "d", "dtype": "i32", "value": "d"}
    ],
    "grid": ["T"], "block": ["min(d, 1024)"],
    "shapes": [{"T": 64, "d": 4096}, {"T": 1, "d": 4096}]
  })J");
  std::vector<std::string> Names = names(deriveEdgeShapes(F.Kernels[0]));
  // Base is T=1, d=4096 (the smallest); T=1 itself is a spec shape.
  EXPECT_EQ(Names.size(), 15u);
  EXPECT_EQ(Names.front(), "T=3, d=4096");
  EXPECT_NE(std::find(Names.begin(), Names.end(), "T=1, d=97"), Names.end());
  EXPECT_NE(std::find(Names.begin(), Names.end(), "T=1, d=1"), Names.end());
  EXPECT_EQ(std::find(Names.begin(), Names.end(), "T=1, d=4096"), Names.end());
}

TEST(EdgeShapesTest, StaySmallAndValid) {
  // A 1 GiB table makes every variant of n large: the table's size shrinks
  // to 128 rows; block sizes over 1024 do not resolve and are skipped.
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [
      {"name": "out", "dtype": "f32", "count": "n*F", "role": "out"},
      {"name": "table", "dtype": "f32", "count": "N*F", "role": "in"},
      {"name": "n", "dtype": "i32", "value": "n"}
    ],
    "grid": ["n"], "block": ["F"],
    "shapes": [{"n": 1024, "N": 2097152, "F": 128}]
  })J");
  EdgeShapeSet Edges = deriveEdgeShapes(F.Kernels[0]);
  ASSERT_FALSE(Edges.Shapes.empty());
  for (const Shape &S : Edges.Shapes) {
    Expected<ResolvedLaunch> L = resolve(F.Kernels[0], S);
    ASSERT_OK(L);
    uint64_t Bytes = 0;
    for (const ResolvedArg &A : L->Args)
      Bytes += A.Bytes;
    EXPECT_LE(Bytes, MaxEdgeShapeBytes) << S.str();
  }
  EXPECT_TRUE(has(names(Edges), "n=97, N=128, F=128"));
}

/// A block-per-row kernel with a power-of-two tree reduction over block
/// size B (shared_bytes 4*B), the case of issue 8.
const char *TreeSpec = R"J({
    "kernel": "k",
    "args": [
      {"name": "out", "dtype": "f32", "count": "T", "role": "out"},
      {"name": "x", "dtype": "f32", "count": "T*d", "role": "in"},
      {"name": "d", "dtype": "i32", "value": "d"}
    ],
    "grid": ["T"], "block": ["B"], "shared_bytes": "4*B",
    "shapes": [{"T": 4, "d": 4096, "B": 256}, {"T": 64, "d": 4096, "B": 1024}],
    "vars": {"B": {"power_of_two": true, "min": 32, "max": 1024}}
  })J";

TEST(EdgeShapesTest, PowerOfTwoBlockSize) {
  LaunchSpecFile F = spec(TreeSpec);
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  std::vector<std::string> N = names(E);
  for (const Shape &S : E.Shapes) {
    int64_t B = *S.lookup("B");
    EXPECT_TRUE(B >= 32 && B <= 1024 && (B & (B - 1)) == 0) << S.str();
  }
  // The domain's own edges: one warp, two warps, the maximum.
  EXPECT_TRUE(has(N, "T=4, d=4096, B=32"));
  EXPECT_TRUE(has(N, "T=4, d=4096, B=64"));
  EXPECT_TRUE(has(N, "T=4, d=4096, B=1024"));
  // The other variables still get the classic values.
  EXPECT_TRUE(has(N, "T=4, d=97, B=256"));
  EXPECT_TRUE(has(N, "T=1, d=4096, B=256"));
  EXPECT_EQ(reasonFor(E, "B=1"), "B must be at least 32");
  EXPECT_EQ(reasonFor(E, "B=3"),
            "B must be a power of two; B must be at least 32");
  EXPECT_EQ(reasonFor(E, "B=97"), "B must be a power of two");
  EXPECT_EQ(reasonFor(E, "B=2048"), "B must be at most 1024");
  std::vector<std::string> Notes = E.notes();
  ASSERT_EQ(Notes.size(), 4u);
  EXPECT_EQ(Notes[0], "edge shapes skipped (B must be at least 32): B=1");
  EXPECT_EQ(Notes[1], "edge shapes skipped (B must be a power of two; B must "
                      "be at least 32): B=3, B=5, B=7, B=9, B=15, B=17");
  EXPECT_EQ(Notes[2], "edge shapes skipped (B must be a power of two): B=97");
  EXPECT_EQ(Notes[3], "edge shapes skipped (B must be at most 1024): "
                      "B=2048, B=4096");
}

TEST(EdgeShapesTest, FixedVariableIsNotVaried) {
  std::string Json = TreeSpec;
  Json.replace(Json.find("\"power_of_two\""), 0, "\"vary\": false, ");
  LaunchSpecFile F = spec(Json);
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  ASSERT_FALSE(E.Shapes.empty());
  for (const Shape &S : E.Shapes)
    EXPECT_EQ(*S.lookup("B"), 256) << S.str();
  EXPECT_EQ(reasonFor(E, "B"), "not varied (\"vary\": false)");
  EXPECT_EQ(E.notes()[0],
            "edge shapes keep B fixed (\"vary\": false in the spec)");
}

TEST(EdgeShapesTest, MultipleOfGivesOddMultiples) {
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [{"name": "x", "dtype": "f16", "count": "T*d", "role": "inout"}],
    "grid": ["T"], "block": [256],
    "shapes": [{"T": 2, "d": 4096}],
    "vars": {"d": {"multiple_of": 8}}
  })J");
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  std::vector<std::string> N = names(E);
  for (const char *S : {"T=2, d=8", "T=2, d=24", "T=2, d=40", "T=2, d=776"})
    EXPECT_TRUE(has(N, S)) << S;
  for (const Shape &S : E.Shapes)
    EXPECT_EQ(*S.lookup("d") % 8, 0) << S.str();
  EXPECT_EQ(reasonFor(E, "d=97"), "d must be a multiple of 8");
}

TEST(EdgeShapesTest, ConstraintsOnOtherVariablesApply) {
  // gs must divide d; qs (a row stride) must be at least H*D.
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [
      {"name": "s", "dtype": "f32", "count": "T*d/gs", "role": "out"},
      {"name": "q", "dtype": "f16", "count": "T*qs", "role": "inout"}
    ],
    "grid": ["T"], "block": ["gs"],
    "shapes": [{"T": 2, "d": 512, "gs": 128, "H": 4, "D": 64, "qs": 256}],
    "vars": {"gs": {"vary": false, "divides": "d", "power_of_two": true},
             "qs": {"min": "H*D"}}
  })J");
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  std::vector<std::string> N = names(E);
  EXPECT_EQ(reasonFor(E, "d=97"), "gs must divide d (= 97)");
  EXPECT_EQ(reasonFor(E, "H=5"), "qs must be at least H*D (= 320)");
  EXPECT_TRUE(has(N, "T=2, d=512, gs=128, H=1, D=64, qs=256"));
  // The minimum and one above it (an odd stride).
  EXPECT_TRUE(has(N, "T=2, d=512, gs=128, H=4, D=64, qs=257"));
  for (const Shape &S : E.Shapes)
    EXPECT_TRUE(F.Kernels[0].domainViolations(S).empty()) << S.str();
}

TEST(EdgeShapesTest, MultipleOfAnotherVariable) {
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [{"name": "s", "dtype": "f32", "count": "T*d/gs", "role": "out"}],
    "grid": ["T"], "block": ["gs"],
    "shapes": [{"T": 2, "d": 512, "gs": 128}],
    "vars": {"gs": {"vary": false}, "d": {"multiple_of": "gs"}}
  })J");
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  EXPECT_TRUE(has(names(E), "T=2, d=128, gs=128"));
  EXPECT_TRUE(has(names(E), "T=2, d=384, gs=128"));
  EXPECT_EQ(reasonFor(E, "d=3"), "d must be a multiple of gs (= 128)");
}

TEST(EdgeShapesTest, ShrinkingKeepsFixedVariables) {
  // n=97 is too large with N=2097152; N shrinks, the fixed F does not.
  LaunchSpecFile F = spec(R"J({
    "kernel": "k",
    "args": [
      {"name": "out", "dtype": "f32", "count": "n*F", "role": "out"},
      {"name": "table", "dtype": "f32", "count": "N*F", "role": "in"}
    ],
    "grid": ["n"], "block": [256],
    "shapes": [{"n": 1024, "N": 2097152, "F": 256}],
    "vars": {"F": {"vary": false}}
  })J");
  EdgeShapeSet E = deriveEdgeShapes(F.Kernels[0]);
  EXPECT_TRUE(has(names(E), "n=97, N=128, F=256"));
}

} // namespace
