//===- CommandLineErrors.h - Clang-style command-line errors ----*- C++ -*-===//
#ifndef ASTRA_TOOLS_COMMANDLINEERRORS_H
#define ASTRA_TOOLS_COMMANDLINEERRORS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace astra {

/// Rewrites what llvm::cl printed for a bad command line (\p ClOutput, from
/// the tool \p Tool) as Clang-style diagnostics:
///   astra-opt: Unknown command line argument '--bogus'.  Try: ...
///   astra-opt: Did you mean '--emit-ptx'?
/// becomes
///   astra-opt: error: unknown option '--bogus'
///   astra-opt: note: did you mean '--emit-ptx'?
/// (the note only for a near miss). Other messages become
/// `astra-opt: error: <message>`, their continuation lines notes. Messages
/// that llvm::cl prints straight to stderr (e.g. a missing option value) are
/// not seen here.
std::string formatCommandLineErrors(llvm::StringRef Tool,
                                    llvm::StringRef ClOutput);

} // namespace astra

#endif
