//===- LaunchContractTest.cpp - A plan's merged launch --------------------===//
#include "astra/Agent/Plan.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

std::string messageOf(Error E) { return toString(std::move(E)); }

TEST(LaunchContract, MergesLaunchStepsUnderOneBound) {
  // coarsen's block split carries the bound; its fold edits no source and
  // takes the bound from the merged launch.
  Expected<LaunchOverrides> O = launchOverridesOf(
      {"coarsen:kernel=k,extent=g,factor=8",
       "launch:kernel=k,block-x-div=8,block-exact=1,min-threads=4194304",
       "fold-blocks:kernel=k,dim=y,exact=1",
       "launch:kernel=k,fold-y=8,fold-exact=1"});
  ASSERT_TRUE(bool(O)) << messageOf(O.takeError());
  EXPECT_EQ(O->MinThreads, 4194304);
  EXPECT_EQ(O->BlockXDiv, 8);
  EXPECT_EQ(O->FoldY, 8);

  // Both steps with source edits carry the same bound.
  O = launchOverridesOf({"launch:kernel=k,B=128,block=128,min-threads=1024",
                         "launch:kernel=k,grid-x-div=4,min-threads=1024"});
  ASSERT_TRUE(bool(O)) << messageOf(O.takeError());
  EXPECT_EQ(O->str(), "B=128,grid-x-div=4,min-threads=1024");
}

TEST(LaunchContract, RefusesAnUnboundedStepThatEditsTheSource) {
  // B=128 and block=128 are written into the file for every size; the
  // bound of the later step would make the launch below it disagree.
  Expected<LaunchOverrides> O =
      launchOverridesOf({"launch:kernel=k,B=128,block=128",
                         "launch:kernel=k,grid-x-div=4,min-threads=1048576"});
  ASSERT_FALSE(bool(O));
  std::string M = messageOf(O.takeError());
  EXPECT_NE(M.find("launch:kernel=k,B=128,block=128"), std::string::npos) << M;
  EXPECT_NE(M.find("same min-threads"), std::string::npos) << M;

  // A different bound on each is refused too.
  O = launchOverridesOf({"launch:kernel=k,block-x-div=2,min-threads=64",
                         "launch:kernel=k,B=128,min-threads=128"});
  EXPECT_FALSE(bool(O));
  consumeError(O.takeError());

  // Another kernel's step is not part of this kernel's launch.
  O = launchOverridesOf({"launch:kernel=other,B=128,block=128",
                         "launch:kernel=k,grid-x-div=4,min-threads=1048576"},
                        "k");
  ASSERT_TRUE(bool(O)) << messageOf(O.takeError());
  EXPECT_TRUE(O->Vars.empty());
}

TEST(LaunchContract, WhichStepsEditTheSource) {
  auto Edits = [](StringRef Step) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    EXPECT_TRUE(bool(P));
    return P && launchStepEditsSource(*P);
  };
  EXPECT_TRUE(Edits("launch:kernel=k,B=512"));
  EXPECT_TRUE(Edits("launch:kernel=k,block=512"));
  EXPECT_TRUE(Edits("launch:kernel=k,grid-x-div=4"));
  EXPECT_TRUE(Edits("launch:kernel=k,block-x-div=2,block-exact=1"));
  EXPECT_FALSE(Edits("launch:kernel=k,fold-y=8,fold-exact=1"));
  EXPECT_FALSE(Edits("launch:kernel=k,grid-y-div=4,min-threads=64"));
}

} // namespace

namespace {

TEST(LaunchContract, NamesAnotherInstantiation) {
  // The step's template-arg becomes the contract's, with its block= as the
  // new argument's value (which the harness checks against the launch).
  Expected<LaunchOverrides> O = launchOverridesOf(
      {"launch:kernel=row_sum,B=512,block=512,template-arg=0"});
  ASSERT_TRUE(bool(O)) << messageOf(O.takeError());
  EXPECT_EQ(O->str(), "B=512,template-arg=0,template-value=512");
  Expected<LaunchOverrides> NoBlock =
      launchOverridesOf({"launch:kernel=row_sum,B=512,template-arg=0"});
  ASSERT_FALSE(bool(NoBlock));
  EXPECT_NE(messageOf(NoBlock.takeError()).find("template-arg needs block="),
            std::string::npos);
  Expected<LaunchSpecFile> F = parseSpec(R"json({
    "kernel": "row_sum<128>",
    "args": [
      {"name": "out", "dtype": "f32", "count": "R", "role": "out"},
      {"name": "in", "dtype": "f32", "count": "R*C", "role": "in"},
      {"name": "cols", "dtype": "i32", "value": "C"}
    ],
    "grid": ["R"], "block": ["B"],
    "shapes": [{"R": 64, "C": 1000, "B": 128}],
    "vars": {"B": {"vary": false}},
    "tunable": {"B": [256, 512]}
  })json",
                                         "t.json");
  ASSERT_TRUE(bool(F)) << messageOf(F.takeError());
  json::Object C = launchContract(F->Kernels[0], *O);
  EXPECT_EQ(C.getString("kernel").value_or(""), "row_sum<512>");
  EXPECT_EQ(C.getInteger("template_arg").value_or(-1), 0);
  // Without template-arg the contract names no kernel: the plan's.
  O = launchOverridesOf({"launch:kernel=row_sum,B=512,block=512"});
  ASSERT_TRUE(bool(O)) << messageOf(O.takeError());
  json::Object Plain = launchContract(F->Kernels[0], *O);
  EXPECT_FALSE(Plain.getString("kernel").has_value());
}

} // namespace
