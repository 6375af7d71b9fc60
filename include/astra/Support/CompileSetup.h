//===- CompileSetup.h - How a CUDA file is compiled -------------*- C++ -*-===//
//
// One description of the device-side compile shared by the frontend (parse to
// an AST) and the codegen (emit PTX): target architecture, where the CUDA
// toolkit and Clang's resource headers are, and the project flags read from a
// compilation database. It holds strings only, so Support stays free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_COMPILESETUP_H
#define ASTRA_SUPPORT_COMPILESETUP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace astra {

/// Which compiler turns a file into PTX (lib/Codegen, one file each).
enum class CodegenBackend {
  Clang, ///< in-process: Clang's CUDA device compile, the NVPTX backend
  Nvcc,  ///< the CUDA toolkit's nvcc, with the project's own flags
};

struct CompileSetup {
  /// Target GPU, e.g. "sm_90a".
  std::string GpuArch = "sm_90a";
  /// CUDA toolkit root (holds include/cuda_runtime.h and nvvm/libdevice).
  std::string CudaPath;
  /// Clang resource directory (holds include/__clang_cuda_runtime_wrapper.h).
  std::string ResourceDir;
  /// astra-opt's own headers (astra_nvcc_compat.h, openmp/omp.h); empty when
  /// not found, and then nothing of nvcc's is bridged (docs/nvcc-compat.md).
  std::string CompatDir;
  /// Optimisation level passed to cc1 (codegen only).
  std::string OptLevel = "-O3";
  /// Keep the precompiled #include block of a file for the next parse of the
  /// same file in this process (set when a file is parsed more than once, e.g.
  /// rewrite then codegen: the headers are then parsed once).
  bool ReusePreamble = false;
  /// Project flags (-I, -D, -std, ...) from compile_commands.json or the user.
  std::vector<std::string> ExtraArgs;

  /// The PTX compiler (--backend). The parse for rewriting is Clang's
  /// either way; only the codegen changes.
  CodegenBackend Backend = CodegenBackend::Clang;
  /// --backend=nvcc: the nvcc executable, and the flags it compiles the file
  /// with in the project (compile_commands.json, else -O3, then --extra-arg)
  /// without the sources, outputs, phase and architecture options, which the
  /// backend sets itself (-arch=<GpuArch>, -ptx or -cubin).
  std::string NvccPath;
  std::vector<std::string> NvccFlags;

  /// The clang driver command line (argv[0] first) that compiles \p File for
  /// the device only. It reads what nvcc reads: the toolkit's include/cccl
  /// (Thrust, CUB, libcu++) as a system directory, astra_nvcc_compat.h
  /// included first, and with -fopenmp a fallback omp.h searched last.
  std::vector<std::string> buildDriverArgs(llvm::StringRef File) const;
};

/// Resolves the resource directory: `<exe dir>/../lib/clang/<major>` when it
/// exists (the installed, relocatable layout), else the build machine's.
std::string findResourceDir();

/// Resolves astra-opt's own header directory: `<exe dir>/../lib/astra-opt/
/// include` when it holds astra_nvcc_compat.h (the installed layout), else the
/// source tree's lib/Headers.
std::string findCompatDir();

/// Resolves the CUDA toolkit root: \p Override, else $CUDA_HOME, $CUDA_PATH,
/// /usr/local/cuda, or the directory above `nvcc` on the PATH. Empty when none.
std::string findCudaPath(llvm::StringRef Override = "");

/// Finds a CUDA tool (ptxas, nvcc) under \p CudaPath/bin or on the PATH.
std::string findCudaTool(llvm::StringRef Name, llvm::StringRef CudaPath);

/// Directory of the running executable.
std::string getExecutableDir();

/// True when \p Args ask for OpenMP (-fopenmp, -fopenmp=<lib>).
bool hasOpenMPFlag(llvm::ArrayRef<std::string> Args);

/// Checks that \p Arch names an NVIDIA GPU Clang knows (sm_XX[a]).
llvm::Error checkGpuArch(llvm::StringRef Arch);

} // namespace astra

#endif // ASTRA_SUPPORT_COMPILESETUP_H
