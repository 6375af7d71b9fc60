//===- DTypeTest.cpp - Element type names and sizes -----------------------===//
#include "astra/Support/DType.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

const DType All[] = {DType::F32,     DType::F64,     DType::F16, DType::BF16,
                     DType::FP8E4M3, DType::FP8E5M2, DType::I8,  DType::U8,
                     DType::I16,     DType::U16,     DType::I32, DType::U32,
                     DType::I64,     DType::U64};

TEST(DTypeTest, NamesRoundTrip) {
  for (DType T : All)
    EXPECT_EQ(parseDType(dtypeName(T)), T) << dtypeName(T).str();
  EXPECT_EQ(parseDType("f16"), DType::F16);
  EXPECT_EQ(parseDType("fp8e4m3"), DType::FP8E4M3);
  EXPECT_EQ(parseDType("F32"), std::nullopt);
  EXPECT_EQ(parseDType("half"), std::nullopt);
  EXPECT_EQ(parseDType(""), std::nullopt);
  EXPECT_EQ(dtypeNames(), "f32 f64 f16 bf16 fp8e4m3 fp8e5m2 i8 u8 i16 u16 "
                          "i32 u32 i64 u64 bool");
}

TEST(DTypeTest, Bool) {
  EXPECT_EQ(parseDType("bool"), DType::Bool);
  EXPECT_EQ(dtypeName(DType::Bool), "bool");
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_FALSE(isFloatDType(DType::Bool));
  EXPECT_FALSE(isSignedIntDType(DType::Bool));
  int64_t Lo;
  uint64_t Hi;
  intDTypeLimits(DType::Bool, Lo, Hi);
  EXPECT_EQ(Lo, 0);
  EXPECT_EQ(Hi, 1u);
  intDTypeLimits(DType::I8, Lo, Hi);
  EXPECT_EQ(Lo, -128);
  EXPECT_EQ(Hi, 127u);
}

TEST(DTypeTest, SizesAndKinds) {
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::FP8E5M2), 1u);
  EXPECT_EQ(dtypeSize(DType::U32), 4u);
  unsigned Floats = 0, Signed = 0, Halves = 0;
  for (DType T : All) {
    Floats += isFloatDType(T);
    Signed += isSignedIntDType(T);
    Halves += isHalfDType(T);
    // The spelling says the size: f32, u64, ... (fp8 and bf16 aside).
    if (!isFloatDType(T) || T == DType::F32 || T == DType::F64 ||
        T == DType::F16)
      EXPECT_EQ(std::to_string(dtypeSize(T) * 8),
                dtypeName(T).drop_front(1).str());
  }
  EXPECT_EQ(Floats, 6u);
  EXPECT_EQ(Signed, 4u);
  EXPECT_EQ(Halves, 2u);
  EXPECT_TRUE(isHalfDType(DType::BF16));
  EXPECT_FALSE(isHalfDType(DType::FP8E4M3));
  EXPECT_TRUE(isSignedIntDType(DType::I8));
  EXPECT_FALSE(isSignedIntDType(DType::U8));
}

} // namespace
