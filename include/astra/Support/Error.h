//===- Error.h - Diagnostics and exit codes ---------------------*- C++ -*-===//
//
// Every failure that reaches the user is an AstraError: a message, an optional
// source location (printed Clang-style as `file:line:col: error: ...`) and the
// process exit code it maps to (design section 8).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_ERROR_H
#define ASTRA_SUPPORT_ERROR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace astra {

/// Process exit codes of astra-opt.
enum class ExitCode : int {
  Ok = 0,
  BadInput = 1, ///< bad input, usage, or a rewrite that does not apply
  NoDevice = 2, ///< no GPU or CUDA driver where one is needed
  Internal = 3, ///< a bug or an unexpected environment failure
  Interrupted = 130, ///< stopped by SIGINT (Ctrl-C), as shells report it
};

/// A source position for diagnostics. Line and Col are 1-based; 0 = unknown.
struct DiagLoc {
  std::string File;
  unsigned Line = 0;
  unsigned Col = 0;
};

class AstraError : public llvm::ErrorInfo<AstraError> {
public:
  static char ID;
  AstraError(ExitCode Code, std::string Msg, DiagLoc Loc = {})
      : Code(Code), Msg(std::move(Msg)), Loc(std::move(Loc)) {}

  /// Prints `file:line:col: error: msg` (or `file: error: msg`, `error: msg`).
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  ExitCode getExitCode() const { return Code; }
  const std::string &getMessage() const { return Msg; }
  const DiagLoc &getLoc() const { return Loc; }

private:
  ExitCode Code;
  std::string Msg;
  DiagLoc Loc;
};

/// Bad input (exit 1) without a location.
llvm::Error makeInputError(const llvm::Twine &Msg);
/// Bad input (exit 1) at a location.
llvm::Error makeInputError(const DiagLoc &Loc, const llvm::Twine &Msg);
llvm::Error makeDeviceError(const llvm::Twine &Msg);
llvm::Error makeInternalError(const llvm::Twine &Msg);
llvm::Error makeInterruptedError(const llvm::Twine &Msg);

/// Prints every error in \p E to \p OS (prefixed with \p Tool for errors that
/// carry no location) and returns the highest exit code among them.
int reportError(llvm::Error E, llvm::StringRef Tool,
                llvm::raw_ostream &OS = llvm::errs());

/// Prints a Clang-style warning or note.
void printDiag(llvm::raw_ostream &OS, const DiagLoc &Loc, llvm::StringRef Kind,
               const llvm::Twine &Msg);

} // namespace astra

#endif // ASTRA_SUPPORT_ERROR_H
