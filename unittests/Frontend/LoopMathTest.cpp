//===- LoopMathTest.cpp - Constant trip counts ----------------------------===//
#include "astra/Frontend/LoopForm.h"
#include "gtest/gtest.h"

using namespace astra;
using clang::BO_Div;
using clang::BO_Mul;
using clang::BO_Shl;
using clang::BO_Shr;

namespace {

TEST(TripCountTest, Additive) {
  EXPECT_EQ(computeTripCount(0, 10, 1, "<"), 10);
  EXPECT_EQ(computeTripCount(0, 10, 3, "<"), 4);
  EXPECT_EQ(computeTripCount(0, 10, 3, "<="), 4);
  EXPECT_EQ(computeTripCount(0, 9, 3, "<="), 4);
  EXPECT_EQ(computeTripCount(10, 0, -1, ">"), 10);
  EXPECT_EQ(computeTripCount(10, 0, -1, ">="), 11);
  EXPECT_EQ(computeTripCount(0, 8, 2, "!="), 4);
  EXPECT_EQ(computeTripCount(5, 0, 1, "<"), 0);
}

TEST(TripCountTest, UnknownWhenItNeverEnds) {
  EXPECT_EQ(computeTripCount(0, 7, 2, "!="), std::nullopt);
  EXPECT_EQ(computeTripCount(0, 10, 0, "<"), std::nullopt);
  EXPECT_EQ(computeTripCount(0, 10, -1, "<"), std::nullopt);
}

TEST(TripCountTest, Geometric) {
  EXPECT_EQ(simulateTripCount(16, 0, BO_Div, 2, ">"), 5);
  EXPECT_EQ(simulateTripCount(128, 0, BO_Shr, 1, ">"), 8);
  EXPECT_EQ(simulateTripCount(1, 32, BO_Mul, 2, "<"), 5);
  EXPECT_EQ(simulateTripCount(1, 32, BO_Shl, 1, "<="), 6);
  EXPECT_EQ(simulateTripCount(1, 32, BO_Mul, 1, "<"), std::nullopt);
}

} // namespace
