//===- SpecTest.cpp - Launch spec parsing, errors and resolution ----------===//
#include "astra/Harness/Spec.h"
#include "gtest/gtest.h"
#include <cstring>

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
  memcpy(&P, L->Args[2].ParamBytes.data(), 4);
  EXPECT_EQ(P, 11008);
}

/// The errors of parsing \p JSON (empty when it parses).
std::string parseErrors(StringRef JSON) {
  Expected<LaunchSpecFile> F = parseSpec(JSON, "s.json");
  if (F)
    return "";
  return messages(F.takeError());
}

/// A one-kernel spec with the given args, grid, block and shapes.
std::string kernel(StringRef Args, StringRef Rest =
                                       R"("grid": [1], "block": [1], "shapes": [{"n": 8}])") {
  return ("{\"kernel\": \"k\", \"args\": [" + Args + "], " + Rest + "}").str();
}

TEST(SpecTest, KernelListAndFind) {
  Expected<LaunchSpecFile> F = parseSpec(R"json({"kernels": [
    {"kernel": "a", "args": [], "grid": 1, "block": [32, 4], "shapes": [{}]},
    {"kernel": "act< __half >", "args": [], "grid": ["1", 2, "3"], "block": [1],
     "shapes": [{"_note": "comment", "x": 1}], "noalias": true, "_why": "comment"}
  ]})json", "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  ASSERT_EQ(F->Kernels.size(), 2u);
  EXPECT_EQ(F->Kernels[1].Path, "kernels[1]");
  EXPECT_EQ(F->find("act<__half>"), &F->Kernels[1]);
  EXPECT_EQ(F->find("a"), &F->Kernels[0]);
  EXPECT_EQ(F->find("b"), nullptr);
  EXPECT_EQ(F->Kernels[1].baseName(), "act");
  EXPECT_TRUE(F->Kernels[1].NoAlias);
  EXPECT_EQ(F->Kernels[1].Shapes[0].str(), "x=1");
  Expected<ResolvedLaunch> L = resolve(F->Kernels[1], F->Kernels[1].Shapes[0]);
  ASSERT_TRUE(bool(L));
  EXPECT_EQ(L->Grid[2], 3u);
  Expected<ResolvedLaunch> L0 = resolve(F->Kernels[0], F->Kernels[0].Shapes[0]);
  ASSERT_TRUE(bool(L0));
  EXPECT_EQ(L0->Block[1], 4u);
  EXPECT_EQ(L0->Block[2], 1u);
}

TEST(SpecTest, ScalarValues) {
  Expected<LaunchSpecFile> F = parseSpec(kernel(R"json(
      {"name": "eps", "dtype": "f32", "value": "1e-6"},
      {"name": "half_n", "dtype": "f64", "value": "n / 2"},
      {"name": "h", "dtype": "f16", "value": 0.5},
      {"name": "big", "dtype": "i64", "value": "n * 1000000000000"},
      {"name": "u", "dtype": "u8", "value": 255})json"), "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[0]);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  float Eps;
  memcpy(&Eps, L->Args[0].ParamBytes.data(), 4);
  EXPECT_EQ(Eps, 1e-6f);
  EXPECT_EQ(L->Args[0].ParamSize, 4u);
  EXPECT_TRUE(L->Args[1].IsFloat);
  EXPECT_EQ(L->Args[1].FloatValue, 4.0);
  EXPECT_EQ(L->Args[1].ParamSize, 8u);
  uint16_t H;
  memcpy(&H, L->Args[2].ParamBytes.data(), 2);
  EXPECT_EQ(H, 0x3800);
  EXPECT_EQ(L->Args[3].IntValue, 8000000000000);
  EXPECT_EQ(L->Args[4].ParamBytes[0], 255);
  EXPECT_EQ(L->Args[4].ParamSize, 1u);
}

TEST(SpecTest, BoolAndStructValues) {
  Expected<LaunchSpecFile> F = parseSpec(kernel(R"json(
      {"name": "flag", "dtype": "bool", "value": true},
      {"name": "odd", "dtype": "bool", "value": "n % 2"},
      {"name": "p", "size": 24, "fields": [
        {"name": "a", "dtype": "f32", "offset": 0, "value": "1.5"},
        {"name": "b", "dtype": "bool", "offset": 4, "value": 1},
        {"name": "c", "dtype": "f64", "offset": 8, "value": "n"},
        {"name": "d.x", "dtype": "i16", "offset": 16, "value": -2},
        {"name": "w[1]", "dtype": "u8", "offset": 19, "value": 200}]})json"),
                                         "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  EXPECT_TRUE(K.Args[2].IsStruct);
  EXPECT_TRUE(K.Args[2].IsScalar);
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[0]);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  EXPECT_EQ(L->Args[0].ParamSize, 1u);
  EXPECT_EQ(L->Args[0].ParamBytes[0], 1);
  EXPECT_EQ(L->Args[1].ParamBytes[0], 0); // n = 8
  const ResolvedArg &P = L->Args[2];
  ASSERT_EQ(P.ParamSize, 24u);
  ASSERT_EQ(P.ParamBytes.size(), 24u);
  float A;
  memcpy(&A, P.ParamBytes.data(), 4);
  EXPECT_EQ(A, 1.5f);
  EXPECT_EQ(P.ParamBytes[4], 1);
  for (unsigned Pad : {5u, 6u, 7u, 18u, 20u, 23u})
    EXPECT_EQ(P.ParamBytes[Pad], 0) << "padding byte " << Pad;
  double C;
  memcpy(&C, P.ParamBytes.data() + 8, 8);
  EXPECT_EQ(C, 8.0);
  int16_t D;
  memcpy(&D, P.ParamBytes.data() + 16, 2);
  EXPECT_EQ(D, -2);
  EXPECT_EQ(P.ParamBytes[19], 200);
}

TEST(SpecTest, BoolAndStructErrors) {
  // A field past the end; a float for an integer field; a struct with a
  // dtype.
  Expected<LaunchSpecFile> F = parseSpec(kernel(R"json(
      {"name": "p", "size": 8, "dtype": "f32", "fields": [
        {"name": "a", "dtype": "f64", "offset": 4, "value": 1},
        {"name": "b", "dtype": "i32", "offset": 0, "value": "0.5"}]})json"),
                                         "s.json");
  ASSERT_FALSE(bool(F));
  std::string M = messages(F.takeError());
  EXPECT_NE(M.find("args[0].dtype: a struct ('fields' given) has no 'dtype'"),
            std::string::npos)
      << M;
  EXPECT_NE(M.find("args[0].fields[0].offset: field 'a' (f64) at offset 4 "
                   "ends past the struct's 8 bytes"),
            std::string::npos)
      << M;
  EXPECT_NE(M.find("args[0].fields[1].value: float literal given for integer "
                   "dtype 'i32'"),
            std::string::npos)
      << M;
  // A bool is 0 or 1 on every shape.
  Expected<LaunchSpecFile> G = parseSpec(
      kernel(R"json({"name": "flag", "dtype": "bool", "value": "n"})json"),
      "s.json");
  ASSERT_TRUE(bool(G)) << messages(G.takeError());
  Expected<ResolvedLaunch> L = resolve(G->Kernels[0], G->Kernels[0].Shapes[0]);
  ASSERT_FALSE(bool(L));
  M = messages(L.takeError());
  EXPECT_NE(M.find("value 8 for shape {n=8} does not fit in bool"),
            std::string::npos)
      << M;
}

TEST(SpecTest, DefaultTolerance) {
  Expected<LaunchSpecFile> F = parseSpec(
      kernel("", R"("grid": [1], "block": [1], "shapes": [{}], "tolerance": {"atol": 0.5})"),
      "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  Tolerance T = F->Kernels[0].toleranceFor(DType::BF16);
  EXPECT_DOUBLE_EQ(T.Rtol, 8e-3);
  EXPECT_DOUBLE_EQ(T.Atol, 0.5);
  EXPECT_DOUBLE_EQ(defaultTolerance(DType::F32).Rtol, 1e-5);
  EXPECT_DOUBLE_EQ(defaultTolerance(DType::F16).Rtol, 1e-3);
  EXPECT_EQ(defaultTolerance(DType::I32).Rtol, 0.0);
}

std::string resolveErrors(StringRef JSON);

// Per-output tolerance: own field, else the kernel's (floats only), else
// the dtype's default; integers exact unless their own atol.
TEST(SpecTest, PerOutputTolerance) {
  Expected<LaunchSpecFile> F = parseSpec(
      kernel(R"json(
      {"name": "q", "dtype": "i8", "count": "n", "role": "out", "tolerance": {"atol": 1}},
      {"name": "ids", "dtype": "i32", "count": "n", "role": "out"},
      {"name": "scale", "dtype": "f32", "count": "n", "role": "out", "tolerance": {"rtol": 1e-6}},
      {"name": "y", "dtype": "bf16", "count": "n", "role": "inout", "tolerance": {"atol": 0}},
      {"name": "z", "dtype": "f16", "count": "n", "role": "out"},
      {"name": "x", "dtype": "f32", "count": "n", "role": "in"})json",
             R"("grid": [1], "block": [1], "shapes": [{"n": 8}], "tolerance": {"rtol": 0.125, "atol": 0.002})"),
      "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  ASSERT_TRUE(K.Args[0].Atol.has_value());
  EXPECT_FALSE(K.Args[0].Rtol.has_value());
  Tolerance Q = K.toleranceFor(K.Args[0]);
  EXPECT_EQ(Q.Rtol, 0.0);
  EXPECT_EQ(Q.Atol, 1.0);
  // An integer output without its own tolerance: exact, whatever the kernel.
  Tolerance Ids = K.toleranceFor(K.Args[1]);
  EXPECT_EQ(Ids.Rtol, 0.0);
  EXPECT_EQ(Ids.Atol, 0.0);
  // Field by field: own rtol, the kernel's atol.
  Tolerance Sc = K.toleranceFor(K.Args[2]);
  EXPECT_DOUBLE_EQ(Sc.Rtol, 1e-6);
  EXPECT_DOUBLE_EQ(Sc.Atol, 0.002);
  Tolerance Y = K.toleranceFor(K.Args[3]);
  EXPECT_DOUBLE_EQ(Y.Rtol, 0.125);
  EXPECT_EQ(Y.Atol, 0.0);
  Tolerance Z = K.toleranceFor(K.Args[4]);
  EXPECT_DOUBLE_EQ(Z.Rtol, 0.125);
  EXPECT_DOUBLE_EQ(Z.Atol, 0.002);

  // No kernel-level tolerance: the dtype defaults.
  Expected<LaunchSpecFile> G = parseSpec(
      kernel(R"json({"name": "s", "dtype": "f32", "count": "n", "role": "out", "tolerance": {"atol": 0.5}},
                    {"name": "h", "dtype": "f16", "count": "n", "role": "out"})json"),
      "s.json");
  ASSERT_TRUE(bool(G)) << messages(G.takeError());
  Tolerance S = G->Kernels[0].toleranceFor(G->Kernels[0].Args[0]);
  EXPECT_DOUBLE_EQ(S.Rtol, 1e-5);
  EXPECT_DOUBLE_EQ(S.Atol, 0.5);
  Tolerance H = G->Kernels[0].toleranceFor(G->Kernels[0].Args[1]);
  EXPECT_DOUBLE_EQ(H.Rtol, 1e-3);
  EXPECT_DOUBLE_EQ(H.Atol, 1e-5);
}

TEST(SpecTest, PerOutputToleranceErrors) {
  auto Arg = [](StringRef DType, StringRef Role, StringRef Tol) {
    return kernel(("{\"name\": \"x\", \"dtype\": \"" + DType +
                   "\", \"count\": \"n\", \"role\": \"" + Role +
                   "\", \"tolerance\": " + Tol + "}")
                      .str());
  };
  EXPECT_EQ(parseErrors(Arg("i8", "out", R"({"atol": 1})")), "");
  EXPECT_EQ(parseErrors(Arg("u16", "inout", R"({"atol": 3})")), "");
  EXPECT_EQ(parseErrors(Arg("f32", "out", R"({"rtol": 0, "atol": 0})")), "");
  EXPECT_EQ(parseErrors(Arg("i8", "out", R"({"rtol": 0.5})")),
            "s.json:1:106: error: args[0].tolerance.rtol: an integer output "
            "('i8') is compared exactly, or within 'atol' steps: 'rtol' does "
            "not apply\n");
  EXPECT_EQ(parseErrors(Arg("i32", "out", R"({"atol": 1.5})")),
            "s.json:1:107: error: args[0].tolerance.atol: an integer output "
            "('i32') takes a whole number of steps, got 1.5\n");
  EXPECT_EQ(parseErrors(Arg("f32", "in", R"({"rtol": 1e-3})")),
            "s.json:1:97: error: args[0].tolerance: 'tolerance' applies to "
            "outputs (role 'out' or 'inout'); 'x' is an input\n");
  EXPECT_EQ(parseErrors(Arg("f32", "out", R"({"rtol": -1})")),
            "s.json:1:107: error: args[0].tolerance.rtol: expected a number "
            ">= 0\n");
  EXPECT_EQ(parseErrors(Arg("f32", "out", "0.1")),
            "s.json:1:98: error: args[0].tolerance: expected {\"rtol\": r, "
            "\"atol\": a}, got a number\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "n", "dtype": "i32", "value": 4, "tolerance": {"atol": 1}})")),
            "s.json:1:81: error: args[0].tolerance: a scalar ('value' given) "
            "has no 'tolerance'\n");
  // A kernel-level tolerance with only integer outputs would do nothing.
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "i32", "count": "n", "role": "out"})",
                               R"("grid": [1], "block": [1], "shapes": [{"n": 8}], "tolerance": {"atol": 1})")),
            "s.json:1:149: error: tolerance: the kernel-level tolerance "
            "applies to float outputs and this kernel has none: integer "
            "outputs are compared bit for bit unless an output gives its own "
            "\"tolerance\": {\"atol\": n}\n");
}

// `bytes`: the spec's minimum, else every buffer whole (inout twice).
TEST(SpecTest, MinBytes) {
  const char *Args = R"json(
      {"name": "out", "dtype": "f32", "count": "n*F", "role": "out"},
      {"name": "index", "dtype": "i64", "count": "n", "role": "in", "range": [0, "N"]},
      {"name": "x", "dtype": "f32", "count": "N*F", "role": "in"},
      {"name": "acc", "dtype": "f16", "count": "n", "role": "inout"},
      {"name": "F", "dtype": "i32", "value": "F"})json";
  std::string Shapes = R"("shapes": [{"n": 100, "N": 1000, "F": 16}, {"n": 3000, "N": 1000, "F": 16}])";
  Expected<LaunchSpecFile> F = parseSpec(
      kernel(Args, R"js("grid": [1], "block": [1], "bytes": "4*n*F + 8*n + 4*n + 4*F*(n*N/(N+n))", )js" + Shapes),
      "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  EXPECT_EQ(K.Bytes.text(), "4*n*F + 8*n + 4*n + 4*F*(n*N/(N+n))");
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[0]);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  // out 6400 + index 800 + x 64000 + acc 200 read and written.
  EXPECT_EQ(L->NominalBytes, 6400u + 800u + 64000u + 2u * 200u);
  // n*N/(N+n) = 100000/1100 = 90 rows.
  EXPECT_EQ(L->MinBytes, 6400u + 800u + 400u + 64u * 90u);
  EXPECT_TRUE(L->MinBytesFromSpec);
  L = resolve(K, K.Shapes[1]);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  EXPECT_EQ(L->MinBytes, 192000u + 24000u + 12000u + 64u * 750u);

  // Without `bytes`: the whole-buffer count.
  Expected<LaunchSpecFile> G =
      parseSpec(kernel(Args, R"("grid": [1], "block": [1], )" + Shapes), "s.json");
  ASSERT_TRUE(bool(G)) << messages(G.takeError());
  Expected<ResolvedLaunch> M = resolve(G->Kernels[0], G->Kernels[0].Shapes[0]);
  ASSERT_TRUE(bool(M)) << messages(M.takeError());
  EXPECT_EQ(M->MinBytes, M->NominalBytes);
  EXPECT_EQ(M->NominalBytes, 71600u);
  EXPECT_FALSE(M->MinBytesFromSpec);
}

TEST(SpecTest, MinBytesErrors) {
  auto Spec = [](StringRef Bytes) {
    return kernel(R"({"name": "x", "dtype": "f32", "count": "n", "role": "inout"})",
                  ("\"grid\": [1], \"block\": [1], \"bytes\": " + Bytes +
                   ", \"shapes\": [{\"n\": 8}, {\"n\": 0}]")
                      .str());
  };
  EXPECT_EQ(parseErrors(Spec("\"8*n +\"")),
            "s.json:1:131: error: bytes: expression '8*n +': expected a "
            "number, variable or '(' at position 6\n");
  EXPECT_EQ(parseErrors(Spec("\"4*m\"")),
            "s.json:1:125: error: bytes: variable 'm' is not bound by shape 0 "
            "{n=8}\n");
  EXPECT_EQ(parseErrors(Spec("true")),
            "s.json:1:125: error: bytes: expected an integer expression (a "
            "string or an integer), got a boolean\n");
  // Inout counts twice: 8 * 4 * 2 = 64 bytes at n = 8 is the most.
  EXPECT_EQ(resolveErrors(Spec("\"8*n\"")), "");
  EXPECT_EQ(resolveErrors(Spec("\"8*n + 1\"")),
            "error: kernel 'k': bytes: bytes is 65 for shape {n=8}, more than "
            "the 64 bytes of every buffer counted whole (inout twice): "
            "'bytes' is a lower bound on the traffic\n");
  EXPECT_EQ(resolveErrors(Spec("\"n - 8\"")),
            "error: kernel 'k': bytes: bytes is 0 for shape {n=8}: the fewest "
            "bytes the kernel moves must be at least 1\n");
  // checkSpec reports it on the shape that breaks it (n = 0: below 1).
  Expected<LaunchSpecFile> F = parseSpec(Spec("\"8*n\""), "s.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  EXPECT_EQ(messages(checkSpec(*F, {})),
            "s.json:1:12: error: kernel: no kernel 'k' in the file (kernels: "
            "none)\n"
            "s.json:1:125: error: bytes: bytes is 0 for shape {n=0}: the "
            "fewest bytes the kernel moves must be at least 1\n");
}

TEST(SpecTest, DTypes) {
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::FP8E5M2), 1u);
  EXPECT_EQ(dtypeSize(DType::U64), 8u);
  for (const char *N : {"f32", "f64", "f16", "bf16", "fp8e4m3", "fp8e5m2", "i8",
                        "u8", "i16", "u16", "i32", "u32", "i64", "u64"}) {
    std::optional<DType> T = parseDType(N);
    ASSERT_TRUE(T.has_value()) << N;
    EXPECT_EQ(dtypeName(*T), N);
  }
  EXPECT_EQ(parseDType("float"), std::nullopt);
  EXPECT_TRUE(isFloatDType(DType::FP8E4M3));
  EXPECT_FALSE(isFloatDType(DType::U8));
  EXPECT_TRUE(isSignedIntDType(DType::I16));
  EXPECT_FALSE(isSignedIntDType(DType::U32));
}

// Every error of a spec on its own (no kernel needed), with position.
TEST(SpecTest, FieldErrors) {
  EXPECT_EQ(parseErrors("{\"kernel\": \"k\",\n  \"args\": 3}"),
            "s.json:2:11: error: args: expected an array of argument objects, "
            "got a number\n"
            "s.json:1:1: error: missing field 'grid' (1 to 3 integer "
            "expressions (x, y, z))\n"
            "s.json:1:1: error: missing field 'block' (1 to 3 integer "
            "expressions (x, y, z))\n"
            "s.json:1:1: error: missing field 'shapes' (a list of objects "
            "binding shape variables to integers)\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "n", "role": "write"})")),
            "s.json:1:78: error: args[0].role: expected \"in\", \"out\" or \"inout\"\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "n", "role": "in", "dist": "cauchy"})")),
            "s.json:1:92: error: args[0].dist: unknown distribution (expected "
            "normal, uniform, positive, heavy, small or large)\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "i32", "count": "n", "role": "in", "dist": "normal"})")),
            "s.json:1:92: error: args[0].dist: 'dist' applies to float "
            "buffers; integer buffers take 'range'\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "n", "role": "in", "range": [0, 1]})")),
            "s.json:1:93: error: args[0].range: 'range' applies to integer "
            "buffers; float buffers take 'dist'\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "i32", "count": "n", "role": "in", "range": [0]})")),
            "s.json:1:93: error: args[0].range: expected [lo, hi]: two "
            "integer expressions\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "i32", "count": "n", "role": "out", "range": [0, "n"]})")),
            "s.json:1:26: error: args[0]: an 'out' buffer is not initialised "
            "from the spec: 'dist', 'range', 'gen' and 'specials' apply to "
            "'in' and 'inout'\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "i32", "count": "n", "role": "in", "specials": true})")),
            "s.json:1:96: error: args[0].specials: NaN/Inf injection needs a "
            "float dtype\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "m", "role": "in"})")),
            "s.json:1:65: error: args[0].count: variable 'm' is not bound by "
            "shape 0 {n=8}\n");
  EXPECT_EQ(parseErrors(kernel("", R"("grid": [1], "block": [1], "shapes": [])")),
            "s.json:1:66: error: shapes: no shapes: give at least one\n");
  EXPECT_EQ(parseErrors(kernel("", R"("grid": [1], "block": [1], "shapes": [{"2x": 1}])")),
            "s.json:1:74: error: shapes[0].2x: shape variable names are "
            "identifiers\n");
  EXPECT_EQ(parseErrors(kernel("", R"("grid": [true], "block": [1], "shapes": [{}])")),
            "s.json:1:38: error: grid[0]: expected an integer expression (a "
            "string or an integer), got a boolean\n");
  EXPECT_EQ(parseErrors(R"({"kernels": []})"),
            "s.json:1:13: error: kernels: no kernels\n");
  EXPECT_EQ(parseErrors(R"({"kernels": [], "kernel": "k"})"),
            "s.json:1:17: error: kernel: unknown field (expected one of: "
            "kernels)\n"
            "s.json:1:13: error: kernels: no kernels\n");
  EXPECT_EQ(parseErrors("{\"kernel\": 1}").substr(0, 49),
            "s.json:1:12: error: kernel: expected the kernel's");
}

TEST(SpecTest, GeneratorErrors) {
  auto Arg = [](StringRef Gen, StringRef Extra = "") {
    return kernel(("{\"name\": \"x\", \"dtype\": \"i32\", \"count\": \"n\", "
                   "\"role\": \"in\", \"gen\": " + Gen + Extra + "}").str());
  };
  EXPECT_EQ(parseErrors(Arg(R"({"kind": "zipf"})")),
            "s.json:1:100: error: args[0].gen.kind: expected \"kind\": one of "
            "csr_indptr, csr_indices, distinct_per_row, sorted, permutation, "
            "iota, constant\n");
  EXPECT_EQ(parseErrors(Arg(R"({"kind": "csr_indptr", "rows": "n"})")),
            "s.json:1:91: error: args[0].gen: missing field 'min_degree' of "
            "generator 'csr_indptr'\n"
            "s.json:1:91: error: args[0].gen: missing field 'max_degree' of "
            "generator 'csr_indptr'\n");
  EXPECT_EQ(parseErrors(Arg(R"({"kind": "sorted"})")),
            "s.json:1:26: error: args[0]: generator 'sorted' draws from "
            "'range': give \"range\": [lo, hi]\n");
  EXPECT_EQ(parseErrors(Arg(R"({"kind": "csr_indices", "indptr": "p"})", R"(, "range": [0, 4])")),
            "s.json:1:125: error: args[0].gen.indptr: 'p' is not an argument "
            "with \"gen\": {\"kind\": \"csr_indptr\"}\n");
  EXPECT_EQ(parseErrors(Arg(R"({"kind": "iota", "step": 2})")),
            "s.json:1:108: error: args[0].gen.step: unknown field (expected one "
            "of: kind)\n");
  EXPECT_EQ(parseErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "n", "role": "in", "gen": {"kind": "permutation"}})")),
            "s.json:1:91: error: args[0].gen: generator 'permutation' produces "
            "integers: dtype must be an integer type, not 'f32'\n");
}

/// The errors resolve() gives for \p JSON on its first shape.
std::string resolveErrors(StringRef JSON) {
  Expected<LaunchSpecFile> F = parseSpec(JSON, "s.json");
  if (!F)
    return "parse: " + messages(F.takeError());
  Expected<ResolvedLaunch> L = resolve(F->Kernels[0], F->Kernels[0].Shapes[0]);
  if (L)
    return "";
  return messages(L.takeError());
}

TEST(SpecTest, ResolveErrors) {
  EXPECT_EQ(resolveErrors(kernel("", R"("grid": [1, 65536], "block": [32, 32, 2], "shapes": [{}])")),
            "error: kernel 'k': grid[1]: grid.y is 65536 for shape {}: the "
            "limit is 65535\n"
            "error: kernel 'k': block: block has 2048 threads for shape {}: "
            "the limit is 1024 per block\n");
  EXPECT_EQ(resolveErrors(kernel("", R"("grid": ["n - 8"], "block": [1, 1, 65], "shapes": [{"n": 8}])")),
            "error: kernel 'k': grid[0]: grid.x is 0 for shape {n=8}: sizes "
            "must be at least 1\n"
            "error: kernel 'k': block[2]: block.z is 65 for shape {n=8}: the "
            "limit is 64\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "x", "dtype": "f32", "count": "-n", "role": "in"})")),
            "error: kernel 'k': args[0].count: count is -8 for shape {n=8}: "
            "expected at least 0\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "x", "dtype": "i32", "value": "n * 1000000000"})")),
            "error: kernel 'k': args[0].value: value 8000000000 for shape "
            "{n=8} does not fit in i32\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "x", "dtype": "u32", "value": "-1"})")),
            "error: kernel 'k': args[0].value: value -1 for shape {n=8} does "
            "not fit in u32\n");
  EXPECT_EQ(resolveErrors(kernel("", R"("grid": [1], "block": [1], "shared_bytes": "-n", "shapes": [{"n": 8}])")),
            "error: kernel 'k': shared_bytes: shared_bytes is -8 for shape "
            "{n=8}: expected 0 to 4294967295\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "p", "dtype": "i32", "count": "n", "role": "in",
      "gen": {"kind": "csr_indptr", "rows": "n", "min_degree": 1, "max_degree": 4}})")),
            "error: kernel 'k': args[0].count: a csr_indptr buffer holds rows "
            "+ 1 = 9 elements, count is 8 for shape {n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "p", "dtype": "i32", "count": "n + 1", "role": "in",
      "gen": {"kind": "csr_indptr", "rows": "n", "min_degree": 5, "max_degree": 4}})")),
            "error: kernel 'k': args[0].gen: needs rows >= 0 and 0 <= "
            "min_degree <= max_degree; got rows=8, min_degree=5, "
            "max_degree=4 for shape {n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "p", "dtype": "i32", "count": "n + 1", "role": "in",
      "gen": {"kind": "csr_indptr", "rows": "n", "min_degree": 0, "max_degree": 4}},
      {"name": "c", "dtype": "i32", "count": "n", "role": "in", "range": [0, 3],
       "gen": {"kind": "csr_indices", "indptr": "p"}})")),
            "error: kernel 'k': args[1].count: up to rows * max_degree = 32 "
            "column ids (from 'p'), count is 8 for shape {n=8}\n"
            "error: kernel 'k': args[1].range: a row's column ids are "
            "distinct: the range holds 3 values, max_degree of 'p' is 4 for "
            "shape {n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "t", "dtype": "i32", "count": "n", "role": "in",
      "range": [0, 2], "gen": {"kind": "distinct_per_row", "row": 3}})")),
            "error: kernel 'k': args[0].count: count 8 is not a multiple of "
            "row = 3 for shape {n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "t", "dtype": "i32", "count": "n", "role": "in",
      "range": [0, 2], "gen": {"kind": "distinct_per_row", "row": 4}})")),
            "error: kernel 'k': args[0].range: the range holds 2 values, "
            "fewer than row = 4 distinct ones for shape {n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "t", "dtype": "u8", "count": "n", "role": "in",
      "range": ["n", 300]})")),
            "error: kernel 'k': args[0].range: range [8, 300) for shape {n=8} "
            "does not fit in u8\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "t", "dtype": "i32", "count": "n", "role": "in",
      "range": ["n", "n"]})")),
            "error: kernel 'k': args[0].range: empty range [8, 8) for shape "
            "{n=8}\n");
  EXPECT_EQ(resolveErrors(kernel(R"({"name": "t", "dtype": "i8", "count": "n * 100", "role": "in",
      "gen": {"kind": "iota"}})")),
            "error: kernel 'k': args[0].gen: values up to 799 do not fit in "
            "i8 for shape {n=8}\n");
}

/// Signatures for the checker tests.
std::vector<KernelSignature> signatures() {
  auto Ptr = [](StringRef Name, StringRef Type, std::optional<DType> T,
                bool Const) {
    SignatureParam P;
    P.Name = Name.str();
    P.TypeSpelling = Type.str();
    P.IsPointer = true;
    P.PointeeConst = Const;
    P.Elem = T;
    return P;
  };
  auto Scalar = [](StringRef Name, StringRef Type, DType T) {
    SignatureParam P;
    P.Name = Name.str();
    P.TypeSpelling = Type.str();
    P.Elem = T;
    return P;
  };
  KernelSignature Quant;
  Quant.Name = "quant";
  Quant.Params = {Ptr("out", "uint8_t *", DType::U8, false),
                  Ptr("in", "const float *", DType::F32, true),
                  Scalar("n", "int", DType::I32)};
  KernelSignature Pattern;
  Pattern.Name = "act";
  Pattern.IsTemplatePattern = true;
  Pattern.Params = {Ptr("out", "T *", std::nullopt, false)};
  KernelSignature Inst;
  Inst.Name = "act<__half>";
  Inst.TemplateName = "act";
  Inst.Params = {Ptr("out", "__half *", DType::F16, false)};
  KernelSignature Lone;
  Lone.Name = "lone";
  Lone.IsTemplatePattern = true;
  KernelSignature Rec;
  Rec.Name = "rec";
  Rec.Params = {Scalar("p", "Params", DType::I32)};
  Rec.Params[0].Elem = std::nullopt;
  // act and act<__half> again, as lib::norm::rms and rms<8, __half>.
  KernelSignature NsPattern = Pattern, NsInst = Inst;
  NsPattern.Name = NsInst.TemplateName = "rms";
  NsInst.Name = "rms<8, __half>";
  NsPattern.Qualifier = NsInst.Qualifier = "lib::norm::";
  return {Quant, Pattern, Inst, Lone, Rec, NsPattern, NsInst};
}

std::string checkErrors(StringRef JSON) {
  Error E = checkSpecText(JSON, "s.json", signatures());
  return E ? messages(std::move(E)) : "";
}

TEST(SpecTest, CheckAgainstSignatures) {
  // fp8 data passed as bytes is accepted.
  EXPECT_EQ(checkErrors(R"json({"kernel": "quant", "args": [
      {"name": "out", "dtype": "fp8e4m3", "count": "n", "role": "out"},
      {"name": "in", "dtype": "f32", "count": "n", "role": "in"},
      {"name": "n", "dtype": "i32", "value": "n"}],
    "grid": [1], "block": [1], "shapes": [{"n": 8}]})json"),
            "");
  EXPECT_EQ(checkErrors(R"json({"kernel": "quant", "args": [
      {"name": "out", "dtype": "u8", "value": 1},
      {"name": "in", "dtype": "f32", "count": "n", "role": "inout"},
      {"name": "n", "dtype": "i32", "count": "n", "role": "in"},
      {"name": "n", "dtype": "i32", "value": 1}],
    "grid": [1], "block": [1], "shapes": [{"n": 8}]})json"),
            "s.json:2:47: error: args[0].value: parameter 'out' of type "
            "'uint8_t *' is a pointer: a buffer takes 'count' and 'role', not "
            "'value'\n"
            "s.json:3:60: error: args[1].role: role 'inout' on parameter 'in' "
            "of type 'const float *': the kernel cannot write through a "
            "pointer to const (use 'in')\n"
            "s.json:4:46: error: args[2].count: parameter 'n' of type 'int' is "
            "a scalar: it takes 'value', not 'count'\n"
            "s.json:5:16: error: args[3].name: argument 'n' is given twice\n");
  EXPECT_EQ(checkErrors(R"json({"kernel": "act", "args": [],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
            "s.json:1:12: error: kernel: 'act' is a kernel template: name an "
            "instantiation (act<__half>)\n");
  EXPECT_EQ(checkErrors(R"json({"kernel": "lone<int>", "args": [],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
            "s.json:1:12: error: kernel: kernel template 'lone' has no "
            "instantiation in the file: add one, e.g. 'template __global__ "
            "void lone<float>(...);'\n");
  EXPECT_EQ(checkErrors(R"json({"kernel": "rec", "args": [
      {"name": "p", "dtype": "i32", "value": 1}],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
            "s.json:2:30: error: args[0].dtype: parameter 'p' of type "
            "'Params' has no spec dtype (element types: float, double, "
            "__half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, bool and "
            "the integer types)\n");
  EXPECT_EQ(checkErrors(R"json({"kernels": [
    {"kernel": "act<__half>", "args": [{"name": "out", "dtype": "f16", "count": 1, "role": "out"}],
     "grid": [1], "block": [1], "shapes": [{}]},
    {"kernel": "act<__half>", "args": [{"name": "out", "dtype": "f16", "count": 1, "role": "out"}],
     "grid": [1], "block": [1], "shapes": [{}]}]})json"),
            "s.json:4:16: error: kernels[1].kernel: kernel 'act<__half>' is "
            "specified twice\n");
}

// A kernel template in a namespace: the harness names its instantiation from
// file scope, so the spec gives the qualified name.
TEST(SpecTest, KernelTemplateInANamespace) {
  EXPECT_EQ(checkErrors(R"json({"kernel": "lib::norm::rms<8, __half>", "args": [
      {"name": "out", "dtype": "f16", "count": 8, "role": "out"}],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
            "");
  EXPECT_EQ(checkErrors(R"json({"kernel": "rms<8,__half>", "args": [
      {"name": "out", "dtype": "f16", "count": 8, "role": "out"}],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
            "s.json:1:12: error: kernel: kernel template 'rms' is in "
            "'lib::norm': name the instantiation with it, "
            "'lib::norm::rms<8, __half>'\n");
  EXPECT_EQ(
      checkErrors(R"json({"kernel": "lib::norm::rms<4, __half>", "args": [],
    "grid": [1], "block": [1], "shapes": [{}]})json"),
      "s.json:1:12: error: kernel: 'lib::norm::rms<4, __half>' is not "
      "an instantiation of kernel template 'lib::norm::rms' in the "
      "file (instantiations: lib::norm::rms<8, __half>)\n");
}

TEST(SpecTest, Locator) {
  SpecLocator L;
  L.FileName = "f.json";
  L.index("{\n  \"a\": [1, {\"b\": \"x\\\"y\"}],\n  \"c\": {}\n}");
  DiagLoc V = L.locate("a[1].b");
  EXPECT_EQ(V.Line, 2u);
  EXPECT_EQ(V.Col, 18u);
  DiagLoc K = L.locateKey("a[1].b");
  EXPECT_EQ(K.Col, 13u);
  EXPECT_EQ(L.locate("c").Line, 3u);
  // Unknown paths fall back to the nearest enclosing value.
  DiagLoc F = L.locate("a[1].zzz");
  EXPECT_EQ(F.Line, 2u);
  EXPECT_EQ(F.Col, 12u);
  EXPECT_EQ(L.locate("nothing").Line, 1u);
  EXPECT_EQ(L.locate("nothing").File, "f.json");
}

} // namespace
