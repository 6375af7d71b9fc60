//===- VerifyTest.cpp - The harness's pure logic --------------------------===//
#include "astra/Harness/Spec.h"
#include "astra/Harness/Verify.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

// Succeeded / failed, printing the error (LLVMTestingSupport is not linked).
#define ASSERT_OK(E)                                                           \
  ASSERT_TRUE(static_cast<bool>(E)) << toString((E).takeError())

static const char *Ptx = R"(
.version 8.0
.target sm_90a
.extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDevice
(
	.param .b64 p0
)
;
.visible .entry _Z8silu_mulP6__halfPKS_i(
	.param .u64 a
)
{ ret; }
.visible .entry _Z11act_and_mulI6__halfEvPT_PKS1_i(
	.param .u64 a
)
{ ret; }
.visible .entry plain_c_kernel(
	.param .u64 a
)
{ ret; }
.visible .entry _ZN2ns6scaledEPf(.param .u64 a) { ret; }
)";

TEST(VerifyTest, FindsEntriesByDemangledName) {
  Expected<std::string> E = findPtxEntry(Ptx, "silu_mul");
  ASSERT_OK(E);
  EXPECT_EQ(*E, "_Z8silu_mulP6__halfPKS_i");
  E = findPtxEntry(Ptx, "act_and_mul<__half>");
  ASSERT_OK(E);
  EXPECT_EQ(*E, "_Z11act_and_mulI6__halfEvPT_PKS1_i");
  // Spaces in the spec's name do not matter.
  E = findPtxEntry(Ptx, "act_and_mul< __half >");
  ASSERT_OK(E);
  E = findPtxEntry(Ptx, "plain_c_kernel");
  ASSERT_OK(E);
  EXPECT_EQ(*E, "plain_c_kernel");
  E = findPtxEntry(Ptx, "scaled");
  ASSERT_OK(E);
  EXPECT_EQ(*E, "_ZN2ns6scaledEPf");
}

TEST(VerifyTest, MissingEntryNamesWhatThereIs) {
  Expected<std::string> E = findPtxEntry(Ptx, "act_and_mul<float>");
  ASSERT_FALSE(static_cast<bool>(E));
  std::string Msg = toString(E.takeError());
  EXPECT_NE(Msg.find("no kernel 'act_and_mul<float>'"), std::string::npos);
  EXPECT_NE(Msg.find("act_and_mul<__half>"), std::string::npos);
  EXPECT_NE(Msg.find("template must be instantiated"), std::string::npos);
}

TEST(VerifyTest, DetectsDeviceSideLaunches) {
  std::vector<std::string> L = findDeviceSideLaunches(Ptx);
  ASSERT_EQ(L.size(), 1u);
  EXPECT_EQ(L[0], "__cudaCDP2LaunchDevice");
  EXPECT_TRUE(findDeviceSideLaunches(".extern .func foo\n").empty());
}

static LaunchSpecFile spec(StringRef Json) {
  Expected<LaunchSpecFile> F = parseSpec(Json, "t.astra.json");
  if (!F) {
    ADD_FAILURE() << toString(F.takeError());
    return LaunchSpecFile();
  }
  return std::move(*F);
}

TEST(VerifyTest, EdgeShapesFromTheSmallestShape) {
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
  auto Edges = deriveEdgeShapes(F.Kernels[0]);
  std::vector<std::string> Names;
  for (auto &E : Edges)
    Names.push_back(E.first);
  // Base is T=1, d=4096 (the smallest); T=1 itself is a spec shape.
  EXPECT_EQ(Names.size(), 15u);
  EXPECT_EQ(Names.front(), "T=3, d=4096");
  EXPECT_NE(std::find(Names.begin(), Names.end(), "T=1, d=97"), Names.end());
  EXPECT_NE(std::find(Names.begin(), Names.end(), "T=1, d=1"), Names.end());
  EXPECT_EQ(std::find(Names.begin(), Names.end(), "T=1, d=4096"),
            Names.end());
}

TEST(VerifyTest, EdgeShapesStaySmallAndValid) {
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
  auto Edges = deriveEdgeShapes(F.Kernels[0]);
  ASSERT_FALSE(Edges.empty());
  for (auto &[Name, Vars] : Edges) {
    Shape S;
    for (auto &[V, X] : Vars)
      S.set(V, X);
    Expected<ResolvedLaunch> L = resolve(F.Kernels[0], S);
    ASSERT_OK(L);
    uint64_t Bytes = 0;
    for (const ResolvedArg &A : L->Args)
      Bytes += A.Bytes;
    EXPECT_LE(Bytes, 64u << 20) << Name;
  }
  bool Shrunk = false;
  for (auto &E : Edges)
    Shrunk |= E.first == "n=97, N=128, F=128";
  EXPECT_TRUE(Shrunk);
}

TEST(VerifyTest, ReasonNamesRoundTrip) {
  for (Reason R : {Reason::Trap, Reason::Hang, Reason::OutOfBoundsWrite,
                   Reason::BelowPhysicalFloor, Reason::DeviceSideLaunch,
                   Reason::NanMismatch})
    EXPECT_EQ(parseReason(reasonName(R)), R);
  EXPECT_EQ(reasonName(Reason::UnwrittenOutput), "unwritten-output");
}

TEST(VerifyTest, ResultJsonRoundTrip) {
  VerifyResult R;
  R.KernelName = "k";
  R.Verdict = Verdict::Refused;
  R.Why = Reason::WrongResult;
  R.Detail = "3 element checks fail";
  R.Device.Name = "GPU";
  R.Device.CopyGBs = 3000;
  ShapeResult S;
  S.Shape = "n=1";
  S.Checked = S.Correct = true;
  TimingResult T;
  T.Speedup.Median = 1.25;
  T.Speedup.N = 30;
  T.Verdict = Verdict::Faster;
  S.Timing = T;
  R.Shapes.push_back(S);
  R.Notes.push_back("a note");
  json::Value V = toJSON(R);
  VerifyResult Back;
  json::Path::Root Root;
  ASSERT_TRUE(fromJSON(V, Back, Root));
  EXPECT_EQ(Back.Why, Reason::WrongResult);
  EXPECT_EQ(Back.Detail, R.Detail);
  EXPECT_EQ(Back.Device.CopyGBs, 3000);
  ASSERT_EQ(Back.Shapes.size(), 1u);
  ASSERT_TRUE(Back.Shapes[0].Timing.has_value());
  EXPECT_EQ(Back.Shapes[0].Timing->Speedup.Median, 1.25);
  EXPECT_EQ(Back.Shapes[0].Timing->Verdict, Verdict::Faster);
  EXPECT_EQ(Back.Notes, R.Notes);
}
