//===- DeviceSlice.h - Keep host code from blocking the device side -*- C++
//-*-===//
//
// Real files carry host code (a `main`, a checker, a torch wrapper) that nvcc
// compiles and Clang's CUDA mode may reject. astra-opt works on kernels, so
// such code must not block them: when every error of a device-side compile
// lies in the body of a host-only function, those bodies are cut out and the
// file is compiled again. A cut replaces the body by `;` (the function stays
// declared, so its callers still compile) padded with blanks, keeping every
// other byte, line and column: locations, rewrites' edits and the model refer
// to the original file unchanged. Errors in device code (kernels, __device__
// and __host__ __device__ functions, constexpr functions, types, globals) or
// in headers not reached from host code stay errors.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_DEVICESLICE_H
#define ASTRA_FRONTEND_DEVICESLICE_H

#include "astra/Frontend/DiagnosticChain.h"
#include "astra/Support/CompileSetup.h"
#include "astra/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace astra {

/// One error of a compile with the locations Clang gave for it: where it is
/// reported, then where the template it occurred in was instantiated.
struct RecordedError {
  clang::SourceLocation Loc;
  std::string Message;
  std::vector<clang::SourceLocation> InstantiatedAt;
  bool Fatal = false; ///< the compile stopped there (a missing #include)
};

/// Forwards every diagnostic down the chain and records the errors.
class ErrorRecorder : public DiagnosticChain {
public:
  using DiagnosticChain::DiagnosticChain;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;
  const std::vector<RecordedError> &getErrors() const { return Errors; }

private:
  std::vector<RecordedError> Errors;
  bool InError = false;
};

/// A host function body cut out of the device-side compile, and why.
struct HostCut {
  unsigned Begin = 0;      ///< file offset of the first byte replaced
  unsigned End = 0;        ///< one past the last byte replaced
  bool KeepBraces = false; ///< a lambda: blank the inside of `{...}`
  std::string Function;    ///< e.g. "main", "validate_result"
  DiagLoc Where;           ///< the function's name
  DiagLoc ErrorLoc;        ///< the first error in it
  std::string Error;       ///< that error's message
};

/// Maps each of \p Errors to the host-only function body of the main file it
/// lies in (directly, or through a template instantiated there). Returns the
/// cuts when every error maps to one; std::nullopt when any error is in
/// device code or outside any host function body.
std::optional<std::vector<HostCut>>
planHostCuts(clang::ASTContext &Ctx, llvm::ArrayRef<RecordedError> Errors);

/// Applies \p Cuts to \p Code, keeping its length and line structure.
std::string applyHostCuts(llvm::StringRef Code, llvm::ArrayRef<HostCut> Cuts);

/// Prints, once per process and unless \p Setup silences warnings (-w), a
/// warning naming each cut host function and the error that caused it.
void warnHostCuts(const CompileSetup &Setup, llvm::StringRef FileName,
                  llvm::ArrayRef<HostCut> Cuts);

} // namespace astra

#endif // ASTRA_FRONTEND_DEVICESLICE_H
