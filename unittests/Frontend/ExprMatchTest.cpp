//===- ExprMatchTest.cpp - Expression helpers on small ASTs ---------------===//
//
// Snippets are C++ with the CUDA headers' shape of the built-in variables
// (an MS property per dimension), so no CUDA installation is needed.
//
//===----------------------------------------------------------------------===//
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace clang;

namespace {

const char *const Builtins = R"(
struct Idx {
  static unsigned gx(); static unsigned gy(); static unsigned gz();
  __declspec(property(get = gx)) unsigned x;
  __declspec(property(get = gy)) unsigned y;
  __declspec(property(get = gz)) unsigned z;
};
extern const Idx threadIdx, blockIdx, blockDim, gridDim, other;
float expf(float);
)";

/// The returned expression of function \p Fn in \p Code.
class ReturnFinder : public RecursiveASTVisitor<ReturnFinder> {
public:
  explicit ReturnFinder(llvm::StringRef Fn) : Fn(Fn) {}
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (FD->getName() == Fn)
      return RecursiveASTVisitor::TraverseFunctionDecl(FD);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *R) {
    Found = R->getRetValue();
    return false;
  }
  const Expr *Found = nullptr;

private:
  llvm::StringRef Fn;
};

class ExprMatchTest : public ::testing::Test {
protected:
  void parse(llvm::StringRef Code) {
    AST = tooling::buildASTFromCodeWithArgs((Builtins + Code).str(),
                                            {"-fms-extensions", "-std=c++17"});
    ASSERT_TRUE(AST);
  }
  const Expr *ret(llvm::StringRef Fn) {
    ReturnFinder F(Fn);
    F.TraverseDecl(AST->getASTContext().getTranslationUnitDecl());
    EXPECT_NE(F.Found, nullptr) << Fn.str();
    return F.Found;
  }
  std::unique_ptr<ASTUnit> AST;
};

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
