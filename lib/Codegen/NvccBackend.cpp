//===- NvccBackend.cpp - CUDA -> PTX/cubin with nvcc (--backend=nvcc) -----===//
//
// The code is written to a private temporary directory behind a #line
// directive, so nvcc's messages name the user's file; its own directory is
// searched first for quoted includes, as if nvcc read the file where it is.
// nvcc runs as a child with the project's flags, the target architecture and
// one output phase; nothing else of the project's command is kept.
//
//===----------------------------------------------------------------------===//
#include "astra/Codegen/Backend.h"
#include "astra/Support/Error.h"
#include "astra/Support/Subprocess.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {

/// Seconds nvcc may take for one file before it counts as hung.
static constexpr double NvccTimeout = 600;

Expected<std::string> findNvcc(StringRef CudaPath) {
  std::string Nvcc = findCudaTool("nvcc", CudaPath);
  if (!Nvcc.empty())
    return Nvcc;
  std::string Where = CudaPath.empty()
                          ? std::string("no CUDA toolkit found (--cuda-path, "
                                        "$CUDA_HOME, $CUDA_PATH, "
                                        "/usr/local/cuda)")
                          : ("not in " + CudaPath + "/bin").str();
  return makeDeviceError("--backend=nvcc: nvcc is missing (" + Where +
                         ", and not on the PATH); install the CUDA toolkit, "
                         "pass --cuda-path=<toolkit>, or use --backend=clang "
                         "(the default, which needs no toolkit)");
}

std::vector<std::string> getNvccFlags(const CompileSetup &Setup,
                                      NvccOutput Kind) {
  std::vector<std::string> Flags = Setup.NvccFlags;
  if (is_contained(Setup.ExtraArgs, "-w") && !is_contained(Flags, "-w"))
    Flags.push_back("-w");
  Flags.push_back("-arch=" + Setup.GpuArch);
  Flags.push_back(Kind == NvccOutput::Ptx ? "-ptx" : "-cubin");
  return Flags;
}

std::vector<std::string> buildNvccCommand(const CompileSetup &Setup,
                                          StringRef FileName, StringRef Input,
                                          StringRef Output, NvccOutput Kind,
                                          ArrayRef<std::string> Extra) {
  SmallString<256> Dir(FileName);
  sys::fs::make_absolute(Dir);
  sys::path::remove_filename(Dir);
  std::vector<std::string> Args = {Setup.NvccPath, ("-I" + Dir).str()};
  append_range(Args, getNvccFlags(Setup, Kind));
  append_range(Args, Extra);
  append_range(
      Args, ArrayRef<std::string>{"-x", "cu", Input.str(), "-o", Output.str()});
  return Args;
}

namespace {
/// What one nvcc run left: its output file's contents and its messages.
struct NvccRun {
  std::string Output;
  std::string Log;
};
} // namespace

static Expected<NvccRun> runNvcc(const CompileSetup &Setup, StringRef FileName,
                                 StringRef Code, NvccOutput Kind,
                                 ArrayRef<std::string> Extra) {
  if (Setup.NvccPath.empty())
    return makeInternalError("--backend=nvcc without an nvcc executable");
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("astra-nvcc", Dir))
    return makeInternalError("cannot create a temporary directory: " +
                             EC.message());
  auto Cleanup = make_scope_exit([&] { sys::fs::remove_directories(Dir); });
  StringRef Base = sys::path::filename(FileName);
  if (Base.empty() || Base.starts_with("<"))
    Base = "stdin.cu";
  SmallString<256> In(Dir), Out(Dir), Log(Dir);
  sys::path::append(In, Base);
  sys::path::append(Out, Kind == NvccOutput::Ptx ? "out.ptx" : "out.cubin");
  sys::path::append(Log, "nvcc.log");
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    if (EC)
      return makeInternalError("cannot write " + In + ": " + EC.message());
    // Escape the name as a string literal: backslashes and quotes.
    std::string Quoted;
    for (char C : FileName) {
      if (C == '\\' || C == '"')
        Quoted += '\\';
      Quoted += C;
    }
    OS << "#line 1 \"" << Quoted << "\"\n" << Code;
  }
  std::vector<std::string> Args =
      buildNvccCommand(Setup, FileName, In, Out, Kind, Extra);
  SpawnOptions SO;
  SO.StdoutFile = Log.str().str();
  SO.StderrFile = Log.str().str();
  Expected<Subprocess> P = Subprocess::spawn(Args, SO);
  if (!P)
    return P.takeError();
  std::optional<ExitStatus> St = P->wait(NvccTimeout);
  if (!St)
    St = P->kill();
  NvccRun R;
  if (auto L = MemoryBuffer::getFile(Log))
    R.Log = (*L)->getBuffer().str();
  if (!St || !St->success())
    return makeInputError(
        DiagLoc{FileName.str()},
        "nvcc failed (" + (St ? St->describe() : std::string("timed out")) +
            "): " + join(Args, " ") + "\n" + StringRef(R.Log).rtrim());
  auto O = MemoryBuffer::getFile(Out, /*IsText=*/false,
                                 /*RequiresNullTerminator=*/false);
  if (!O)
    return makeInternalError("nvcc wrote no " + Out + ": " +
                             O.getError().message());
  R.Output = (*O)->getBuffer().str();
  return std::move(R);
}

Expected<std::string> emitPtxWithNvcc(const CompileSetup &Setup,
                                      StringRef FileName, StringRef Code) {
  Expected<NvccRun> R = runNvcc(Setup, FileName, Code, NvccOutput::Ptx, {});
  if (!R)
    return R.takeError();
  errs() << R->Log;
  return std::move(R->Output);
}

Expected<std::vector<KernelResources>>
nvccResources(const CompileSetup &Setup, StringRef FileName, StringRef Code) {
  Expected<NvccRun> R =
      runNvcc(Setup, FileName, Code, NvccOutput::Cubin, {"-Xptxas", "-v"});
  if (!R)
    return R.takeError();
  return parsePtxasReport(R->Log);
}

std::string getNvccVersion(StringRef Nvcc) {
  SmallString<128> Log;
  if (sys::fs::createTemporaryFile("astra-nvcc-version", "txt", Log))
    return "";
  FileRemover Remove(Log);
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Log),
                                          StringRef(Log)};
  if (sys::ExecuteAndWait(Nvcc, {Nvcc, "--version"}, std::nullopt, Redirects,
                          /*SecondsToWait=*/60) != 0)
    return "";
  auto Text = MemoryBuffer::getFile(Log);
  if (!Text)
    return "";
  // "Cuda compilation tools, release 13.0, V13.0.88"
  StringRef T = (*Text)->getBuffer();
  size_t Pos = T.find(", V");
  if (Pos == StringRef::npos)
    return "";
  return T.drop_front(Pos + 3)
      .take_until([](char C) { return isSpace(C); })
      .str();
}

} // namespace astra
