//===- CoarsenAffineTest.cpp - Store indices that rise by one per thread --===//
//
// Plain C++ snippets: threadIdx and blockIdx are declared as the CUDA
// headers name them, which is all the analysis reads.
//
//===----------------------------------------------------------------------===//
#include "CoarsenAffine.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace clang;

namespace {

/// The last `out[IDX] = ...` of f.
class LastStore : public RecursiveASTVisitor<LastStore> {
public:
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Assign)
      if (const auto *S = dyn_cast<ArraySubscriptExpr>(B->getLHS()))
        Index = S->getIdx();
    return true;
  }
  const Expr *Index = nullptr;
};

/// Whether the last store's index in \p Body (f's body) rises by one per
/// thread; the locals at f's top level are the per-thread ones, those named
/// u... the uniform ones. \p Why receives the reason when not.
bool rises(const std::string &Body, std::string *Why = nullptr) {
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      "struct uint3 { unsigned x, y, z; };\n"
      "extern uint3 threadIdx, blockIdx, gridDim;\n"
      "void f(signed char *out, const int *rows, long t, int d, int g, int "
      "gs) {\n" +
          Body + "\n}\n",
      {"-std=c++17"});
  ASTContext &Ctx = AST->getASTContext();
  const FunctionDecl *F = nullptr;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getName() == "f")
        F = FD;
  EXPECT_TRUE(F && F->getBody()) << Body;
  if (!F || !F->getBody())
    return false;
  llvm::DenseSet<const VarDecl *> Uniform, PerThread;
  for (const Stmt *S : cast<CompoundStmt>(F->getBody())->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          (V->getName().starts_with("u") ? Uniform : PerThread).insert(V);
  LastStore L;
  L.TraverseDecl(const_cast<FunctionDecl *>(F));
  EXPECT_TRUE(L.Index) << Body;
  ChangedVars CV(Ctx, F, F->getBody());
  std::string W;
  bool R =
      risesByOnePerThread(Ctx, L.Index, AffineScope{CV, Uniform, PerThread}, W);
  EXPECT_EQ(R, W.empty()) << Body << ": " << W;
  if (Why)
    *Why = W;
  return R;
}

TEST(CoarsenAffineTest, RisesByOne) {
  // The suite's per_token_group_int8_quant, as coarsen sees it.
  EXPECT_TRUE(rises("const int i = g * gs + threadIdx.x; out[t * d + i] = 0;"));
  EXPECT_TRUE(rises("out[blockIdx.x * 128 + threadIdx.x] = 0;"));
  EXPECT_TRUE(rises("const int ug = blockIdx.x; const unsigned k = "
                    "threadIdx.x; out[ug * gs + k + t] = 0;"));
  EXPECT_TRUE(rises("const int i = threadIdx.x; out[i - t] = 0;"));
  EXPECT_TRUE(
      rises("const int i = threadIdx.x; out[(unsigned long)i + t] = 0;"));
  EXPECT_TRUE(rises("const long i = +threadIdx.x; out[t * (d / gs) + i] = 0;"));
  EXPECT_TRUE(rises("out[(gridDim.x * t) + threadIdx.x] = 0;"));
}

TEST(CoarsenAffineTest, NotProved) {
  std::string Why;
  EXPECT_FALSE(rises("const int i = threadIdx.x; out[t - i] = 0;", &Why));
  EXPECT_NE(Why.find("subtracts a per-thread value"), std::string::npos);
  EXPECT_FALSE(rises("const int i = threadIdx.x; out[2 * i] = 0;", &Why));
  EXPECT_NE(Why.find("other than + or -"), std::string::npos);
  EXPECT_FALSE(rises("const int i = threadIdx.x; out[i ^ 1] = 0;"));
  EXPECT_FALSE(rises("const int i = threadIdx.x; out[i + i] = 0;", &Why));
  EXPECT_NE(Why.find("twice"), std::string::npos);
  EXPECT_FALSE(rises("out[t * d + threadIdx.y] = 0;", &Why));
  EXPECT_NE(Why.find("threadIdx.y"), std::string::npos);
  // Narrow types: refused, conservatively (the end-point argument is made
  // for wraps of 2^32).
  EXPECT_FALSE(rises("const short i = threadIdx.x; out[t + i] = 0;", &Why));
  EXPECT_NE(Why.find("narrower than 32 bits"), std::string::npos);
  EXPECT_FALSE(rises("out[t + (unsigned short)threadIdx.x] = 0;", &Why));
  EXPECT_NE(Why.find("narrower than 32 bits"), std::string::npos);
  // Loads and calls: evaluated again after the loop.
  EXPECT_FALSE(rises("out[rows[g] + threadIdx.x] = 0;", &Why));
  EXPECT_NE(Why.find("load"), std::string::npos);
  // Changed, nested or uninitialised locals.
  EXPECT_FALSE(rises("int i = threadIdx.x; i += 1; out[t + i] = 0;", &Why));
  EXPECT_NE(Why.find("which the kernel changes"), std::string::npos);
  EXPECT_FALSE(
      rises("if (d) { const int n = threadIdx.x; out[n] = 0; }", &Why));
  EXPECT_NE(Why.find("neither before the per-thread work"), std::string::npos);
  EXPECT_FALSE(rises("const int i = d ? threadIdx.x : 0; out[i] = 0;", &Why));
  EXPECT_NE(Why.find("other than + or -"), std::string::npos);
  EXPECT_FALSE(rises("const bool b = threadIdx.x; out[t + b] = 0;", &Why));
  // (its conversion to bool is not + or -)
  EXPECT_NE(Why.find("other than + or -"), std::string::npos);
  // A reference is a load; an index without threadIdx.x stores every copy
  // to one element.
  EXPECT_FALSE(rises("const int &ur = rows[blockIdx.x]; out[ur + threadIdx.x] "
                     "= 0;",
                     &Why));
  EXPECT_NE(Why.find("the reference 'ur'"), std::string::npos);
  EXPECT_FALSE(rises("out[t + blockIdx.x] = 0;", &Why));
  EXPECT_NE(Why.find("does not depend on threadIdx.x"), std::string::npos);
}

} // namespace
