//===- Output.h - Atomic file output ----------------------------*- C++ -*-===//
#ifndef ASTRA_SUPPORT_OUTPUT_H
#define ASTRA_SUPPORT_OUTPUT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace astra {

/// Writes \p Contents to \p Path atomically: a temporary file in the same
/// directory is renamed over the target, so a failure never leaves a
/// half-written file. "-" writes to stdout.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// Reads \p Path ("-" reads stdin). Errors name the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef Path);

} // namespace astra

#endif // ASTRA_SUPPORT_OUTPUT_H
