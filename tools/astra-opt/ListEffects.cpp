//===- ListEffects.cpp - What each option does to the PTX -----------------===//
#include "ListEffects.h"
#include "astra/Codegen/PtxEmitter.h"
#include "astra/Codegen/PtxStats.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {

static const char *const ResourceNames[4] = {
    "registers", "stack bytes", "spill-store bytes", "spill-load bytes"};

bool OptionEffect::addsLocalMemory() const {
  for (const ResourceChange &C : Changes)
    for (int I = 1; I < 4; ++I)
      if (C.After[I] > C.Before[I])
        return true;
  return false;
}

static void values(const KernelResources &K, unsigned (&V)[4]) {
  V[0] = K.Registers;
  V[1] = K.StackFrameBytes;
  V[2] = K.SpillStoreBytes;
  V[3] = K.SpillLoadBytes;
}

Expected<std::vector<OptionEffect>>
measureEffects(const CompileSetup &Setup, StringRef FileName, StringRef Code,
               const std::vector<RewriteOption> &Options) {
  Expected<std::string> OrigPtx = emitPtx(Setup, FileName, Code);
  if (!OrigPtx)
    return OrigPtx.takeError();
  std::string Ptxas = findCudaTool("ptxas", Setup.CudaPath);
  std::vector<KernelResources> OrigRes;
  if (!Ptxas.empty()) {
    auto R = runPtxas(Ptxas, Setup.GpuArch, *OrigPtx);
    if (R)
      OrigRes = std::move(*R);
    else {
      consumeError(R.takeError());
      Ptxas.clear();
    }
  }
  std::vector<OptionEffect> Out;
  for (size_t I = 0; I < Options.size(); ++I) {
    errs() << "astra-opt: effects: option " << I + 1 << " of " << Options.size()
           << ": " << formatRewriteParams(Options[I].Params) << "\n";
    OptionEffect E;
    Expected<ApplyResult> A =
        applyRewrite(Setup, FileName, Code, Options[I].Params);
    if (!A) {
      E.Error = toString(A.takeError());
      Out.push_back(std::move(E));
      continue;
    }
    Expected<std::string> Ptx = emitPtx(Setup, FileName, A->Code);
    if (!Ptx) {
      E.Error = "does not compile: " + toString(Ptx.takeError());
      Out.push_back(std::move(E));
      continue;
    }
    E.Compiled = true;
    E.PtxChanged = *Ptx != *OrigPtx;
    if (E.PtxChanged && !Ptxas.empty()) {
      auto R = runPtxas(Ptxas, Setup.GpuArch, *Ptx);
      if (!R) {
        E.Error = "ptxas: " + toString(R.takeError());
      } else {
        E.Resources = true;
        for (const KernelResources &K : *R) {
          ResourceChange C;
          C.Kernel = demangle(K.Name);
          values(K, C.After);
          for (const KernelResources &O : OrigRes)
            if (O.Name == K.Name)
              values(O, C.Before);
          if (!std::equal(std::begin(C.Before), std::end(C.Before),
                          std::begin(C.After)))
            E.Changes.push_back(std::move(C));
        }
      }
    }
    Out.push_back(std::move(E));
  }
  return Out;
}

std::string formatEffectText(const OptionEffect &E) {
  if (!E.Compiled)
    return " [not measured: " + StringRef(E.Error).split('\n').first.str() +
           "]";
  if (!E.PtxChanged)
    return " [PTX unchanged: nothing for the GPU to measure]";
  std::string S;
  raw_string_ostream OS(S);
  OS << " [PTX changes";
  if (!E.Resources)
    OS << (E.Error.empty() ? "; no ptxas for registers and spills"
                           : "; " + E.Error);
  for (const ResourceChange &C : E.Changes) {
    OS << "; " << C.Kernel << ":";
    bool First = true;
    for (int I = 0; I < 4; ++I)
      if (C.Before[I] != C.After[I]) {
        OS << (First ? " " : ", ") << ResourceNames[I] << ' ' << C.Before[I]
           << " -> " << C.After[I];
        First = false;
      }
  }
  if (E.addsLocalMemory())
    OS << "; ADDS LOCAL MEMORY";
  OS << ']';
  return S;
}

json::Value formatEffectJson(const OptionEffect &E) {
  json::Array Changes;
  for (const ResourceChange &C : E.Changes) {
    json::Object K{{"kernel", C.Kernel}};
    static const char *const Keys[4] = {
        "registers", "stack_bytes", "spill_store_bytes", "spill_load_bytes"};
    for (int I = 0; I < 4; ++I)
      K[Keys[I]] = json::Array{int64_t(C.Before[I]), int64_t(C.After[I])};
    Changes.push_back(std::move(K));
  }
  return json::Object{
      {"compiled", E.Compiled},
      {"error", E.Error.empty() ? json::Value(nullptr) : json::Value(E.Error)},
      {"ptx_changed", E.PtxChanged},
      {"resources_measured", E.Resources},
      {"adds_local_memory", E.addsLocalMemory()},
      {"resource_changes", std::move(Changes)}};
}

} // namespace astra
