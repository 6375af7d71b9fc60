//===- PtxMode.cpp - --emit-ptx -------------------------------------------===//
#include "Modes.h"
#include "astra/Codegen/PtxEmitter.h"
#include "astra/Support/Output.h"

using namespace llvm;

namespace astra {

static cl::opt<bool> EmitPtx("emit-ptx",
                             cl::desc("Compile (after any rewrites) to PTX"),
                             cl::cat(AstraCategory));

Error runPtxMode(const CompileSetup &Setup, const InputSource &In,
                 bool &Handled) {
  Handled = EmitPtx;
  if (!EmitPtx)
    return Error::success();
  Expected<std::string> Ptx = emitPtx(Setup, In.FileName, In.Code);
  if (!Ptx)
    return Ptx.takeError();
  return writeFileAtomically(OutputFile, *Ptx);
}

} // namespace astra
