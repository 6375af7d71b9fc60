//===- CudaSnippet.h - Small ASTs of CUDA-like code for unit tests -*- C++
//-*-===//
//
// Snippets are C++ with the CUDA headers' shape of the built-in variables
// (an MS property per dimension), so no CUDA installation is needed.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_UNITTESTS_FRONTEND_CUDASNIPPET_H
#define ASTRA_UNITTESTS_FRONTEND_CUDASNIPPET_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"
#include <vector>

namespace astra {
namespace test {

inline const char *const CudaBuiltins = R"(
struct Idx {
  static unsigned gx(); static unsigned gy(); static unsigned gz();
  __declspec(property(get = gx)) unsigned x;
  __declspec(property(get = gy)) unsigned y;
  __declspec(property(get = gz)) unsigned z;
};
extern const Idx threadIdx, blockIdx, blockDim, gridDim, other;
float expf(float);
)";

/// What the snippet's function \p Fn holds: its declaration, returned
/// expressions and loops, in source order.
class FunctionParts : public clang::RecursiveASTVisitor<FunctionParts> {
public:
  explicit FunctionParts(llvm::StringRef Fn) : Fn(Fn) {}
  bool TraverseFunctionDecl(clang::FunctionDecl *FD) {
    if (FD->getName() != Fn || !FD->hasBody())
      return true;
    Decl = FD;
    return RecursiveASTVisitor::TraverseFunctionDecl(FD);
  }
  bool VisitReturnStmt(clang::ReturnStmt *R) {
    Returns.push_back(R->getRetValue());
    return true;
  }
  bool VisitStmt(clang::Stmt *S) {
    if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(S))
      Loops.push_back(S);
    return true;
  }
  const clang::FunctionDecl *Decl = nullptr;
  std::vector<const clang::Expr *> Returns;
  std::vector<const clang::Stmt *> Loops;

private:
  llvm::StringRef Fn;
};

class CudaSnippetTest : public ::testing::Test {
protected:
  void parse(llvm::StringRef Code) {
    AST = clang::tooling::buildASTFromCodeWithArgs(
        (CudaBuiltins + Code).str(), {"-fms-extensions", "-std=c++17"});
    ASSERT_TRUE(AST);
    ASSERT_FALSE(AST->getDiagnostics().hasErrorOccurred());
  }
  clang::ASTContext &ctx() { return AST->getASTContext(); }
  FunctionParts parts(llvm::StringRef Fn) {
    FunctionParts P(Fn);
    P.TraverseDecl(ctx().getTranslationUnitDecl());
    EXPECT_NE(P.Decl, nullptr) << Fn.str();
    return P;
  }
  /// The (first) returned expression of \p Fn.
  const clang::Expr *ret(llvm::StringRef Fn) {
    FunctionParts P = parts(Fn);
    EXPECT_FALSE(P.Returns.empty()) << Fn.str();
    return P.Returns.empty() ? nullptr : P.Returns.front();
  }
  /// The local variable or parameter \p Name of \p P's function.
  const clang::VarDecl *var(const FunctionParts &P, llvm::StringRef Name) {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      llvm::StringRef Name;
      const clang::VarDecl *Found = nullptr;
      bool VisitVarDecl(clang::VarDecl *V) {
        if (V->getName() == Name)
          Found = V;
        return true;
      }
    } F;
    F.Name = Name;
    F.TraverseDecl(const_cast<clang::FunctionDecl *>(P.Decl));
    EXPECT_NE(F.Found, nullptr) << Name.str();
    return F.Found;
  }
  std::unique_ptr<clang::ASTUnit> AST;
};

} // namespace test
} // namespace astra

#endif // ASTRA_UNITTESTS_FRONTEND_CUDASNIPPET_H
