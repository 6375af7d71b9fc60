//===- Plan.cpp - Replayable plans ----------------------------------------===//
#include "astra/Agent/Plan.h"
#include "astra/Frontend/KernelSource.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;

namespace astra {

std::string hashText(StringRef Text) {
  std::array<uint8_t, 32> H = SHA256::hash(arrayRefFromStringRef(Text));
  return "sha256:" + toHex(H, /*LowerCase=*/true);
}

std::string formatSteps(const std::vector<std::string> &Steps) {
  return Steps.empty() ? std::string("(original)") : join(Steps, " + ");
}

json::Value toJSON(const PlanFile &P) {
  json::Array Kernels;
  for (const KernelPlan &K : P.Kernels) {
    json::Object O{{"kernel", K.Kernel},
                   {"steps", json::Array(K.Steps)},
                   {"speedup", K.Speedup}};
    if (!K.Launch.empty())
      O["launch"] = json::Object(K.Launch);
    if (!K.ReplacementSource.empty())
      O["replacement_source"] = K.ReplacementSource;
    if (K.ReassociatesFloat)
      O["reassociates_float"] = true;
    Kernels.push_back(std::move(O));
  }
  return json::Object{{"astra_plan", PlanFile::Version},
                      {"source", P.Source},
                      {"source_hash", P.SourceHash},
                      {"gpu_arch", P.GpuArch},
                      {"kernels", std::move(Kernels)}};
}

Expected<PlanFile> parsePlan(StringRef JSON, StringRef FileName) {
  auto Bad = [&](const Twine &Msg) {
    return makeInputError(DiagLoc{FileName.str()}, "invalid plan: " + Msg);
  };
  Expected<json::Value> V = json::parse(JSON);
  if (!V)
    return Bad(toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return Bad("expected a JSON object");
  PlanFile P;
  std::optional<int64_t> Ver = O->getInteger("astra_plan");
  if (!Ver)
    return Bad("missing 'astra_plan' (the plan format version)");
  if (*Ver != PlanFile::Version)
    return Bad("unsupported plan version " + Twine(*Ver) + " (this tool reads " +
               Twine(PlanFile::Version) + ")");
  if (auto S = O->getString("source"))
    P.Source = S->str();
  if (auto S = O->getString("source_hash"))
    P.SourceHash = S->str();
  else
    return Bad("missing 'source_hash'");
  if (auto S = O->getString("gpu_arch"))
    P.GpuArch = S->str();
  const json::Array *Ks = O->getArray("kernels");
  if (!Ks)
    return Bad("missing 'kernels' (an array)");
  for (size_t I = 0; I < Ks->size(); ++I) {
    const json::Object *K = (*Ks)[I].getAsObject();
    std::string Path = "kernels[" + std::to_string(I) + "]";
    if (!K)
      return Bad(Path + ": expected an object");
    KernelPlan KP;
    auto Name = K->getString("kernel");
    if (!Name || Name->empty())
      return Bad(Path + ".kernel: missing");
    KP.Kernel = Name->str();
    const json::Array *Steps = K->getArray("steps");
    if (!Steps)
      return Bad(Path + ".steps: missing (an array of --apply texts)");
    for (size_t J = 0; J < Steps->size(); ++J) {
      auto S = (*Steps)[J].getAsString();
      if (!S)
        return Bad(Path + ".steps[" + Twine(J) + "]: expected a string");
      KP.Steps.push_back(S->str());
    }
    if (auto Sp = K->getNumber("speedup"))
      KP.Speedup = *Sp;
    if (const json::Object *L = K->getObject("launch"))
      KP.Launch = *L;
    if (auto R = K->getString("replacement_source"))
      KP.ReplacementSource = R->str();
    KP.ReassociatesFloat = K->getBoolean("reassociates_float").value_or(false);
    P.Kernels.push_back(std::move(KP));
  }
  return std::move(P);
}

Expected<PlanFile> readPlanFile(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parsePlan((*Buf)->getBuffer(), Path);
}

Expected<std::string> applySteps(const CompileSetup &Setup, StringRef FileName,
                                 StringRef Code, ArrayRef<std::string> Steps) {
  std::string Out = Code.str();
  for (const std::string &Step : Steps) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    if (!P)
      return P.takeError();
    Expected<ApplyResult> R = applyRewrite(Setup, FileName, Out, *P);
    if (!R)
      return R.takeError();
    Out = std::move(R->Code);
  }
  return std::move(Out);
}

Expected<std::string> applyPlan(const CompileSetup &Setup, StringRef FileName,
                                StringRef Code, const PlanFile &P,
                                std::vector<std::string> &Warnings) {
  bool Changed = hashText(Code) != P.SourceHash;
  if (Changed)
    Warnings.push_back("the source changed since the plan was made (" +
                       P.SourceHash + ", now " + hashText(Code) +
                       "); replaying its steps on the new source");
  std::string Out = Code.str();
  for (const KernelPlan &K : P.Kernels) {
    for (const std::string &Step : K.Steps) {
      Expected<std::string> R = applySteps(Setup, FileName, Out, {Step});
      if (!R)
        return makeInputError(
            DiagLoc{FileName.str()},
            "plan step '" + Step + "' of kernel '" + K.Kernel +
                "' no longer applies" +
                (Changed ? " (the source changed since the plan was made)"
                         : "") +
                ":\n" + toString(R.takeError()));
      Out = std::move(*R);
    }
    if (K.ReplacementSource.empty())
      continue;
    StringRef Base = StringRef(K.Kernel).split('<').first;
    Expected<std::string> R = replaceKernelDefinition(
        Setup, FileName, Out, Base, K.ReplacementSource);
    if (!R)
      return makeInputError(DiagLoc{FileName.str()},
                            "the replacement source of kernel '" + K.Kernel +
                                "' cannot be put in:\n" +
                                toString(R.takeError()));
    Out = std::move(*R);
  }
  return std::move(Out);
}

} // namespace astra
