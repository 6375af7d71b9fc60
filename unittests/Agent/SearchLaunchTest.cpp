//===- SearchLaunchTest.cpp - The launch-shaped proposals of the search ---===//
#include "SearchLaunch.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

std::vector<std::string> factors(unsigned OutputPackWidth, uint64_t Threads) {
  AgentContext Ctx;
  Ctx.CoarsenSteps = {"coarsen:kernel=k,extent=group_size"};
  Ctx.OutputPackWidth = OutputPackWidth;
  Ctx.BlockThreadsAfter = [Threads](const std::vector<std::string> &) {
    return Threads;
  };
  std::vector<std::string> Out;
  for (const CoarsenProposal &P : coarsenProposals(Ctx, {}))
    Out.push_back(P.Coarsen.substr(P.Coarsen.rfind('=') + 1));
  return Out;
}

TEST(SearchLaunch, CoarsenFactorsFitTheOutputPack) {
  // One-byte outputs (int8 quantization): 16 of them make one 16-byte store.
  EXPECT_EQ(factors(16, 128), (std::vector<std::string>{"8", "16", "4", "2"}));
  // Two-byte outputs: 16 would be two packs, stored element by element.
  EXPECT_EQ(factors(8, 128), (std::vector<std::string>{"8", "4", "2"}));
  // Each factor divides the block and leaves at least two threads.
  EXPECT_EQ(factors(16, 16), (std::vector<std::string>{"8", "4", "2"}));
  EXPECT_TRUE(factors(16, 0).empty());
  // After warp-reduce coarsen does not apply.
  AgentContext Ctx;
  Ctx.CoarsenSteps = {"coarsen:kernel=k,extent=group_size"};
  Ctx.OutputPackWidth = 16;
  Ctx.BlockThreadsAfter = [](const std::vector<std::string> &) {
    return uint64_t(128);
  };
  EXPECT_TRUE(coarsenProposals(Ctx, {"warp-reduce:loop=k:L1"}).empty());
}

TEST(SearchLaunch, CoarsenPackedLoadsComeAfterTheElementLoads) {
  AgentContext Ctx;
  Ctx.CoarsenSteps = {"coarsen:kernel=k,extent=g",
                      "coarsen:kernel=k,extent=g,loads=packs"};
  Ctx.OutputPackWidth = 8;
  Ctx.BlockThreadsAfter = [](const std::vector<std::string> &) {
    return uint64_t(128);
  };
  std::vector<std::string> Got;
  for (const CoarsenProposal &P : coarsenProposals(Ctx, {}))
    Got.push_back(P.Coarsen);
  EXPECT_EQ(Got, (std::vector<std::string>{
                     "coarsen:kernel=k,extent=g,factor=8",
                     "coarsen:kernel=k,extent=g,factor=4",
                     "coarsen:kernel=k,extent=g,factor=2",
                     "coarsen:kernel=k,extent=g,loads=packs,factor=8",
                     "coarsen:kernel=k,extent=g,loads=packs,factor=4",
                     "coarsen:kernel=k,extent=g,loads=packs,factor=2"}));
}

} // namespace
