//===- LlmOptions.h - --agent=llm and --agent=hybrid options ----*- C++ -*-===//
#ifndef ASTRA_TOOLS_LLMOPTIONS_H
#define ASTRA_TOOLS_LLMOPTIONS_H

#include "astra/Agent/Agent.h"
#include "astra/Support/CompileSetup.h"
#include <atomic>
#include <functional>
#include <memory>

namespace astra {

/// Makes the per-kernel agent factory for --agent=llm or --agent=hybrid from
/// the --llm-* options: one client (live endpoint or --llm-replay) shared by
/// every kernel, its transcript beside \p ReportFile (or --llm-transcript).
/// Errors (exit 1): no endpoint or model, an unreadable transcript or
/// prompt directory.
llvm::Expected<std::function<std::unique_ptr<Agent>()>>
makeLlmAgentFactory(const CompileSetup &Setup, llvm::StringRef AgentName,
                    llvm::StringRef SpecPath, llvm::StringRef ReportFile,
                    const SearchOptions &Search,
                    std::function<void(llvm::StringRef)> Progress,
                    const std::atomic<bool> *Interrupted);

/// --dry-run with --agent=llm|hybrid: prints, per spec kernel (or those in
/// \p Kernels), the first round's prompt as it would be sent, with an
/// estimate of its tokens. Needs no endpoint and no GPU.
llvm::Error printLlmDryRun(const CompileSetup &Setup, llvm::StringRef FileName,
                           llvm::StringRef Code, llvm::StringRef SpecPath,
                           llvm::StringRef AgentName,
                           llvm::ArrayRef<std::string> Kernels);

} // namespace astra

#endif
