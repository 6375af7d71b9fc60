//===- ExprTest.cpp - The spec expression language ------------------------===//
#include "astra/Harness/Expr.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

Shape shape(std::initializer_list<std::pair<const char *, int64_t>> Vars) {
  Shape S;
  for (const auto &V : Vars)
    S.set(V.first, V.second);
  return S;
}

/// Parses and evaluates; the error text on failure.
std::string evalText(StringRef Text, const Shape &S = Shape()) {
  Expected<SizeExpr> E = SizeExpr::parse(Text);
  if (!E)
    return "parse error: " + toString(E.takeError());
  Expected<int64_t> V = E->eval(S);
  if (!V)
    return "eval error: " + toString(V.takeError());
  return std::to_string(*V);
}

TEST(ExprTest, Arithmetic) {
  EXPECT_EQ(evalText("1 + 2 * 3"), "7");
  EXPECT_EQ(evalText("(1 + 2) * 3"), "9");
  EXPECT_EQ(evalText("10 - 4 - 3"), "3"); // left associative
  EXPECT_EQ(evalText("100 / 10 / 5"), "2");
  EXPECT_EQ(evalText("7 / 2"), "3");
  EXPECT_EQ(evalText("-7 / 2"), "-3"); // truncates toward zero
  EXPECT_EQ(evalText("-7 % 3"), "-1");
  EXPECT_EQ(evalText("7 % -3"), "1");
  EXPECT_EQ(evalText("--5"), "5");
  EXPECT_EQ(evalText("-(2 + 3) * 2"), "-10");
  EXPECT_EQ(evalText("+4"), "4");
  EXPECT_EQ(evalText("  42  "), "42");
}

TEST(ExprTest, Functions) {
  EXPECT_EQ(evalText("min(3, 9)"), "3");
  EXPECT_EQ(evalText("max(3, -9)"), "3");
  EXPECT_EQ(evalText("ceil_div(10, 4)"), "3");
  EXPECT_EQ(evalText("ceil_div(8, 4)"), "2");
  EXPECT_EQ(evalText("ceil_div(0, 4)"), "0");
  EXPECT_EQ(evalText("ceil_div(-10, 4)"), "-2"); // the mathematical ceiling
  EXPECT_EQ(evalText("ceil_div(-10, -4)"), "3");
  EXPECT_EQ(evalText("min(max(1, 2), ceil_div(7, 2))"), "2");
}

TEST(ExprTest, Variables) {
  Shape S = shape({{"T", 128}, {"d", 11008}, {"n_heads", 32}});
  EXPECT_EQ(evalText("T*2*d", S), "2818048");
  EXPECT_EQ(evalText("min(d, 1024)", S), "1024");
  EXPECT_EQ(evalText("n_heads * 128", S), "4096");
  // A function name without parentheses is a variable.
  EXPECT_EQ(evalText("min + 1", shape({{"min", 4}})), "5");

  Expected<SizeExpr> E = SizeExpr::parse("ceil_div(T, 8) * d + T");
  ASSERT_TRUE(bool(E));
  std::vector<std::string> Vars = E->variables();
  ASSERT_EQ(Vars.size(), 2u);
  EXPECT_EQ(Vars[0], "T");
  EXPECT_EQ(Vars[1], "d");
  EXPECT_EQ(E->text(), "ceil_div(T, 8) * d + T");
  // Parsed once, evaluated per shape.
  EXPECT_EQ(*E->eval(shape({{"T", 8}, {"d", 2}})), 10);
  EXPECT_EQ(*E->eval(shape({{"T", 9}, {"d", 2}})), 13);
}

TEST(ExprTest, SyntaxErrorsNameTheExpressionAndPosition) {
  size_t Pos = 99;
  Expected<SizeExpr> E = SizeExpr::parse("T*", &Pos);
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(toString(E.takeError()),
            "expression 'T*': expected a number, variable or '(' at position 3");
  EXPECT_EQ(Pos, 2u);

  EXPECT_EQ(evalText("(T + 1"),
            "parse error: expression '(T + 1': expected ')' at position 7");
  EXPECT_EQ(evalText("T 4"),
            "parse error: expression 'T 4': unexpected '4' at position 3");
  EXPECT_EQ(evalText("pow(2, 3)"),
            "parse error: expression 'pow(2, 3)': unknown function 'pow' "
            "(functions: min, max, ceil_div) at position 1");
  EXPECT_EQ(evalText("min(1)"),
            "parse error: expression 'min(1)': expected ',' in min(a, b) at "
            "position 6");
  EXPECT_EQ(evalText("3.5"),
            "parse error: expression '3.5': unexpected '.' at position 2");
  EXPECT_EQ(evalText("12abc"),
            "parse error: expression '12abc': invalid number '12abc' at "
            "position 1");
  EXPECT_EQ(evalText("99999999999999999999"),
            "parse error: expression '99999999999999999999': number "
            "'99999999999999999999' does not fit in 64 bits at position 1");
  EXPECT_EQ(evalText(""), "parse error: expression '': expected a number, "
                          "variable or '(' at position 1");
  EXPECT_EQ(evalText("a $ b"),
            "parse error: expression 'a $ b': unexpected '$' at position 3");
}

TEST(ExprTest, EvaluationErrors) {
  EXPECT_EQ(evalText("n / (n - n)", shape({{"n", 3}})),
            "eval error: expression 'n / (n - n)': division by zero");
  EXPECT_EQ(evalText("5 % 0"), "eval error: expression '5 % 0': modulo by zero");
  EXPECT_EQ(evalText("ceil_div(5, 0)"),
            "eval error: expression 'ceil_div(5, 0)': division by zero");
  EXPECT_EQ(evalText("T * d", shape({{"T", 4}})),
            "eval error: expression 'T * d': variable 'd' is not bound by the "
            "shape {T=4}");
  EXPECT_EQ(evalText("n * n * n", shape({{"n", 3000000}})),
            "eval error: expression 'n * n * n': 64-bit overflow for shape "
            "{n=3000000}");
  EXPECT_EQ(evalText("9223372036854775807 + 1"),
            "eval error: expression '9223372036854775807 + 1': 64-bit "
            "overflow for shape {}");
  EXPECT_EQ(evalText("-9223372036854775807 - 2"),
            "eval error: expression '-9223372036854775807 - 2': 64-bit "
            "overflow for shape {}");
  EXPECT_EQ(evalText("(-9223372036854775807 - 1) / -1"),
            "eval error: expression '(-9223372036854775807 - 1) / -1': 64-bit "
            "overflow for shape {}");
  EXPECT_EQ(evalText("-(-9223372036854775807 - 1)"),
            "eval error: expression '-(-9223372036854775807 - 1)': 64-bit "
            "overflow for shape {}");
  EXPECT_EQ(evalText("(-9223372036854775807 - 1) % -1"), "0");
}

TEST(ExprTest, Shape) {
  Shape S;
  S.set("T", 1);
  S.set("d", 4096);
  S.set("T", 2); // rebinding keeps the order
  EXPECT_EQ(S.str(), "T=2, d=4096");
  EXPECT_EQ(S.lookup("d"), std::optional<int64_t>(4096));
  EXPECT_EQ(S.lookup("x"), std::nullopt);
  EXPECT_EQ(SizeExpr::constant(-5).text(), "-5");
  EXPECT_EQ(*SizeExpr::constant(-5).eval(S), -5);
}

} // namespace
