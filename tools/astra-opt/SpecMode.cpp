//===- SpecMode.cpp - --emit-spec and --check-spec ------------------------===//
//
// Both read the kernels' signatures from the KernelModel of the input: each
// kernel, and each instantiation of a kernel template, with its parameters'
// dtypes, and for pointers whether the body loads or stores through them (to
// guess `in` / `out` / `inout`).
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Frontend/KernelModel.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Output.h"

using namespace llvm;

namespace astra {

static cl::opt<bool>
    EmitSpec("emit-spec",
             cl::desc("Write a starting launch spec for the input's kernels "
                      "(to -o, default stdout)"),
             cl::cat(AstraCategory));
static cl::opt<bool>
    CheckSpec("check-spec",
              cl::desc("Check the launch spec given with --spec against the "
                       "input's kernels (no GPU needed)"),
              cl::cat(AstraCategory));

namespace {

SignatureParam describeParam(const ParamInfo &P, const KernelInfo &K) {
  SignatureParam S;
  S.Name = P.Name;
  S.TypeSpelling = P.Type;
  S.IsPointer = P.Kind == ParamKind::Pointer;
  S.PointeeConst = P.ConstPointee;
  S.Elem = P.Dtype;
  S.Lanes = P.Lanes;
  if (P.Kind == ParamKind::Record) {
    S.IsRecord = true;
    S.RecordSize = P.RecordSize;
    S.RecordAlign = P.RecordAlign;
    S.RecordProblem = P.RecordProblem;
    for (const RecordFieldInfo &F : P.Fields)
      S.Fields.push_back({F.Name, F.Type, F.Dtype, F.Offset});
  }
  for (const AccessInfo &A : K.Accesses) {
    if (A.Pointer != P.Name)
      continue;
    S.Loads |= A.Kind != AccessKind::Store;
    S.Stores |= A.Kind != AccessKind::Load;
  }
  return S;
}

/// A loop whose stride starts from blockDim and halves (`s = blockDim.x / 2;
/// ...; s >>= 1`): a tree reduction over the block.
bool halvesBlockDim(const KernelInfo &K) {
  return any_of(K.Loops, [](const LoopInfo &L) {
    return StringRef(L.Init).contains("blockDim") &&
           (L.Step == ">>1" || L.Step == "/2");
  });
}

/// What the spec generator needs beyond the parameters.
void describeLaunch(const KernelInfo &K, KernelSignature &Sig) {
  Sig.HalvesBlockDim = halvesBlockDim(K);
  for (const SharedArrayInfo &S : K.SharedArrays)
    if (S.Dynamic)
      Sig.DynamicShared.push_back(S.Name);
}

/// Each kernel, and for a template the template itself (a spec naming it is
/// told to name an instantiation) and each instantiation.
std::vector<KernelSignature> collectSignatures(const KernelModel &M) {
  std::vector<KernelSignature> Out;
  for (const KernelInfo &K : M.Kernels) {
    KernelSignature Sig;
    Sig.Name = K.Name;
    Sig.Qualifier = K.Qualifier;
    Sig.IsTemplatePattern = K.isTemplate();
    for (const ParamInfo &P : K.Params)
      Sig.Params.push_back(describeParam(P, K));
    describeLaunch(K, Sig);
    Out.push_back(std::move(Sig));
    for (const InstantiationInfo &I : K.Instantiations) {
      KernelSignature IS;
      IS.Name = I.Name;
      IS.TemplateName = K.Name;
      IS.Qualifier = K.Qualifier;
      for (const ParamInfo &P : I.Params)
        IS.Params.push_back(describeParam(P, K));
      describeLaunch(K, IS);
      Out.push_back(std::move(IS));
    }
  }
  return Out;
}

} // namespace

Error runSpecMode(const CompileSetup &Setup, const InputSource &In,
                  bool &Handled) {
  Handled = EmitSpec || CheckSpec;
  if (!Handled)
    return Error::success();
  if (EmitSpec && CheckSpec)
    return makeInputError("--emit-spec and --check-spec are exclusive");
  if (CheckSpec && SpecFile.empty())
    return makeInputError("--check-spec needs --spec <file.astra.json>");

  std::unique_ptr<MemoryBuffer> SpecText;
  if (CheckSpec) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(SpecFile);
    if (!Buf)
      return Buf.takeError();
    SpecText = std::move(*Buf);
  }

  Expected<KernelModel> Model = loadKernelModel(Setup, In.FileName, In.Code);
  if (!Model)
    return Model.takeError();
  std::vector<KernelSignature> Sigs = collectSignatures(*Model);

  if (EmitSpec) {
    if (Sigs.empty())
      return makeInputError(DiagLoc{In.FileName, 0, 0},
                            "no __global__ kernel with a body in the file");
    return writeFileAtomically(OutputFile, emitStartingSpec(Sigs));
  }
  if (Error E = checkSpecText(SpecText->getBuffer(), SpecFile, Sigs))
    return E;
  outs() << SpecFile << ": ok\n";
  return Error::success();
}

} // namespace astra
