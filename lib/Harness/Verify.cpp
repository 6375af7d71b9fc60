//===- Verify.cpp - The parent side of the harness ------------------------===//
//
// Builds the job (kernel entries, shapes), runs the worker as a child
// process with a time limit, and turns its outcome into a verdict. The
// parent never loads the CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "WorkerInternal.h"
#include "astra/Harness/EdgeShapes.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace astra {

//===-- PTX ----------------------------------------------------------------===//

/// The kernel name of a demangled entry, without return type and
/// parameters, spaces removed: "void k<__half>(__half*, int)" -> "k<__half>".
static std::string entryKernelName(StringRef Demangled) {
  // Cut the parameter list: the first '(' outside template brackets.
  int Depth = 0;
  size_t Cut = Demangled.size();
  for (size_t I = 0; I < Demangled.size(); ++I) {
    char C = Demangled[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == '(' && Depth == 0) {
      Cut = I;
      break;
    }
  }
  StringRef Name = Demangled.take_front(Cut).trim();
  // A return type precedes the name of a template instantiation; it ends at
  // the last space outside template brackets.
  Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == ' ' && Depth == 0)
      Start = I + 1;
  }
  std::string Out;
  for (char C : Name.drop_front(Start))
    if (C != ' ')
      Out += C;
  return Out;
}

static std::vector<std::string> ptxEntries(StringRef Ptx) {
  std::vector<std::string> Names;
  SmallVector<StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    size_t P = L.find(".entry ");
    if (P == StringRef::npos || L.starts_with("//"))
      continue;
    StringRef Rest = L.drop_front(P + 7).trim();
    Names.push_back(Rest.take_until([](char C) {
                          return C == '(' || C == ' ' || C == '\t';
                        }).str());
  }
  return Names;
}

Expected<std::string> findPtxEntry(StringRef Ptx, StringRef SpecName) {
  std::string Want;
  for (char C : SpecName)
    if (C != ' ')
      Want += C;
  std::vector<std::string> Entries = ptxEntries(Ptx);
  for (const std::string &E : Entries) {
    std::string Name = entryKernelName(demangle(E));
    if (Name == Want || StringRef(Name).ends_with("::" + Want))
      return E;
  }
  std::string Have;
  for (const std::string &E : Entries)
    Have += (Have.empty() ? "" : ", ") + entryKernelName(demangle(E));
  return makeInputError("no kernel '" + SpecName + "' in the compiled " +
                        "module (it has: " +
                        (Have.empty() ? std::string("no kernels") : Have) +
                        ")" +
                        (SpecName.contains('<')
                             ? "; a template must be instantiated in the file"
                             : ""));
}

std::vector<std::string> findDeviceSideLaunches(StringRef Ptx) {
  // Dynamic parallelism: cudaLaunchDevice, cudaGetParameterBuffer (the
  // CUDA 12+ headers call __cudaCDP2LaunchDevice, ...), device graph
  // launches and device-side streams.
  static const char *Names[] = {"LaunchDevice", "GetParameterBuffer",
                                "cudaCDP", "cudaGraphLaunch",
                                "cudaStreamCreate"};
  std::vector<std::string> Found;
  SmallVector<StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.starts_with(".extern .func") && !L.starts_with(".weak .func"))
      continue;
    for (const char *N : Names)
      if (L.contains(N)) {
        // The whole identifier around the match.
        size_t B = L.find(N), E = B + strlen(N);
        auto IsId = [](char C) { return isAlnum(C) || C == '_' || C == '$'; };
        while (B > 0 && IsId(L[B - 1]))
          --B;
        while (E < L.size() && IsId(L[E]))
          ++E;
        Found.push_back(L.slice(B, E).str());
        break;
      }
  }
  return Found;
}

//===-- The worker process --------------------------------------------------===//

namespace {

class ChildProcess {
public:
  ~ChildProcess() {
    if (Pid > 0) {
      kill(Pid, SIGKILL);
      int St;
      waitpid(Pid, &St, 0);
    }
  }
  /// Runs `<this executable> --harness-worker <Job>`, stdout and stderr to
  /// \p Log.
  Error start(StringRef Job, StringRef Log) {
    std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
    if (Exe.empty())
      return makeInternalError("cannot find the astra-opt executable");
    std::string JobArg = ("--harness-worker=" + Job).str();
    std::string LogPath = Log.str();
    Pid = fork();
    if (Pid < 0)
      return makeInternalError("fork failed");
    if (Pid == 0) {
      int Fd = open(LogPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (Fd >= 0) {
        dup2(Fd, 1);
        dup2(Fd, 2);
        close(Fd);
      }
      int Null = open("/dev/null", O_RDONLY);
      if (Null >= 0)
        dup2(Null, 0);
      char *Argv[] = {const_cast<char *>(Exe.c_str()),
                      const_cast<char *>(JobArg.c_str()), nullptr};
      execv(Exe.c_str(), Argv);
      _exit(127);
    }
    return Error::success();
  }
  /// Waits up to \p Seconds. Returns false on timeout (the child is killed).
  bool wait(double Seconds, int &Status) {
    auto Deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration<double>(Seconds);
    while (true) {
      pid_t R = waitpid(Pid, &Status, WNOHANG);
      if (R == Pid) {
        Pid = -1;
        return true;
      }
      if (std::chrono::steady_clock::now() > Deadline) {
        kill(Pid, SIGKILL);
        waitpid(Pid, &Status, 0);
        Pid = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

private:
  pid_t Pid = -1;
};

/// The last progress line the worker printed ("running the candidate on
/// shape ...").
std::string lastPhase(StringRef Log) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log);
  if (!B)
    return "";
  SmallVector<StringRef, 0> Lines;
  (*B)->getBuffer().split(Lines, '\n');
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
    if (It->starts_with("astra-worker: "))
      return It->drop_front(14).str();
  return "";
}

} // namespace

static void finishVerdict(VerifyResult &R) {
  if (R.Verdict == "refused")
    return;
  std::vector<double> Logs, Controls;
  bool AnyFaster = false, AnySlower = false;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Timing)
      continue;
    Logs.push_back(std::log(S.Timing->Speedup.Median));
    Controls.push_back(S.Timing->Control.Median);
    AnyFaster |= S.Timing->Verdict == SpeedVerdict::Faster;
    AnySlower |= S.Timing->Verdict == SpeedVerdict::Slower;
  }
  double Sum = 0;
  for (double L : Logs)
    Sum += L;
  R.GeoMeanSpeedup = Logs.empty() ? 1 : std::exp(Sum / Logs.size());
  R.ControlMedian = Controls.empty() ? 1 : median(Controls);
  R.Verdict = AnySlower   ? "slower"
              : AnyFaster ? "faster"
                          : "no-significant-change";
}

Expected<VerifyResult> verifyCandidate(const VerifyOptions &Opts) {
  auto WallStart = std::chrono::steady_clock::now();
  Expected<LaunchSpecFile> SF = parseSpecFile(Opts.SpecPath);
  if (!SF)
    return SF.takeError();
  const KernelSpec *K = Opts.Kernel.empty() && SF->Kernels.size() == 1
                            ? &SF->Kernels[0]
                            : SF->find(Opts.Kernel);
  if (!K)
    return makeInputError(Opts.SpecPath + ": no kernel '" + Opts.Kernel +
                          "' in the spec");

  VerifyResult R;
  R.KernelName = K->Kernel;
  R.OriginalFile = Opts.OriginalFile;
  R.CandidateFile = Opts.IsControlRun ? Opts.OriginalFile : Opts.CandidateFile;
  R.IsControlRun = Opts.IsControlRun;
  auto Wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         WallStart)
        .count();
  };

  // The working directory: the job, the worker's log and result.
  SmallString<128> Dir;
  bool Temp = Opts.KeepDir.empty();
  if (Temp) {
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("astra-harness", Dir))
      return makeInternalError("cannot create a temporary directory: " +
                               EC.message());
  } else {
    Dir = Opts.KeepDir;
    sys::fs::create_directories(Dir);
  }
  llvm::scope_exit RemoveDir([&] {
    if (Temp)
      sys::fs::remove_directories(Dir);
  });
  SmallString<128> JobPath(Dir), LogPath(Dir);
  sys::path::append(JobPath, "job.json");
  sys::path::append(LogPath, "worker.log");
  sys::fs::remove(JobPath);
  sys::fs::remove(resultPathFor(JobPath));

  WorkerJob Job;
  Job.SpecPath = Opts.SpecPath;
  Job.Kernel = K->Kernel;
  Job.TimeBudget = Opts.TimeBudget;
  Job.TargetHalfWidth = Opts.TargetHalfWidth;
  Job.MinGain = Opts.MinGain;
  for (const Shape &S : K->Shapes)
    Job.Shapes.push_back({S.vars(), false, true});
  if (Opts.EdgeShapes) {
    EdgeShapeSet Edges = deriveEdgeShapes(*K);
    for (const Shape &S : Edges.Shapes)
      Job.Shapes.push_back({S.vars(), true, false});
    R.Notes = Edges.notes();
  }

  // Start the worker now: it starts the driver while the PTX is compiled.
  auto Child = std::make_unique<ChildProcess>();
  if (Error E = Child->start(JobPath, LogPath))
    return std::move(E);

  std::string OrigPtx = Opts.OriginalPtx, CandPtx = Opts.CandidatePtx;
  if (Opts.MakePtx)
    if (Error E = Opts.MakePtx(OrigPtx, CandPtx))
      return std::move(E);
  Expected<std::string> OrigEntry = findPtxEntry(OrigPtx, K->Kernel);
  if (!OrigEntry)
    return OrigEntry.takeError();
  auto Refuse = [&](Reason Why, const Twine &Detail) {
    R.Verdict = "refused";
    R.Why = Why;
    R.Detail = Detail.str();
    R.WallSeconds = Wall();
    return R;
  };
  Expected<std::string> CandEntry = findPtxEntry(CandPtx, K->Kernel);
  if (!CandEntry)
    return Refuse(Reason::DoesNotLoad, toString(CandEntry.takeError()));
  std::vector<std::string> Launches = findDeviceSideLaunches(CandPtx);
  if (!Launches.empty())
    return Refuse(Reason::DeviceSideLaunch,
                  "the candidate launches device-side work (calls " +
                      join(Launches, ", ") +
                      "): that work would outlive the timed region and "
                      "escape the checks; not allowed");

  Job.OrigPtx = OrigPtx;
  Job.CandPtx = CandPtx;
  Job.OrigEntry = *OrigEntry;
  Job.CandEntry = *CandEntry;

  std::vector<std::string> DroppedByRetry;
  for (unsigned Attempt = 0;; ++Attempt) {
    if (Attempt > 0) {
      Child = std::make_unique<ChildProcess>();
      sys::fs::remove(JobPath);
      sys::fs::remove(resultPathFor(JobPath));
      if (Error E = Child->start(JobPath, LogPath))
        return std::move(E);
    }
    if (Error E = writeFileAtomically(JobPath, jobToJSONText(Job)))
      return std::move(E);
    int Status = 0;
    bool Finished = Child->wait(Opts.TimeoutSeconds, Status);
    std::string Phase = lastPhase(LogPath);
    bool OrigPhase = StringRef(Phase).contains("the original") ||
                     StringRef(Phase).contains("the control");
    if (!Finished) {
      if (OrigPhase)
        return makeInputError("the original kernel does not finish within " +
                              Twine(Opts.TimeoutSeconds) + " s (" + Phase +
                              ")");
      return Refuse(Reason::Hang,
                    "no result within the time limit of " +
                        Twine(Opts.TimeoutSeconds) + " s, killed while " +
                        (Phase.empty() ? std::string("starting") : Phase));
    }
    Expected<WorkerOutcome> O = readOutcome(resultPathFor(JobPath));
    if (!O) {
      consumeError(O.takeError());
      std::string How =
          WIFSIGNALED(Status)
              ? ("killed by signal " + Twine(WTERMSIG(Status)) + " (" +
                 strsignal(WTERMSIG(Status)) + ")")
                    .str()
              : ("exit code " + Twine(WEXITSTATUS(Status))).str();
      if (OrigPhase)
        return makeInternalError("the harness worker died (" + How +
                                 ") while " + Phase);
      return Refuse(Reason::Crash, "the harness worker died (" + How +
                                       ") while " +
                                       (Phase.empty() ? std::string("starting")
                                                      : Phase));
    }
    WorkerOutcome &W = *O;
    if (W.Status == "no-device")
      return makeDeviceError(W.Message);
    if (W.Status == "original-fails" && W.FailedShape >= 0 &&
        size_t(W.FailedShape) < Job.Shapes.size() &&
        Job.Shapes[W.FailedShape].Generated && Attempt < 4) {
      // The original traps on a generated edge shape: the shape is not
      // valid for this kernel. Run again without it.
      Shape S;
      for (auto &[N, V] : Job.Shapes[W.FailedShape].Vars)
        S.set(N, V);
      DroppedByRetry.push_back(S.str() + ": the original fails: " +
                               W.Message);
      Job.Shapes.erase(Job.Shapes.begin() + W.FailedShape);
      continue;
    }
    if (W.Status == "original-fails")
      return makeInputError("the original kernel fails: " + W.Message);
    if (W.Status == "error")
      return W.Who == "harness" ? makeInternalError(W.Message)
                                : makeInputError(W.Message);
    VerifyResult Got = std::move(W.Result);
    Got.KernelName = R.KernelName;
    Got.OriginalFile = R.OriginalFile;
    Got.CandidateFile = R.CandidateFile;
    Got.IsControlRun = R.IsControlRun;
    Got.Notes.insert(Got.Notes.begin(), R.Notes.begin(), R.Notes.end());
    for (const std::string &D : DroppedByRetry) {
      ShapeResult SR;
      SR.Shape = StringRef(D).split(':').first.str();
      SR.Generated = true;
      SR.Dropped = D;
      Got.Shapes.push_back(SR);
    }
    if (W.Status == "refused")
      Got.Verdict = "refused";
    finishVerdict(Got);
    Got.WallSeconds = Wall();
    return Got;
  }
}

} // namespace astra
