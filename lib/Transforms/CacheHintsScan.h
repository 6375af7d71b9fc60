//===- CacheHintsScan.h - Global accesses a hint may stream -----*- C++ -*-===//
//
// Private to lib/Transforms: cache-hints' walk over one kernel body (or one
// instantiation of a kernel template): every load and store through a
// kernel pointer parameter, how it is used, and whether its data is used
// once (CacheHintsScan.cpp says how that is judged).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_CACHEHINTSSCAN_H
#define ASTRA_LIB_TRANSFORMS_CACHEHINTSSCAN_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace astra {

/// One access through a kernel pointer parameter.
struct HintAccess {
  /// File offset of the access's first character: the same access in every
  /// instantiation of a template.
  unsigned Key = 0;
  /// The element accessed: `p[i]` (an ArraySubscriptExpr) or `*ptr` (a
  /// dereference, also of a cast: `*reinterpret_cast<const float4 *>(&p[i])`).
  const clang::Expr *Element = nullptr;
  /// Stores: the assignment `Element = Value` and its value.
  const clang::Expr *Assign = nullptr;
  const clang::Expr *Value = nullptr;
  bool Store = false;
  std::string Param;  ///< the parameter it goes through
  std::string LoopId; ///< the innermost enclosing loop, or empty
  /// Empty when the access is hinted; else why not.
  std::string Why;
};

/// The element types the translation unit has `__ldcs` (\p Store false) or
/// `__stcs` overloads for, canonical and unqualified.
llvm::SmallPtrSet<const clang::Type *, 32> getHintTypes(clang::ASTContext &Ctx,
                                                        bool Store);

/// Every access through a pointer parameter of \p Fn (a kernel, or an
/// instantiation of a kernel template), in source order, each with whether
/// it takes a streaming hint. \p Loads, \p Stores: getHintTypes();
/// \p SideLoops: findSideLoops() (reads there do not count as reuse).
std::vector<HintAccess>
scanHintAccesses(const RewriteContext &RC, const clang::FunctionDecl *Fn,
                 const llvm::SmallPtrSet<const clang::Type *, 32> &Loads,
                 const llvm::SmallPtrSet<const clang::Type *, 32> &Stores,
                 const llvm::StringSet<> &SideLoops);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_CACHEHINTSSCAN_H
