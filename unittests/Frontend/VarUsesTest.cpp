//===- VarUsesTest.cpp - Writes, addresses and escapes on small ASTs ------===//
#include "astra/Frontend/VarUses.h"
#include "CudaSnippet.h"

using namespace astra;
using namespace clang;

namespace {

class VarUsesTest : public test::CudaSnippetTest {};

TEST_F(VarUsesTest, WritesAndAddresses) {
  parse("int f(int a, int b) {\n"
        "  int c = a; int d = 0; int e = 1; int g = 2;\n"
        "  d += b; ++e; int *p = &g;\n"
        "  return c;\n"
        "}\n"
        "int h(int a) { int c = a; c = 3; return c; }\n");
  test::FunctionParts P = parts("f");
  ASSERT_NE(P.Decl, nullptr);
  VarUses W(P.Decl->getBody());
  EXPECT_FALSE(W.isModified(var(P, "c")));
  EXPECT_TRUE(W.isModified(var(P, "d")));
  EXPECT_EQ(W.Assigned.lookup(var(P, "d")).size(), 1u);
  EXPECT_TRUE(W.isModified(var(P, "e")));
  EXPECT_TRUE(W.Assigned.lookup(var(P, "e")).empty());
  EXPECT_TRUE(W.isModified(var(P, "g")));
  EXPECT_TRUE(W.AddressTaken.count(var(P, "g")));
  EXPECT_FALSE(W.AddressTaken.count(var(P, "d")));
  // Escapes are only collected on request.
  EXPECT_TRUE(W.Escaped.empty());
  // An unchanged local stands for its initialiser; a parameter is not
  // followed further.
  const auto *A = dyn_cast<DeclRefExpr>(resolveValue(P.Returns.front(), W));
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(A->getDecl()->getName(), "a");
  // An assigned one stands for itself.
  test::FunctionParts H = parts("h");
  VarUses HW(H.Decl->getBody());
  const auto *C = dyn_cast<DeclRefExpr>(resolveValue(H.Returns.front(), HW));
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(C->getDecl()->getName(), "c");
}

TEST_F(VarUsesTest, Escapes) {
  parse("void take(int &r);\n"
        "void read(int v);\n"
        "struct S { int m; };\n"
        "void f(int *out) {\n"
        "  int a = 1, b = 2, c = 3, d = 4; S s; int arr[4];\n"
        "  int *p = &a; take(b); read(c); d = c + 1; s.m = d;\n"
        "  out[0] = arr[d];\n"
        "}\n");
  test::FunctionParts P = parts("f");
  ASSERT_NE(P.Decl, nullptr);
  VarUses W;
  W.collectEscapes(ctx(), P.Decl->getBody());
  EXPECT_TRUE(W.Escaped.count(var(P, "a")));   // address taken
  EXPECT_TRUE(W.Escaped.count(var(P, "b")));   // bound to a reference
  EXPECT_FALSE(W.Escaped.count(var(P, "c")));  // read by value
  EXPECT_FALSE(W.Escaped.count(var(P, "d")));  // written and read
  EXPECT_TRUE(W.Escaped.count(var(P, "s")));   // a member is accessed
  EXPECT_TRUE(W.Escaped.count(var(P, "arr"))); // decays to a pointer
  // Parameters are locals too; `out` is read (its value is the address).
  EXPECT_FALSE(W.Escaped.count(var(P, "out")));
  // The write analysis and the use classification agree on `d = ...`.
  VarUses Writes(P.Decl->getBody());
  EXPECT_TRUE(Writes.isModified(var(P, "d")));
  EXPECT_FALSE(Writes.isModified(var(P, "c")));
}

TEST_F(VarUsesTest, TemplateOperators) {
  parse("template <typename T> T f(T x) {\n"
        "  T s = x; s += x; T t = x; return t;\n"
        "}\n");
  test::FunctionParts P = parts("f");
  ASSERT_NE(P.Decl, nullptr);
  VarUses W(P.Decl->getBody());
  EXPECT_TRUE(W.isModified(var(P, "s")));
  EXPECT_FALSE(W.isModified(var(P, "t")));
}

} // namespace
