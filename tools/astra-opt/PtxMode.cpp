//===- PtxMode.cpp - --emit-ptx -------------------------------------------===//
#include "Modes.h"
#include "astra/Codegen/Backend.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"

using namespace llvm;

namespace astra {

static cl::opt<bool> EmitPtx("emit-ptx",
                             cl::desc("Compile (after any rewrites) to PTX"),
                             cl::cat(AstraCategory));

static cl::opt<bool>
    PtxStats("ptx-stats",
             cl::desc("Print per-kernel registers, spills and shared memory "
                      "(runs ptxas from the CUDA toolkit)"),
             cl::cat(AstraCategory));

Error runPtxMode(const CompileSetup &Setup, const InputSource &In,
                 bool &Handled) {
  Handled = EmitPtx || PtxStats;
  if (!Handled)
    return Error::success();
  bool Nvcc = Setup.Backend == CodegenBackend::Nvcc;
  std::string Ptxas;
  if (PtxStats && !Nvcc) {
    // Say it before the compile: the user asked for something we cannot do.
    Ptxas = findCudaTool("ptxas", Setup.CudaPath);
    if (Ptxas.empty())
      return makeInputError("--ptx-stats: ptxas is missing (not in "
                            "$CUDA_HOME/bin, --cuda-path or on the PATH)");
  }
  Expected<std::string> Ptx =
      EmitPtx || !Nvcc ? emitPtx(Setup, In.FileName, In.Code) : std::string();
  if (!Ptx)
    return Ptx.takeError();
  if (EmitPtx)
    if (Error E = writeFileAtomically(OutputFile, *Ptx))
      return E;
  if (!PtxStats)
    return Error::success();
  // nvcc: the resources of the cubin the project's flags build (its -Xptxas
  // options and register limits included); clang: ptxas on the PTX.
  auto Stats = Nvcc ? nvccResources(Setup, In.FileName, In.Code)
                    : runPtxas(Ptxas, Setup.GpuArch, *Ptx);
  if (!Stats)
    return Stats.takeError();
  // Stats go to stdout unless the PTX itself went there.
  bool PtxOnStdout = EmitPtx && OutputFile == "-";
  printResources(PtxOnStdout ? errs() : outs(), *Stats);
  return Error::success();
}

} // namespace astra
