//===- SpecTest.cpp - Launch spec parsing, errors and resolution ----------===//
#include "astra/Harness/Spec.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

/// All error messages of \p E, one per line, printed as the tool prints them.
std::string messages(Error E) {
  std::string S;
  raw_string_ostream OS(S);
  handleAllErrors(std::move(E), [&](const AstraError &A) {
    A.log(OS);
    OS << "\n";
  });
  return S;
}

const char *SiluSpec = R"json({
  "kernel": "silu_and_mul",
  "args": [
    {"name": "out", "dtype": "f16", "count": "T*d",   "role": "out"},
    {"name": "in",  "dtype": "f16", "count": "T*2*d", "role": "in"},
    {"name": "d",   "dtype": "i32", "value": "d"}
  ],
  "grid":  ["T"],
  "block": ["min(d, 1024)"],
  "shapes": [{"T": 1, "d": 4096}, {"T": 128, "d": 11008}],
  "tolerance": {"rtol": 1e-3, "atol": 1e-5}
})json";

TEST(SpecTest, ParsesTheDesignExample) {
  Expected<LaunchSpecFile> F = parseSpec(SiluSpec, "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  ASSERT_EQ(F->Kernels.size(), 1u);
  const KernelSpec &K = F->Kernels[0];
  EXPECT_EQ(K.Kernel, "silu_and_mul");
  ASSERT_EQ(K.Args.size(), 3u);
  EXPECT_EQ(K.Args[0].Type, DType::F16);
  EXPECT_EQ(K.Args[0].Role, ArgRole::Out);
  EXPECT_FALSE(K.Args[0].IsScalar);
  EXPECT_TRUE(K.Args[2].IsScalar);
  ASSERT_EQ(K.Shapes.size(), 2u);
  EXPECT_EQ(K.Shapes[1].str(), "T=128, d=11008");
  EXPECT_DOUBLE_EQ(K.toleranceFor(DType::F16).Rtol, 1e-3);

  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[1]);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  EXPECT_EQ(L->Grid[0], 128u);
  EXPECT_EQ(L->Grid[1], 1u);
  EXPECT_EQ(L->Block[0], 1024u);
  EXPECT_EQ(L->Args[0].Count, 128u * 11008u);
  EXPECT_EQ(L->Args[0].Bytes, 2u * 128u * 11008u);
  EXPECT_EQ(L->Args[1].Count, 2u * 128u * 11008u);
  EXPECT_EQ(L->Args[2].IntValue, 11008);
  EXPECT_EQ(L->Args[2].ParamSize, 4u);
  int32_t P;
  memcpy(&P, L->Args[2].ParamBytes, 4);
  EXPECT_EQ(P, 11008);
}

} // namespace
