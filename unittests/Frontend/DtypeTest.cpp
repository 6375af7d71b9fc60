//===- DtypeTest.cpp - C++ types to launch-spec dtypes --------------------===//
#include "astra/Frontend/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

/// The dtype (its spelling, "" for none) and lanes of variable `v` declared
/// after \p Decls.
std::pair<std::string, unsigned> dtypeOf(llvm::StringRef Decls,
                                         llvm::StringRef Type) {
  std::string Code = (Decls + "\n" + Type + " v{};\n").str();
  std::unique_ptr<clang::ASTUnit> AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "--target=x86_64-linux-gnu"});
  EXPECT_TRUE(AST);
  if (!AST)
    return {"<no AST>", 0};
  clang::ASTContext &Ctx = AST->getASTContext();
  for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (auto *V = llvm::dyn_cast<clang::VarDecl>(D))
      if (V->getName() == "v") {
        unsigned Lanes = 0;
        std::optional<DType> Dt = getDtype(Ctx, V->getType(), &Lanes);
        return {Dt ? dtypeName(*Dt).str() : "", Lanes};
      }
  return {"<no v>", 0};
}

const char *Cuda = R"(
  struct __half { unsigned short x; };
  struct __half2 { __half x, y; };
  struct __nv_bfloat16 { unsigned short x; };
  struct __nv_fp8_e5m2 { unsigned char x; };
  typedef __half half;
  struct float4 { float x, y, z, w; };
  struct int2 { int x, y; };
  struct mixed2 { int x; float y; };
  enum class Mode : short { A };
  typedef signed char int8_t;
)";

TEST(DtypeTest, Builtins) {
  EXPECT_EQ(dtypeOf(Cuda, "float").first, "f32");
  EXPECT_EQ(dtypeOf(Cuda, "double").first, "f64");
  EXPECT_EQ(dtypeOf(Cuda, "int8_t").first, "i8");
  EXPECT_EQ(dtypeOf(Cuda, "unsigned char").first, "u8");
  EXPECT_EQ(dtypeOf(Cuda, "const short").first, "i16");
  EXPECT_EQ(dtypeOf(Cuda, "unsigned").first, "u32");
  EXPECT_EQ(dtypeOf(Cuda, "long").first, "i64");
  EXPECT_EQ(dtypeOf(Cuda, "unsigned long long").first, "u64");
  EXPECT_EQ(dtypeOf(Cuda, "bool").first, "bool");
  EXPECT_EQ(dtypeOf(Cuda, "Mode").first, "i16");
}

TEST(DtypeTest, CudaTypesByName) {
  EXPECT_EQ(dtypeOf(Cuda, "__half"), std::make_pair(std::string("f16"), 1u));
  EXPECT_EQ(dtypeOf(Cuda, "half"), std::make_pair(std::string("f16"), 1u));
  EXPECT_EQ(dtypeOf(Cuda, "__half2"), std::make_pair(std::string("f16"), 2u));
  EXPECT_EQ(dtypeOf(Cuda, "__nv_bfloat16").first, "bf16");
  EXPECT_EQ(dtypeOf(Cuda, "__nv_fp8_e5m2").first, "fp8e5m2");
}

TEST(DtypeTest, VectorTypes) {
  EXPECT_EQ(dtypeOf(Cuda, "float4"), std::make_pair(std::string("f32"), 4u));
  EXPECT_EQ(dtypeOf(Cuda, "int2"), std::make_pair(std::string("i32"), 2u));
  EXPECT_EQ(dtypeOf(Cuda, "mixed2"), std::make_pair(std::string(""), 1u));
}

} // namespace
