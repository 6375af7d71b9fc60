//===- astra-session-bench.cpp - Drive an evaluation session --------------===//
//
//   astra-session-bench --spec s.json [--kernel=k] [--gpus=0,1]
//       [--time-budget=0.3] [--harness-timeout=300] [--work-dir=d]
//       [--verify-each] original.ptx candidate.ptx...
//
// Creates an EvalSession for the original (the reference run, once), judges
// every candidate with evaluate() (one worker per GPU, in parallel), prints
// each verdict line with its wall time and the median; --verify-each also
// runs the full protocol (verifyFully, as --verify) on every candidate and
// prints the ratio of the medians. It measures the session (docs/harness.md,
// "Evaluation session") and tests it; the agent uses the same class.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/HarnessWorker.h"
#include "astra/Harness/Session.h"
#include "astra/Harness/Stats.h"
#include "astra/Harness/VerifyTable.h"
#include "astra/Support/Error.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <mutex>
#include <thread>

using namespace astra;
using namespace llvm;

static cl::list<std::string>
    Files(cl::Positional, cl::desc("<original.ptx> <candidate.ptx>..."));
static cl::opt<std::string> Spec("spec", cl::desc("the kernel's launch spec"));
static cl::opt<std::string> Kernel("kernel", cl::desc("the spec's kernel"));
static cl::list<int> Gpus("gpus", cl::CommaSeparated,
                          cl::desc("GPU ordinals, one worker each"));
static cl::opt<double> TimeBudget("time-budget", cl::init(0.3),
                                  cl::desc("timing budget per shape (s)"));
static cl::opt<unsigned> Timeout("harness-timeout", cl::init(300),
                                 cl::desc("per-candidate time limit (s)"));
static cl::opt<std::string> WorkDir("work-dir",
                                    cl::desc("keep the session's files here"));
static cl::opt<bool> VerifyEach("verify-each",
                                cl::desc("also run the full protocol on "
                                         "every candidate, for comparison"));
static cl::opt<std::string> HarnessWorker("harness-worker", cl::Hidden,
                                          cl::desc("(internal)"));

static Expected<std::string> readText(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return makeInputError("cannot read " + Path + ": " +
                          B.getError().message());
  return (*B)->getBuffer().str();
}

static Error run() {
  if (Spec.empty() || Files.size() < 2)
    return makeInputError("give --spec and the original's and at least one "
                          "candidate's PTX");
  auto Now = [] { return std::chrono::steady_clock::now(); };
  auto Since = [&](auto T) {
    return std::chrono::duration<double>(Now() - T).count();
  };
  SessionOptions O;
  O.SpecPath = Spec;
  O.Kernel = Kernel;
  O.OriginalFile = Files[0];
  O.TimeBudget = TimeBudget;
  O.TimeoutSeconds = Timeout;
  O.Gpus.assign(Gpus.begin(), Gpus.end());
  O.WorkDir = WorkDir;
  Expected<std::string> Orig = readText(Files[0]);
  if (!Orig)
    return Orig.takeError();
  O.OriginalPtx = *Orig;
  auto T0 = Now();
  Expected<std::unique_ptr<EvalSession>> S = EvalSession::create(O);
  if (!S)
    return S.takeError();
  outs() << formatv("session: reference run in {0:f2} s\n", Since(T0));

  std::vector<std::string> Ptx;
  for (size_t I = 1; I < Files.size(); ++I) {
    Expected<std::string> P = readText(Files[I]);
    if (!P)
      return P.takeError();
    Ptx.push_back(std::move(*P));
  }
  // One thread per worker; candidates go to the next free worker.
  std::vector<std::optional<Expected<VerifyResult>>> Results(Ptx.size());
  std::vector<double> Walls(Ptx.size());
  std::mutex M;
  size_t Next = 0;
  auto Work = [&](unsigned W) {
    while (true) {
      size_t I;
      {
        std::lock_guard<std::mutex> L(M);
        if (Next == Ptx.size())
          return;
        I = Next++;
      }
      auto T = Now();
      Expected<VerifyResult> R = (*S)->evaluate(Ptx[I], Files[I + 1], W);
      std::lock_guard<std::mutex> L(M);
      Walls[I] = Since(T);
      Results[I].emplace(std::move(R));
    }
  };
  auto TAll = Now();
  std::vector<std::thread> Threads;
  for (unsigned W = 0; W < (*S)->getWorkerCount(); ++W)
    Threads.emplace_back(Work, W);
  for (std::thread &T : Threads)
    T.join();
  double All = Since(TAll);
  for (size_t I = 0; I < Ptx.size(); ++I) {
    outs() << "candidate " << Files[I + 1]
           << formatv(" ({0:f2} s): ", Walls[I]);
    if (!*Results[I])
      return Results[I]->takeError();
    printVerdictLine(outs(), **Results[I]);
    for (const std::string &N : (**Results[I]).Notes)
      if (StringRef(N).starts_with("warning: "))
        outs() << "  note: " << N << "\n";
  }
  double Med = median(Walls);
  outs() << formatv("session: {0} candidates on {1} worker(s) in {2:f2} s, "
                    "median {3:f2} s per candidate\n",
                    Ptx.size(), (*S)->getWorkerCount(), All, Med);
  if (!VerifyEach)
    return Error::success();
  std::vector<double> Full;
  for (size_t I = 0; I < Ptx.size(); ++I) {
    auto T = Now();
    Expected<VerifyResult> R = (*S)->verifyFully(Ptx[I], Files[I + 1]);
    Full.push_back(Since(T));
    if (!R)
      return R.takeError();
    outs() << "full " << Files[I + 1] << formatv(" ({0:f2} s): ", Full.back());
    printVerdictLine(outs(), *R);
  }
  outs() << formatv("full protocol: median {0:f2} s per candidate; session / "
                    "full = {1:f2}\n",
                    median(Full), Med / std::max(median(Full), 1e-9));
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "astra-session-bench: judge PTX candidates "
                              "with an evaluation session\n");
  if (!HarnessWorker.empty())
    return runHarnessWorker(HarnessWorker);
  return reportError(run(), "astra-session-bench");
}
