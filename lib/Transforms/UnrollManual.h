//===- UnrollManual.h - Manual unrolling of a for loop ---------*- C++ -*-===//
//
// Private to lib/Transforms: unroll's mode=manual (Unroll.cpp), whose
// legality checks and text generation are in UnrollManual.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_UNROLLMANUAL_H
#define ASTRA_LIB_TRANSFORMS_UNROLLMANUAL_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace astra {
namespace unroll {

/// The parts of the loop's LoopForm that manual unrolling uses.
struct CanonicalLoop {
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Bound = nullptr;
  clang::BinaryOperatorKind Cmp = clang::BO_LT;
  const clang::Expr *Step = nullptr; ///< null for ++i / i++
};

/// Unrolls one for loop by hand (UnrollManual.cpp).
class ManualUnroller {
public:
  ManualUnroller(RewriteContext &RC, const clang::FunctionDecl *K,
                 const clang::ForStmt *F)
      : RC(RC), Ctx(RC.getASTContext()), K(K), F(F) {}
  /// Empty when the loop can be unrolled; else why not.
  std::string check();
  std::string build(int64_t Factor, llvm::StringSet<> &Taken);
  /// File offset just past the body (and the `;` of a single statement).
  unsigned getBodyEnd();

private:
  std::string getBodyText(llvm::StringRef Replacement);
  /// \p E as written in the file, macro names included.
  std::string getWritten(const clang::Expr *E);
  bool needsParens(const clang::DeclRefExpr *R);

  RewriteContext &RC;
  clang::ASTContext &Ctx;
  const clang::FunctionDecl *K;
  const clang::ForStmt *F;
  CanonicalLoop C;
  std::vector<const clang::DeclRefExpr *> Uses; ///< of the variable in the body
};

} // namespace unroll
} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_UNROLLMANUAL_H
