//===- PerThreadValues.h - Where a loop's per-thread values go --*- C++ -*-===//
//
// Private to lib/Transforms: register-cache and vectorize-loads give each
// thread of a partitioned loop other elements; see PerThreadValues.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_PERTHREADVALUES_H
#define ASTRA_LIB_TRANSFORMS_PERTHREADVALUES_H

#include "VectorizeLoadsBody.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace astra {

/// The per-thread values the thread-partitioned loops \p Loops leave
/// (locals declared outside them, written in them: \p Facts) may reach the
/// rest of the kernel only through a shared-memory tree over the block of
/// the operation that accumulated them, or loops over all of the shared
/// array; after a grid-partitioned loop (\p Grid) not at all. Returns why
/// not, or empty; adds to \p BlockConds what the rewrite's guard must check
/// for each combination relied on (a one-dimensional block, a power of two
/// twice the tree's first stride). \p Dim is the loops' dimension.
std::string checkPerThreadValues(clang::ASTContext &Ctx,
                                 const clang::FunctionDecl *K,
                                 llvm::ArrayRef<const clang::ForStmt *> Loops,
                                 llvm::ArrayRef<const BodyFacts *> Facts,
                                 char Dim, bool Grid,
                                 std::vector<std::string> &BlockConds);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_PERTHREADVALUES_H
