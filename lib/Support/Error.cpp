//===- Error.cpp - Diagnostics and exit codes -----------------------------===//
#include "astra/Support/Error.h"
#include "astra/Support/ErrorText.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace astra {

char AstraError::ID = 0;

static void printLoc(raw_ostream &OS, const DiagLoc &Loc) {
  if (Loc.File.empty())
    return;
  OS << Loc.File << ':';
  if (Loc.Line) {
    OS << Loc.Line << ':';
    if (Loc.Col)
      OS << Loc.Col << ':';
  }
  OS << ' ';
}

void printDiag(raw_ostream &OS, const DiagLoc &Loc, StringRef Kind,
               const Twine &Msg) {
  printLoc(OS, Loc);
  OS << Kind << ": " << Msg << '\n';
}

void AstraError::log(raw_ostream &OS) const {
  printLoc(OS, Loc);
  OS << "error: " << Msg;
}

Error makeInputError(const Twine &Msg) {
  return make_error<AstraError>(ExitCode::BadInput, Msg.str());
}
Error makeInputError(const DiagLoc &Loc, const Twine &Msg) {
  return make_error<AstraError>(ExitCode::BadInput, Msg.str(), Loc);
}
Error makeDeviceError(const Twine &Msg) {
  return make_error<AstraError>(ExitCode::NoDevice, Msg.str());
}
Error makeInternalError(const Twine &Msg) {
  return make_error<AstraError>(ExitCode::Internal, Msg.str());
}

Error makeInterruptedError(const Twine &Msg) {
  return make_error<AstraError>(ExitCode::Interrupted, Msg.str());
}

int reportError(Error E, StringRef Tool, raw_ostream &OS) {
  int Code = 0;
  handleAllErrors(
      std::move(E),
      [&](const AstraError &AE) {
        if (AE.getLoc().File.empty())
          OS << Tool << ": ";
        AE.log(OS);
        OS << '\n';
        Code = std::max(Code, static_cast<int>(AE.getExitCode()));
      },
      [&](const ErrorInfoBase &EI) {
        OS << Tool << ": error: " << EI.message() << '\n';
        Code = std::max(Code, static_cast<int>(ExitCode::Internal));
      });
  return Code;
}

std::string errorText(Error E) {
  std::string S;
  handleAllErrors(
      std::move(E),
      [&](const AstraError &A) {
        const DiagLoc &L = A.getLoc();
        if (!L.File.empty()) {
          S = L.File;
          if (L.Line)
            S += ":" + std::to_string(L.Line) + ":" + std::to_string(L.Col);
          S += ": ";
        }
        S += A.getMessage();
      },
      [&](const ErrorInfoBase &B) { S = B.message(); });
  return S;
}

} // namespace astra
