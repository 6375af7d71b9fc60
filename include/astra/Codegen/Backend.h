//===- Backend.h - The PTX compilers behind emitPtx -------------*- C++ -*-===//
//
// Two backends turn a (rewritten) CUDA file into PTX, chosen by
// CompileSetup::Backend (--backend): `clang`, in process (Clang's CUDA
// device compile, the NVPTX backend; needs no CUDA toolkit), and `nvcc`, the
// toolkit's compiler run with the project's own flags, so that what the
// harness proves is what the project's build ships. emitPtx (PtxEmitter.h)
// dispatches; reports name the backend through backendToJSON.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_CODEGEN_BACKEND_H
#define ASTRA_CODEGEN_BACKEND_H

#include "astra/Codegen/PtxEmitter.h"
#include "astra/Codegen/PtxStats.h"
#include "llvm/Support/JSON.h"
#include <optional>

namespace astra {

/// "clang" or "nvcc" (the --backend values); std::nullopt for other names.
std::optional<CodegenBackend> parseBackendName(llvm::StringRef Name);
llvm::StringRef getBackendName(CodegenBackend B);

/// --backend=clang: the in-process compile (ClangBackend.cpp).
llvm::Expected<std::string> emitPtxWithClang(const CompileSetup &Setup,
                                             llvm::StringRef FileName,
                                             llvm::StringRef Code);

/// What nvcc is asked to produce.
enum class NvccOutput { Ptx, Cubin };

/// The flags of every nvcc compile of \p Setup: Setup.NvccFlags, -w when
/// Setup.ExtraArgs turn warnings off, -arch=<GpuArch>, -ptx or -cubin.
std::vector<std::string> getNvccFlags(const CompileSetup &Setup,
                                      NvccOutput Kind);

/// The nvcc command line (the program first) that compiles \p Input (a copy
/// of \p FileName's code) to \p Output: -I<FileName's directory> (quoted
/// includes resolve as in the original place), getNvccFlags, \p Extra, the
/// files.
std::vector<std::string>
buildNvccCommand(const CompileSetup &Setup, llvm::StringRef FileName,
                 llvm::StringRef Input, llvm::StringRef Output, NvccOutput Kind,
                 llvm::ArrayRef<std::string> Extra = {});

/// --backend=nvcc: runs Setup.NvccPath on \p Code (diagnostics name
/// \p FileName) and returns the PTX. nvcc's messages are the error when it
/// fails, and are printed (warnings) when it succeeds.
llvm::Expected<std::string> emitPtxWithNvcc(const CompileSetup &Setup,
                                            llvm::StringRef FileName,
                                            llvm::StringRef Code);

/// --backend=nvcc --ptx-stats: compiles \p Code to a cubin with the project's
/// flags (its -Xptxas and -maxrregcount options included) and returns each
/// kernel's resources as ptxas reported them for that build.
llvm::Expected<std::vector<KernelResources>>
nvccResources(const CompileSetup &Setup, llvm::StringRef FileName,
              llvm::StringRef Code);

/// The nvcc executable for --backend=nvcc: \p CudaPath/bin/nvcc, else nvcc
/// on the PATH. Exit 2 (no toolkit where one is needed) with a message
/// saying where it looked when there is none.
llvm::Expected<std::string> findNvcc(llvm::StringRef CudaPath);

/// "13.0.88" from `nvcc --version`; empty when it cannot be read.
std::string getNvccVersion(llvm::StringRef Nvcc);

/// The backend in use, for reports: {"name", "compiler", "version", "flags"}
/// where flags are those every compile of this run gets (nvcc: its command
/// less the files; clang: the optimisation level, the target and the
/// project's flags).
llvm::json::Value backendToJSON(const CompileSetup &Setup);

/// One line for terminal reports: "backend: nvcc 13.0.88: -O3 ... -ptx".
std::string describeBackend(const CompileSetup &Setup);

} // namespace astra

#endif // ASTRA_CODEGEN_BACKEND_H
