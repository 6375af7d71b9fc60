//===- Options.cpp - Command-line options shared by the modes -------------===//
#include "Options.h"
#include "astra/Frontend/CompileDatabase.h"
#include "astra/Support/Error.h"

using namespace llvm;

namespace astra {

cl::OptionCategory AstraCategory("astra-opt options");

cl::opt<std::string> InputFile(cl::Positional, cl::desc("<input .cu file | ->"),
                               cl::cat(AstraCategory));
cl::opt<std::string> OutputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(AstraCategory));
cl::opt<std::string> GpuArch("gpu-arch",
                             cl::desc("Target GPU architecture (default sm_90a)"),
                             cl::value_desc("sm_XX"), cl::init("sm_90a"),
                             cl::cat(AstraCategory));
cl::opt<std::string>
    CudaPathOpt("cuda-path",
                cl::desc("CUDA toolkit root (default: $CUDA_HOME, "
                         "/usr/local/cuda, or nvcc's)"),
                cl::value_desc("dir"), cl::cat(AstraCategory));
cl::opt<std::string>
    BuildPath("p",
              cl::desc("Build directory holding compile_commands.json"),
              cl::value_desc("build dir"), cl::cat(AstraCategory));
cl::list<std::string>
    ExtraArgs("extra-arg",
              cl::desc("Additional compiler argument (repeatable)"),
              cl::value_desc("arg"), cl::cat(AstraCategory));

cl::opt<std::string> SpecFile("spec",
                             cl::desc("Launch spec of the input's kernels "
                                      "(.astra.json; see docs/spec.md)"),
                             cl::value_desc("file"), cl::cat(AstraCategory));

Expected<CompileSetup> makeCompileSetup(StringRef FileName) {
  if (Error E = checkGpuArch(GpuArch))
    return std::move(E);
  CompileSetup S;
  S.GpuArch = GpuArch;
  S.CudaPath = findCudaPath(CudaPathOpt);
  S.ResourceDir = findResourceDir();
  if (!BuildPath.empty()) {
    Expected<std::vector<std::string>> Flags =
        loadProjectFlags(BuildPath, FileName);
    if (!Flags)
      return Flags.takeError();
    S.ExtraArgs = std::move(*Flags);
  }
  // --extra-arg comes last so that it can override the project's flags.
  S.ExtraArgs.insert(S.ExtraArgs.end(), ExtraArgs.begin(), ExtraArgs.end());
  return S;
}

} // namespace astra
