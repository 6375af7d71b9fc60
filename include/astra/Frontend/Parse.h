//===- Parse.h - Parse a CUDA file and run code on its AST ------*- C++ -*-===//
#ifndef ASTRA_FRONTEND_PARSE_H
#define ASTRA_FRONTEND_PARSE_H

#include "astra/Support/CompileSetup.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace astra {

/// Parses \p Code (the contents of \p FileName) as CUDA for the device and
/// calls \p Fn with the AST. The AST lives only during the call. Host
/// function bodies that Clang cannot compile are cut out with a warning
/// (DeviceSlice.h); offsets, lines and columns stay those of \p Code. Headers
/// that nvcc accepts and Clang rejects are repaired in memory, with a note
/// per repair (NvccRepairs.h). When errors remain only outside the kernels,
/// \p Fn runs on Clang's recovered AST with a warning naming the first
/// (RecoveredAST.h). Other parse errors are printed Clang-style and returned
/// as a bad-input error; an error from \p Fn is returned as is.
llvm::Error
withParsedAST(const CompileSetup &Setup, llvm::StringRef FileName,
              llvm::StringRef Code,
              llvm::function_ref<llvm::Error(clang::ASTContext &)> Fn);

/// Returns the code the device side compiles: \p Code with the host function
/// bodies that Clang cannot compile cut out (\p Code itself when none), as
/// withParsedAST parses it (with the same header repairs). A compile that
/// fails otherwise, errors outside the kernels included, prints its
/// diagnostics and returns its error.
llvm::Expected<std::string> sliceOutHostErrors(const CompileSetup &Setup,
                                               llvm::StringRef FileName,
                                               llvm::StringRef Code);

} // namespace astra

#endif // ASTRA_FRONTEND_PARSE_H
