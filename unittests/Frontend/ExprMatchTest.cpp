//===- ExprMatchTest.cpp - Expression helpers on small ASTs ---------------===//
#include "astra/Frontend/ExprMatch.h"
#include "CudaSnippet.h"

using namespace astra;
using namespace clang;

namespace {

using ExprMatchTest = test::CudaSnippetTest;

TEST_F(ExprMatchTest, BuiltinsInEveryDimension) {
  parse("unsigned a() { return threadIdx.x; }\n"
        "unsigned b() { return (blockDim.y); }\n"
        "unsigned c() { return gridDim.z; }\n"
        "unsigned d() { return other.x; }\n"
        "long e() { return (long)blockIdx.y; }\n"
        "float f() { return (float)blockIdx.y; }\n");
  std::optional<CudaBuiltin> A = matchCudaBuiltin(ret("a"));
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Var, "threadIdx");
  EXPECT_EQ(A->Dim, 'x');
  EXPECT_EQ(getBuiltinVarName(ret("b")), "blockDim.y");
  EXPECT_EQ(getBuiltinVarName(ret("c")), "gridDim.z");
  EXPECT_FALSE(matchCudaBuiltin(ret("d")));
  EXPECT_EQ(getBuiltinVarName(ret("d")), "");
  // An explicit cast: seen through by stripCasts and, for an integer type,
  // by stripIntCasts; matchCudaBuiltin itself looks through implicit casts
  // only.
  EXPECT_FALSE(matchCudaBuiltin(ret("e")));
  EXPECT_EQ(getBuiltinVarName(ret("e")), "blockIdx.y");
  EXPECT_TRUE(matchCudaBuiltin(stripIntCasts(ret("e"))));
  EXPECT_FALSE(matchCudaBuiltin(stripIntCasts(ret("f"))));
  EXPECT_EQ(getBuiltinVarName(ret("f")), "blockIdx.y");
}

TEST_F(ExprMatchTest, StripStrengths) {
  parse("int g(int v) { return ((int)(v)); }\n");
  const Expr *E = ret("g");
  // stripParens keeps the written cast, the others go through it.
  EXPECT_TRUE(isa<CStyleCastExpr>(stripParens(E)));
  EXPECT_TRUE(isa<DeclRefExpr>(stripIntCasts(E)));
  EXPECT_TRUE(isa<DeclRefExpr>(stripCasts(E)));
  ASSERT_NE(getReferencedVar(E), nullptr);
  EXPECT_EQ(getReferencedVar(E)->getName(), "v");
}

TEST_F(ExprMatchTest, OperatorsAndCallees) {
  parse("int h(int i, int n) { return i += n; }\n"
        "float k(float x) { return expf(x); }\n"
        "template <typename T> T t(T x) { return expf(x) + x; }\n");
  BinaryOperatorKind Op;
  const Expr *L, *R;
  // The value of `i += n` is read: an lvalue-to-rvalue cast around it.
  ASSERT_TRUE(matchBinary(ret("h")->IgnoreImpCasts(), Op, L, R));
  EXPECT_EQ(Op, BO_AddAssign);
  EXPECT_EQ(getReferencedVar(L)->getName(), "i");
  EXPECT_EQ(getCalleeName(cast<CallExpr>(stripCasts(ret("k")))), "expf");
  // In a template: an unresolved call under an unresolved operator.
  ASSERT_TRUE(matchBinary(ret("t"), Op, L, R));
  EXPECT_EQ(Op, BO_Add);
  EXPECT_EQ(getCalleeName(cast<CallExpr>(stripCasts(L))), "expf");
}

} // namespace
