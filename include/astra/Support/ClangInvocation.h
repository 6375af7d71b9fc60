//===- ClangInvocation.h - A configured Clang for one CUDA file -*- C++ -*-===//
//
// Builds a CompilerInstance that compiles one CUDA file for the device, with
// the file's contents taken from memory (so rewritten code compiles without
// being written to disk) while its #includes resolve from the real file
// system, relative to the file's real directory. Diagnostics print Clang-style.
// Shared by the frontend (AST) and the codegen (PTX).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_CLANGINVOCATION_H
#define ASTRA_SUPPORT_CLANGINVOCATION_H

#include "astra/Support/CompileSetup.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace astra {

/// Creates a CompilerInstance for \p FileName with contents \p Code, whose
/// diagnostics print to \p DiagOS (a buffer when the caller decides later
/// whether to show them). Fails with a bad-input error when the flags are
/// rejected or the CUDA toolkit cannot be found.
llvm::Expected<std::unique_ptr<clang::CompilerInstance>>
createCudaCompiler(const CompileSetup &Setup, llvm::StringRef FileName,
                   llvm::StringRef Code,
                   llvm::raw_ostream &DiagOS = llvm::errs());

/// Runs \p Action on \p CI and turns compile errors into an AstraError that
/// counts them (the diagnostics themselves were already printed).
llvm::Error runCompilerAction(clang::CompilerInstance &CI,
                              clang::FrontendAction &Action,
                              llvm::StringRef FileName);

} // namespace astra

#endif // ASTRA_SUPPORT_CLANGINVOCATION_H
