//===- ClangInvocation.cpp - A configured Clang for one CUDA file ---------===//
#include "astra/Support/ClangInvocation.h"
#include "astra/Support/Error.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace llvm;
using namespace clang;

namespace astra {

Expected<std::unique_ptr<CompilerInstance>>
createCudaCompiler(const CompileSetup &Setup, StringRef FileName,
                   StringRef Code) {
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
  // Keep the user's spelling of the path in diagnostics.
  auto CI = std::make_unique<CompilerInstance>(std::move(Inv));
  CI->setVirtualFileSystem(Overlay);
  CI->createDiagnostics(new TextDiagnosticPrinter(errs(),
                                                  CI->getDiagnosticOpts()),
                        /*ShouldOwnClient=*/true);
  CI->getDiagnosticOpts().ShowColors = false;
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
