//===- Subprocess.h - Run a child process with a time limit -----*- C++ -*-===//
//
// Spawns a program with an argument vector (no shell), stdin from /dev/null,
// stdout and stderr to a file, a pipe or this process's own; waits with a
// time-out without polling (pidfd + poll, where the kernel has it), reading
// the pipe line by line meanwhile; kills and reaps. The harness runs its
// worker with it (docs/harness.md, "Process model").
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_SUBPROCESS_H
#define ASTRA_SUPPORT_SUBPROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace astra {

/// How a child ended.
struct ExitStatus {
  bool Signaled = false;
  int Code = 0;   ///< the exit code when !Signaled
  int Signal = 0; ///< the signal when Signaled
  bool success() const { return !Signaled && Code == 0; }
  /// "exit code 3", "killed by signal 9 (Killed)".
  std::string describe() const;
};

struct SpawnOptions {
  /// Where stdout and stderr go: a file (created or truncated) when set,
  /// else a pipe (PipeStdout) or this process's own.
  std::string StdoutFile, StderrFile;
  /// stdout to a pipe that wait() reads line by line (ignored with
  /// StdoutFile).
  bool PipeStdout = false;
  /// "NAME=VALUE" entries set in the child's environment (this process's
  /// environment otherwise).
  std::vector<std::string> Env;
};

class Subprocess {
public:
  /// Starts \p Argv[0] (a path, not searched in PATH). Errors: no program,
  /// an exec failure (with its errno text), a file that cannot be opened.
  static llvm::Expected<Subprocess> spawn(llvm::ArrayRef<std::string> Argv,
                                          const SpawnOptions &Opts = {});

  Subprocess(Subprocess &&O);
  Subprocess &operator=(Subprocess &&O);
  Subprocess(const Subprocess &) = delete;
  Subprocess &operator=(const Subprocess &) = delete;
  /// Kills and reaps a child still running.
  ~Subprocess();

  pid_t pid() const { return Pid; }
  bool running() const { return Pid > 0; }

  /// Waits up to \p Seconds (negative: no limit) for the child to end,
  /// calling \p OnLine with each complete line of a piped stdout as it
  /// arrives (and the unterminated rest at the end). std::nullopt on
  /// time-out: the child still runs.
  std::optional<ExitStatus>
  wait(double Seconds,
       const std::function<void(llvm::StringRef)> &OnLine = nullptr);

  /// SIGKILL and reap; the status (a child that had already ended keeps its
  /// own). Nothing when it is not running.
  std::optional<ExitStatus> kill();

private:
  Subprocess() = default;
  void closeFds();
  bool drain(const std::function<void(llvm::StringRef)> &OnLine, bool Final);

  pid_t Pid = -1;
  int PidFd = -1;      ///< -1 where pidfd_open is not available
  int OutFd = -1;      ///< the read end of a piped stdout
  std::string Pending; ///< a piped stdout's unterminated last line
};

} // namespace astra

#endif // ASTRA_SUPPORT_SUBPROCESS_H
