//===- NvccRepairs.h - Repair headers nvcc accepts and Clang rejects -*- C++
//-*-===//
//
// nvcc's EDG frontend accepts code that Clang rejects (a member template of a
// dependent type called without `template`, a dependent type named without
// `typename`, ...), and kernel libraries rely on it. When a device-side parse
// fails in a header, the frontend repairs that header in the process-wide
// in-memory overlay (Support/FileOverlay.h) and parses again: Clang's own
// fix-it hints where it offers them, and targeted repairs for the EDG
// leniencies it does not fix. The files on disk never change; each repair is
// reported once as `file:line:col: note: repaired for Clang: ...`, in the
// coordinates of the file on disk. The main file is never repaired (its
// offsets are what the model and the rewrites refer to). docs/nvcc-compat.md
// lists every kind of repair.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_NVCCREPAIRS_H
#define ASTRA_FRONTEND_NVCCREPAIRS_H

#include "astra/Frontend/DiagnosticChain.h"
#include "astra/Support/CompileSetup.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/LangOptions.h"
#include <memory>
#include <string>
#include <vector>

namespace astra {

/// One edit to a header proposed by one compile, in the coordinates of the
/// header as that compile read it (repaired already, if it was).
struct ProposedRepair {
  std::string File; ///< absolute path
  unsigned Offset = 0;
  unsigned Length = 0; ///< bytes replaced
  std::string Text;    ///< bytes inserted
  std::string Why;     ///< the note's text after "repaired for Clang: "
};

/// Forwards every diagnostic to a printer and proposes repairs for the errors
/// in headers that it knows how to repair.
class RepairCollector : public DiagnosticChain {
public:
  using DiagnosticChain::DiagnosticChain;
  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;
  const std::vector<ProposedRepair> &getProposals() const { return Proposals; }

private:
  void proposeFixIts(const clang::Diagnostic &Info, llvm::StringRef Msg);
  clang::LangOptions LangOpts;
  std::vector<ProposedRepair> Proposals;
};

/// Turns the repairs on (the default) or off for the rest of the process.
void setNvccRepairsEnabled(bool Enabled);

/// The number of \p Proposals not yet among the process's repairs (and not
/// conflicting with them).
unsigned countNewRepairs(llvm::ArrayRef<ProposedRepair> Proposals);

/// Adds \p Proposals to the process's repairs and puts the repaired headers
/// in the overlay. Returns how many were new.
unsigned adoptRepairs(llvm::ArrayRef<ProposedRepair> Proposals);

/// Prints a note for each repair not reported yet, unless \p Setup silences
/// warnings (-w).
void noteRepairs(const CompileSetup &Setup);

} // namespace astra

#endif // ASTRA_FRONTEND_NVCCREPAIRS_H
