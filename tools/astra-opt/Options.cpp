//===- Options.cpp - Command-line options shared by the modes -------------===//
#include "Options.h"
#include "astra/Codegen/Backend.h"
#include "astra/Frontend/CompileDatabase.h"
#include "astra/Frontend/NvccRepairs.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "astra/Support/TorchFlags.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

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
cl::opt<bool>
    TorchIncludes("torch",
                  cl::desc("A torch C++/CUDA extension: add torch's include "
                           "paths (asked from the python3 on the PATH) and "
                           "the defines its builds pass"),
                  cl::cat(AstraCategory));
cl::opt<std::string> BackendName(
    "backend",
    cl::desc("PTX compiler for --emit-ptx, --ptx-stats, --verify and "
             "--agent-rewrite: clang (default; in process, no toolkit "
             "needed) or nvcc (the toolkit's, with the flags of -p's "
             "compile_commands.json, else -O3; then --extra-arg)"),
    cl::value_desc("clang|nvcc"), cl::init("clang"), cl::cat(AstraCategory));

cl::opt<std::string> SpecFile("spec",
                             cl::desc("Launch spec of the input's kernels "
                                      "(.astra.json; see docs/spec.md)"),
                             cl::value_desc("file"), cl::cat(AstraCategory));

cl::list<std::string>
    KernelNames("kernel",
                cl::desc("--verify, --agent-rewrite: only this kernel of the "
                         "spec (repeatable; default: all)"),
                cl::value_desc("name"), cl::cat(AstraCategory));
cl::opt<std::string>
    ReportFile("report",
               cl::desc("--verify, --agent-rewrite: write the full results "
                        "(JSON; the agent also writes a .md beside it)"),
               cl::value_desc("file"), cl::cat(AstraCategory));
cl::opt<unsigned> HarnessTimeout(
    "harness-timeout",
    cl::desc("Seconds before a candidate counts as hung (default 300)"),
    cl::init(300), cl::cat(AstraCategory));
cl::opt<bool> NoEdgeShapes("no-edge-shapes",
                           cl::desc("Only the spec's shapes, no generated "
                                    "edge shapes"),
                           cl::cat(AstraCategory));
cl::opt<std::string>
    HarnessKeep("harness-keep",
                cl::desc("--verify: keep the worker's job, log and result "
                         "in this directory"),
                cl::value_desc("dir"), cl::cat(AstraCategory));
cl::opt<bool> NoNvccRepairs(
    "no-nvcc-repairs",
    cl::desc("Do not repair in memory the headers that nvcc accepts and "
             "Clang rejects (docs/nvcc-compat.md)"),
    cl::cat(AstraCategory));
cl::opt<bool>
    InPlace("in-place",
            cl::desc("Write the result over the input (atomically), "
                     "keeping the original as <file>.orig"),
            cl::cat(AstraCategory));

std::string defaultSpecPath(StringRef File) {
  SmallString<128> P(File);
  sys::path::replace_extension(P, "astra.json");
  return std::string(P);
}

Error writeResult(StringRef OriginalText, StringRef Code) {
  if (!InPlace)
    return writeFileAtomically(OutputFile, Code);
  // The backup is written first: if it fails, the input is untouched.
  if (Error E = writeFileAtomically(InputFile + ".orig", OriginalText))
    return E;
  return writeFileAtomically(InputFile, Code);
}

Expected<CompileSetup> makeCompileSetup(StringRef FileName) {
  if (Error E = checkGpuArch(GpuArch))
    return std::move(E);
  CompileSetup S;
  setNvccRepairsEnabled(!NoNvccRepairs);
  S.GpuArch = GpuArch;
  S.CudaPath = findCudaPath(CudaPathOpt);
  std::optional<CodegenBackend> B = parseBackendName(BackendName);
  if (!B)
    return makeInputError("--backend=" + BackendName +
                          ": unknown backend; known: clang, nvcc");
  S.Backend = *B;
  S.ResourceDir = findResourceDir();
  S.CompatDir = findCompatDir();
  std::optional<ProjectCommand> Cmd;
  if (!BuildPath.empty()) {
    Expected<ProjectCommand> C = loadCompileCommand(BuildPath, FileName);
    if (!C)
      return C.takeError();
    S.ExtraArgs = filterParseFlags(C->CommandLine, C->File, C->Directory);
    Cmd = std::move(*C);
  }
  if (S.Backend == CodegenBackend::Nvcc) {
    Expected<std::string> Nvcc = findNvcc(S.CudaPath);
    if (!Nvcc)
      return Nvcc.takeError();
    S.NvccPath = std::move(*Nvcc);
    S.NvccFlags =
        Cmd ? filterNvccFlags(Cmd->CommandLine, Cmd->File, Cmd->Directory)
            : std::vector<std::string>{"-O3"};
    append_range(S.NvccFlags, ExtraArgs);
  }
  // --torch's include paths come after the project's: a compile database
  // of a real extension build already names them.
  std::vector<std::string> Torch;
  if (TorchIncludes) {
    Expected<std::vector<std::string>> T = queryTorchFlags();
    if (!T)
      return T.takeError();
    Torch = std::move(*T);
  }
  // --extra-arg comes last so that it can override the project's flags.
  append_range(S.ExtraArgs, Torch);
  S.ExtraArgs.insert(S.ExtraArgs.end(), ExtraArgs.begin(), ExtraArgs.end());
  // A torch extension's build defines what its headers expect.
  if (TorchIncludes ||
      (hasTorchIncludes(S.ExtraArgs) && fileIncludesTorch(FileName))) {
    append_range(S.ExtraArgs, getMissingTorchDefines(S.ExtraArgs, FileName));
    if (S.Backend == CodegenBackend::Nvcc) {
      append_range(S.NvccFlags, Torch);
      append_range(S.NvccFlags, getMissingTorchDefines(S.NvccFlags, FileName));
      if (!is_contained(S.NvccFlags, "--expt-relaxed-constexpr"))
        S.NvccFlags.push_back("--expt-relaxed-constexpr");
    }
  }
  return S;
}

} // namespace astra
