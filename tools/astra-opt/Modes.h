//===- Modes.h - The driver's modes -----------------------------*- C++ -*-===//
// Each mode lives in its own file and owns its own options.
#ifndef ASTRA_TOOLS_MODES_H
#define ASTRA_TOOLS_MODES_H

#include "Options.h"
#include <optional>

namespace astra {

/// --emit-ptx / --ptx-stats. Returns false in \p Handled when not requested.
llvm::Error runPtxMode(const CompileSetup &Setup, const InputSource &In,
                       bool &Handled);

/// --list-rewrites [--json]. Returns false in \p Handled when not requested.
llvm::Error runListMode(const CompileSetup &Setup, const InputSource &In,
                        bool &Handled);

/// --print-kernel-model. Returns false in \p Handled when not requested.
llvm::Error runModelMode(const CompileSetup &Setup, const InputSource &In,
                         bool &Handled);

/// --emit-spec / --check-spec. Returns false in \p Handled when not requested.
llvm::Error runSpecMode(const CompileSetup &Setup, const InputSource &In,
                        bool &Handled);

/// --verify: run a candidate against the original on the GPU.
llvm::Error runVerifyMode(const CompileSetup &Setup, const InputSource &In,
                          bool &Handled);

/// --agent-rewrite: search, prove and keep faster kernels.
llvm::Error runAgentMode(const CompileSetup &Setup, const InputSource &In,
                         bool &Handled);

/// --apply-plan: replay a saved plan (no GPU needed).
llvm::Error runPlanMode(const CompileSetup &Setup, const InputSource &In,
                        bool &Handled);

/// --harness-worker (internal): the harness's child process. Returns its
/// exit code when requested.
std::optional<int> runHarnessWorkerIfRequested();

} // namespace astra

#endif
