//===- ClangBackend.cpp - In-process CUDA -> PTX (--backend=clang) -------===//
#include "astra/Codegen/Backend.h"
#include "astra/Frontend/Parse.h"
#include "astra/Support/ClangInvocation.h"
#include "astra/Support/FileOverlay.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendOptions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace llvm;
using namespace clang;

namespace astra {

static void initNVPTX() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// Compiles \p Code to PTX, printing diagnostics to \p DiagOS.
static Expected<std::string> compileToPtx(const CompileSetup &Setup,
                                          StringRef FileName, StringRef Code,
                                          raw_ostream &DiagOS) {
  auto CIOrErr = createCudaCompiler(Setup, FileName, Code, DiagOS);
  if (!CIOrErr)
    return CIOrErr.takeError();
  CompilerInstance &CI = **CIOrErr;
  CI.getFrontendOpts().ProgramAction = frontend::EmitAssembly;

  SmallString<0> Ptx;
  CI.setOutputStream(std::make_unique<raw_svector_ostream>(Ptx));
  LLVMContext Ctx;
  EmitAssemblyAction Action(&Ctx);
  if (Error E = runCompilerAction(CI, Action, FileName))
    return std::move(E);
  return std::string(Ptx.str());
}

Expected<std::string> emitPtxWithClang(const CompileSetup &Setup,
                                       StringRef FileName, StringRef Code) {
  initNVPTX();
  std::string Diags;
  raw_string_ostream DiagOS(Diags);
  Expected<std::string> Ptx = compileToPtx(Setup, FileName, Code, DiagOS);
  if (Ptx) {
    errs() << Diags;
    return Ptx;
  }
  // Host code Clang rejects must not block the kernels: compile the file
  // with those host bodies cut out (Frontend/DeviceSlice.h), and the headers
  // nvcc accepts repaired (Frontend/NvccRepairs.h).
  unsigned Generation = getOverlayGeneration();
  Expected<std::string> Sliced = sliceOutHostErrors(Setup, FileName, Code);
  if (!Sliced) {
    consumeError(Ptx.takeError());
    return Sliced.takeError();
  }
  if (*Sliced == Code && Generation == getOverlayGeneration()) {
    errs() << Diags;
    return Ptx.takeError();
  }
  consumeError(Ptx.takeError());
  return compileToPtx(Setup, FileName, *Sliced, errs());
}

} // namespace astra
