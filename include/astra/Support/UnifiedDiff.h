//===- UnifiedDiff.h - Line diffs in unified format -------------*- C++ -*-===//
#ifndef ASTRA_SUPPORT_UNIFIEDDIFF_H
#define ASTRA_SUPPORT_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace astra {

/// The unified diff (`diff -u` format, \p Context lines of context) turning
/// \p Old into \p New, with headers `--- OldName` and `+++ NewName`. Empty
/// when the texts are equal.
std::string unifiedDiff(llvm::StringRef Old, llvm::StringRef New,
                        llvm::StringRef OldName, llvm::StringRef NewName,
                        unsigned Context = 3);

} // namespace astra

#endif // ASTRA_SUPPORT_UNIFIEDDIFF_H
