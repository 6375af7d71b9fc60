//===- ListEffects.cpp - What each option does to the PTX -----------------===//
#include "ListEffects.h"
#include "astra/Codegen/PtxEmitter.h"
#include "astra/Codegen/PtxStats.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {

bool OptionEffect::addsLocalMemory() const {
  return llvm::any_of(
      Changes, [](const ResourceChange &C) { return !C.LocalGrowth.empty(); });
}

namespace {
/// One measure of a ResourceChange: its text and JSON names, before, after.
struct Measure {
  const char *Text, *Key;
  unsigned Before, After;
};
} // namespace

static std::vector<Measure> measures(const ResourceChange &C) {
  const LocalMemoryUse &B = C.Before, &A = C.After;
  return {{"registers", "registers", C.RegistersBefore, C.RegistersAfter},
          {"stack bytes", "stack_bytes", B.StackBytes, A.StackBytes},
          {"spill-store bytes", "spill_store_bytes", B.SpillStoreBytes,
           A.SpillStoreBytes},
          {"spill-load bytes", "spill_load_bytes", B.SpillLoadBytes,
           A.SpillLoadBytes},
          {"PTX local depot bytes", "ptx_local_depot_bytes", B.Ptx.DepotBytes,
           A.Ptx.DepotBytes},
          {"PTX ld/st.local", "ptx_local_accesses", B.Ptx.Accesses,
           A.Ptx.Accesses}};
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
          C.RegistersAfter = K.Registers;
          C.After = getLocalMemoryUse(*Ptx, K.Name, &K);
          for (const KernelResources &O : OrigRes)
            if (O.Name == K.Name) {
              C.RegistersBefore = O.Registers;
              C.Before = getLocalMemoryUse(*OrigPtx, O.Name, &O);
            }
          C.LocalGrowth = describeLocalMemoryGrowth(C.Before, C.After);
          if (llvm::any_of(measures(C), [](const Measure &M) {
                return M.Before != M.After;
              }))
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
    for (const Measure &M : measures(C))
      if (M.Before != M.After) {
        OS << (First ? " " : ", ") << M.Text << ' ' << M.Before << " -> "
           << M.After;
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
    for (const Measure &M : measures(C))
      K[M.Key] = json::Array{int64_t(M.Before), int64_t(M.After)};
    if (!C.LocalGrowth.empty())
      K["local_memory_growth"] = C.LocalGrowth;
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
