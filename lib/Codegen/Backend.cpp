//===- Backend.cpp - Choosing and naming the PTX compiler -----------------===//
#include "astra/Codegen/Backend.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"

using namespace llvm;

namespace astra {

std::optional<CodegenBackend> parseBackendName(StringRef Name) {
  if (Name == "clang")
    return CodegenBackend::Clang;
  if (Name == "nvcc")
    return CodegenBackend::Nvcc;
  return std::nullopt;
}

StringRef getBackendName(CodegenBackend B) {
  return B == CodegenBackend::Nvcc ? "nvcc" : "clang";
}

Expected<std::string> emitPtx(const CompileSetup &Setup, StringRef FileName,
                              StringRef Code) {
  if (Setup.Backend == CodegenBackend::Nvcc)
    return emitPtxWithNvcc(Setup, FileName, Code);
  return emitPtxWithClang(Setup, FileName, Code);
}

/// The flags every compile of this run gets, without its files.
static std::vector<std::string> backendFlags(const CompileSetup &Setup) {
  if (Setup.Backend == CodegenBackend::Nvcc)
    return getNvccFlags(Setup, NvccOutput::Ptx);
  std::vector<std::string> Flags = {Setup.OptLevel,
                                    "--cuda-gpu-arch=" + Setup.GpuArch};
  Flags.insert(Flags.end(), Setup.ExtraArgs.begin(), Setup.ExtraArgs.end());
  return Flags;
}

json::Value backendToJSON(const CompileSetup &Setup) {
  bool Nvcc = Setup.Backend == CodegenBackend::Nvcc;
  return json::Object{
      {"name", getBackendName(Setup.Backend)},
      {"compiler",
       Nvcc ? Setup.NvccPath
            : std::string("in-process Clang/NVPTX (LLVM " LLVM_VERSION_STRING
                          ")")},
      {"version", Nvcc ? getNvccVersion(Setup.NvccPath)
                       : std::string(LLVM_VERSION_STRING)},
      {"flags", json::Array(backendFlags(Setup))}};
}

std::string describeBackend(const CompileSetup &Setup) {
  bool Nvcc = Setup.Backend == CodegenBackend::Nvcc;
  std::string Version =
      Nvcc ? getNvccVersion(Setup.NvccPath) : std::string(LLVM_VERSION_STRING);
  return ("backend: " + getBackendName(Setup.Backend) + " " + Version +
          (Nvcc ? " (" + Setup.NvccPath + ")" : std::string(" (in-process)")) +
          ": " + join(backendFlags(Setup), " "))
      .str();
}

} // namespace astra
