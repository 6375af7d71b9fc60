//===- Session.h - Judge many candidates of one kernel ----------*- C++ -*-===//
//
// The evaluation session of design section 7: created once per kernel, it
// judges candidate PTX against the original with the harness protocol
// (docs/harness.md). create() runs the original's side of every correctness
// case once, in a child process, and stores inputs and reference outputs
// (both poisons) in the work directory; each candidate then runs in its own
// child process that loads them instead of generating inputs and running the
// original again, and is timed against the original and the control as in
// --verify. A trap, a hang or a crash refuses that candidate only. With
// several GPUs there is one worker per GPU (the child sees only its GPU);
// evaluate() may be called concurrently with distinct worker indices.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_SESSION_H
#define ASTRA_HARNESS_SESSION_H

#include "astra/Harness/Verify.h"
#include <memory>
#include <string>
#include <vector>

namespace astra {

struct SessionOptions {
  std::string SpecPath;
  /// The spec's kernel (as written there); empty: the spec's only kernel.
  std::string Kernel;
  std::string OriginalFile; ///< for reports
  std::string OriginalPtx;  ///< PTX text of the original file
  /// Per-candidate child time limit; past it the candidate hangs.
  unsigned TimeoutSeconds = 300;
  bool EdgeShapes = true;
  double MinGain = 0.01;
  /// Timing budget per shape in seconds for a candidate (screening;
  /// verifyFully() uses --verify's 1 s).
  double TimeBudget = 0.3;
  double TargetHalfWidth = 0.005;
  /// GPU ordinals, one worker each; empty: GPU 0.
  std::vector<int> Gpus;
  /// Keep the session's files here; empty: a temporary directory.
  std::string WorkDir;
};

class EvalSession {
public:
  /// Prepares the session (the original's inputs and reference outputs).
  /// Errors: no device (exit 2), a spec the original does not satisfy (1).
  static llvm::Expected<std::unique_ptr<EvalSession>>
  create(const SessionOptions &Opts);
  ~EvalSession();

  /// Number of workers (GPUs); evaluate() takes a worker index below it.
  unsigned getWorkerCount() const;

  /// Judges one candidate in its own child process on worker \p Worker. A
  /// refused candidate is a result, not an error.
  /// \p Launch: the candidate's launch overrides (the original runs the
  /// spec's launch).
  llvm::Expected<VerifyResult> evaluate(llvm::StringRef CandidatePtx,
                                        llvm::StringRef Label,
                                        unsigned Worker = 0,
                                        const LaunchOverrides &Launch = {});

  /// The full protocol of `--verify` in a fresh process: used for the
  /// winner before it is written.
  llvm::Expected<VerifyResult> verifyFully(llvm::StringRef CandidatePtx,
                                           llvm::StringRef Label,
                                           const LaunchOverrides &Launch = {});

  /// Where the session keeps the reference and each worker's files.
  llvm::StringRef getWorkDir() const;

private:
  struct State;
  explicit EvalSession(const SessionOptions &Opts);
  SessionOptions Opts;
  std::unique_ptr<State> St;
};

/// Checks that a CUDA driver and at least one GPU are present, without
/// initialising CUDA in this process. Error (exit 2) when not.
llvm::Error checkGpuPresent();

} // namespace astra

#endif // ASTRA_HARNESS_SESSION_H
