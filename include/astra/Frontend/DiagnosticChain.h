//===- DiagnosticChain.h - A consumer that passes diagnostics on -*- C++
//-*-===//
//
// The frontend watches a compile's diagnostics in links of a chain (the
// errors for host cuts, the errors it can repair) ending in the printer. Each
// link counts what it sees, forwards everything, the source-file events
// included (a TextDiagnosticPrinter needs them), and owns the next link.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_DIAGNOSTICCHAIN_H
#define ASTRA_FRONTEND_DIAGNOSTICCHAIN_H

#include "clang/Basic/Diagnostic.h"
#include <memory>

namespace astra {

class DiagnosticChain : public clang::DiagnosticConsumer {
public:
  explicit DiagnosticChain(std::unique_ptr<clang::DiagnosticConsumer> Next)
      : Next(std::move(Next)) {}
  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override {
    Next->BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Next->EndSourceFile(); }
  void finish() override { Next->finish(); }
  /// Counts and forwards; a link that overrides it calls it first.
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Next->HandleDiagnostic(Level, Info);
  }

private:
  std::unique_ptr<clang::DiagnosticConsumer> Next;
};

} // namespace astra

#endif // ASTRA_FRONTEND_DIAGNOSTICCHAIN_H
