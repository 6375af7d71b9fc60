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
