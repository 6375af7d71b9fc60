//===- Session.cpp - Judge many candidates of one kernel ------------------===//
//
// First implementation: every evaluation is a full verifyCandidate() run.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/Session.h"
#include "astra/Support/Error.h"
#include <dlfcn.h>

using namespace llvm;

namespace astra {

EvalSession::EvalSession(const SessionOptions &Opts) : Opts(Opts) {}
EvalSession::~EvalSession() = default;

Expected<std::unique_ptr<EvalSession>>
EvalSession::create(const SessionOptions &Opts) {
  if (Error E = checkGpuPresent())
    return std::move(E);
  return std::unique_ptr<EvalSession>(new EvalSession(Opts));
}

unsigned EvalSession::getWorkerCount() const {
  return Opts.Gpus.empty() ? 1 : Opts.Gpus.size();
}

static VerifyOptions makeVerifyOptions(const SessionOptions &S,
                                       StringRef CandPtx, StringRef Label) {
  VerifyOptions V;
  V.SpecPath = S.SpecPath;
  V.Kernel = S.Kernel;
  V.OriginalFile = S.OriginalFile;
  V.CandidateFile = Label.str();
  V.OriginalPtx = S.OriginalPtx;
  V.CandidatePtx = CandPtx.str();
  V.TimeoutSeconds = S.TimeoutSeconds;
  V.EdgeShapes = S.EdgeShapes;
  V.MinGain = S.MinGain;
  V.TimeBudget = S.TimeBudget;
  V.TargetHalfWidth = S.TargetHalfWidth;
  return V;
}

Expected<VerifyResult> EvalSession::evaluate(StringRef CandidatePtx,
                                             StringRef Label, unsigned) {
  return verifyCandidate(makeVerifyOptions(Opts, CandidatePtx, Label));
}

Expected<VerifyResult> EvalSession::verifyFully(StringRef CandidatePtx,
                                                StringRef Label) {
  VerifyOptions V = makeVerifyOptions(Opts, CandidatePtx, Label);
  V.TimeBudget = 1.0;
  return verifyCandidate(V);
}

Error checkGpuPresent() {
  const char *Env = std::getenv("ASTRA_CUDA_DRIVER");
  std::string Lib = Env && *Env ? Env : "libcuda.so.1";
  void *H = dlopen(Lib.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    return makeDeviceError("no CUDA driver: cannot load " + Lib + " (" +
                           (Why ? Why : "unknown reason") +
                           "); this mode needs a machine with an NVIDIA GPU "
                           "and its driver");
  }
  dlclose(H);
  return Error::success();
}

} // namespace astra
