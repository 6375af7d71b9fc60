//===- PtxEmitter.cpp - In-process CUDA -> PTX ----------------------------===//
#include "astra/Codegen/PtxEmitter.h"
#include "astra/Support/ClangInvocation.h"
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

Expected<std::string> emitPtx(const CompileSetup &Setup, StringRef FileName,
                              StringRef Code) {
  initNVPTX();
  auto CIOrErr = createCudaCompiler(Setup, FileName, Code);
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

} // namespace astra
