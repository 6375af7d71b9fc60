#include "astra/Codegen/PtxStats.h"
#include "gtest/gtest.h"

using namespace astra;

TEST(PtxStatsTest, ParsesPtxasVerboseReport) {
  const char *Report =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z3fooPf\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, "
      "368 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function '_Z3barv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z3barv\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 6 registers, used 0 barriers\n";
  std::vector<KernelResources> K = parsePtxasReport(Report);
  ASSERT_EQ(K.size(), 2u);
  EXPECT_EQ(K[0].Name, "_Z3fooPf");
  EXPECT_EQ(K[0].Registers, 40u);
  EXPECT_EQ(K[0].StackFrameBytes, 16u);
  EXPECT_EQ(K[0].SpillStoreBytes, 8u);
  EXPECT_EQ(K[0].SpillLoadBytes, 4u);
  EXPECT_EQ(K[0].SharedBytes, 2048u);
  EXPECT_EQ(K[0].ConstantBytes, 368u);
  EXPECT_EQ(K[0].Barriers, 1u);
  EXPECT_EQ(K[1].Name, "_Z3barv");
  EXPECT_EQ(K[1].Registers, 6u);
  EXPECT_EQ(K[1].SharedBytes, 0u);
}

TEST(PtxStatsTest, EmptyReportGivesNoKernels) {
  EXPECT_TRUE(parsePtxasReport("").empty());
  EXPECT_TRUE(parsePtxasReport("ptxas info : 0 bytes gmem\n").empty());
}
