//===- ClangInvocation.cpp - A configured Clang for one CUDA file ---------===//
#include "astra/Support/ClangInvocation.h"
#include "astra/Support/Error.h"
#include "astra/Support/FileOverlay.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <algorithm>

using namespace llvm;
using namespace clang;

namespace astra {

namespace {
/// Precompiled preambles (the #include block at the top of a file, e.g. the
/// CUDA runtime and fp16/bf16 headers) kept for the life of the process. A
/// rewrite parses a file, then the rewritten file is parsed again for codegen
/// or for the next rewrite: with the preamble reused, the headers are parsed
/// once. Only used when CompileSetup::ReusePreamble is set.
struct CachedPreamble {
  std::string Key; ///< driver arguments
  std::unique_ptr<PrecompiledPreamble> Preamble;
};

/// At most this many preambles are kept, the least recently used dropped
/// first: a long run that parses many files with different #include blocks
/// (an agent's candidates, the fuzz target's mutated inputs) stays bounded.
/// A compile in flight references its preamble's memory; parses are nested
/// at most one deep, so the least recently used one is never in use.
constexpr size_t MaxCachedPreambles = 4;

std::vector<CachedPreamble> &getPreambleCache() {
  static std::vector<CachedPreamble> Cache;
  return Cache;
}

class NoPreambleCallbacks : public PreambleCallbacks {};

/// Returns a preamble usable for \p Code, building it if needed; null when
/// the file has no preamble or building it failed (the caller then parses
/// without one, and any error in the headers is reported by that parse).
const PrecompiledPreamble *
getPreamble(const std::string &Key, const CompilerInvocation &Inv,
            const MemoryBuffer &Buf, IntrusiveRefCntPtr<vfs::FileSystem> VFS) {
  PreambleBounds Bounds =
      ComputePreambleBounds(Inv.getLangOpts(), Buf.getMemBufferRef(), 0);
  if (Bounds.Size == 0)
    return nullptr;
  std::vector<CachedPreamble> &Cache = getPreambleCache();
  for (auto It = Cache.begin(); It != Cache.end(); ++It)
    if (It->Key == Key &&
        It->Preamble->CanReuse(Inv, Buf.getMemBufferRef(), Bounds, *VFS)) {
      std::rotate(It, It + 1, Cache.end()); // now the most recently used
      return Cache.back().Preamble.get();
    }

  DiagnosticOptions Opts;
  IntrusiveRefCntPtr<DiagnosticsEngine> Quiet =
      CompilerInstance::createDiagnostics(*VFS, Opts,
                                          new IgnoringDiagConsumer(),
                                          /*ShouldOwnClient=*/true);
  NoPreambleCallbacks Callbacks;
  ErrorOr<PrecompiledPreamble> P = PrecompiledPreamble::Build(
      Inv, &Buf, Bounds, Quiet, VFS, std::make_shared<PCHContainerOperations>(),
      /*StoreInMemory=*/true, /*StoragePath=*/"", Callbacks);
  if (!P)
    return nullptr;
  if (Cache.size() == MaxCachedPreambles)
    Cache.erase(Cache.begin());
  Cache.push_back({Key, std::make_unique<PrecompiledPreamble>(std::move(*P))});
  return Cache.back().Preamble.get();
}
} // namespace

Expected<std::unique_ptr<CompilerInstance>>
createCudaCompiler(const CompileSetup &Setup, StringRef FileName,
                   StringRef Code, raw_ostream &DiagOS) {
  if (Setup.CudaPath.empty())
    return makeInputError(
        "CUDA toolkit headers not found: pass --cuda-path=<dir> or set "
        "CUDA_HOME (the directory that holds include/cuda_runtime.h)");

  SmallString<256> AbsPath(FileName);
  sys::fs::make_absolute(AbsPath);
  sys::path::remove_dots(AbsPath, /*remove_dot_dot=*/true);

  auto Overlay =
      makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  auto Mem = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Mem->addFile(AbsPath, /*ModificationTime=*/0,
               MemoryBuffer::getMemBufferCopy(Code, AbsPath));
  // Headers repaired in memory (FileOverlay.h); the main file is \p Code.
  for (const auto &[Path, Contents] : getOverlayFiles())
    if (Path != AbsPath)
      Mem->addFile(Path, /*ModificationTime=*/0,
                   MemoryBuffer::getMemBufferCopy(Contents, Path));
  Overlay->pushOverlay(Mem);

  std::vector<std::string> Args = Setup.buildDriverArgs(FileName);
  std::vector<const char *> CArgs;
  for (const std::string &A : Args)
    CArgs.push_back(A.c_str());

  auto DiagOpts = std::make_shared<DiagnosticOptions>();
  DiagOpts->ShowColors = false;
  auto *Printer = new TextDiagnosticPrinter(errs(), *DiagOpts);
  IntrusiveRefCntPtr<DiagnosticsEngine> ArgDiags =
      CompilerInstance::createDiagnostics(*Overlay, *DiagOpts, Printer,
                                          /*ShouldOwnClient=*/true);
  // The driver warns about a CUDA toolkit newer than it knows; the toolkit's
  // headers work, and the cc1 diagnostics below keep the user's -W flags.
  ArgDiags->setIgnoreAllWarnings(true);
  CreateInvocationOptions CIOpts;
  CIOpts.Diags = ArgDiags;
  CIOpts.VFS = Overlay;
  std::shared_ptr<CompilerInvocation> Inv = createInvocation(CArgs, CIOpts);
  if (!Inv)
    return makeInputError("cannot build a CUDA device compile for '" +
                          FileName + "' (see the messages above)");
  Inv->getFrontendOpts().DisableFree = false;

  IntrusiveRefCntPtr<vfs::FileSystem> VFS = Overlay;
  if (Setup.ReusePreamble) {
    std::unique_ptr<MemoryBuffer> Buf =
        MemoryBuffer::getMemBufferCopy(Code, AbsPath);
    std::string Key = join(Args, "\x1f");
    if (const PrecompiledPreamble *P = getPreamble(Key, *Inv, *Buf, VFS)) {
      P->AddImplicitPreamble(*Inv, VFS, Buf.get());
      // The compile owns the remapped main-file buffer from here on.
      Inv->getPreprocessorOpts().RetainRemappedFileBuffers = false;
      Buf.release();
    }
  }
  auto CI = std::make_unique<CompilerInstance>(std::move(Inv));
  CI->setVirtualFileSystem(VFS);
  CI->createDiagnostics(
      new TextDiagnosticPrinter(DiagOS, CI->getDiagnosticOpts()),
      /*ShouldOwnClient=*/true);
  CI->getDiagnosticOpts().ShowColors = false;
  // "N errors generated" goes with the diagnostics, not straight to stderr.
  CI->setVerboseOutputStream(DiagOS);
  return std::move(CI);
}

Error runCompilerAction(CompilerInstance &CI, FrontendAction &Action,
                        StringRef FileName) {
  bool Ok = CI.ExecuteAction(Action);
  unsigned NumErrors = CI.getDiagnostics().getClient()->getNumErrors();
  if (!Ok || NumErrors)
    return makeInputError(DiagLoc{FileName.str()},
                          Twine(NumErrors ? NumErrors : 1) +
                              (NumErrors == 1 ? " error" : " errors") +
                              " generated while compiling for the device");
  return Error::success();
}

} // namespace astra
