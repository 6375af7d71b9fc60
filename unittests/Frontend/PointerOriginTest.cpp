//===- PointerOriginTest.cpp - Pointer provenance on small ASTs -----------===//
#include "astra/Frontend/PointerOrigin.h"
#include "CudaSnippet.h"
#include "astra/Frontend/VarUses.h"
#include "clang/Lex/Lexer.h"

using namespace astra;
using namespace clang;

namespace {

class PointerOriginTest : public test::CudaSnippetTest {
protected:
  /// The origin of \p Fn's returned pointer, following only the locals
  /// its body never modifies (\p AnyLocal: every local).
  std::optional<PointerOrigin> origin(llvm::StringRef Fn,
                                      bool AnyLocal = false) {
    test::FunctionParts P = parts(Fn);
    if (!P.Decl || P.Returns.empty())
      return std::nullopt;
    VarUses W(P.Decl->getBody());
    return findPointerOrigin(P.Returns.front(), P.Decl,
                             AnyLocal ? nullptr : &W);
  }
  /// The offsets of \p O as written, `-` before subtracted ones.
  std::string offsets(const PointerOrigin &O) {
    std::string S;
    for (const PointerOffset &Off : O.Offsets) {
      if (!S.empty())
        S += ",";
      S += (Off.Negated ? "-" : "") +
           Lexer::getSourceText(
               CharSourceRange::getTokenRange(Off.Offset->getSourceRange()),
               ctx().getSourceManager(), ctx().getLangOpts())
               .str();
    }
    return S;
  }
};

TEST_F(PointerOriginTest, OffsetsCastsAndCopies) {
  parse("float *g;\n"
        "float *plain(float *p) { return p; }\n"
        "float *arith(float *p, int n, int i) {\n"
        "  float *a = p + 4; float *b = (float *)(void *)(a - n);\n"
        "  return i + b;\n"
        "}\n"
        "float *element(float *p, int i) { float *a = &p[2]; return &a[i]; }\n"
        "float *deref(float *p) { return &*(p + 1); }\n"
        "float *global() { return g + 1; }\n"
        "float *elsewhere(float *p) { return p; }\n"
        "float *moved(float *p) { float *m = p; m = m + 1; return m; }\n");
  std::optional<PointerOrigin> O = origin("plain");
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Param->getName(), "p");
  EXPECT_EQ(O->Via, nullptr);
  EXPECT_TRUE(O->Offsets.empty());

  // Through locals, casts and both sides of `+`; innermost offset first.
  O = origin("arith");
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Param->getName(), "p");
  ASSERT_NE(O->Via, nullptr);
  EXPECT_EQ(O->Via->getName(), "b");
  EXPECT_EQ(offsets(*O), "4,-n,i");

  // &p[i] is p + i.
  O = origin("element");
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Param->getName(), "p");
  EXPECT_EQ(O->Via->getName(), "a");
  EXPECT_EQ(offsets(*O), "2,i");
  O = origin("deref");
  ASSERT_TRUE(O);
  EXPECT_EQ(offsets(*O), "1");

  // Not a parameter.
  EXPECT_FALSE(origin("global"));
  // A parameter of another function.
  test::FunctionParts Other = parts("elsewhere");
  EXPECT_FALSE(
      findPointerOrigin(Other.Returns.front(), parts("plain").Decl, nullptr));

  // A modified local stands for its initial value only when asked to
  // follow every local.
  EXPECT_FALSE(origin("moved"));
  O = origin("moved", /*AnyLocal=*/true);
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Param->getName(), "p");
  EXPECT_EQ(O->Via->getName(), "m");
}

TEST_F(PointerOriginTest, TemplateOperands) {
  // Dependent operands: the pointer is the side that leads to a parameter.
  parse("template <typename T> T *f(T *p, int n) {\n"
        "  T *a = n + p; return a - 1;\n"
        "}\n");
  std::optional<PointerOrigin> O = origin("f");
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Param->getName(), "p");
  EXPECT_EQ(offsets(*O), "n,-1");
}

TEST_F(PointerOriginTest, Copies) {
  parse("void k(float *p, float *q, int n) {\n"
        "  float *a = p + n; float *b = a; float *c = q; float *d = &b[1];\n"
        "  d = q; float *e = c - 1; float *f = 0; int m = n; float x = *a;\n"
        "}\n");
  test::FunctionParts K = parts("k");
  ASSERT_NE(K.Decl, nullptr);
  const auto *P = cast<ParmVarDecl>(var(K, "p"));
  const auto *Q = cast<ParmVarDecl>(var(K, "q"));
  llvm::SmallPtrSet<const VarDecl *, 4> FromP = findPointerCopies(K.Decl, P);
  // `d` is reassigned later but is still initialised from `p`.
  EXPECT_EQ(FromP.size(), 3u);
  EXPECT_TRUE(FromP.count(var(K, "a")));
  EXPECT_TRUE(FromP.count(var(K, "b")));
  EXPECT_TRUE(FromP.count(var(K, "d")));
  llvm::SmallPtrSet<const VarDecl *, 4> FromQ = findPointerCopies(K.Decl, Q);
  EXPECT_EQ(FromQ.size(), 2u);
  EXPECT_TRUE(FromQ.count(var(K, "c")));
  EXPECT_TRUE(FromQ.count(var(K, "e")));
}

} // namespace
