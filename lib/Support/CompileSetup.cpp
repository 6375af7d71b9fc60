//===- CompileSetup.cpp - How a CUDA file is compiled ---------------------===//
#include "astra/Support/CompileSetup.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace llvm;

#ifndef ASTRA_BUILD_RESOURCE_DIR
#define ASTRA_BUILD_RESOURCE_DIR ""
#endif
#ifndef ASTRA_SOURCE_COMPAT_DIR
#define ASTRA_SOURCE_COMPAT_DIR ""
#endif

/// The compatibility header, see lib/Headers and docs/nvcc-compat.md.
static constexpr const char *CompatHeader = "astra_nvcc_compat.h";

namespace astra {

static int AnchorForExePath;

std::string getExecutableDir() {
  std::string Exe =
      sys::fs::getMainExecutable("astra-opt", (void *)&AnchorForExePath);
  return sys::path::parent_path(Exe).str();
}

static bool hasWrapper(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "__clang_cuda_runtime_wrapper.h");
  return sys::fs::exists(P);
}

std::string findResourceDir() {
  SmallString<256> Rel(getExecutableDir());
  sys::path::append(Rel, "..", "lib", "clang",
                    std::to_string(LLVM_VERSION_MAJOR));
  sys::path::remove_dots(Rel, /*remove_dot_dot=*/true);
  if (hasWrapper(Rel))
    return Rel.str().str();
  if (hasWrapper(ASTRA_BUILD_RESOURCE_DIR))
    return ASTRA_BUILD_RESOURCE_DIR;
  return Rel.str().str();
}

static bool hasCompatHeader(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, CompatHeader);
  return !Dir.empty() && sys::fs::exists(P);
}

std::string findCompatDir() {
  SmallString<256> Rel(getExecutableDir());
  sys::path::append(Rel, "..", "lib", "astra-opt", "include");
  sys::path::remove_dots(Rel, /*remove_dot_dot=*/true);
  if (hasCompatHeader(Rel))
    return Rel.str().str();
  if (hasCompatHeader(ASTRA_SOURCE_COMPAT_DIR))
    return ASTRA_SOURCE_COMPAT_DIR;
  return "";
}

static bool isCudaRoot(StringRef Dir) {
  if (Dir.empty())
    return false;
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "cuda_runtime.h");
  return sys::fs::exists(P);
}

std::string findCudaPath(StringRef Override) {
  if (!Override.empty())
    return Override.str();
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> V = sys::Process::GetEnv(Var))
      if (isCudaRoot(*V))
        return *V;
  if (isCudaRoot("/usr/local/cuda"))
    return "/usr/local/cuda";
  if (ErrorOr<std::string> Nvcc = sys::findProgramByName("nvcc")) {
    SmallString<256> Root(*Nvcc);
    sys::fs::real_path(*Nvcc, Root);
    StringRef R = sys::path::parent_path(sys::path::parent_path(Root));
    if (isCudaRoot(R))
      return R.str();
  }
  return "";
}

std::string findCudaTool(StringRef Name, StringRef CudaPath) {
  if (!CudaPath.empty()) {
    SmallString<256> P(CudaPath);
    sys::path::append(P, "bin", Name);
    if (sys::fs::can_execute(P))
      return P.str().str();
  }
  if (ErrorOr<std::string> P = sys::findProgramByName(Name))
    return *P;
  return "";
}

Error checkGpuArch(StringRef Arch) {
  StringRef Num = Arch;
  if (!Num.consume_front("sm_"))
    return makeInputError("invalid GPU architecture '" + Arch +
                          "': expected sm_XX, e.g. sm_90a");
  Num.consume_back("a");
  Num.consume_back("f");
  unsigned V;
  if (Num.getAsInteger(10, V) || V < 50)
    return makeInputError("invalid GPU architecture '" + Arch +
                          "': expected sm_XX with XX >= 50, e.g. sm_90a");
  return Error::success();
}

bool hasOpenMPFlag(ArrayRef<std::string> Args) {
  return any_of(Args, [](StringRef A) {
    return A == "-fopenmp" || A.starts_with("-fopenmp=");
  });
}

std::vector<std::string> CompileSetup::buildDriverArgs(StringRef File) const {
  std::vector<std::string> Args = {
      "clang++",
      "-x",
      "cuda",
      "--cuda-device-only",
      "--cuda-gpu-arch=" + GpuArch,
      "-resource-dir",
      ResourceDir,
      "-fsyntax-only", // replaced by the codegen
      OptLevel,
      "-Wno-unknown-cuda-version",
      "-Wno-cuda-compat",
      "-std=c++17",
  };
  if (!CudaPath.empty())
    Args.push_back("--cuda-path=" + CudaPath);
  else
    Args.push_back("-nocudainc"), Args.push_back("-nocudalib");
  Args.insert(Args.end(), ExtraArgs.begin(), ExtraArgs.end());
  // What nvcc adds after the user's flags (bin/nvcc.profile): CUDA 13 moved
  // Thrust, CUB and libcu++ to include/cccl, searched as a system directory.
  SmallString<256> Cccl(CudaPath);
  sys::path::append(Cccl, "include", "cccl");
  if (!CudaPath.empty() && sys::fs::is_directory(Cccl))
    Args.push_back("-isystem"), Args.push_back(Cccl.str().str());
  if (!CudaPath.empty() && hasCompatHeader(CompatDir)) {
    SmallString<256> H(CompatDir);
    sys::path::append(H, CompatHeader);
    Args.push_back("-include"), Args.push_back(H.str().str());
  }
  // The host compiler's OpenMP header: found where Clang looks, else the
  // tool's minimal one, searched after every other directory.
  if (hasOpenMPFlag(ExtraArgs) && hasCompatHeader(CompatDir)) {
    SmallString<256> Omp(CompatDir);
    sys::path::append(Omp, "openmp");
    Args.push_back("-idirafter"), Args.push_back(Omp.str().str());
  }
  Args.push_back(File.str());
  return Args;
}

} // namespace astra
