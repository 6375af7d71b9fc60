//===- ParamsTest.cpp - Typed rewrite parameters and their combinations ---===//
// KernelModel.h too: the agent includes both, so names must not clash.
#include "astra/Frontend/KernelModel.h"
#include "astra/Transforms/Enumerate.h"
#include "astra/Transforms/Rewrite.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

/// The message of \p E without the "error: " that the project's errors
/// print with; empty on success.
std::string errorOf(Error E) {
  if (!E)
    return "";
  std::string S = toString(std::move(E));
  StringRef Msg(S);
  Msg.consume_front("error: ");
  return Msg.str();
}

TEST(ParamDescTest, IntRange) {
  ParamDesc D{"factor", RewriteParamKind::Int, "4", {"2", "4"}, "help"};
  D.Min = 1;
  D.Max = 8;
  EXPECT_EQ(errorOf(D.check("r", "8")), "");
  EXPECT_EQ(errorOf(D.check("r", "9")),
            "rewrite 'r': parameter 'factor' must be between 1 and 8, got '9'");
  EXPECT_EQ(errorOf(D.check("r", "x")),
            "rewrite 'r': parameter 'factor' must be an integer from 1 to 8, "
            "got 'x'");
  EXPECT_EQ(D.describeType(), "int 1..8");
}

TEST(ParamDescTest, IntChoices) {
  ParamDesc D{"width", RewriteParamKind::Int, "16", {"16", "8"}, ""};
  D.Choices = {"16", "8"};
  EXPECT_EQ(errorOf(D.check("v", "8")), "");
  EXPECT_EQ(errorOf(D.check("v", "4")),
            "rewrite 'v': parameter 'width' must be one of 16, 8, got '4'");
  EXPECT_EQ(D.describeType(), "int 16|8");
}

TEST(ParamDescTest, BoolEnumSubset) {
  ParamDesc B{"assume", RewriteParamKind::Bool, "0", {"0", "1"}, ""};
  EXPECT_EQ(errorOf(B.check("r", "1")), "");
  EXPECT_EQ(errorOf(B.check("r", "true")),
            "rewrite 'r': parameter 'assume' must be 0 or 1, got 'true'");
  ParamDesc E{"mode", RewriteParamKind::Enum, "a", {"a"}, ""};
  E.Choices = {"a", "b"};
  EXPECT_EQ(errorOf(E.check("r", "b")), "");
  EXPECT_EQ(errorOf(E.check("r", "c")),
            "rewrite 'r': parameter 'mode' must be one of a, b, got 'c'");
  ParamDesc S{"ops", RewriteParamKind::Subset, "all", {"all"}, ""};
  S.Choices = {"exp", "div"};
  EXPECT_EQ(errorOf(S.check("r", "all")), "");
  EXPECT_EQ(errorOf(S.check("r", "div+exp")), "");
  EXPECT_EQ(errorOf(S.check("r", "exp+tanh")),
            "rewrite 'r': unknown value 'tanh' in ops=exp+tanh; known: all, "
            "exp+div");
  EXPECT_EQ(S.describeType(), "subset all|exp+div");
}

TEST(ParamDescTest, Name) {
  ParamDesc N{"bound", RewriteParamKind::Name, "", {""}, ""};
  EXPECT_EQ(errorOf(N.check("r", "num_heads")), "");
  EXPECT_EQ(errorOf(N.check("r", "")), "");
  EXPECT_EQ(errorOf(N.check("r", "2n")),
            "rewrite 'r': parameter 'bound' must be an identifier, got '2n'");
  EXPECT_EQ(errorOf(N.check("r", "n-1")),
            "rewrite 'r': parameter 'bound' must be an identifier, got 'n-1'");
  EXPECT_EQ(N.describeType(), "name (an identifier)");
}

/// Every value a rewrite offers the search passes its own check, and so does
/// every default.
TEST(ParamDescTest, CatalogueValuesAreValid) {
  for (const auto &R : getRewrites())
    for (const ParamDesc &D : R->getParams()) {
      EXPECT_FALSE(D.Values.empty()) << R->getName().str() << " " << D.Key;
      EXPECT_EQ(errorOf(D.check(R->getName(), D.Default)), "");
      for (const std::string &V : D.Values)
        EXPECT_EQ(errorOf(D.check(R->getName(), V)), "");
    }
}

TEST(ParamDescTest, CheckParamsNamesUnknownKeys) {
  const Rewrite *R = findRewrite("unroll");
  ASSERT_NE(R, nullptr);
  Expected<RewriteParams> P = RewriteParams::parse("unroll:width=8");
  ASSERT_TRUE(static_cast<bool>(P)) << toString(P.takeError());
  EXPECT_EQ(errorOf(R->checkParams(*P)),
            "rewrite 'unroll': unknown parameter 'width'; parameters: mode, "
            "factor, kernel, loop, function");
  P = RewriteParams::parse("unroll:mode=auto");
  ASSERT_TRUE(static_cast<bool>(P)) << toString(P.takeError());
  EXPECT_EQ(errorOf(R->checkParams(*P)),
            "rewrite 'unroll': parameter 'mode' must be one of pragma, "
            "manual, got 'auto'");
}

TEST(EnumerateTest, ValueCombinationsFirstParameterSlowest) {
  std::vector<StringMap<std::string>> C =
      getValueCombinations(*findRewrite("unroll"));
  ASSERT_EQ(C.size(), 6u);
  EXPECT_EQ(C[0].lookup("mode"), "pragma");
  EXPECT_EQ(C[0].lookup("factor"), "2");
  EXPECT_EQ(C[2].lookup("factor"), "8");
  EXPECT_EQ(C[3].lookup("mode"), "manual");
  EXPECT_EQ(C[3].lookup("factor"), "2");
  // No parameters: one empty combination.
  C = getValueCombinations(*findRewrite("hoist-invariant"));
  ASSERT_EQ(C.size(), 1u);
  EXPECT_TRUE(C[0].empty());
}

TEST(EnumerateTest, FormatRoundTrips) {
  for (const char *Text :
       {"unroll:loop=k:L0,factor=8,mode=manual", "fast-math:kernel=k,ops=all",
        "fast-math:function=silu,ops=exp", "hoist-invariant"}) {
    Expected<RewriteParams> P = RewriteParams::parse(Text);
    ASSERT_TRUE(static_cast<bool>(P)) << toString(P.takeError());
    EXPECT_EQ(formatRewriteParams(*P), Text);
  }
}

TEST(EnumerateTest, FunctionGoesAlone) {
  Expected<RewriteParams> P = RewriteParams::parse("fast-math:function=silu");
  ASSERT_TRUE(static_cast<bool>(P)) << toString(P.takeError());
  EXPECT_EQ(P->Function, "silu");
  EXPECT_TRUE(P->Kernel.empty());
  for (const char *Text :
       {"fast-math:function=silu,kernel=k", "unroll:loop=k:L0,function=f"}) {
    Expected<RewriteParams> Bad = RewriteParams::parse(Text);
    ASSERT_FALSE(static_cast<bool>(Bad));
    EXPECT_EQ(errorOf(Bad.takeError()),
              std::string("--apply=") + Text +
                  ": function= selects a whole function and goes without "
                  "kernel= and loop=");
  }
}

} // namespace
