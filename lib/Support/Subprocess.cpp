//===- Subprocess.cpp - Run a child process with a time limit -------------===//
#include "astra/Support/Subprocess.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace astra {

std::string ExitStatus::describe() const {
  if (Signaled)
    return ("killed by signal " + Twine(Signal) + " (" + strsignal(Signal) +
            ")")
        .str();
  return ("exit code " + Twine(Code)).str();
}

static ExitStatus fromWaitStatus(int St) {
  ExitStatus S;
  if (WIFSIGNALED(St)) {
    S.Signaled = true;
    S.Signal = WTERMSIG(St);
  } else {
    S.Code = WEXITSTATUS(St);
  }
  return S;
}

static void closeFd(int &Fd) {
  if (Fd >= 0)
    close(Fd);
  Fd = -1;
}

/// A file for the child's stdout or stderr, opened here (so that a failure
/// is an error of the parent), close-on-exec in this process.
static Expected<int> openOutput(const std::string &Path) {
  int Fd = open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return makeInternalError("cannot open " + Path + ": " + strerror(errno));
  return Fd;
}

Expected<Subprocess> Subprocess::spawn(ArrayRef<std::string> Argv,
                                       const SpawnOptions &Opts) {
  if (Argv.empty())
    return makeInternalError("spawn: no program");
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  // The environment: this process's, with Opts.Env set over it.
  std::vector<char *> Envp;
  for (char **E = environ; E && *E; ++E) {
    StringRef Name = StringRef(*E).split('=').first;
    bool Overridden = false;
    for (const std::string &O : Opts.Env)
      Overridden |= StringRef(O).split('=').first == Name;
    if (!Overridden)
      Envp.push_back(*E);
  }
  for (const std::string &O : Opts.Env)
    Envp.push_back(const_cast<char *>(O.c_str()));
  Envp.push_back(nullptr);

  // Every descriptor the child needs is opened before the fork; the child
  // only duplicates them (nothing that allocates runs after fork).
  int Fds[3] = {-1, -1, -1}; // stdin, stdout, stderr for the child
  int OutPipe[2] = {-1, -1}, ErrPipe[2] = {-1, -1};
  auto CloseAll = [&] {
    for (int &F : Fds)
      closeFd(F);
    closeFd(OutPipe[0]);
    closeFd(OutPipe[1]);
    closeFd(ErrPipe[0]);
    closeFd(ErrPipe[1]);
  };
  Fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!Opts.StdoutFile.empty()) {
    Expected<int> F = openOutput(Opts.StdoutFile);
    if (!F)
      return CloseAll(), F.takeError();
    Fds[1] = *F;
  } else if (Opts.PipeStdout) {
    if (pipe2(OutPipe, O_CLOEXEC) != 0)
      return CloseAll(), makeInternalError("pipe failed");
  }
  if (!Opts.StderrFile.empty()) {
    if (Opts.StderrFile == Opts.StdoutFile) {
      Fds[2] = dup(Fds[1]);
    } else {
      Expected<int> F = openOutput(Opts.StderrFile);
      if (!F)
        return CloseAll(), F.takeError();
      Fds[2] = *F;
    }
  }
  if (pipe2(ErrPipe, O_CLOEXEC) != 0)
    return CloseAll(), makeInternalError("pipe failed");

  pid_t Pid = fork();
  if (Pid < 0)
    return CloseAll(), makeInternalError("fork failed");
  if (Pid == 0) {
    // The child: dup2 clears close-on-exec on the new descriptor.
    if (Fds[0] >= 0)
      dup2(Fds[0], 0);
    if (Fds[1] >= 0)
      dup2(Fds[1], 1);
    else if (OutPipe[1] >= 0)
      dup2(OutPipe[1], 1);
    if (Fds[2] >= 0)
      dup2(Fds[2], 2);
    execve(Args[0], Args.data(), Envp.data());
    int Err = errno;
    ssize_t W = write(ErrPipe[1], &Err, sizeof(Err));
    (void)W;
    _exit(127);
  }
  // The parent: what exec did comes back on ErrPipe (EOF: it succeeded).
  for (int &F : Fds)
    closeFd(F);
  closeFd(OutPipe[1]);
  closeFd(ErrPipe[1]);
  int Err = 0;
  ssize_t N;
  do
    N = read(ErrPipe[0], &Err, sizeof(Err));
  while (N < 0 && errno == EINTR);
  closeFd(ErrPipe[0]);
  if (N == sizeof(Err)) {
    int St;
    waitpid(Pid, &St, 0);
    closeFd(OutPipe[0]);
    return makeInternalError("cannot run " + Argv[0] + ": " + strerror(Err));
  }
  Subprocess P;
  P.Pid = Pid;
#ifdef SYS_pidfd_open
  P.PidFd = int(syscall(SYS_pidfd_open, Pid, 0));
#endif
  P.OutFd = OutPipe[0];
  if (P.OutFd >= 0)
    fcntl(P.OutFd, F_SETFL, fcntl(P.OutFd, F_GETFL) | O_NONBLOCK);
  return std::move(P);
}

Subprocess::Subprocess(Subprocess &&O) { *this = std::move(O); }

Subprocess &Subprocess::operator=(Subprocess &&O) {
  if (this != &O) {
    kill();
    closeFds();
    Pid = O.Pid;
    PidFd = O.PidFd;
    OutFd = O.OutFd;
    Pending = std::move(O.Pending);
    O.Pid = -1;
    O.PidFd = O.OutFd = -1;
  }
  return *this;
}

Subprocess::~Subprocess() {
  kill();
  closeFds();
}

void Subprocess::closeFds() {
  closeFd(PidFd);
  closeFd(OutFd);
}

bool Subprocess::drain(const std::function<void(StringRef)> &OnLine,
                       bool Final) {
  char Buf[4096];
  while (OutFd >= 0) {
    ssize_t N = read(OutFd, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      break; // EAGAIN: nothing more now
    if (N == 0) {
      closeFd(OutFd); // the child closed its stdout
      Final = true;
      break;
    }
    Pending.append(Buf, size_t(N));
    size_t Start = 0, Nl;
    while ((Nl = Pending.find('\n', Start)) != std::string::npos) {
      if (OnLine)
        OnLine(StringRef(Pending).slice(Start, Nl));
      Start = Nl + 1;
    }
    Pending.erase(0, Start);
  }
  if (Final && !Pending.empty()) {
    if (OnLine)
      OnLine(Pending);
    Pending.clear();
  }
  return OutFd >= 0;
}

std::optional<ExitStatus>
Subprocess::wait(double Seconds, const std::function<void(StringRef)> &OnLine) {
  using Clock = std::chrono::steady_clock;
  auto Deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(Seconds));
  while (Pid > 0) {
    int St = 0;
    pid_t R = waitpid(Pid, &St, WNOHANG);
    if (R == Pid) {
      Pid = -1;
      drain(OnLine, /*Final=*/true);
      closeFds();
      return fromWaitStatus(St);
    }
    int Ms = -1;
    if (Seconds >= 0) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Deadline - Clock::now())
                      .count();
      if (Left <= 0)
        return std::nullopt;
      Ms = int(std::min<long long>(Left, 1 << 30));
    }
    SmallVector<pollfd, 2> Fds;
    if (PidFd >= 0)
      Fds.push_back({PidFd, POLLIN, 0});
    else // no pidfd: look again every 2 ms
      Ms = Ms < 0 ? 2 : std::min(Ms, 2);
    if (OutFd >= 0)
      Fds.push_back({OutFd, POLLIN, 0});
    int N = poll(Fds.data(), Fds.size(), Ms);
    if (N > 0 && OutFd >= 0)
      drain(OnLine, /*Final=*/false);
  }
  return std::nullopt;
}

std::optional<ExitStatus> Subprocess::kill() {
  if (Pid <= 0)
    return std::nullopt;
  ::kill(Pid, SIGKILL);
  int St = 0;
  while (waitpid(Pid, &St, 0) < 0 && errno == EINTR)
    ;
  Pid = -1;
  closeFds();
  return fromWaitStatus(St);
}

} // namespace astra
