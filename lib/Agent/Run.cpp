//===- Run.cpp - --agent-rewrite over a whole file ------------------------===//
#include "astra/Agent/Run.h"
#include "Clock.h"
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

/// The threads per block of \p K's launch when it is the same on every
/// spec shape (with \p Var set to \p Value, unless Var is empty).
static std::optional<int64_t> sameThreads(const KernelSpec &K, StringRef Var,
                                          int64_t Value) {
  std::optional<int64_t> Threads;
  for (const Shape &S : K.Shapes) {
    Shape With = S;
    if (!Var.empty())
      With.set(Var, Value);
    Expected<ResolvedLaunch> L = resolve(K, With);
    if (!L) {
      consumeError(L.takeError());
      return std::nullopt;
    }
    int64_t N = int64_t(L->Block[0]) * L->Block[1] * L->Block[2];
    if (Threads && *Threads != N)
      return std::nullopt;
    Threads = N;
  }
  return Threads;
}

/// The one top-level template argument of \p K's name (`k<__half, 256>`)
/// written as the spec's threads per block, if there is exactly one: the
/// argument a kernel template's block size may be (`template-arg=`).
static std::optional<unsigned> blockTemplateArg(const KernelSpec &K) {
  SmallVector<StringRef, 4> Args = templateArgsOf(K.Kernel);
  std::optional<int64_t> Threads = sameThreads(K, "", 0);
  if (Args.empty() || !Threads)
    return std::nullopt;
  std::optional<unsigned> Found;
  for (unsigned I = 0; I < Args.size(); ++I) {
    int64_t V = 0;
    if (Args[I].getAsInteger(10, V) || V != *Threads)
      continue;
    if (Found)
      return std::nullopt; // two candidates: which one is not known
    Found = I;
  }
  return Found;
}

/// The launch steps the spec's `tunable` allows for \p K (source name
/// \p Source): one per variable and value other than the spec's own, with
/// `block=` the threads per block when that is the same on every shape.
/// Where the spec's instantiation writes its block size as a template
/// argument and the launch rewrite accepts that argument on \p Code, each
/// step is a new instantiation instead (`template-arg=`).
std::vector<std::string> tunableLaunchSteps(const CompileSetup &Setup,
                                            StringRef FileName, StringRef Code,
                                            const KernelSpec &K,
                                            StringRef Source) {
  std::vector<std::string> Steps;
  std::optional<unsigned> TArg = blockTemplateArg(K);
  for (const TunableVar &T : K.Tunable)
    for (int64_t V : T.Values) {
      if (all_of(K.Shapes,
                 [&](const Shape &S) { return S.lookup(T.Name) == V; }))
        continue; // the spec's own launch
      std::optional<int64_t> Threads = sameThreads(K, T.Name, V);
      std::string Step = "launch:kernel=" + Source.str() + "," + T.Name + "=" +
                         std::to_string(V);
      if (Threads)
        Step += ",block=" + std::to_string(*Threads);
      if (Threads && TArg) {
        std::string Inst = Step + ",template-arg=" + std::to_string(*TArg);
        Expected<RewriteParams> P = RewriteParams::parse(Inst);
        Expected<ApplyResult> R = P ? applyRewrite(Setup, FileName, Code, *P)
                                    : Expected<ApplyResult>(P.takeError());
        if (R)
          Step = Inst;
        else
          consumeError(R.takeError()); // not a template block: the plain one
      }
      Steps.push_back(Step);
    }
  return Steps;
}

/// The instantiation that a candidate of \p Steps runs as (the spec's kernel
/// unless a launch step sets `template-arg=`).
static std::string kernelAfter(const KernelSpec &K,
                               const std::vector<std::string> &Steps) {
  Expected<LaunchOverrides> O = launchOverridesOf(Steps);
  if (!O) {
    consumeError(O.takeError());
    return K.Kernel;
  }
  Expected<std::string> Name = candidateKernelName(K, *O);
  if (!Name) {
    consumeError(Name.takeError());
    return K.Kernel;
  }
  return *Name;
}

/// Elements of \p K's narrowest buffer (of an output, with \p Outputs) per
/// 16-byte pack (0 when none).
static unsigned packWidth(const KernelSpec &K, bool Outputs = false) {
  unsigned Narrowest = 0;
  for (const ArgSpec &A : K.Args)
    if (!A.IsScalar && (!Outputs || A.Role != ArgRole::In) &&
        (!Narrowest || dtypeSize(A.Type) < Narrowest))
      Narrowest = dtypeSize(A.Type);
  return Narrowest && Narrowest <= 16 ? 16 / Narrowest : 0;
}

/// fold-blocks steps for \p K whose bound the spec gives: a grid dimension
/// (x or y) whose extent is a variable that an integer scalar argument
/// takes as its value (`"grid": ["T", "H"]` with `num_heads` = H); for a
/// kernel with barriers or shared memory, an exact fold of any dimension
/// whose extent is a variable. The longest extent at the last shape first.
static std::vector<std::string> foldSteps(const KernelSpec &K,
                                          const KernelInfo &KI) {
  StringRef Source = KI.Name;
  // Rows that share barriers cannot return past a bound: such a kernel
  // folds exactly, where K divides the extent (fold-blocks:exact=1).
  bool Exact = !KI.Barriers.empty() || !KI.SharedArrays.empty();
  std::vector<std::pair<int64_t, std::string>> Steps;
  for (size_t D = 0; D < K.Grid.size() && D < 2; ++D) {
    std::vector<std::string> Vars = K.Grid[D].variables();
    if (Vars.size() != 1 || K.Grid[D].text() != Vars[0] || K.Shapes.empty())
      continue;
    int64_t Extent = K.Shapes.back().lookup(Vars[0]).value_or(0);
    std::vector<const ArgSpec *> Holders;
    for (const ArgSpec &A : K.Args)
      if (A.IsScalar && !A.IsStruct && !A.Value.IsFloat &&
          A.Value.Int.text() == Vars[0])
        Holders.push_back(&A);
    // Two arguments with the grid's value (num_heads, num_kv_heads = H):
    // which one the kernel means is not known; no fold, unless exact.
    if (Exact)
      Steps.push_back({Extent, "fold-blocks:kernel=" + Source.str() +
                                   ",dim=" + (D ? "y" : "x") + ",exact=1"});
    else if (Holders.size() == 1)
      Steps.push_back({Extent, "fold-blocks:kernel=" + Source.str() +
                                   ",bound=" + Holders[0]->Name +
                                   ",dim=" + (D ? "y" : "x")});
  }
  // The longest extent first: folding it leaves the most blocks.
  llvm::stable_sort(Steps, [](const auto &A, const auto &B) {
    return A.first > B.first;
  });
  std::vector<std::string> Out;
  for (auto &[Extent, Step] : Steps)
    Out.push_back(std::move(Step));
  return Out;
}

/// coarsen steps for \p K: the spec's block.x is a variable that exactly one
/// integer scalar argument takes as its value (`"block": ["gs"]` with
/// group_size = gs), kept when the rewrite applies to \p Code.
static std::vector<std::string> coarsenSteps(const CompileSetup &Setup,
                                             StringRef FileName,
                                             StringRef Code,
                                             const KernelSpec &K,
                                             StringRef Source) {
  if (K.Block.empty())
    return {};
  std::vector<std::string> Vars = K.Block[0].variables();
  if (Vars.size() != 1 || K.Block[0].text() != Vars[0])
    return {};
  std::vector<const ArgSpec *> Holders;
  for (const ArgSpec &A : K.Args)
    if (A.IsScalar && !A.IsStruct && !A.Value.IsFloat &&
        A.Value.Int.text() == Vars[0])
      Holders.push_back(&A);
  if (Holders.size() != 1)
    return {};
  std::string Step =
      "coarsen:kernel=" + Source.str() + ",extent=" + Holders[0]->Name;
  Expected<RewriteParams> P = RewriteParams::parse(Step);
  if (!P) {
    consumeError(P.takeError());
    return {};
  }
  Expected<ApplyResult> R = applyRewrite(Setup, FileName, Code, *P);
  if (!R) {
    consumeError(R.takeError()); // refused: listed with --list-rewrites
    return {};
  }
  return {Step};
}

/// The threads per block of \p K's last shape under the launch of \p Steps,
/// all of them or (\p XOnly) the block's x extent.
static uint64_t blockThreadsAfter(const KernelSpec &K, StringRef Source,
                                  const std::vector<std::string> &Steps,
                                  bool XOnly = false) {
  if (K.Shapes.empty())
    return 0;
  Expected<LaunchOverrides> O = launchOverridesOf(Steps, Source);
  if (!O) {
    consumeError(O.takeError());
    return 0;
  }
  const Shape &S = K.Shapes.back();
  Expected<ResolvedLaunch> L = resolve(K, S);
  if (!L) {
    consumeError(L.takeError());
    return 0;
  }
  if (Error E = resolveCandidateLaunch(K, S, *O, *L)) {
    consumeError(std::move(E));
    return 0;
  }
  if (XOnly)
    return L->Cand.Block[0];
  return uint64_t(L->Cand.Block[0]) * L->Cand.Block[1] * L->Cand.Block[2];
}

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
    for (const Shape &S : K->Shapes) {
      Expected<ResolvedLaunch> L = resolve(*K, S);
      if (!L) {
        consumeError(L.takeError()); // the harness reports it
        continue;
      }
      Ctx.ShapeThreads.push_back({S.str(), L->dims().threads()});
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
    std::vector<const Evaluation *> Ranked =
        rankWinners(KO.Run, Opts.AllowRegression);
    unsigned Tries = 0;
    for (const Evaluation *W : Ranked) {
      if (Tries++ == 3 || (LO.Interrupted && *LO.Interrupted))
        break;
      auto TV = Clock::now();
      Expected<std::string> Code = buildCandidate(
          Setup, Opts.FileName, Composed, KO.Run.SourceKernel, W->Cand);
      Expected<std::string> Ptx =
          Code ? compileCandidate(Setup, Opts.FileName, *Code,
                                  withKernel(Insts, kernelAfter(*(*Targets)[I],
                                                                W->Cand.Steps)))
               : Expected<std::string>(Code.takeError());
      if (!Ptx) {
        KO.FailedRechecks.push_back(
            {W->Index, "does not compose: " + toString(Ptx.takeError())});
        continue;
      }
      Expected<VerifyResult> V = Evaluators[I]->verifyFully(W->Cand, *Ptx);
      KO.Run.Times.Verify += since(TV);
      if (!V)
        return V.takeError();
      bool Keep = V->Verdict == Verdict::Faster ||
                  (Opts.AllowRegression && V->Verdict == Verdict::Mixed &&
                   V->GeoMeanSpeedup > 1);
      if (!Keep) {
        KO.FailedRechecks.push_back(
            {W->Index,
             formatv("re-verification: {0}{1}", verdictName(V->Verdict),
                     V->Verdict == Verdict::Refused
                         ? " (" + reasonName(V->Why).str() + ")"
                         : formatv(" {0:F3}x", V->GeoMeanSpeedup).str())
                 .str()});
        continue;
      }
      KO.Kept = W->Index - 1;
      KO.FinalCheck = std::move(*V);
      if (!Res.Device)
        Res.Device = KO.FinalCheck->Device;
      Composed = std::move(*Code);
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
