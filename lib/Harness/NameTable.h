//===- NameTable.h - Stable names of enumerators ----------------*- C++ -*-===//
//
// Each enum of the harness's vocabulary (verdicts, reasons, the worker's
// status and parties) has one table {enumerator, name}; these two look-ups
// are the only way names are written and read back. Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_NAMETABLE_H
#define ASTRA_LIB_HARNESS_NAMETABLE_H

#include "llvm/ADT/StringRef.h"
#include <cstddef>
#include <optional>
#include <utility>

namespace astra {

/// The name of \p V in \p Table; the first entry's name when it is missing.
template <typename E, size_t N>
llvm::StringRef nameIn(const std::pair<E, const char *> (&Table)[N], E V) {
  for (auto &[X, Name] : Table)
    if (X == V)
      return Name;
  return Table[0].second;
}

/// The enumerator named \p Name in \p Table, if any.
template <typename E, size_t N>
std::optional<E> parseIn(const std::pair<E, const char *> (&Table)[N],
                         llvm::StringRef Name) {
  for (auto &[X, XName] : Table)
    if (Name == XName)
      return X;
  return std::nullopt;
}

} // namespace astra

#endif // ASTRA_LIB_HARNESS_NAMETABLE_H
