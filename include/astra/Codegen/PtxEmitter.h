//===- PtxEmitter.h - CUDA -> PTX -------------------------------*- C++ -*-===//
#ifndef ASTRA_CODEGEN_PTXEMITTER_H
#define ASTRA_CODEGEN_PTXEMITTER_H

#include "astra/Support/CompileSetup.h"
#include "llvm/Support/Error.h"
#include <string>

namespace astra {

/// Compiles \p Code (the contents of \p FileName) for the device with
/// Setup.Backend (Codegen/Backend.h): in process by default (Clang's CUDA
/// device compile at Setup.OptLevel, LLVM IR, the NVPTX backend), or with
/// nvcc and the project's flags. Returns the PTX text for Setup.GpuArch.
llvm::Expected<std::string> emitPtx(const CompileSetup &Setup,
                                    llvm::StringRef FileName,
                                    llvm::StringRef Code);

} // namespace astra

#endif // ASTRA_CODEGEN_PTXEMITTER_H
