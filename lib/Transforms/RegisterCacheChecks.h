//===- RegisterCacheChecks.h - What a chain's code may do -------*- C++ -*-===//
//
// Private to lib/Transforms (RegisterCacheAnalysis.cpp); see
// RegisterCacheChecks.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_REGISTERCACHECHECKS_H
#define ASTRA_LIB_TRANSFORMS_REGISTERCACHECHECKS_H

#include "VectorizeLoadsBody.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>
#include <vector>

namespace astra {

/// Whether \p E reads threadIdx (with \p AlsoBlock, also blockIdx),
/// directly or through locals' initialisers (up to \p Depth of them; a
/// local with no initialiser counts), the locals of \p Ignore excepted.
bool isThreadDependent(
    const clang::Expr *E, unsigned Depth,
    const llvm::SmallPtrSetImpl<const clang::VarDecl *> &Ignore,
    bool AlsoBlock = false);

/// Why the call \p C may write memory; empty when it writes nothing.
std::string checkCall(const clang::CallExpr *C);

/// The first thing in \p S (set in \p Where) that may write memory other
/// than a store: a call checkCall refuses, an atomic reference, a lambda,
/// inline assembly; empty when there is none.
std::string findMemoryWriter(const clang::Stmt *S, const clang::Stmt *&Where);

/// The chain's loops \p Loops (indices \p IVs, bodies analysed into
/// \p Facts) and its rows' pointers \p Rows: why the cached path would
/// compute something else, or empty.
std::string checkChainCode(RewriteContext &RC, const clang::FunctionDecl *K,
                           llvm::ArrayRef<const clang::ForStmt *> Loops,
                           llvm::ArrayRef<const clang::VarDecl *> IVs,
                           llvm::ArrayRef<const BodyFacts *> Facts,
                           llvm::ArrayRef<const clang::VarDecl *> Rows);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_REGISTERCACHECHECKS_H
