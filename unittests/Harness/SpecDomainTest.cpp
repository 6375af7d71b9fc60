//===- SpecDomainTest.cpp - "vars": the domain of shape variables ---------===//
#include "astra/Harness/Spec.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

/// A spec whose shapes bind T, d and B, with \p Vars as its "vars".
std::string withVars(StringRef Vars,
                     StringRef Shapes = R"([{"T": 4, "d": 4096, "B": 256}])") {
  return (R"({"kernel": "k",
  "args": [{"name": "x", "dtype": "f32", "count": "T*d", "role": "inout"}],
  "grid": ["T"], "block": ["B"], "shared_bytes": "4*B",
  "shapes": )" +
          Shapes + ",\n  \"vars\": " + Vars + "}")
      .str();
}

std::string parseErrors(StringRef JSON) {
  Expected<LaunchSpecFile> F = parseSpec(JSON, "s.json");
  if (F)
    return "";
  std::string S;
  raw_string_ostream OS(S);
  handleAllErrors(F.takeError(), [&](const AstraError &A) {
    A.log(OS);
    OS << "\n";
  });
  return S;
}

TEST(SpecDomainTest, ParsesEveryField) {
  Expected<LaunchSpecFile> F = parseSpec(
      withVars(R"({"B": {"vary": false, "power_of_two": true, "min": 32,
                         "max": 1024},
                   "d": {"multiple_of": "8", "divides": "65536", "_note": "x"},
                   "_comment": "ignored"})"),
      "s.json");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  ASSERT_EQ(K.Vars.size(), 2u);
  const VarDomain *B = K.domainOf("B");
  ASSERT_NE(B, nullptr);
  EXPECT_FALSE(B->Vary);
  EXPECT_TRUE(B->PowerOfTwo);
  EXPECT_EQ(B->Min.text(), "32");
  EXPECT_EQ(B->Max.text(), "1024");
  EXPECT_EQ(B->Path, "vars.B");
  const VarDomain *D = K.domainOf("d");
  ASSERT_NE(D, nullptr);
  EXPECT_TRUE(D->Vary);
  EXPECT_EQ(D->MultipleOf.text(), "8");
  EXPECT_EQ(D->Divides.text(), "65536");
  EXPECT_EQ(K.domainOf("T"), nullptr);
}

TEST(SpecDomainTest, Violations) {
  Expected<LaunchSpecFile> F = parseSpec(
      withVars(R"({"B": {"power_of_two": true, "min": 32, "max": "d/4"},
                   "d": {"multiple_of": 8}, "T": {"divides": "d"}})"),
      "s.json");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  Shape S;
  S.set("T", 3);
  S.set("d", 100);
  S.set("B", 48);
  std::vector<DomainViolation> V = K.domainViolations(S);
  ASSERT_EQ(V.size(), 4u);
  EXPECT_EQ(V[0].Path, "vars.B.power_of_two");
  EXPECT_EQ(V[0].Var, "B");
  EXPECT_EQ(V[0].Value, 48);
  EXPECT_EQ(V[0].Requirement, "B must be a power of two");
  EXPECT_EQ(V[1].Requirement, "B must be at most d/4 (= 25)");
  EXPECT_EQ(V[2].Requirement, "d must be a multiple of 8");
  EXPECT_EQ(V[3].Requirement, "T must divide d (= 100)");
  S.set("d", 4096);
  S.set("B", 64);
  S.set("T", 4);
  EXPECT_TRUE(K.domainViolations(S).empty());
  S.set("B", 16);
  ASSERT_EQ(K.domainViolations(S).size(), 1u);
  EXPECT_EQ(K.domainViolations(S)[0].Requirement, "B must be at least 32");
}

TEST(SpecDomainTest, FieldErrors) {
  EXPECT_EQ(parseErrors(withVars(R"({"b": {"vary": false}})")),
            "s.json:5:12: error: vars.b: 'b' is not a shape variable (shape "
            "variables: T, d, B)\n");
  EXPECT_EQ(parseErrors(withVars(R"([1])")),
            "s.json:5:11: error: vars: expected an object mapping shape "
            "variables to their domains, got an array\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": 32})")),
            "s.json:5:17: error: vars.B: expected an object {\"vary\": false, "
            "\"min\": ..., \"max\": ..., \"multiple_of\": ..., \"divides\": "
            "..., \"power_of_two\": true}, got a number\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": {"pow2": true}})")),
            "s.json:5:18: error: vars.B.pow2: unknown field (expected one of: "
            "vary, min, max, multiple_of, divides, power_of_two)\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": {"vary": "no"}})")),
            "s.json:5:26: error: vars.B.vary: expected true or false\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": {"min": "x*2"}})")),
            "s.json:5:25: error: vars.B.min: variable 'x' is not bound by "
            "shape 0 {T=4, d=4096, B=256}\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": {"max": "TODO"}})")),
            "s.json:5:25: error: vars.B.max: placeholder not filled in: "
            "'TODO'\n");
}

TEST(SpecDomainTest, SpecShapesMustLieInTheDomain) {
  // One report per constraint: the first shape that breaks it.
  EXPECT_EQ(
      parseErrors(withVars(
          R"({"B": {"power_of_two": true, "max": 512}, "d": {"multiple_of": 8}})",
          R"([{"T": 4, "d": 4096, "B": 256}, {"T": 4, "d": 4100, "B": 768},
              {"T": 1, "d": 4095, "B": 1024}])")),
      "s.json:6:34: error: vars.B.power_of_two: B = 768 in shape 1 {T=4, "
      "d=4100, B=768}: B must be a power of two\n"
      "s.json:6:47: error: vars.B.max: B = 768 in shape 1 {T=4, d=4100, "
      "B=768}: B must be at most 512\n"
      "s.json:6:74: error: vars.d.multiple_of: d = 4100 in shape 1 {T=4, "
      "d=4100, B=768}: d must be a multiple of 8\n");
}

TEST(SpecDomainTest, ReportedWithOtherErrors) {
  // An unrelated error (a bad role) does not hide a shape outside the
  // domain; an unbound variable in a bound is reported once, as unbound.
  std::string Spec = withVars(R"({"B": {"power_of_two": true}})",
                              R"([{"T": 4, "d": 4096, "B": 48}])");
  Spec.replace(Spec.find("\"inout\""), 7, "\"write\"");
  EXPECT_EQ(parseErrors(Spec),
            "s.json:2:66: error: args[0].role: expected \"in\", \"out\" or "
            "\"inout\"\n"
            "s.json:5:34: error: vars.B.power_of_two: B = 48 in shape 0 {T=4, "
            "d=4096, B=48}: B must be a power of two\n");
  EXPECT_EQ(parseErrors(withVars(R"({"B": {"max": "x", "power_of_two": true}})",
                                 R"([{"T": 4, "d": 4096, "B": 48}])")),
            "s.json:5:25: error: vars.B.max: variable 'x' is not bound by "
            "shape 0 {T=4, d=4096, B=48}\n");
}

} // namespace
