//===- RecoveredAST.h - Work on an AST Clang recovered from errors -*- C++
//-*-===//
//
// When a device-side parse still fails after the nvcc repairs
// (NvccRepairs.h) and the host cuts (DeviceSlice.h), the errors may lie
// outside the kernels: in the body of a helper that nvcc compiles and no
// kernel instantiates. Clang's recovered AST then still holds the
// kernels intact, and the model, the rewrite listing and the rewrites work
// from it (the rewritten file is compiled by nvcc). An error in a kernel's
// body, or in a template a kernel's body instantiates, or outside function
// bodies (declarations, types, a missing header) stays an error.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_RECOVEREDAST_H
#define ASTRA_FRONTEND_RECOVEREDAST_H

#include "astra/Frontend/DeviceSlice.h"
#include "astra/Support/CompileSetup.h"
#include "clang/AST/ASTContext.h"

namespace astra {

/// Whether the kernels of \p Ctx are intact in spite of \p Errors: none is
/// fatal, each lies in the body of a function that is not a kernel, and none
/// was reached through a template instantiated from a kernel's body.
bool kernelsOutsideErrors(clang::ASTContext &Ctx,
                          llvm::ArrayRef<RecordedError> Errors);

/// Prints, once per process per file and first error and unless \p Setup
/// silences warnings (-w), a warning that \p FileName is modelled from
/// Clang's recovered AST, naming its first error.
void warnRecoveredAST(const CompileSetup &Setup, llvm::StringRef FileName,
                      const DiagLoc &FirstLoc, llvm::StringRef FirstError,
                      unsigned NumErrors);

/// Where \p Loc is, as a DiagLoc (file, line, column of its file location).
DiagLoc describeLoc(const clang::SourceManager &SM, clang::SourceLocation Loc);

} // namespace astra

#endif // ASTRA_FRONTEND_RECOVEREDAST_H
