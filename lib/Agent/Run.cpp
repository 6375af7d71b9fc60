//===- Run.cpp - --agent-rewrite over a whole file ------------------------===//
#include "astra/Agent/Run.h"
#include "Clock.h"
#include "RunSpec.h"
#include "SearchSizeBound.h"
#include "astra/Agent/Plan.h"
#include "astra/Frontend/KernelModel.h"
#include "astra/Harness/PtxScan.h"
#include "astra/Support/Error.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

namespace {
using agent::Clock;
using agent::since;

/// The kernels to optimise, checked against the spec.
Expected<std::vector<const KernelSpec *>>
selectKernels(const LaunchSpecFile &SF, ArrayRef<std::string> Asked) {
  std::vector<const KernelSpec *> Out;
  for (const std::string &Name : Asked) {
    const KernelSpec *K = SF.find(Name);
    if (!K) {
      std::vector<std::string> Known;
      for (const KernelSpec &X : SF.Kernels)
        Known.push_back(X.Kernel);
      return makeInputError(DiagLoc{SF.FileName}, "--kernel=" + Name +
                                                      ": not in the spec (" +
                                                      join(Known, ", ") + ")");
    }
    Out.push_back(K);
  }
  if (Asked.empty())
    for (const KernelSpec &K : SF.Kernels)
      Out.push_back(&K);
  return Out;
}
} // namespace

Expected<AgentResult> runAgent(const CompileSetup &Setup,
                               const AgentOptions &Opts) {
  auto Start = Clock::now();
  Expected<LaunchSpecFile> SF = parseSpecFile(Opts.SpecPath);
  if (!SF)
    return SF.takeError();
  Expected<std::vector<const KernelSpec *>> Targets =
      selectKernels(*SF, Opts.Kernels);
  if (!Targets)
    return Targets.takeError();

  AgentResult Res;
  Res.FileName = Opts.FileName;
  Res.SourceHash = hashText(Opts.Code);
  Res.GpuArch = Setup.GpuArch;
  Res.AgentName = Opts.AgentName;
  Res.Search = Opts.Search;
  Res.Budget = Opts.Loop.Budget;
  Res.TimeBudget = Opts.Loop.TimeBudget;
  Res.OutputCode = Opts.Code;
  Res.Plan.Source = Opts.FileName;
  Res.Plan.SourceHash = Res.SourceHash;
  Res.Plan.GpuArch = Setup.GpuArch;

  std::vector<std::string> Insts;
  for (const KernelSpec &K : SF->Kernels)
    Insts.push_back(K.Kernel);
  LoopOptions LO = Opts.Loop;
  LO.Instantiations = Insts;

  Expected<KernelModel> Model =
      loadKernelModel(Setup, Opts.FileName, Opts.Code);
  if (!Model)
    return Model.takeError();
  Expected<std::string> OrigPtx =
      compileCandidate(Setup, Opts.FileName, Opts.Code, Insts);
  if (!OrigPtx)
    return OrigPtx.takeError();

  // 1. Search each kernel on the original file.
  std::vector<std::unique_ptr<Evaluator>> Evaluators;
  for (const KernelSpec *K : *Targets) {
    if (LO.Interrupted && *LO.Interrupted) {
      Res.Interrupted = true;
      break;
    }
    const KernelInfo *KI = Model->findKernel(K->Kernel);
    if (!KI)
      return makeInputError(DiagLoc{Opts.FileName},
                            "spec kernel '" + K->Kernel +
                                "' is not defined in this file");
    AgentContext Ctx;
    Ctx.SpecKernel = K->Kernel;
    Ctx.SourceKernel = KI->Name;
    Ctx.FileName = Opts.FileName;
    Ctx.OriginalCode = Opts.Code;
    Ctx.KernelModelJSON = formatv("{0:2}", toJSON(*KI)).str();
    Ctx.SpecNoAlias = K->NoAlias;
    Ctx.TunableSteps =
        tunableLaunchSteps(Setup, Opts.FileName, Opts.Code, *K, KI->Name);
    Ctx.PackWidth = packWidth(*K);
    Ctx.OutputPackWidth = packWidth(*K, /*Outputs=*/true);
    Ctx.FoldSteps = foldSteps(*K, *KI);
    Ctx.CoarsenSteps =
        coarsenSteps(Setup, Opts.FileName, Opts.Code, *K, KI->Name);
    Ctx.BlockThreadsAfter = [K, Source = KI->Name](
                                const std::vector<std::string> &Steps) {
      return blockThreadsAfter(*K, Source, Steps);
    };
    Ctx.BlockXAfter = [K, Source =
                              KI->Name](const std::vector<std::string> &Steps) {
      return blockThreadsAfter(*K, Source, Steps, /*XOnly=*/true);
    };
    Ctx.KernelAfter = [K](const std::vector<std::string> &Steps) {
      return kernelAfter(*K, Steps);
    };
    Ctx.ShapeThreads = shapeThreads(*K);
    for (const Shape &S : K->Shapes) {
      Expected<ResolvedLaunch> L = resolve(*K, S);
      if (!L) {
        consumeError(L.takeError()); // the harness reports it
        continue;
      }
      if (&S == &K->Shapes.back())
        for (size_t I = 0; I < K->Args.size() && I < L->Args.size(); ++I)
          if (L->Args[I].IsScalar && !L->Args[I].IsFloat)
            Ctx.LastShapeScalars[K->Args[I].Name] = L->Args[I].IntValue;
    }
    Expected<std::unique_ptr<Evaluator>> E = Opts.MakeEvaluator(*K, *OrigPtx);
    if (!E)
      return E.takeError();
    std::unique_ptr<Agent> A =
        Opts.MakeAgent ? Opts.MakeAgent() : createSearchAgent(Opts.Search);
    Expected<KernelRun> Run =
        runKernelLoop(Setup, std::move(Ctx), *OrigPtx, *A, **E, LO);
    if (!Run)
      return Run.takeError();
    Res.Interrupted |= Run->Interrupted;
    KernelOutcome KO;
    KO.Run = std::move(*Run);
    KO.AgentReport = A->getReport();
    Res.Kernels.push_back(std::move(KO));
    Evaluators.push_back(std::move(*E));
  }

  // 2. Compose: each kernel's best candidate, best first, as long as the
  // composed file re-verifies faster for that kernel; else its next best.
  std::string Composed = Opts.Code;
  for (size_t I = 0; I < Res.Kernels.size() && !Res.Interrupted; ++I) {
    KernelOutcome &KO = Res.Kernels[I];
    // Room for the one split below, so that Ranked's pointers stay valid.
    KO.Run.Evaluations.reserve(KO.Run.Evaluations.size() + 1);
    std::vector<const Evaluation *> Ranked =
        rankWinners(KO.Run, Opts.AllowRegression);
    const KernelSpec &KS = *(*Targets)[I];
    // Builds, compiles and re-verifies \p C in the composed file: the code
    // and the full protocol's result, or why it did not compose.
    struct Recheck {
      std::string Code, Ptx;
      std::optional<VerifyResult> V;
      std::string Failure;
    };
    auto recheck = [&](const Candidate &C) -> Expected<Recheck> {
      auto TV = Clock::now();
      Recheck R;
      Expected<std::string> Code = buildCandidate(
          Setup, Opts.FileName, Composed, KO.Run.SourceKernel, C);
      Expected<std::string> Ptx =
          Code ? compileCandidate(Setup, Opts.FileName, *Code,
                                  withKernel(Insts, kernelAfter(KS, C.Steps)))
               : Expected<std::string>(Code.takeError());
      if (!Ptx) {
        R.Failure = "does not compose: " + toString(Ptx.takeError());
        return R;
      }
      Expected<VerifyResult> V = Evaluators[I]->verifyFully(C, *Ptx);
      KO.Run.Times.Verify += since(TV);
      if (!V)
        return V.takeError();
      R.Code = std::move(*Code);
      R.Ptx = std::move(*Ptx);
      R.V = std::move(*V);
      return R;
    };
    auto keeps = [&](const VerifyResult &V) {
      return V.Verdict == Verdict::Faster ||
             (Opts.AllowRegression && V.Verdict == Verdict::Mixed &&
              V.GeoMeanSpeedup > 1);
    };
    auto failure = [](const VerifyResult &V) {
      return formatv("re-verification: {0}{1}", verdictName(V.Verdict),
                     V.Verdict == Verdict::Refused
                         ? " (" + reasonName(V.Why).str() + ")"
                         : formatv(" {0:F3}x", V.GeoMeanSpeedup).str())
          .str();
    };
    unsigned Tries = 0;
    bool SplitTried = false;
    auto interrupted = [&] { return LO.Interrupted && *LO.Interrupted; };
    for (size_t Rank = 0; Rank < Ranked.size(); ++Rank) {
      const Evaluation *W = Ranked[Rank];
      if (Tries++ == 3 || interrupted())
        break;
      Expected<Recheck> R = recheck(W->Cand);
      if (!R)
        return R.takeError();
      if (!R->V) {
        KO.FailedRechecks.push_back({W->Index, R->Failure, std::nullopt});
        continue;
      }
      if (!keeps(*R->V)) {
        KO.FailedRechecks.push_back({W->Index, failure(*R->V), R->V});
        // Mixed now, faster before: where the shapes it lost lie below those
        // it won, the same plan from there on and the kernel as it was below
        // (one try per kernel, judged with the full protocol), unless the
        // next winner promises more or the split was judged already.
        double Estimate = 1;
        std::optional<std::vector<std::string>> Split;
        if (!SplitTried && W->Cand.ReplacementSource.empty() && !interrupted())
          Split = splitAfterRecheck(W->Cand.Steps, *R->V, shapeThreads(KS),
                                    KO.Run.SourceKernel, Estimate);
        if (Split && Rank + 1 < Ranked.size() &&
            Ranked[Rank + 1]->speedup() >= Estimate)
          Split.reset();
        if (Split) {
          std::string Key = formatSteps(*Split);
          if (any_of(KO.Run.Evaluations, [&](const Evaluation &E) {
                return E.Cand.ReplacementSource.empty() &&
                       formatSteps(E.Cand.Steps) == Key;
              }))
            Split.reset();
        }
        if (!Split)
          continue;
        SplitTried = true;
        Evaluation S;
        S.Index = KO.Run.Evaluations.size() + 1;
        S.Round = W->Round;
        S.Cand = W->Cand;
        S.Cand.Steps = std::move(*Split);
        S.Cand.Origin = "recheck";
        S.Cand.Rationale = formatv("candidate {0} was mixed when re-verified "
                                   "(slower on the smaller launches): the "
                                   "same plan with the kernel as it was "
                                   "below the bound, {1:F3}x expected",
                                   W->Index, Estimate)
                               .str();
        Expected<Recheck> SR = recheck(S.Cand);
        if (!SR)
          return SR.takeError();
        if (!SR->V) {
          S.Status = EvalStatus::DoesNotApply;
          S.Note = SR->Failure;
          KO.Run.Evaluations.push_back(std::move(S));
          continue;
        }
        S.PtxHash = hashText(SR->Ptx);
        S.Result = SR->V;
        KO.Run.Evaluations.push_back(std::move(S));
        if (!keeps(*SR->V)) {
          KO.FailedRechecks.push_back(
              {KO.Run.Evaluations.back().Index, failure(*SR->V), SR->V});
          continue;
        }
        W = &KO.Run.Evaluations.back();
        R = std::move(SR);
      }
      KO.Kept = W->Index - 1;
      KO.FinalCheck = std::move(*R->V);
      if (!Res.Device)
        Res.Device = KO.FinalCheck->Device;
      Composed = std::move(R->Code);
      KernelPlan KP;
      KP.Kernel = KO.Run.SpecKernel;
      KP.Steps = W->Cand.Steps;
      KP.ReplacementSource = W->Cand.ReplacementSource;
      KP.Speedup = KO.FinalCheck->GeoMeanSpeedup;
      KP.ReassociatesFloat = W->Cand.Reassociates;
      Expected<LaunchOverrides> LO = launchOverridesOf(W->Cand.Steps);
      if (!LO)
        return LO.takeError();
      if (!LO->empty())
        KP.Launch = launchContract(*(*Targets)[I], *LO);
      Res.Plan.Kernels.push_back(std::move(KP));
      break;
    }
  }

  // 3. Say why for each kernel.
  for (KernelOutcome &KO : Res.Kernels) {
    const KernelRun &R = KO.Run;
    unsigned Judged = 0, Refused = 0, Same = 0;
    for (const Evaluation &E : R.Evaluations) {
      Judged += E.Status == EvalStatus::Evaluated;
      Refused += E.Status == EvalStatus::Evaluated && E.Result &&
                 E.Result->Verdict == Verdict::Refused;
      Same += E.Status == EvalStatus::SameAsOriginal ||
              E.Status == EvalStatus::DuplicatePtx;
    }
    if (KO.Kept) {
      const Evaluation &W = R.Evaluations[*KO.Kept];
      KO.Summary =
          formatv("kept candidate {0} ({1}): {2:F3}x geomean, "
                  "re-verified in the composed file",
                  W.Index, W.Cand.describe(), KO.FinalCheck->GeoMeanSpeedup)
              .str();
    } else if (R.Evaluations.empty()) {
      KO.Summary = "no rewrite of the catalogue applies to this kernel";
    } else if (!KO.FailedRechecks.empty()) {
      KO.Summary = "unchanged: the faster candidates did not hold up when "
                   "re-verified with the full protocol";
    } else {
      KO.Summary = formatv("unchanged: none of {0} candidate(s) was "
                           "measured faster ({1} judged on the GPU, {2} "
                           "refused, {3} with PTX already seen)",
                           R.Evaluations.size(), Judged, Refused, Same)
                       .str();
    }
    if (R.Interrupted)
      KO.Summary += "; the run was interrupted";
    if (const json::Object *AR = KO.AgentReport.getAsObject())
      if (auto Stopped = AR->getString("stopped"))
        KO.Summary += "; " + Stopped->str();
  }
  if (LO.Interrupted && *LO.Interrupted)
    Res.Interrupted = true;
  if (!Res.Interrupted)
    Res.OutputCode = std::move(Composed);
  Res.Changed = Res.OutputCode != Opts.Code;
  Res.WallSeconds = since(Start);
  return std::move(Res);
}

} // namespace astra
