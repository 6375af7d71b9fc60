//===- ModelMode.cpp - --print-kernel-model -------------------------------===//
#include "Modes.h"
#include "astra/Frontend/KernelModel.h"
#include "astra/Support/Output.h"

using namespace llvm;

namespace astra {

static cl::opt<bool>
    PrintKernelModel("print-kernel-model",
                     cl::desc("Print the kernels, loops, accesses and calls "
                              "the tool sees, as JSON (after any rewrites)"),
                     cl::cat(AstraCategory));

Error runModelMode(const CompileSetup &Setup, const InputSource &In,
                   bool &Handled) {
  Handled = PrintKernelModel;
  if (!PrintKernelModel)
    return Error::success();
  Expected<KernelModel> M = loadKernelModel(Setup, In.FileName, In.Code);
  if (!M)
    return M.takeError();
  return writeFileAtomically(OutputFile, printKernelModel(*M));
}

} // namespace astra
