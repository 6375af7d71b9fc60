//===- FreshName.h - Identifiers that clash with nothing --------*- C++ -*-===//
//
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_FRESHNAME_H
#define ASTRA_LIB_TRANSFORMS_FRESHNAME_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/StringSet.h"

namespace astra {

/// An identifier based on \p Base that is not spelled anywhere in the
/// translation unit and was not handed out before through \p Taken.
std::string makeFreshName(clang::ASTContext &Ctx, llvm::StringRef Base,
                          llvm::StringSet<> &Taken);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_FRESHNAME_H
