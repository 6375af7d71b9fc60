//===- SizeBoundTest.cpp - Launches bounded by a size ---------------------===//
#include "SearchSizeBound.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace astra;

namespace {

/// A judged plan, mixed, with one speedup and verdict per shape.
Evaluation
mixedPlan(const std::vector<std::string> &Steps,
          const std::vector<std::tuple<std::string, Verdict, double>> &Shapes) {
  Evaluation E;
  E.Cand.Steps = Steps;
  VerifyResult R;
  R.Verdict = Verdict::Mixed;
  R.GeoMeanSpeedup = 1.1;
  for (const auto &[Name, V, Speedup] : Shapes) {
    ShapeResult S;
    S.Shape = Name;
    S.Checked = S.Correct = true;
    TimingResult T;
    T.Verdict = V;
    T.Speedup.Median = Speedup;
    S.Timing = T;
    R.Shapes.push_back(S);
  }
  E.Result = R;
  return E;
}

const std::vector<std::string> Plan = {"vectorize-loads:loop=k:L0,any-grid=1",
                                       "launch:kernel=k,block-x-div=4"};

TEST(SizeBound, FasterShapesBelowTheSlowerOnesGiveTheirGainUp) {
  // sage_mean_concat on an H100: faster on the single row and on 1024 rows,
  // slower at 2^21 threads (F=602), faster again at 23M threads. The bound
  // goes above the slower shape; the shapes below it count as 1x.
  AgentContext Ctx;
  Ctx.ShapeThreads = {{"R=1", 128},
                      {"R=1024", 131072},
                      {"F=602", 2097152},
                      {"R=180224", 23068672}};
  std::vector<Evaluation> History = {
      mixedPlan(Plan, {{"R=1", Verdict::Faster, 1.126},
                       {"R=1024", Verdict::Faster, 1.066},
                       {"F=602", Verdict::Slower, 0.867},
                       {"R=180224", Verdict::Faster, 1.496}})};
  Ctx.History = &History;
  std::vector<SizeBoundProposal> P = sizeBoundProposals(Ctx, {});
  ASSERT_EQ(P.size(), 2u);
  // First the split: below the bound the kernel as it was before the form
  // (keep-original), then the same bound on one kernel.
  EXPECT_TRUE(P[0].Base.empty());
  EXPECT_EQ(P[0].Option, "keep-original:kernel=k");
  ASSERT_EQ(P[0].Then.size(), 2u);
  EXPECT_EQ(P[0].Then[0], Plan[0]);
  EXPECT_EQ(P[0].Then[1],
            "launch:kernel=k,block-x-div=4,min-threads=16777216,small-entry=1");
  EXPECT_GT(P[0].Gain, P[1].Gain);
  EXPECT_TRUE(P[1].Base.empty());
  EXPECT_EQ(P[1].Option, Plan[0]);
  ASSERT_EQ(P[1].Then.size(), 1u);
  EXPECT_EQ(P[1].Then[0], "launch:kernel=k,block-x-div=4,min-threads=16777216");
  EXPECT_NEAR(P[1].Gain, std::pow(1.496, 0.25), 1e-9);
}

TEST(SizeBound, NoSecondCopyOfTheKernel) {
  // A plan that keeps a copy already is bounded as it is.
  AgentContext Ctx;
  Ctx.ShapeThreads = {{"a", 262144}, {"c", 4194304}};
  std::vector<std::string> Kept = {"keep-original:kernel=k"};
  Kept.insert(Kept.end(), Plan.begin(), Plan.end());
  std::vector<Evaluation> History = {mixedPlan(
      Kept, {{"a", Verdict::Slower, 0.77}, {"c", Verdict::Faster, 1.5}})};
  Ctx.History = &History;
  std::vector<SizeBoundProposal> P = sizeBoundProposals(Ctx, {});
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].Base, std::vector<std::string>{"keep-original:kernel=k"});
  EXPECT_EQ(P[0].Then[0], "launch:kernel=k,block-x-div=4,min-threads=4194304");
}

TEST(SizeBound, ADivisionAsTheFirstStepIsBoundedWhereItIs) {
  // A kernel that takes the divided launch as it is (its own grid-stride
  // loop): the division comes first, the bound goes on it, and no copy of
  // the kernel below the bound (it would run the same code).
  AgentContext Ctx;
  Ctx.ShapeThreads = {{"a", 262144}, {"c", 4194304}};
  std::vector<std::string> First = {"launch:kernel=k,grid-x-div=4",
                                    "fast-math:kernel=k"};
  std::vector<Evaluation> History = {mixedPlan(
      First, {{"a", Verdict::Slower, 0.8}, {"c", Verdict::Faster, 1.44}})};
  Ctx.History = &History;
  std::vector<SizeBoundProposal> P = sizeBoundProposals(Ctx, {});
  ASSERT_EQ(P.size(), 1u);
  EXPECT_TRUE(P[0].Base.empty());
  EXPECT_EQ(P[0].Option, "launch:kernel=k,grid-x-div=4,min-threads=4194304");
  EXPECT_EQ(P[0].Then, std::vector<std::string>{"fast-math:kernel=k"});
  EXPECT_NEAR(P[0].Gain, std::sqrt(1.44), 1e-9);
}

TEST(SizeBound, NoBoundWhenTheSlowerShapeIsTheLargest) {
  AgentContext Ctx;
  Ctx.ShapeThreads = {{"small", 128}, {"large", 23068672}};
  std::vector<Evaluation> History = {
      mixedPlan(Plan, {{"small", Verdict::Faster, 1.2},
                       {"large", Verdict::Slower, 0.9}})};
  Ctx.History = &History;
  EXPECT_TRUE(sizeBoundProposals(Ctx, {}).empty());
}

TEST(SizeBound, UnchangedShapesBelowTheBoundCountAsOriginal) {
  // Slower at 2^18 threads, unchanged at 2^20, faster from 2^22: the
  // bound is 2^22 rounded down to a power of two above 2^18 (4194304), and
  // the unchanged shape below it runs the original (1x), not its 0.995x.
  AgentContext Ctx;
  Ctx.ShapeThreads = {{"a", 262144}, {"b", 1048576}, {"c", 4194304}};
  std::vector<Evaluation> History = {
      mixedPlan(Plan, {{"a", Verdict::Slower, 0.77},
                       {"b", Verdict::NoChange, 0.995},
                       {"c", Verdict::Faster, 1.5}})};
  Ctx.History = &History;
  std::vector<SizeBoundProposal> P = sizeBoundProposals(Ctx, {});
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[1].Then[0], "launch:kernel=k,block-x-div=4,min-threads=4194304");
  EXPECT_NEAR(P[1].Gain, std::cbrt(1.5), 1e-9);
}

} // namespace

namespace {
/// Four launches of growing size (threads in all).
const std::vector<std::pair<std::string, uint64_t>> ScatterThreads = {
    {"E=15", 3840},
    {"E=15360", 2097152},
    {"E=163840", 2097152 * 4},
    {"E=901120", 2097152 * 8}};

VerifyResult
recheck(const std::vector<std::tuple<std::string, Verdict, double>> &Shapes) {
  return *mixedPlan({}, Shapes).Result;
}
} // namespace

TEST(RecheckSplit, BoundsTheOneLaunchStepBehindACopy) {
  // As scatter_add on an H100 (2026-11-25): vectorize-loads + B=128 was
  // faster when judged (1.066x) and mixed when re-verified, the smallest
  // shape slower.
  std::vector<std::string> Steps = {"launch:kernel=scatter_add,B=128,block=128",
                                    "vectorize-loads:loop=scatter_add:L0"};
  double Estimate = 0;
  auto Split =
      splitAfterRecheck(Steps,
                        recheck({{"E=15", Verdict::Slower, 0.985},
                                 {"E=15360", Verdict::Faster, 1.177},
                                 {"E=163840", Verdict::Faster, 1.089},
                                 {"E=901120", Verdict::NoChange, 1.004}}),
                        ScatterThreads, "scatter_add", Estimate);
  ASSERT_TRUE(Split.has_value());
  EXPECT_EQ(*Split,
            (std::vector<std::string>{
                "keep-original:kernel=scatter_add",
                "launch:kernel=scatter_add,B=128,block=128,min-threads=2097152,"
                "small-entry=1",
                "vectorize-loads:loop=scatter_add:L0"}));
  EXPECT_NEAR(Estimate, std::pow(1.177 * 1.089 * 1.004, 0.25), 1e-9);
}

TEST(RecheckSplit, APlanWithoutALaunchStepGetsADispatch) {
  double Estimate = 0;
  auto Split = splitAfterRecheck({"vectorize-loads:loop=k:L0"},
                                 recheck({{"E=15", Verdict::Slower, 0.98},
                                          {"E=15360", Verdict::NoChange, 1.0},
                                          {"E=163840", Verdict::Faster, 1.3},
                                          {"E=901120", Verdict::Faster, 1.2}}),
                                 ScatterThreads, "k", Estimate);
  ASSERT_TRUE(Split.has_value());
  // The bound: the smallest faster shape above the slower one, rounded
  // down to a power of two above every shape below it.
  EXPECT_EQ(*Split, (std::vector<std::string>{
                        "keep-original:kernel=k", "vectorize-loads:loop=k:L0",
                        "launch:kernel=k,min-threads=8388608,small-entry=1"}));
}

TEST(RecheckSplit, NoneWhereItCannotHelpOrWouldGuess) {
  double Estimate = 0;
  auto Mixed = recheck(
      {{"E=15", Verdict::Slower, 0.98}, {"E=901120", Verdict::Faster, 1.2}});
  // Slower on the largest shape: no bound keeps the gain.
  EXPECT_FALSE(splitAfterRecheck({"vectorize-loads:loop=k:L0"},
                                 recheck({{"E=15", Verdict::Faster, 1.1},
                                          {"E=901120", Verdict::Slower, 0.9}}),
                                 ScatterThreads, "k", Estimate));
  // Two launch steps, a bound already, a copy already, a template argument.
  for (const std::vector<std::string> &Steps :
       std::vector<std::vector<std::string>>{
           {"launch:kernel=k,block-x-div=2", "launch:kernel=k,fold-x=2"},
           {"launch:kernel=k,B=128,block=128,min-threads=4096"},
           {"keep-original:kernel=k", "vectorize-loads:loop=k:L0"},
           {"launch:kernel=k,B=512,block=512,template-arg=0"}})
    EXPECT_FALSE(
        splitAfterRecheck(Steps, Mixed, ScatterThreads, "k", Estimate));
  // A recheck that is not mixed.
  VerifyResult Slower = Mixed;
  Slower.Verdict = Verdict::Slower;
  EXPECT_FALSE(splitAfterRecheck({"vectorize-loads:loop=k:L0"}, Slower,
                                 ScatterThreads, "k", Estimate));
  // A shape the spec does not know.
  EXPECT_FALSE(splitAfterRecheck({"vectorize-loads:loop=k:L0"},
                                 recheck({{"E=1", Verdict::Slower, 0.98},
                                          {"E=901120", Verdict::Faster, 1.2}}),
                                 ScatterThreads, "k", Estimate));
}
