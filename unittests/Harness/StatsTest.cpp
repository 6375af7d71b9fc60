//===- StatsTest.cpp - Median CI and acceptance rule ----------------------===//
#include "astra/Harness/Stats.h"
#include "gtest/gtest.h"
#include <vector>

using namespace astra;

TEST(StatsTest, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(StatsTest, TooFewSamplesGiveRangeNotExact) {
  // n = 5: P(Bin(5,.5) <= 0) = 1/32 > 0.025, no 95% interval exists.
  MedianCI C = medianCI({5, 1, 4, 2, 3});
  EXPECT_FALSE(C.Exact);
  EXPECT_DOUBLE_EQ(C.Lo, 1);
  EXPECT_DOUBLE_EQ(C.Hi, 5);
  EXPECT_DOUBLE_EQ(C.Median, 3);
  EXPECT_NEAR(C.Coverage, 1 - 2.0 / 32, 1e-12);
}

TEST(StatsTest, SixSamplesUseTheExtremes) {
  // n = 6: P(Bin <= 0) = 1/64 <= 0.025 but P(Bin <= 1) = 7/64 > 0.025.
  MedianCI C = medianCI({6, 5, 4, 3, 2, 1});
  EXPECT_TRUE(C.Exact);
  EXPECT_DOUBLE_EQ(C.Lo, 1);
  EXPECT_DOUBLE_EQ(C.Hi, 6);
  EXPECT_NEAR(C.Coverage, 1 - 2.0 / 64, 1e-12);
}

TEST(StatsTest, KnownOrderStatisticsForTwenty) {
  // Tables give [x(6), x(15)] for n = 20 at 95% (coverage 0.9586).
  std::vector<double> S;
  for (int I = 20; I >= 1; --I)
    S.push_back(I);
  MedianCI C = medianCI(S);
  EXPECT_TRUE(C.Exact);
  EXPECT_DOUBLE_EQ(C.Lo, 6);
  EXPECT_DOUBLE_EQ(C.Hi, 15);
  EXPECT_NEAR(C.Coverage, 0.9586, 1e-4);
  EXPECT_DOUBLE_EQ(C.Median, 10.5);
}

TEST(StatsTest, IntervalNarrowsWithMoreSamplesAndIsDeterministic) {
  auto Make = [](int N) {
    std::vector<double> S;
    // A fixed, skewed sample: 1 + small deterministic scatter.
    for (int I = 0; I < N; ++I)
      S.push_back(1.0 + 0.01 * ((I * 37) % 101) / 101.0);
    return S;
  };
  MedianCI A = medianCI(Make(30)), B = medianCI(Make(300));
  EXPECT_LT(B.relHalfWidth(), A.relHalfWidth());
  MedianCI B2 = medianCI(Make(300));
  EXPECT_EQ(B.Lo, B2.Lo);
  EXPECT_EQ(B.Hi, B2.Hi);
  EXPECT_LE(B.Lo, B.Median);
  EXPECT_GE(B.Hi, B.Median);
}

static MedianCI ci(double Lo, double Med, double Hi) {
  MedianCI C;
  C.Lo = Lo;
  C.Median = Med;
  C.Hi = Hi;
  C.N = 50;
  C.Exact = true;
  return C;
}

TEST(StatsTest, ControlNoise) {
  EXPECT_NEAR(controlNoise(ci(0.998, 1.0, 1.003)), 0.003, 1e-12);
  EXPECT_NEAR(controlNoise(ci(0.97, 0.99, 0.995)), 0.03, 1e-12);
  // An interval that does not hold 1 still counts its far end.
  EXPECT_NEAR(controlNoise(ci(1.01, 1.02, 1.04)), 0.04, 1e-12);
}

TEST(StatsTest, AcceptanceNeedsLowerBoundAboveMargin) {
  MedianCI Quiet = ci(0.998, 1.0, 1.002);
  // Margin is the 1% floor when the control is quiet.
  EXPECT_DOUBLE_EQ(acceptanceMargin(Quiet), 0.01);
  EXPECT_EQ(judgeSpeedup(ci(1.02, 1.05, 1.08), Quiet), Verdict::Faster);
  // A median of 1.05 is not enough when the interval reaches down to 1.005.
  EXPECT_EQ(judgeSpeedup(ci(1.005, 1.05, 1.08), Quiet), Verdict::NoChange);
  EXPECT_EQ(judgeSpeedup(ci(0.90, 0.92, 0.95), Quiet), Verdict::Slower);
}

TEST(StatsTest, NoisyControlRaisesTheBar) {
  MedianCI Noisy = ci(0.95, 1.0, 1.04); // noise 5%
  EXPECT_NEAR(acceptanceMargin(Noisy), 0.05, 1e-12);
  EXPECT_EQ(judgeSpeedup(ci(1.03, 1.06, 1.09), Noisy), Verdict::NoChange);
  EXPECT_EQ(judgeSpeedup(ci(1.06, 1.08, 1.10), Noisy), Verdict::Faster);
  EXPECT_EQ(judgeSpeedup(ci(0.96, 0.97, 0.98), Noisy), Verdict::NoChange);
}

TEST(StatsTest, EmptySpeedupIsNoChange) {
  EXPECT_EQ(judgeSpeedup(MedianCI(), ci(0.99, 1, 1.01)), Verdict::NoChange);
}

TEST(StatsTest, StoppingRule) {
  StoppingRule R;
  R.TimeBudget = 1.0;
  R.TargetHalfWidth = 0.005;
  std::vector<double> Tight(12, 1.0), Loose;
  for (int I = 0; I < 12; ++I)
    Loose.push_back(I % 2 ? 1.2 : 0.8);
  // Too few rounds, or not a whole cycle: never stops.
  EXPECT_FALSE(R.shouldStop(llvm::ArrayRef<double>(Tight).take_front(6),
                            llvm::ArrayRef<double>(Tight).take_front(6), 10));
  std::vector<double> Thirteen(13, 1.0);
  EXPECT_FALSE(R.shouldStop(Thirteen, Thirteen, 10));
  // Tight intervals stop; loose ones go on until the budget.
  EXPECT_TRUE(R.shouldStop(Tight, Tight, 0.1));
  EXPECT_FALSE(R.shouldStop(Loose, Tight, 0.1));
  EXPECT_FALSE(R.shouldStop(Tight, Loose, 0.1));
  EXPECT_TRUE(R.shouldStop(Loose, Loose, 1.5));
  std::vector<double> Many(600, 0.8);
  for (size_t I = 0; I < Many.size(); I += 2)
    Many[I] = 1.2;
  EXPECT_TRUE(R.shouldStop(Many, Many, 0.1));
}
