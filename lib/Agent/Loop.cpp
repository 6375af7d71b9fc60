//===- Loop.cpp - The agent loop for one kernel ---------------------------===//
#include "astra/Agent/Loop.h"
#include "Clock.h"
#include "astra/Agent/Plan.h"
#include "astra/Codegen/LocalMemory.h"
#include "astra/Codegen/PtxEmitter.h"
#include "astra/Codegen/PtxStats.h"
#include "astra/Frontend/KernelSource.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

using namespace llvm;

namespace astra {

namespace {
using agent::Clock;
using agent::since;

/// ptxas resources of the entry \p SpecKernel names in \p Ptx, and its
/// local memory (from the PTX alone when there is no ptxas).
struct Resources {
  std::optional<unsigned> Registers, Spill, Local;
  LocalMemoryUse Memory;
};
Resources ptxResources(StringRef Ptxas, StringRef Arch, StringRef Ptx,
                       StringRef SpecKernel) {
  Resources R;
  Expected<std::string> Entry = findPtxEntry(Ptx, SpecKernel);
  if (!Entry) {
    consumeError(Entry.takeError());
    return R;
  }
  R.Memory = getLocalMemoryUse(Ptx, *Entry, nullptr);
  if (Ptxas.empty())
    return R;
  Expected<std::vector<KernelResources>> KR = runPtxas(Ptxas, Arch, Ptx);
  if (!KR) {
    consumeError(KR.takeError());
    return R;
  }
  for (const KernelResources &K : *KR)
    if (K.Name == *Entry) {
      R.Registers = K.Registers;
      R.Spill = K.SpillStoreBytes + K.SpillLoadBytes;
      R.Local = K.StackFrameBytes;
      R.Memory = getLocalMemoryUse(Ptx, *Entry, &K);
    }
  return R;
}

/// The GPU side: one thread per evaluator worker, fed from a queue.
class GpuPool {
public:
  GpuPool(Evaluator &E, std::function<void(Evaluation &)> Done)
      : Eval(E), Done(std::move(Done)) {
    for (unsigned W = 0; W < E.getWorkerCount(); ++W)
      Threads.emplace_back([this, W] { work(W); });
  }
  ~GpuPool() {
    {
      std::lock_guard<std::mutex> L(M);
      Closing = true;
    }
    CV.notify_all();
    for (std::thread &T : Threads)
      T.join();
  }
  void push(Evaluation *E, std::string Ptx) {
    {
      std::lock_guard<std::mutex> L(M);
      Queue.push_back({E, std::move(Ptx)});
      ++Pending;
    }
    CV.notify_one();
  }
  /// Waits until every pushed evaluation is done.
  void drain() {
    std::unique_lock<std::mutex> L(M);
    Idle.wait(L, [&] { return Pending == 0; });
  }

private:
  struct Job {
    Evaluation *E;
    std::string Ptx;
  };
  void work(unsigned W) {
    while (true) {
      Job J;
      {
        std::unique_lock<std::mutex> L(M);
        CV.wait(L, [&] { return Closing || !Queue.empty(); });
        if (Queue.empty())
          return;
        J = std::move(Queue.front());
        Queue.pop_front();
      }
      auto T0 = Clock::now();
      Expected<VerifyResult> R = Eval.evaluate(J.E->Cand, J.Ptx, W);
      J.E->EvalSeconds = since(T0);
      J.E->Worker = int(W);
      if (R) {
        J.E->Result = std::move(*R);
      } else {
        J.E->Status = EvalStatus::EvaluationError;
        J.E->Note = toString(R.takeError());
      }
      {
        std::lock_guard<std::mutex> L(M);
        Done(*J.E);
        --Pending;
      }
      Idle.notify_all();
    }
  }
  Evaluator &Eval;
  std::function<void(Evaluation &)> Done;
  std::mutex M;
  std::condition_variable CV, Idle;
  std::deque<Job> Queue;
  unsigned Pending = 0;
  bool Closing = false;
  std::vector<std::thread> Threads;
};
} // namespace

Expected<std::string> buildCandidate(const CompileSetup &Setup,
                                     StringRef FileName, StringRef Code,
                                     StringRef SourceKernel,
                                     const Candidate &C) {
  Expected<std::string> Out = applySteps(Setup, FileName, Code, C.Steps);
  if (!Out || C.ReplacementSource.empty())
    return Out;
  return replaceKernelDefinition(Setup, FileName, *Out, SourceKernel,
                                 C.ReplacementSource);
}

std::vector<std::string> withKernel(ArrayRef<std::string> Names,
                                    const std::string &Kernel) {
  std::vector<std::string> Out(Names.begin(), Names.end());
  if (!is_contained(Out, Kernel))
    Out.push_back(Kernel);
  return Out;
}

Expected<std::string> compileCandidate(const CompileSetup &Setup,
                                       StringRef FileName, StringRef Code,
                                       ArrayRef<std::string> Instantiations) {
  // Warnings of rewritten code (e.g. an unroll pragma the optimizer could not
  // honour) are not the user's to read; the PTX says what happened.
  CompileSetup Quiet = Setup;
  Quiet.ExtraArgs.push_back("-w");
  return emitPtx(Quiet, FileName, withInstantiations(Code, Instantiations));
}

std::vector<const Evaluation *> rankWinners(const KernelRun &Run,
                                            bool AllowMixed) {
  std::vector<const Evaluation *> W;
  for (const Evaluation &E : Run.Evaluations)
    if (E.isFaster() ||
        (AllowMixed && E.Status == EvalStatus::Evaluated && E.Result &&
         E.Result->Verdict == Verdict::Mixed && E.Result->GeoMeanSpeedup > 1))
      W.push_back(&E);
  llvm::stable_sort(W, [](const Evaluation *A, const Evaluation *B) {
    return A->speedup() > B->speedup();
  });
  return W;
}

Expected<KernelRun> runKernelLoop(const CompileSetup &Setup, AgentContext Ctx,
                                  StringRef OriginalPtx, Agent &A,
                                  Evaluator &Eval, const LoopOptions &Opts) {
  auto Start = Clock::now();
  KernelRun Run;
  Run.SpecKernel = Ctx.SpecKernel;
  Run.SourceKernel = Ctx.SourceKernel;
  Run.OriginalPtxHash = hashText(OriginalPtx);
  Resources Orig =
      ptxResources(Opts.Ptxas, Setup.GpuArch, OriginalPtx, Ctx.SpecKernel);
  Run.OrigRegisters = Orig.Registers;
  Run.OrigSpillBytes = Orig.Spill;
  Run.OrigLocalBytes = Orig.Local;
  // Evaluations are appended while GPU threads write into earlier ones: a
  // deque keeps their addresses stable.
  std::deque<Evaluation> Evals;
  std::vector<Evaluation> Snapshot;
  const Evaluation *Best = nullptr;
  std::mutex M; // guards Best, progress printing and Judged
  unsigned Judged = 0;

  // Cache of the file each plan produces and the options on it.
  StringMap<std::string> Built;
  auto Build = [&](const std::vector<std::string> &Steps)
      -> Expected<std::string> {
    std::string K = formatSteps(Steps);
    auto It = Built.find(K);
    if (It != Built.end())
      return It->second;
    Expected<std::string> Code =
        applySteps(Setup, Ctx.FileName, Ctx.OriginalCode, Steps);
    if (!Code)
      return Code.takeError();
    Built[K] = *Code;
    return std::move(*Code);
  };
  Ctx.OptionsAfter = [&](const std::vector<std::string> &Steps)
      -> Expected<std::vector<RewriteOption>> {
    Expected<std::string> Code = Build(Steps);
    if (!Code)
      return Code.takeError();
    return enumerateRewrites(Setup, Ctx.FileName, *Code, Ctx.SourceKernel);
  };

  auto Left = [&] { return Opts.TimeBudget - since(Start); };
  auto Say = [&](const Evaluation &E) {
    std::string What;
    if (E.Status == EvalStatus::Evaluated && E.Result) {
      What = verdictName(E.Result->Verdict).str();
      if (E.Result->Verdict == Verdict::Refused)
        What += " (" +
                (E.Result->Why == Reason::None ? E.Result->Detail
                                               : reasonName(E.Result->Why).str()) +
                ")";
      else
        What += formatv(" {0:F3}x", E.Result->GeoMeanSpeedup).str();
    } else {
      What = evalStatusName(E.Status).str();
      if (E.Status == EvalStatus::Pruned)
        What += " (" + E.Note + ")";
    }
    std::string BestText =
        Best ? formatv("{0:F3}x", Best->speedup()).str() : "none yet";
    std::string GpuText =
        E.Status == EvalStatus::Evaluated
            ? formatv(", GPU {0}/{1}", E.GpuIndex, Opts.Budget).str()
            : std::string();
    std::string LeftText =
        std::isinf(Opts.TimeBudget)
            ? std::string("; no time limit")
            : formatv("; {0:F0} s left", std::max(0.0, Left())).str();
    Opts.Progress(formatv("[{0}] candidate {1}{2}: {3}: {4} (best {5}{6})",
                          Ctx.SpecKernel, E.Index, GpuText, E.Cand.describe(),
                          What, BestText, LeftText)
                      .str());
  };
  GpuPool Pool(Eval, [&](Evaluation &E) {
    // Called under the pool's lock, one at a time.
    std::lock_guard<std::mutex> L(M);
    if (E.isFaster() && (!Best || E.speedup() > Best->speedup()))
      Best = &E;
    Say(E);
  });

  StringMap<unsigned> SeenPtx; // hash -> evaluation index
  StringSet<> SeenKeys;
  auto Interrupted = [&] { return Opts.Interrupted && *Opts.Interrupted; };
  while (true) {
    if (Interrupted()) {
      Run.Interrupted = true;
      Run.StopReason = "interrupted";
      break;
    }
    if (Judged >= Opts.Budget) {
      Run.StopReason = formatv("budget of {0} candidates", Opts.Budget);
      break;
    }
    if (Left() <= 0) {
      Run.StopReason = formatv("time budget of {0:F0} s", Opts.TimeBudget);
      break;
    }
    Snapshot.assign(Evals.begin(), Evals.end());
    Ctx.History = &Snapshot;
    {
      std::lock_guard<std::mutex> L(M);
      Ctx.Best = nullptr;
      for (const Evaluation &E : Snapshot)
        if (E.isFaster() && (!Ctx.Best || E.speedup() > Ctx.Best->speedup()))
          Ctx.Best = &E;
    }
    Ctx.Round = Run.Rounds;
    Ctx.Parallelism = Eval.getWorkerCount();
    auto TP = Clock::now();
    Expected<std::vector<Candidate>> Batch = A.propose(Ctx);
    Run.Times.Propose += since(TP);
    if (!Batch)
      return Batch.takeError();
    unsigned Fresh = 0;
    for (Candidate &C : *Batch) {
      if (!SeenKeys.insert(C.key()).second)
        continue;
      if (Interrupted() || Judged >= Opts.Budget || Left() <= 0)
        break;
      ++Fresh;
      Evals.emplace_back();
      Evaluation &E = Evals.back();
      E.Index = Evals.size();
      E.Round = Run.Rounds;
      E.Cand = std::move(C);
      auto TB = Clock::now();
      Expected<std::string> Code = buildCandidate(
          Setup, Ctx.FileName, Ctx.OriginalCode, Ctx.SourceKernel, E.Cand);
      std::string CandKernel =
          Ctx.KernelAfter ? Ctx.KernelAfter(E.Cand.Steps) : Ctx.SpecKernel;
      std::string Ptx;
      if (!Code) {
        E.Status = EvalStatus::DoesNotApply;
        E.Note = toString(Code.takeError());
      } else if (Expected<std::string> P = compileCandidate(
                     Setup, Ctx.FileName, *Code,
                     withKernel(Opts.Instantiations, CandKernel))) {
        Ptx = std::move(*P);
        E.PtxHash = hashText(Ptx);
      } else {
        E.Status = EvalStatus::DoesNotCompile;
        E.Note = toString(P.takeError());
      }
      // What the harness runs: the PTX and the candidate's launch. A launch
      // candidate's PTX may be the original's; its launch is not.
      std::string Launch;
      if (!Ptx.empty()) {
        if (Expected<LaunchOverrides> L = launchOverridesOf(E.Cand.Steps)) {
          Launch = L->str();
        } else {
          E.Status = EvalStatus::DoesNotApply;
          E.Note = toString(L.takeError());
          Ptx.clear();
        }
      }
      std::string RunKey = E.PtxHash + (Launch.empty() ? "" : " " + Launch);
      if (!Ptx.empty()) {
        if (E.PtxHash == Run.OriginalPtxHash && Launch.empty()) {
          E.Status = EvalStatus::SameAsOriginal;
          E.Note = "the rewrite leaves the PTX unchanged: nothing to time";
        } else if (auto It = SeenPtx.find(RunKey); It != SeenPtx.end()) {
          E.Status = EvalStatus::DuplicatePtx;
          E.Note = formatv("same PTX{0} as candidate {1}",
                           Launch.empty() ? "" : " and launch", It->second)
                       .str();
        } else {
          SeenPtx[RunKey] = E.Index;
          Resources R =
              ptxResources(Opts.Ptxas, Setup.GpuArch, Ptx, CandKernel);
          E.Registers = R.Registers;
          E.SpillBytes = R.Spill;
          E.LocalBytes = R.Local;
          // The same check as --list-options --effects: local memory the
          // original does not use is a regression, whatever one timing says.
          std::string Growth = describeLocalMemoryGrowth(Orig.Memory, R.Memory);
          if (Opts.Prune && !Growth.empty()) {
            E.Status = EvalStatus::Pruned;
            E.Note = "adds local memory: " + Growth;
          }
        }
      }
      E.CompileSeconds = since(TB);
      Run.Times.Build += E.CompileSeconds;
      if (E.Status == EvalStatus::Evaluated && !Ptx.empty()) {
        E.GpuIndex = ++Judged;
        Pool.push(&E, std::move(Ptx));
      } else {
        std::lock_guard<std::mutex> L(M);
        Say(E);
      }
    }
    auto TE = Clock::now();
    Pool.drain();
    Run.Times.Evaluate += since(TE);
    ++Run.Rounds;
    if (!Fresh) {
      Run.StopReason = "no new candidate left to try";
      break;
    }
  }
  Pool.drain();
  if (Interrupted()) {
    Run.Interrupted = true;
    Run.StopReason = "interrupted";
  }
  Run.Evaluations.assign(Evals.begin(), Evals.end());
  Run.WallSeconds = since(Start);
  return std::move(Run);
}

} // namespace astra
