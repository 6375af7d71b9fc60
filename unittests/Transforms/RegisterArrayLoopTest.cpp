//===- RegisterArrayLoopTest.cpp - Loops over local arrays, unroll factor -===//
//
// Plain C++ snippets: the analysis reads only for loops and arrays.
//
//===----------------------------------------------------------------------===//
#include "RegisterArrayLoop.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace clang;

namespace {

/// The first for loop of \p Code's function f, analysed.
struct Analysed {
  std::unique_ptr<ASTUnit> AST;
  std::optional<RegisterArrayLoop> RA;
  std::string Array, Var;
};

class FirstFor : public RecursiveASTVisitor<FirstFor> {
public:
  bool VisitForStmt(ForStmt *S) {
    if (!Found)
      Found = S;
    return true;
  }
  const ForStmt *Found = nullptr;
};

Analysed analyse(const std::string &Body) {
  Analysed A;
  A.AST = tooling::buildASTFromCodeWithArgs(
      "struct P { float f[8]; };\n"
      "template <int N> struct T { static const int value = N; };\n"
      "float g(int);\n" +
          Body,
      {"-std=c++17"});
  FirstFor V;
  V.TraverseDecl(A.AST->getASTContext().getTranslationUnitDecl());
  if (!V.Found)
    return A;
  A.RA = findRegisterArrayLoop(A.AST->getASTContext(), V.Found);
  if (A.RA) {
    A.Array = A.RA->Array->getName().str();
    A.Var = A.RA->Var->getName().str();
  }
  return A;
}

std::optional<int64_t> trips(const std::string &Body) {
  Analysed A = analyse(Body);
  EXPECT_TRUE(A.RA) << Body;
  return A.RA ? A.RA->TripCount : std::nullopt;
}

TEST(RegisterArrayLoopTest, TripCounts) {
  EXPECT_EQ(
      trips("void f() { float v[8]; for (int j = 0; j < 8; ++j) v[j] = 0; }"),
      8);
  EXPECT_EQ(
      trips("void f() { float v[8]; for (int j = 0; j <= 7; j++) v[j] = 0; }"),
      8);
  EXPECT_EQ(
      trips("void f() { float v[8]; for (int j = 7; j >= 0; --j) v[j] = 0; }"),
      8);
  EXPECT_EQ(trips("void f() { float v[8]; for (int j = 8; j > 0; j -= 3) v[j - "
                  "1] = 0; }"),
            3);
  EXPECT_EQ(
      trips(
          "void f() { float v[8]; for (int j = 0; j != 8; j += 2) v[j] = 0; }"),
      4);
  EXPECT_EQ(
      trips(
          "void f() { float v[8]; for (int j = 1; j < 8; j += 2) v[j] = 0; }"),
      4);
  EXPECT_EQ(
      trips("void f() { float v[8]; for (int j = 5; j < 5; ++j) v[j] = 0; }"),
      0);
  constexpr const char *Named = "void f() { constexpr int K = 4; float v[K]; "
                                "for (int j = 0; j < K; ++j) v[j] = 0; }";
  EXPECT_EQ(trips(Named), 4);
  // Template constants: no count, still a candidate.
  EXPECT_EQ(trips("template <int N> void f() { float v[N]; "
                  "for (int j = 0; j < N; ++j) v[j] = 0; }"),
            std::nullopt);
  EXPECT_EQ(trips("template <int N> void f() { float v[8]; "
                  "for (int j = 0; j < T<N>::value; ++j) v[j] = 0; }"),
            std::nullopt);
}

TEST(RegisterArrayLoopTest, FindsTheArray) {
  Analysed A = analyse("void f(const float *w) { P p; float acc = 0; "
                       "for (int j = 0; j < 8; ++j) acc += p.f[j] * w[j]; }");
  ASSERT_TRUE(A.RA);
  EXPECT_EQ(A.Array, "p");
  EXPECT_EQ(A.Var, "j");
  A = analyse("void f() { float m[2][8]; "
              "for (int j = 0; j < 8; ++j) m[1][j] = g(j); }");
  ASSERT_TRUE(A.RA);
  EXPECT_EQ(A.Array, "m");
}

TEST(RegisterArrayLoopTest, RefusesOtherLoops) {
  // The array is a parameter (memory elsewhere), static, or indexed with
  // something else; the bound is a run-time value; the body moves j; the
  // loop runs away from its bound.
  for (const char *Body :
       {"void f(float *v) { for (int j = 0; j < 8; ++j) v[j] = 0; }",
        "void f() { static float v[8]; for (int j = 0; j < 8; ++j) v[j] = 0; }",
        "void f(int k) { float v[8]; for (int j = 0; j < 8; ++j) v[k] = j; }",
        "void f(int n) { float v[8]; for (int j = 0; j < n; ++j) v[j] = 0; }",
        "void f() { float v[8]; for (int j = 0; j < 8; ++j) v[j++] = 0; }",
        "void f() { float v[8]; for (int j = 0; j < 8; --j) v[j] = 0; }",
        "void f() { float v[8]; int j = 0; for (; j < 8; ++j) v[j] = 0; }"})
    EXPECT_FALSE(analyse(Body).RA) << Body;
}

TEST(RegisterArrayLoopTest, ChoosesTheFactor) {
  Analysed A =
      analyse("void f() { float v[8]; for (int j = 0; j < 8; ++j) v[j] = 0; }");
  ASSERT_TRUE(A.RA);
  const RegisterArrayLoop *RA = &*A.RA;
  UnrollFactor Pragma = chooseUnrollFactor(RA, std::nullopt, false);
  EXPECT_EQ(Pragma.Factor, 0);
  EXPECT_EQ(Pragma.Why.rfind("full: the loop runs 8 times", 0), 0u);
  EXPECT_TRUE(Pragma.Risk.empty());
  UnrollFactor Manual = chooseUnrollFactor(RA, std::nullopt, true);
  EXPECT_EQ(Manual.Factor, 8);
  EXPECT_TRUE(Manual.Risk.empty());
  UnrollFactor Four = chooseUnrollFactor(RA, 4, false);
  EXPECT_EQ(Four.Factor, 4);
  EXPECT_EQ(Four.Risk.rfind("factor 4 may put 'v' in local memory", 0), 0u);
  EXPECT_TRUE(chooseUnrollFactor(RA, 8, false).Risk.empty());
  EXPECT_TRUE(chooseUnrollFactor(RA, 16, true).Risk.empty());
  // No array: the factor given, else 4, nothing to say.
  UnrollFactor Plain = chooseUnrollFactor(nullptr, std::nullopt, false);
  EXPECT_EQ(Plain.Factor, 4);
  EXPECT_TRUE(Plain.Why.empty() && Plain.Risk.empty());
  EXPECT_EQ(chooseUnrollFactor(nullptr, 2, true).Factor, 2);

  // Too long to unroll fully: 4, and why it may use local memory.
  Analysed Long = analyse(
      "void f() { float v[100]; for (int j = 0; j < 100; ++j) v[j] = 0; }");
  ASSERT_TRUE(Long.RA);
  UnrollFactor L = chooseUnrollFactor(&*Long.RA, std::nullopt, false);
  EXPECT_EQ(L.Factor, 4);
  EXPECT_NE(L.Risk.find("too many iterations to unroll fully"),
            std::string::npos);
  // A template trip count: full with a pragma; manual cannot, and says so.
  Analysed Tpl = analyse("template <int N> void f() { float v[N]; "
                         "for (int j = 0; j < N; ++j) v[j] = 0; }");
  ASSERT_TRUE(Tpl.RA);
  EXPECT_EQ(chooseUnrollFactor(&*Tpl.RA, std::nullopt, false).Factor, 0);
  UnrollFactor TM = chooseUnrollFactor(&*Tpl.RA, std::nullopt, true);
  EXPECT_EQ(TM.Factor, 4);
  EXPECT_FALSE(TM.Risk.empty());
  EXPECT_FALSE(chooseUnrollFactor(&*Tpl.RA, 64, false).Risk.empty());
}

} // namespace
