//===- Worker.cpp - The harness's child process ---------------------------===//
//
// `astra-opt --harness-worker <job.json>`: the only process that initialises
// CUDA. It starts the driver while the parent is still compiling (it waits
// for the job file to appear), loads the original, the candidate and a second
// copy of the original (the control) from PTX, checks correctness on every
// shape of the job and times the spec's shapes. See docs/harness.md for the
// protocol; the result is a JSON file (status + VerifyResult).
//
//===----------------------------------------------------------------------===//
#include "WorkerInternal.h"
#include "astra/Harness/CudaDriver.h"
#include "astra/Harness/InputGen.h"
#include "astra/Harness/Spec.h"
#include "astra/Harness/Verify.h"
#include "astra/Support/Output.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace astra {
namespace {

using Clock = std::chrono::steady_clock;

/// The text of \p E without the "error: " that AstraError::log adds: the
/// parent wraps it in an error of its own.
std::string errorText(Error E) {
  std::string S;
  handleAllErrors(
      std::move(E),
      [&](const AstraError &A) {
        const DiagLoc &L = A.getLoc();
        if (!L.File.empty()) {
          S = L.File;
          if (L.Line)
            S += ":" + std::to_string(L.Line) + ":" + std::to_string(L.Col);
          S += ": ";
        }
        S += A.getMessage();
      },
      [&](const ErrorInfoBase &B) { S = B.message(); });
  return S;
}

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// A refusal or an error, with who caused it.
struct Failure {
  Reason Why = Reason::None;
  Party Who = Party::None;
  std::string Msg;
  bool Sticky = false; ///< the context is dead
};

/// Guard bytes on each side of every buffer; a multiple of 256 so buffers
/// keep the allocator's alignment.
constexpr size_t GuardBytes = 4096;
/// Output poisons and guard fills, one per run.
constexpr uint8_t Poison[2] = {0xFF, 0x7F};
constexpr uint8_t GuardFill[2] = {0x3C, 0xC3};
constexpr uint32_t ScrubWord[2] = {0x7FBADBADu, 0x4B1D4B1Du};

/// The harness's own kernels: a shared-memory scrubber (so that a kernel
/// reading shared memory it never wrote sees garbage that differs between
/// runs) and a spin kernel that holds the stream while a batch of launches
/// is queued.
const char *HarnessPtx = R"(.version 7.0
.target sm_70
.address_size 64
.extern .shared .align 16 .b8 astra_smem[];
.visible .entry astra_scrub_smem(.param .u32 p_nbytes, .param .u32 p_pattern)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  ld.param.u32 %r1, [p_nbytes];
  ld.param.u32 %r2, [p_pattern];
  mov.u32 %r3, %tid.x;
  shl.b32 %r3, %r3, 2;
  mov.u32 %r4, %ntid.x;
  shl.b32 %r4, %r4, 2;
  mov.u32 %r5, astra_smem;
$L_loop:
  setp.ge.u32 %p1, %r3, %r1;
  @%p1 bra.uni $L_done;
  add.u32 %r6, %r5, %r3;
  st.shared.u32 [%r6], %r2;
  add.u32 %r3, %r3, %r4;
  bra.uni $L_loop;
$L_done:
  ret;
}
.visible .entry astra_spin(.param .u64 p_ns)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p_ns];
  mov.u64 %rd2, %globaltimer;
  add.u64 %rd3, %rd2, %rd1;
$L_spin:
  mov.u64 %rd4, %globaltimer;
  setp.lt.u64 %p1, %rd4, %rd3;
  @%p1 bra.uni $L_spin;
  ret;
}
)";

/// One device buffer with guard regions.
struct DevBuf {
  cu::DevicePtr Base = 0;
  size_t Bytes = 0;
  cu::DevicePtr ptr() const { return Base + GuardBytes; }
};

enum Who { Orig = 0, Cand = 1, Ctrl = 2 };
Party partyOf(int W) {
  return W == Orig   ? Party::Original
         : W == Cand ? Party::Candidate
                     : Party::Control;
}
StringRef whoName(int W) { return partyName(partyOf(W)); }

class Worker {
public:
  explicit Worker(const cu::Api &A) : A(A) {}
  void setJob(const WorkerJob &J) { JobPtr = &J; }

  /// Driver, device, context, stream, harness module, device numbers.
  bool init();
  /// Loads the three kernels; a JIT error refuses the candidate.
  bool loadModules();
  /// Correctness over every shape, then timing of the timed shapes.
  void run();

  WorkerOutcome Out;
  std::optional<Failure> F;

private:
  const cu::Api &A;
  const WorkerJob *JobPtr = nullptr;
  const WorkerJob &job() const { return *JobPtr; }
  cu::Device Dev = 0;
  cu::Context Ctx = nullptr;
  cu::Stream S = nullptr;
  cu::Module HarnessMod = nullptr, Mods[3] = {};
  cu::Function Fn[3] = {}, ScrubFn = nullptr, SpinFn = nullptr;
  int ScrubBytes = 0;
  const KernelSpec *K = nullptr;
  std::optional<LaunchSpecFile> SpecFile;
  bool OrigDeterministic = true;
  bool NominalNoted = false;
  /// Inputs of each timed shape's first correctness case, reused for timing.
  std::map<size_t, std::vector<std::vector<uint8_t>>> TimingInputs;
  unsigned Launches[3] = {};

  bool ok(cu::Result R, const Twine &What);
  bool fail(Reason Why, int W, const Twine &Msg, bool Sticky = false);
  bool alloc(DevBuf &B, size_t Bytes);
  void release(std::vector<DevBuf> &Bufs);
  bool setSharedLimit(const ResolvedLaunch &L);
  bool launch(int W, const ResolvedLaunch &L,
              const std::vector<cu::DevicePtr> &Ptrs);
  bool syncAfter(int W, const Twine &Where);
  bool scrub(unsigned Run);
  bool measureCopyBandwidth();

  bool checkShape(size_t Index, ShapeResult &SR);
  /// One test case: 2 runs of the original and 2 of the candidate.
  /// Returns false on a failure (F set) or a dropped shape (\p Dropped).
  bool runCase(const Shape &Sh, const ResolvedLaunch &L,
               const std::vector<DevBuf> &Bufs, const GenOptions &G,
               bool Generated, std::string &Dropped, bool &Regenerate,
               std::string &Where,
               std::vector<std::vector<uint8_t>> *Keep = nullptr);
  bool timeShape(size_t Index, ShapeResult &SR);
  /// After the timed rounds: every party's outputs in every copy (written
  /// by its last timed launch there) against the reference \p Ref.
  bool
  checkTimedOutputs(const Shape &Sh, const ResolvedLaunch &L,
                    const std::vector<std::vector<uint8_t>> (&Ref)[2],
                    const std::vector<std::vector<cu::DevicePtr>> (&Copies)[3],
                    unsigned Batch);
};

bool Worker::ok(cu::Result R, const Twine &What) {
  if (R == cu::Success)
    return true;
  F = Failure{cu::isStickyError(R) ? Reason::Trap : Reason::Crash,
              Party::Harness, (What + ": " + cu::describe(A, R)).str(),
              cu::isStickyError(R)};
  return false;
}

bool Worker::fail(Reason Why, int W, const Twine &Msg, bool Sticky) {
  F = Failure{Why, partyOf(W), Msg.str(), Sticky};
  return false;
}

bool Worker::init() {
  cu::Result R = A.Init(0);
  if (R != cu::Success) {
    Out.Status = WorkerStatus::NoDevice;
    Out.Message = "no usable CUDA device: cuInit failed with " +
                  cu::describe(A, R);
    return false;
  }
  int Count = 0;
  if (A.DeviceGetCount(&Count) != cu::Success || Count == 0) {
    Out.Status = WorkerStatus::NoDevice;
    Out.Message = "the CUDA driver reports no GPU";
    return false;
  }
  if (!ok(A.DeviceGet(&Dev, 0), "cuDeviceGet") ||
      !ok(A.DevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain") ||
      !ok(A.CtxSetCurrent(Ctx), "cuCtxSetCurrent") ||
      !ok(A.StreamCreate(&S, cu::StreamNonBlocking), "cuStreamCreate"))
    return false;
  DeviceInfo &D = Out.Result.Device;
  char Name[256] = {};
  A.DeviceGetName(Name, sizeof(Name) - 1, Dev);
  D.Name = Name;
  auto Attr = [&](int What) {
    int V = 0;
    A.DeviceGetAttribute(&V, What, Dev);
    return V;
  };
  D.CcMajor = Attr(cu::AttrComputeCapabilityMajor);
  D.CcMinor = Attr(cu::AttrComputeCapabilityMinor);
  D.SMs = Attr(cu::AttrMultiprocessorCount);
  D.L2Bytes = Attr(cu::AttrL2CacheSize);
  size_t Total = 0;
  A.DeviceTotalMem(&Total, Dev);
  D.TotalMem = int64_t(Total);
  A.DriverGetVersion(&D.DriverVersion);
  // Peak DRAM bandwidth: double data rate x memory clock x bus width.
  double MemClockKHz = Attr(cu::AttrMemoryClockRate);
  double BusBits = Attr(cu::AttrGlobalMemoryBusWidth);
  D.PeakDramGBs = 2.0 * MemClockKHz * 1e3 * (BusBits / 8) / 1e9;
  ScrubBytes = Attr(cu::AttrMaxSharedMemoryPerBlockOptin);

  char Log[8192] = {};
  int Opts[] = {cu::JitErrorLogBuffer, cu::JitErrorLogBufferSizeBytes};
  void *Vals[] = {Log, reinterpret_cast<void *>(uintptr_t(sizeof(Log) - 1))};
  if (!ok(A.ModuleLoadDataEx(&HarnessMod, HarnessPtx, 2, Opts, Vals),
          Twine("loading the harness module: ") + Log) ||
      !ok(A.ModuleGetFunction(&ScrubFn, HarnessMod, "astra_scrub_smem"),
          "astra_scrub_smem") ||
      !ok(A.ModuleGetFunction(&SpinFn, HarnessMod, "astra_spin"),
          "astra_spin"))
    return false;
  if (ScrubBytes > 48 * 1024 &&
      A.FuncSetAttribute(ScrubFn, cu::FuncAttrMaxDynamicSharedSizeBytes,
                         ScrubBytes) != cu::Success)
    ScrubBytes = 48 * 1024;
  return measureCopyBandwidth();
}

bool Worker::measureCopyBandwidth() {
  size_t Free = 0, Total = 0;
  if (!ok(A.MemGetInfo(&Free, &Total), "cuMemGetInfo"))
    return false;
  size_t Bytes = std::min<size_t>(size_t(1) << 30, Free / 4);
  Bytes &= ~size_t(255);
  cu::DevicePtr Src = 0, Dst = 0;
  if (!ok(A.MemAlloc(&Src, Bytes), "cuMemAlloc") ||
      !ok(A.MemAlloc(&Dst, Bytes), "cuMemAlloc"))
    return false;
  cu::Event E[2];
  A.EventCreate(&E[0], cu::EventDefault);
  A.EventCreate(&E[1], cu::EventDefault);
  A.MemsetD32Async(Src, 0x3F800000u, Bytes / 4, S);
  std::vector<double> T;
  for (int I = 0; I < 6; ++I) {
    A.EventRecord(E[0], S);
    A.MemcpyDtoDAsync(Dst, Src, Bytes, S);
    A.EventRecord(E[1], S);
    if (!ok(A.EventSynchronize(E[1]), "copy bandwidth"))
      return false;
    float Ms = 0;
    A.EventElapsedTime(&Ms, E[0], E[1]);
    if (I > 0) // the first copy is a warm-up
      T.push_back(Ms * 1e-3);
  }
  A.EventDestroy(E[0]);
  A.EventDestroy(E[1]);
  A.MemFree(Src);
  A.MemFree(Dst);
  double Sec = median(T);
  Out.Result.Device.CopyGBs = Sec > 0 ? 2.0 * double(Bytes) / Sec / 1e9 : 0;
  if (Out.Result.Device.PeakDramGBs <= 0)
    // The driver does not give the memory clock: take the copy rate with a
    // wide margin so that the floor stays a true lower bound.
    Out.Result.Device.PeakDramGBs = Out.Result.Device.CopyGBs * 1.5;
  return true;
}

bool Worker::loadModules() {
  Expected<LaunchSpecFile> SF = parseSpecFile(job().SpecPath);
  if (!SF) {
    Out.Status = WorkerStatus::Error;
    Out.Message = errorText(SF.takeError());
    return false;
  }
  SpecFile = std::move(*SF);
  K = job().Kernel.empty() && SpecFile->Kernels.size() == 1
          ? &SpecFile->Kernels[0]
          : SpecFile->find(job().Kernel);
  if (!K) {
    Out.Status = WorkerStatus::Error;
    Out.Message = "kernel '" + job().Kernel + "' is not in " + job().SpecPath;
    return false;
  }
  const std::string *Ptx[3] = {&job().OrigPtx, &job().CandPtx, &job().OrigPtx};
  const std::string *Entry[3] = {&job().OrigEntry, &job().CandEntry,
                                 &job().OrigEntry};
  for (int W = 0; W < 3; ++W) {
    std::string Log(16384, '\0');
    int Opts[] = {cu::JitErrorLogBuffer, cu::JitErrorLogBufferSizeBytes};
    void *Vals[] = {&Log[0],
                    reinterpret_cast<void *>(uintptr_t(Log.size() - 1))};
    cu::Result R = A.ModuleLoadDataEx(&Mods[W], Ptx[W]->c_str(), 2, Opts,
                                      Vals);
    Log.resize(strlen(Log.c_str()));
    if (R != cu::Success)
      return fail(Reason::DoesNotLoad, W,
                  "the PTX does not load: " + cu::describe(A, R) +
                      (Log.empty() ? "" : ": " + StringRef(Log).trim()));
    R = A.ModuleGetFunction(&Fn[W], Mods[W], Entry[W]->c_str());
    if (R != cu::Success)
      return fail(Reason::DoesNotLoad, W,
                  "no kernel '" + *Entry[W] + "' in the module: " +
                      cu::describe(A, R));
  }
  for (int W = 0; W < 2; ++W) {
    int Regs = 0, Local = 0, Shared = 0;
    A.FuncGetAttribute(&Regs, cu::FuncAttrNumRegs, Fn[W]);
    A.FuncGetAttribute(&Local, cu::FuncAttrLocalSizeBytes, Fn[W]);
    A.FuncGetAttribute(&Shared, cu::FuncAttrSharedSizeBytes, Fn[W]);
    Out.Result.Notes.push_back(
        (Twine(whoName(W)) + ": " + Twine(Regs) + " registers, " +
         Twine(Local) + " bytes local (stack/spill), " + Twine(Shared) +
         " bytes static shared")
            .str());
  }
  return true;
}

bool Worker::alloc(DevBuf &B, size_t Bytes) {
  B.Bytes = Bytes;
  size_t Total = Bytes + 2 * GuardBytes;
  return ok(A.MemAlloc(&B.Base, Total),
            "cuMemAlloc(" + Twine(Total) + " bytes)");
}

void Worker::release(std::vector<DevBuf> &Bufs) {
  for (DevBuf &B : Bufs)
    if (B.Base)
      A.MemFree(B.Base);
  Bufs.clear();
}

bool Worker::setSharedLimit(const ResolvedLaunch &L) {
  if (L.SharedBytes <= 48 * 1024)
    return true;
  for (int W = 0; W < 3; ++W) {
    cu::Result R = A.FuncSetAttribute(
        Fn[W], cu::FuncAttrMaxDynamicSharedSizeBytes, int(L.SharedBytes));
    if (R != cu::Success)
      return fail(Reason::LaunchFailed, W,
                  "cannot allow " + Twine(L.SharedBytes) +
                      " bytes of dynamic shared memory: " +
                      cu::describe(A, R));
  }
  return true;
}

bool Worker::launch(int W, const ResolvedLaunch &L,
                    const std::vector<cu::DevicePtr> &Ptrs) {
  SmallVector<void *, 16> Params;
  SmallVector<cu::DevicePtr, 16> PtrStore(Ptrs.begin(), Ptrs.end());
  for (size_t I = 0; I < L.Args.size(); ++I)
    Params.push_back(L.Args[I].IsScalar
                         ? const_cast<uint8_t *>(L.Args[I].ParamBytes)
                         : static_cast<void *>(&PtrStore[I]));
  ++Launches[W];
  cu::Result R = A.LaunchKernel(Fn[W], L.Grid[0], L.Grid[1], L.Grid[2],
                                L.Block[0], L.Block[1], L.Block[2],
                                L.SharedBytes, S, Params.data(), nullptr);
  if (R == cu::Success)
    return true;
  return fail(cu::isStickyError(R) ? Reason::Trap : Reason::LaunchFailed, W,
              "launch failed: " + cu::describe(A, R), cu::isStickyError(R));
}

bool Worker::syncAfter(int W, const Twine &Where) {
  cu::Result R = A.StreamSynchronize(S);
  if (R == cu::Success)
    return true;
  return fail(cu::isStickyError(R) ? Reason::Trap : Reason::Crash, W,
              cu::describe(A, R) + " " + Where, cu::isStickyError(R));
}

bool Worker::scrub(unsigned Run) {
  uint32_t N = uint32_t(ScrubBytes), Pat = ScrubWord[Run & 1];
  void *Params[] = {&N, &Pat};
  return ok(A.LaunchKernel(ScrubFn, 2 * Out.Result.Device.SMs, 1, 1, 1024, 1,
                           1, N, S, Params, nullptr),
            "shared-memory scrub");
}

//===-- Element comparisons ------------------------------------------------===//

bool elemIsNan(ArrayRef<uint8_t> B, DType T, size_t I) {
  return isFloatDType(T) && std::isnan(loadElement(B, T, I));
}

bool sameBits(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, unsigned Size,
              size_t I) {
  return std::memcmp(X.data() + I * Size, Y.data() + I * Size, Size) == 0;
}

/// Equal bits, or both NaN (NaN payloads may differ).
bool sameValue(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, DType T, size_t I) {
  return sameBits(X, Y, dtypeSize(T), I) ||
         (elemIsNan(X, T, I) && elemIsNan(Y, T, I));
}

bool isPoison(ArrayRef<uint8_t> B, unsigned Size, size_t I, uint8_t P) {
  for (unsigned J = 0; J < Size; ++J)
    if (B[I * Size + J] != P)
      return false;
  return true;
}

/// |X[I] - Y[I]| for an integer dtype.
double intDistance(ArrayRef<uint8_t> X, ArrayRef<uint8_t> Y, DType T,
                   size_t I) {
  int64_t A = loadInteger(X, T, I), B = loadInteger(Y, T, I);
  if (T == DType::U64)
    return double(uint64_t(A) > uint64_t(B) ? uint64_t(A) - uint64_t(B)
                                            : uint64_t(B) - uint64_t(A));
  int64_t D;
  if (__builtin_sub_overflow(A, B, &D))
    return HUGE_VAL;
  return std::fabs(double(D)); // exact while it matters (|D| < 2^53)
}

std::string fmtElem(ArrayRef<uint8_t> B, DType T, size_t I) {
  if (isFloatDType(T)) {
    char Buf[64];
    snprintf(Buf, sizeof(Buf), "%.9g", loadElement(B, T, I));
    return Buf;
  }
  return std::to_string(loadInteger(B, T, I));
}

std::string distLabel(const GenOptions &G) {
  std::string S = "seed " + std::to_string(G.Seed) + ", " +
                  (G.Distribution ? distName(*G.Distribution).str()
                                  : std::string("spec dist"));
  if (G.Specials)
    S += " + NaN/Inf";
  return S;
}

//===-- Correctness --------------------------------------------------------===//

/// What the comparison of one output found.
struct Tally {
  size_t Unwritten = 0, FirstUnwritten = SIZE_MAX;
  size_t Nondet = 0, FirstNondet = SIZE_MAX;
  size_t NanBad = 0, FirstNan = SIZE_MAX;
  unsigned NanRun = 0; ///< the candidate run of FirstNan
  size_t Bad = 0, FirstBad = SIZE_MAX, WorstIdx = SIZE_MAX;
  unsigned WorstRun = 0;
  double Worst = -1;

  /// The first element that differs in any way; SIZE_MAX for none.
  size_t firstMismatch() const {
    return std::min({FirstUnwritten, FirstNan, FirstBad});
  }
  size_t mismatches() const { return Unwritten + NanBad + Bad; }

  void merge(const Tally &O) {
    Unwritten += O.Unwritten;
    FirstUnwritten = std::min(FirstUnwritten, O.FirstUnwritten);
    Nondet += O.Nondet;
    FirstNondet = std::min(FirstNondet, O.FirstNondet);
    NanBad += O.NanBad;
    if (O.FirstNan < FirstNan) {
      FirstNan = O.FirstNan;
      NanRun = O.NanRun;
    }
    Bad += O.Bad;
    FirstBad = std::min(FirstBad, O.FirstBad);
    if (O.Worst > Worst) {
      Worst = O.Worst;
      WorstIdx = O.WorstIdx;
      WorstRun = O.WorstRun;
    }
  }
};

/// How the original's two runs differ on one output: not at all
/// (deterministic), and else by how much at most (absolute, finite values).
struct Spread {
  bool Differs = false;
  double MaxAbs = 0;
};

/// Compares the candidate's two runs (C0, C1) with the original's (O0, O1)
/// on the elements the original writes. Where the original is not
/// deterministic (S.Differs), a candidate value passes when it matches
/// either original run within the tolerance widened by twice the original's
/// own largest spread.
Tally compareRange(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1,
                   ArrayRef<uint8_t> C0, ArrayRef<uint8_t> C1, DType T,
                   size_t Begin, size_t End, bool IsOut, Tolerance Tol,
                   Spread S) {
  Tally R;
  unsigned Size = dtypeSize(T);
  bool IsFloat = isFloatDType(T);
  double Slack = S.Differs ? 2 * S.MaxAbs : 0;
  auto Written = [&](ArrayRef<uint8_t> R0, ArrayRef<uint8_t> R1, size_t E) {
    return !IsOut || !(isPoison(R0, Size, E, Poison[0]) &&
                       isPoison(R1, Size, E, Poison[1]));
  };
  for (size_t E = Begin; E < End; ++E) {
    if (!Written(O0, O1, E))
      continue;
    if (!Written(C0, C1, E)) {
      if (!R.Unwritten++)
        R.FirstUnwritten = E;
      continue;
    }
    if (!sameValue(C0, C1, T, E) && !R.Nondet++)
      R.FirstNondet = E;
    for (unsigned Run = 0; Run < 2; ++Run) {
      ArrayRef<uint8_t> C = Run ? C1 : C0;
      if (sameBits(C, O0, Size, E) || (S.Differs && sameBits(C, O1, Size, E)))
        continue;
      if (!IsFloat) {
        // An integer output's own atol (docs/spec.md, "Tolerance").
        if (Tol.Atol > 0 &&
            (intDistance(C, O0, T, E) <= Tol.Atol ||
             (S.Differs && intDistance(C, O1, T, E) <= Tol.Atol)))
          continue;
        ++R.Bad;
        R.FirstBad = std::min(R.FirstBad, E);
        if (R.Worst < 1) {
          R.Worst = 1;
          R.WorstIdx = E;
          R.WorstRun = Run;
        }
        continue;
      }
      double Cv = loadElement(C, T, E), Ov = loadElement(O0, T, E);
      double Ov1 = S.Differs ? loadElement(O1, T, E) : Ov;
      bool CNan = std::isnan(Cv);
      if (CNan != std::isnan(Ov) && CNan != std::isnan(Ov1)) {
        if (!R.NanBad++ || E < R.FirstNan) {
          R.FirstNan = E;
          R.NanRun = Run;
        }
        continue;
      }
      if (CNan)
        continue;
      auto Within = [&](double O) {
        if (std::isnan(O))
          return false;
        if (std::isinf(O) || std::isinf(Cv))
          return O == Cv;
        return std::fabs(Cv - O) <= Tol.Atol + Tol.Rtol * std::fabs(O) + Slack;
      };
      if (Within(Ov) || (S.Differs && Within(Ov1)))
        continue;
      ++R.Bad;
      R.FirstBad = std::min(R.FirstBad, E);
      double Rel = std::fabs(Cv - Ov) / std::max(std::fabs(Ov), 1e-30);
      if (std::isnan(Rel) || std::isinf(Rel))
        Rel = 1e300;
      if (Rel > R.Worst) {
        R.Worst = Rel;
        R.WorstIdx = E;
        R.WorstRun = Run;
      }
    }
  }
  return R;
}

template <typename Fn> void forChunks(size_t N, Fn F) {
  const size_t Chunk = 1 << 16;
  parallelFor(0, (N + Chunk - 1) / Chunk, [&](size_t C) {
    F(C, C * Chunk, std::min(N, (C + 1) * Chunk));
  });
}

Spread originalSpread(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1, DType T,
                      size_t N, bool IsOut) {
  unsigned Size = dtypeSize(T);
  std::vector<Spread> Parts((N + (1 << 16) - 1) >> 16);
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    Spread &P = Parts[C];
    for (size_t I = B; I < E; ++I) {
      if (IsOut && isPoison(O0, Size, I, Poison[0]) &&
          isPoison(O1, Size, I, Poison[1]))
        continue;
      if (sameValue(O0, O1, T, I))
        continue;
      P.Differs = true;
      if (isFloatDType(T)) {
        double D = std::fabs(loadElement(O0, T, I) - loadElement(O1, T, I));
        if (std::isfinite(D))
          P.MaxAbs = std::max(P.MaxAbs, D);
      }
    }
  });
  Spread All;
  for (const Spread &P : Parts) {
    All.Differs |= P.Differs;
    All.MaxAbs = std::max(All.MaxAbs, P.MaxAbs);
  }
  return All;
}

Tally compareOutputs(ArrayRef<uint8_t> O0, ArrayRef<uint8_t> O1,
                     ArrayRef<uint8_t> C0, ArrayRef<uint8_t> C1, DType T,
                     size_t N, bool IsOut, Tolerance Tol, Spread S) {
  std::vector<Tally> Parts((N + (1 << 16) - 1) >> 16);
  forChunks(N, [&](size_t C, size_t B, size_t E) {
    Parts[C] = compareRange(O0, O1, C0, C1, T, B, E, IsOut, Tol, S);
  });
  Tally All;
  for (const Tally &P : Parts)
    All.merge(P);
  return All;
}

bool Worker::runCase(const Shape &Sh, const ResolvedLaunch &L,
                     const std::vector<DevBuf> &Bufs, const GenOptions &G,
                     bool Generated, std::string &Dropped, bool &Regenerate,
                     std::string &Where,
                     std::vector<std::vector<uint8_t>> *Keep) {
  Regenerate = false;
  Where = "on shape " + Sh.str() + (Generated ? " (generated)" : "") + ", " +
          distLabel(G);
  Expected<std::vector<std::vector<uint8_t>>> In = generateInputs(*K, Sh, L, G);
  if (!In) {
    std::string Msg = errorText(In.takeError());
    if (Generated) {
      Dropped = "inputs cannot be generated: " + Msg;
      return false;
    }
    return fail(Reason::Crash, Orig, "cannot generate inputs " + Where +
                                         ": " + Msg);
  }
  const size_t NA = K->Args.size();
  std::vector<cu::DevicePtr> Ptrs(NA, 0);
  for (size_t I = 0; I < NA; ++I)
    if (!L.Args[I].IsScalar)
      Ptrs[I] = Bufs[I].ptr();
  auto Upload = [&](bool InOutOnly) {
    for (size_t I = 0; I < NA; ++I) {
      const ArgSpec &AS = K->Args[I];
      if (AS.IsScalar || AS.Role == ArgRole::Out || !L.Args[I].Bytes)
        continue;
      if (InOutOnly && AS.Role != ArgRole::InOut)
        continue;
      if (!ok(A.MemcpyHtoD(Ptrs[I], (*In)[I].data(), L.Args[I].Bytes),
              "upload " + AS.Name))
        return false;
    }
    return true;
  };
  if (!Upload(false))
    return false;

  // Outs[W][Run][Arg]: outputs (and inout buffers) after each run.
  std::vector<std::vector<uint8_t>> Outs[2][2];
  for (int W = Orig; W <= Cand; ++W) {
    for (unsigned Run = 0; Run < 2; ++Run) {
      Out.Progress(partyOf(W),
                   ("running the " + whoName(W) + " " + Where).str());
      if (!Upload(true))
        return false;
      for (size_t I = 0; I < NA; ++I) {
        if (L.Args[I].IsScalar)
          continue;
        const DevBuf &B = Bufs[I];
        A.MemsetD8Async(B.Base, GuardFill[Run], GuardBytes, S);
        A.MemsetD8Async(B.ptr() + B.Bytes, GuardFill[Run], GuardBytes, S);
        if (K->Args[I].Role == ArgRole::Out && B.Bytes)
          A.MemsetD8Async(B.ptr(), Poison[Run], B.Bytes, S);
      }
      if (!scrub(Run) || !launch(W, L, Ptrs) ||
          !syncAfter(W, "in the " + Twine(whoName(W)) + " " + Where))
        return false;
      auto &O = Outs[W][Run];
      O.assign(NA, {});
      std::vector<uint8_t> Guard(2 * GuardBytes);
      for (size_t I = 0; I < NA; ++I) {
        if (L.Args[I].IsScalar)
          continue;
        const ArgSpec &AS = K->Args[I];
        const DevBuf &B = Bufs[I];
        // Guards: nothing written outside any buffer.
        if (!ok(A.MemcpyDtoH(Guard.data(), B.Base, GuardBytes), "download") ||
            !ok(A.MemcpyDtoH(Guard.data() + GuardBytes, B.ptr() + B.Bytes,
                             GuardBytes),
                "download"))
          return false;
        for (size_t J = 0; J < Guard.size(); ++J) {
          if (Guard[J] == GuardFill[Run])
            continue;
          bool After = J >= GuardBytes;
          long Off = After ? long(J - GuardBytes) : long(J) - long(GuardBytes);
          std::string Msg =
              ("writes outside its buffers: byte " + Twine(Off) +
               (After ? " past the end of '" : " (before the start) of '") +
               AS.Name + "' (" + Twine(B.Bytes) + " bytes) changed " + Where)
                  .str();
          if (W == Orig && Generated) {
            Dropped = "the original " + Msg;
            return false;
          }
          return fail(Reason::OutOfBoundsWrite, W, Msg);
        }
        if (AS.Role == ArgRole::In) {
          if (Run == 0 || !B.Bytes)
            continue; // inputs are uploaded once per kernel: check after
                      // its second run
          std::vector<uint8_t> Now(B.Bytes);
          if (!ok(A.MemcpyDtoH(Now.data(), B.ptr(), B.Bytes), "download"))
            return false;
          if (Now != (*In)[I]) {
            size_t First = 0;
            while (First < Now.size() && Now[First] == (*In)[I][First])
              ++First;
            std::string Msg = ("writes to its input '" + AS.Name +
                               "' (byte " + Twine(First) + " changed) " +
                               Where)
                                  .str();
            if (W == Orig && Generated) {
              Dropped = "the original " + Msg;
              return false;
            }
            if (W == Orig)
              return fail(Reason::WritesInput, W,
                          Msg + "; declare it \"inout\" in the spec");
            return fail(Reason::WritesInput, W, Msg);
          }
          if (W == Cand)
            continue;
          // The candidate runs on the same inputs: re-upload nothing.
          continue;
        }
        O[I].resize(B.Bytes);
        if (B.Bytes &&
            !ok(A.MemcpyDtoH(O[I].data(), B.ptr(), B.Bytes), "download"))
          return false;
      }
    }
    if (W == Orig) {
      // Informative test case: the original's outputs must tell a correct
      // kernel from a trivial one.
      std::vector<ArrayRef<uint8_t>> InRefs;
      for (size_t I = 0; I < NA; ++I)
        if (!K->Args[I].IsScalar && K->Args[I].Role != ArgRole::Out)
          InRefs.push_back((*In)[I]);
      for (size_t I = 0; I < NA; ++I) {
        const ArgSpec &AS = K->Args[I];
        if (AS.IsScalar || AS.Role == ArgRole::In)
          continue;
        if (std::optional<std::string> Why =
                uninformativeReason(Outs[Orig][0][I], AS.Type, InRefs)) {
          Regenerate = true;
          Where += "; output '" + AS.Name + "' " + *Why;
          return false;
        }
      }
    }
  }

  // The original's own run-to-run spread, output by output. On a generated
  // shape, an original that is deterministic on the spec's shapes but not
  // here is outside its contract: the shape is dropped.
  std::vector<Spread> Spreads(NA);
  for (size_t I = 0; I < NA; ++I) {
    const ArgSpec &AS = K->Args[I];
    if (AS.IsScalar || AS.Role == ArgRole::In)
      continue;
    Spreads[I] = originalSpread(Outs[Orig][0][I], Outs[Orig][1][I], AS.Type,
                                L.Args[I].Count, AS.Role == ArgRole::Out);
    if (!Spreads[I].Differs)
      continue;
    if (Generated && OrigDeterministic) {
      Dropped = "the original is not deterministic here (output '" + AS.Name +
                "' differs between two runs) although it is on the spec's "
                "shapes";
      return false;
    }
    if (OrigDeterministic) {
      OrigDeterministic = false;
      Out.Result.Notes.push_back(
          formatv("the original is not deterministic (output '{0}' differs "
                  "between two runs by up to {1:e2} {2}): the candidate's "
                  "runs are not compared with each other, and its tolerance "
                  "widens by twice the original's spread",
                  AS.Name, Spreads[I].MaxAbs, Where)
              .str());
    }
  }

  // Compare, output by output, in parallel chunks.
  for (size_t I = 0; I < NA; ++I) {
    const ArgSpec &AS = K->Args[I];
    if (AS.IsScalar || AS.Role == ArgRole::In)
      continue;
    DType T = AS.Type;
    size_t N = L.Args[I].Count;
    Tally All = compareOutputs(Outs[Orig][0][I], Outs[Orig][1][I],
                               Outs[Cand][0][I], Outs[Cand][1][I], T, N,
                               AS.Role == ArgRole::Out, K->toleranceFor(AS),
                               Spreads[I]);
    ArrayRef<uint8_t> O0 = Outs[Orig][0][I];
    ArrayRef<uint8_t> C0 = Outs[Cand][0][I], C1 = Outs[Cand][1][I];
    if (All.Unwritten)
      return fail(Reason::UnwrittenOutput, Cand,
                  Twine(All.Unwritten) + " of " + Twine(N) +
                      " elements of '" + AS.Name +
                      "' that the original writes are left unwritten (first "
                      "at index " +
                      Twine(All.FirstUnwritten) + ") " + Where);
    if (All.Nondet && OrigDeterministic)
      return fail(Reason::Nondeterministic, Cand,
                  "two runs on the same inputs differ in " +
                      Twine(All.Nondet) + " elements of '" + AS.Name +
                      "' (first at index " + Twine(All.FirstNondet) + ": " +
                      fmtElem(C0, T, All.FirstNondet) + " then " +
                      fmtElem(C1, T, All.FirstNondet) +
                      ") while the original is deterministic " + Where);
    if (All.NanBad)
      return fail(Reason::NanMismatch, Cand,
                  Twine(All.NanBad) + " elements of '" + AS.Name +
                      "' are NaN in one and not the other (first at index " +
                      Twine(All.FirstNan) + ": candidate " +
                      fmtElem(All.NanRun ? C1 : C0, T, All.FirstNan) +
                      ", original " + fmtElem(O0, T, All.FirstNan) + ") " +
                      Where);
    if (All.Bad) {
      Tolerance Tol = K->toleranceFor(AS);
      std::string Tols =
          isFloatDType(T) ? ("rtol " + formatv("{0:e1}", Tol.Rtol) + ", atol " +
                             formatv("{0:e1}", Tol.Atol))
                                .str()
          : Tol.Atol > 0 ? formatv("atol {0}", int64_t(Tol.Atol)).str()
                         : std::string("bit-equality");
      size_t W = All.WorstIdx;
      return fail(Reason::WrongResult, Cand,
                  Twine(All.Bad) + " element checks of '" + AS.Name +
                      "' fail " + Tols + " (worst at index " + Twine(W) +
                      ": candidate " + fmtElem(All.WorstRun ? C1 : C0, T, W) +
                      ", original " + fmtElem(O0, T, W) + ") " + Where);
    }
  }
  if (Keep)
    *Keep = std::move(*In);
  return true;
}

/// The test cases of a shape of \p Bytes total size: several distributions
/// and seeds on small shapes, fewer on large ones (docs/harness.md).
std::vector<GenOptions> casesFor(size_t Index, uint64_t Bytes,
                                 bool AnySpecials) {
  std::vector<GenOptions> C;
  uint64_t Base = 1000 * (Index + 1);
  auto Add = [&](std::optional<Dist> D, bool Specials = false) {
    GenOptions G;
    G.Seed = Base + C.size() + 1;
    G.Distribution = D;
    G.Specials = Specials;
    C.push_back(G);
  };
  Add(std::nullopt); // the spec's own distributions
  if (Bytes <= (256u << 20))
    Add(Dist::Heavy);
  if (Bytes <= (32u << 20)) {
    Add(std::nullopt);
    Add(Dist::Large);
    Add(Dist::Small);
    Add(Dist::Uniform);
    if (AnySpecials)
      Add(std::nullopt, true);
  }
  return C;
}

bool Worker::checkShape(size_t Index, ShapeResult &SR) {
  const WorkerShape &WS = job().Shapes[Index];
  Shape Sh;
  for (auto &[Name, V] : WS.Vars)
    Sh.set(Name, V);
  SR.Shape = Sh.str();
  SR.Generated = WS.Generated;
  SR.Checked = true;
  Expected<ResolvedLaunch> L = resolve(*K, Sh);
  if (!L) {
    std::string Msg = errorText(L.takeError());
    if (WS.Generated) {
      SR.Dropped = "does not resolve: " + Msg;
      return true;
    }
    Out.Status = WorkerStatus::Error;
    Out.Message = Msg;
    return false;
  }
  if (!setSharedLimit(*L))
    return false;
  uint64_t Total = 0;
  bool AnySpecials = false;
  std::vector<DevBuf> Bufs(K->Args.size());
  for (size_t I = 0; I < K->Args.size(); ++I) {
    AnySpecials |= K->Args[I].Specials;
    if (L->Args[I].IsScalar)
      continue;
    Total += L->Args[I].Bytes;
    if (!alloc(Bufs[I], L->Args[I].Bytes)) {
      release(Bufs);
      return false;
    }
  }
  bool Ok = true;
  for (GenOptions G : casesFor(Index, Total, AnySpecials)) {
    std::string Dropped, Where;
    bool Regenerate = false;
    unsigned Tries = 0;
    // The first case's inputs are kept for timing (no second generation).
    std::vector<std::vector<uint8_t>> *Keep =
        WS.Timed && SR.Cases == 0 ? &TimingInputs[Index] : nullptr;
    while (!runCase(Sh, *L, Bufs, G, WS.Generated, Dropped, Regenerate,
                    Where, Keep)) {
      if (F || !Dropped.empty() || !Regenerate)
        break;
      // Not informative: new inputs from another seed, a few times.
      if (++Tries == 3) {
        Out.Result.Notes.push_back("uninformative test case kept after 3 "
                                   "regenerations " + Where);
        Regenerate = false;
        break;
      }
      G.Seed += 7919;
    }
    if (F) {
      Ok = false;
      break;
    }
    if (!Dropped.empty()) {
      SR.Dropped = Dropped;
      break;
    }
    ++SR.Cases;
  }
  release(Bufs);
  if (Ok && SR.Dropped.empty())
    SR.Correct = true;
  return Ok;
}

//===-- Timing -------------------------------------------------------------===//

bool Worker::checkTimedOutputs(
    const Shape &Sh, const ResolvedLaunch &L,
    const std::vector<std::vector<uint8_t>> (&Ref)[2],
    const std::vector<std::vector<cu::DevicePtr>> (&Copies)[3],
    unsigned Batch) {
  const size_t NA = K->Args.size();
  std::vector<uint8_t> Got;
  // The candidate first: its failure is the refusal; the original's and the
  // control's are errors about the original.
  for (int W : {Cand, Orig, Ctrl}) {
    for (unsigned C = 0; C < Batch; ++C) {
      for (size_t I = 0; I < NA; ++I) {
        const ArgSpec &AS = K->Args[I];
        if (AS.IsScalar || AS.Role == ArgRole::In || !L.Args[I].Bytes)
          continue;
        Got.resize(L.Args[I].Bytes);
        if (!ok(A.MemcpyDtoH(Got.data(), Copies[W][C][I], Got.size()),
                "download"))
          return false;
        ArrayRef<uint8_t> R0 = Ref[0][I], R1 = Ref[1][I];
        size_t N = L.Args[I].Count;
        Spread Sp = originalSpread(R0, R1, AS.Type, N, AS.Role == ArgRole::Out);
        Tally T =
            compareOutputs(R0, R1, Got, Got, AS.Type, N,
                           AS.Role == ArgRole::Out, K->toleranceFor(AS), Sp);
        if (!T.mismatches())
          continue;
        size_t E = T.firstMismatch();
        // Both "runs" compared are the same buffer: each element counts
        // twice.
        size_t Elems = (T.mismatches() + 1) / 2;
        return fail(Reason::TimedRunsDiffer, W,
                    formatv("the {0}'s timed launches wrote other values than "
                            "its checked runs: {1} elements of '{2}' (copy {3} "
                            "of {4}) differ from the original's reference on "
                            "shape {5}, first at index {6} ({0} {7}, "
                            "reference {8})",
                            whoName(W), Elems, AS.Name, C + 1, Batch, Sh.str(),
                            E, fmtElem(Got, AS.Type, E),
                            fmtElem(R0, AS.Type, E))
                        .str());
      }
    }
  }
  return true;
}

bool Worker::timeShape(size_t Index, ShapeResult &SR) {
  const WorkerShape &WS = job().Shapes[Index];
  Shape Sh;
  for (auto &[Name, V] : WS.Vars)
    Sh.set(Name, V);
  Out.Progress(Party::Candidate, "timing shape " + Sh.str());
  Expected<ResolvedLaunch> L = resolve(*K, Sh);
  if (!L) {
    Out.Result.Notes.push_back("not timed: " + errorText(L.takeError()));
    return true;
  }
  Expected<std::vector<std::vector<uint8_t>>> In =
      std::vector<std::vector<uint8_t>>();
  auto Kept = TimingInputs.find(Index);
  if (Kept != TimingInputs.end() && !Kept->second.empty()) {
    *In = std::move(Kept->second);
    TimingInputs.erase(Kept);
  } else {
    GenOptions G;
    G.Seed = 77 + Index;
    In = generateInputs(*K, Sh, *L, G);
  }
  if (!In) {
    Out.Result.Notes.push_back("not timed: " + errorText(In.takeError()));
    return true;
  }
  const size_t NA = K->Args.size();
  const DeviceInfo &D = Out.Result.Device;
  uint64_t Footprint = 0, OutBytes = 0;
  for (size_t I = 0; I < NA; ++I) {
    if (L->Args[I].IsScalar)
      continue;
    uint64_t B = L->Args[I].Bytes;
    Footprint += B;
    ArgRole R = K->Args[I].Role;
    if (R != ArgRole::In)
      OutBytes += B;
  }
  // Copies[W][C][I]: party W's buffers of rotating copy C. The inputs are
  // shared; each party writes its own outputs, so that what a party's timed
  // launches wrote can be checked after the rounds. Pristine: inout contents
  // for restores.
  std::vector<std::vector<cu::DevicePtr>> Copies[3];
  std::vector<cu::DevicePtr> Pristine(NA, 0), AllBufs;
  auto Alloc = [&](cu::DevicePtr &P, uint64_t Bytes) {
    if (!ok(A.MemAlloc(&P, std::max<uint64_t>(Bytes, 256)), "cuMemAlloc"))
      return false;
    AllBufs.push_back(P);
    return true;
  };
  auto FreeAll = [&] {
    for (cu::DevicePtr P : AllBufs)
      A.MemFree(P);
  };
  // A new rotating copy: inputs from copy 0 (the upload), outputs fresh.
  auto AddCopy = [&] {
    size_t C = Copies[0].size();
    for (int W = Orig; W <= Ctrl; ++W)
      Copies[W].emplace_back(NA, 0);
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar)
        continue;
      uint64_t B = L->Args[I].Bytes;
      bool Shared = K->Args[I].Role == ArgRole::In;
      for (int W = Orig; W <= Ctrl; ++W) {
        if (Shared && W != Orig) {
          Copies[W][C][I] = Copies[Orig][C][I];
          continue;
        }
        if (!Alloc(Copies[W][C][I], B))
          return false;
      }
      if (C > 0 && Shared &&
          !ok(A.MemcpyDtoDAsync(Copies[Orig][C][I], Copies[Orig][0][I], B, S),
              "copy inputs"))
        return false;
    }
    return true;
  };
  if (!AddCopy())
    return FreeAll(), false;
  for (size_t I = 0; I < NA; ++I) {
    uint64_t B = L->Args[I].Bytes;
    if (L->Args[I].IsScalar || K->Args[I].Role == ArgRole::Out || !B)
      continue;
    if (!ok(A.MemcpyHtoD(Copies[Orig][0][I], (*In)[I].data(), B), "upload"))
      return FreeAll(), false;
    if (K->Args[I].Role == ArgRole::InOut &&
        (!Alloc(Pristine[I], B) ||
         !ok(A.MemcpyDtoDAsync(Pristine[I], Copies[Orig][0][I], B, S), "copy")))
      return FreeAll(), false;
  }
  cu::DevicePtr Flush = 0;
  size_t FlushBytes = std::max<int64_t>(2 * D.L2Bytes, 8 << 20);
  if (!Alloc(Flush, FlushBytes))
    return FreeAll(), false;

  cu::Event Ev[12];
  for (cu::Event &E : Ev)
    A.EventCreate(&E, cu::EventDefault);
  auto Cleanup = [&] {
    for (cu::Event &E : Ev)
      A.EventDestroy(E);
    FreeAll();
  };
  unsigned FlushCount = 0;
  unsigned Batch = 1;
  // Before each launch of party W on copy C: inout buffers restored, out
  // buffers poisoned, so every launch must write all it writes again.
  auto Prepare = [&](int W, unsigned C, uint8_t Fill) {
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar || !L->Args[I].Bytes)
        continue;
      if (Pristine[I] && !ok(A.MemcpyDtoDAsync(Copies[W][C][I], Pristine[I],
                                               L->Args[I].Bytes, S),
                             "restore inout"))
        return false;
      if (K->Args[I].Role == ArgRole::Out &&
          !ok(A.MemsetD8Async(Copies[W][C][I], Fill, L->Args[I].Bytes, S),
              "poison outputs"))
        return false;
    }
    return true;
  };
  // The original's reference outputs on these inputs, from both poisons
  // (as in a correctness case), and its run-to-run spread.
  std::vector<std::vector<uint8_t>> Ref[2];
  for (unsigned Run = 0; Run < 2; ++Run) {
    Ref[Run].assign(NA, {});
    if (!Prepare(Orig, 0, Poison[Run]) || !launch(Orig, *L, Copies[Orig][0]) ||
        !syncAfter(Orig,
                   "in the original's reference run on shape " + Sh.str()))
      return Cleanup(), false;
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar || K->Args[I].Role == ArgRole::In)
        continue;
      Ref[Run][I].resize(L->Args[I].Bytes);
      if (L->Args[I].Bytes &&
          !ok(A.MemcpyDtoH(Ref[Run][I].data(), Copies[Orig][0][I],
                           L->Args[I].Bytes),
              "download"))
        return Cleanup(), false;
    }
  }
  // One measurement: prepare the copies, flush L2, hold the stream while
  // the batch is queued, then Batch launches over the copies.
  auto Measure = [&](int W, cu::Event E0, cu::Event E1) {
    for (unsigned C = 0; C < Batch; ++C)
      if (!Prepare(W, C, Poison[0]))
        return false;
    if (!ok(A.MemsetD32Async(Flush, 0x9E3779B9u * ++FlushCount,
                             FlushBytes / 4, S),
            "L2 flush"))
      return false;
    uint64_t SpinNs = 20000 + 4000ull * Batch;
    void *SpinParams[] = {&SpinNs};
    if (!ok(A.LaunchKernel(SpinFn, 1, 1, 1, 1, 1, 1, 0, S, SpinParams,
                           nullptr),
            "spin"))
      return false;
    A.EventRecord(E0, S);
    for (unsigned C = 0; C < Batch; ++C)
      if (!launch(W, *L, Copies[W][C]))
        return false;
    A.EventRecord(E1, S);
    return true;
  };
  auto Elapsed = [&](cu::Event E0, cu::Event E1) {
    float Ms = 0;
    A.EventElapsedTime(&Ms, E0, E1);
    return double(Ms) * 1e3 / Batch; // microseconds per launch
  };
  // Warm-up (module load, caches, clocks) and a first estimate.
  double Est = 1e30;
  for (int Rep = 0; Rep < 3; ++Rep)
    for (int W = Orig; W <= Ctrl; ++W) {
      if (!Measure(W, Ev[0], Ev[1]) ||
          !syncAfter(W, "while timing shape " + Sh.str()))
        return Cleanup(), false;
      if (W == Orig && Rep > 0)
        Est = std::min(Est, Elapsed(Ev[0], Ev[1]));
    }
  // Short kernels: batches over rotating copies of the inputs, so that
  // each sample spans >= ~100 us (event resolution is ~0.5 us).
  if (Est < 100) {
    size_t Free = 0, Total = 0;
    A.MemGetInfo(&Free, &Total);
    uint64_t MemCap = std::min<uint64_t>(Free / 4, 4ull << 30);
    unsigned Want = unsigned(std::ceil(100.0 / std::max(Est, 1.0)));
    Want = std::min(Want, 64u);
    // Per copy: the inputs once, the outputs once per party.
    if (uint64_t PerCopy = Footprint + 2 * OutBytes)
      Want = unsigned(std::min<uint64_t>(Want, MemCap / PerCopy));
    Batch = std::max(1u, Want);
  }
  for (unsigned C = 1; C < Batch; ++C)
    if (!AddCopy())
      return Cleanup(), false;
  if (Batch > 1)
    for (int W = Orig; W <= Ctrl; ++W)
      if (!Measure(W, Ev[0], Ev[1]) || !syncAfter(W, "while timing"))
        return Cleanup(), false;

  // Rounds of a palindrome A B C C B A over the original (O), the
  // candidate and the control (X, a second copy of the original), so that
  // linear drift cancels within a round; the roles rotate through all six
  // orders so that no kernel keeps a position (first after the host sync,
  // right after itself, ...) and position effects cancel over 6 rounds.
  static const int Orders[6][3] = {{Orig, Cand, Ctrl}, {Cand, Ctrl, Orig},
                                   {Ctrl, Orig, Cand}, {Orig, Ctrl, Cand},
                                   {Cand, Orig, Ctrl}, {Ctrl, Cand, Orig}};
  std::vector<double> TO, TC, Speed, Control;
  auto Start = Clock::now();
  const unsigned MinRounds = 12, MaxRounds = 600;
  TimingResult TR;
  while (true) {
    const int *Ord = Orders[Speed.size() % 6];
    int Pattern[6] = {Ord[0], Ord[1], Ord[2], Ord[2], Ord[1], Ord[0]};
    for (int P = 0; P < 6; ++P)
      if (!Measure(Pattern[P], Ev[2 * P], Ev[2 * P + 1]))
        return Cleanup(), false;
    if (!syncAfter(Cand, "while timing shape " + Sh.str()))
      return Cleanup(), false;
    double Sum[3] = {0, 0, 0};
    for (int P = 0; P < 6; ++P)
      Sum[Pattern[P]] += Elapsed(Ev[2 * P], Ev[2 * P + 1]) / 2;
    double O = Sum[Orig], C = Sum[Cand], X = Sum[Ctrl];
    TO.push_back(O);
    TC.push_back(C);
    Speed.push_back(O / C);
    Control.push_back(O / X);
    // Stop only after whole cycles of the six orders.
    if (Speed.size() < MinRounds || Speed.size() % 6)
      continue;
    if (Speed.size() >= MaxRounds || secondsSince(Start) > job().TimeBudget)
      break;
    if (medianCI(Speed).relHalfWidth() <= job().TargetHalfWidth &&
        medianCI(Control).relHalfWidth() <= job().TargetHalfWidth)
      break;
  }
  bool Checked = checkTimedOutputs(Sh, *L, Ref, Copies, Batch);
  Cleanup();
  if (!Checked)
    return false;
  TR.Rounds = Speed.size();
  TR.Batch = Batch;
  TR.Copies = Batch;
  TR.OrigUs = median(TO);
  TR.CandUs = median(TC);
  TR.Speedup = medianCI(Speed);
  TR.Control = medianCI(Control);
  TR.Margin = acceptanceMargin(TR.Control, job().MinGain);
  TR.Verdict = judgeSpeedup(TR.Speedup, TR.Control, job().MinGain);
  // The spec's minimum bytes when it gives them, else every buffer whole.
  TR.Bytes = double(L->MinBytes);
  // Bytes the batch must move to or from DRAM. With the spec's `bytes` (a
  // lower bound on all traffic): less what L2 may hold of the inputs at the
  // start and of the outputs at the end. Without: only the outputs, less what
  // does not fit in L2 at the end (the whole inputs are no lower bound).
  double MustMove =
      L->MinBytesFromSpec
          ? std::max(0.0, double(Batch) * double(L->MinBytes) -
                              2.0 * double(D.L2Bytes))
          : std::max(0.0, double(Batch) * double(OutBytes) - double(D.L2Bytes));
  TR.FloorUs =
      D.PeakDramGBs > 0 ? MustMove / (D.PeakDramGBs * 1e9) / Batch * 1e6 : 0;
  TR.OrigGBs = TR.OrigUs > 0 ? TR.Bytes / (TR.OrigUs * 1e-6) / 1e9 : 0;
  TR.CandGBs = TR.CandUs > 0 ? TR.Bytes / (TR.CandUs * 1e-6) / 1e9 : 0;
  if (D.CopyGBs > 0) {
    TR.OrigPctCopy = 100 * TR.OrigGBs / D.CopyGBs;
    TR.CandPctCopy = 100 * TR.CandGBs / D.CopyGBs;
  }
  // Nominal bytes count every buffer once; an input much larger than the
  // outputs (a gather's table) is likely read only in part.
  for (size_t I = 0; I < NA; ++I)
    if (!L->MinBytesFromSpec && !L->Args[I].IsScalar &&
        K->Args[I].Role == ArgRole::In &&
        double(L->Args[I].Bytes) > 2.0 * std::max<double>(OutBytes, 1) &&
        !NominalNoted) {
      NominalNoted = true;
      Out.Result.Notes.push_back(
          "GB/s counts every buffer once (nominal bytes); input '" +
          K->Args[I].Name +
          "' is larger than twice all outputs: if the kernel reads only part "
          "of it, the GB/s overstate the traffic (the spec's \"bytes\" "
          "gives the real figure)");
    }
  SR.Timing = TR;
  if (TR.OrigUs < TR.FloorUs) {
    Out.Status = WorkerStatus::Error;
    Out.Message = formatv("the original is timed at {0:f2} us on shape {1}, "
                          "below the physical floor of {2:f2} us: the "
                          "measurement is broken",
                          TR.OrigUs, Sh.str(), TR.FloorUs)
                      .str();
    return false;
  }
  if (TR.CandUs < TR.FloorUs)
    return fail(
        Reason::BelowPhysicalFloor, Cand,
        formatv("timed at {0:f2} us per launch on shape {1}, below "
                "the physical floor of {2:f2} us ({3} bytes {4} at "
                "{5:f0} GB/s peak DRAM bandwidth): a measurement "
                "error, not a speedup",
                TR.CandUs, Sh.str(), TR.FloorUs,
                L->MinBytesFromSpec ? L->MinBytes : OutBytes,
                L->MinBytesFromSpec ? "moved (the spec's bytes)" : "of output",
                D.PeakDramGBs)
            .str());
  return true;
}

void Worker::run() {
  VerifyResult &R = Out.Result;
  R.Shapes.resize(job().Shapes.size());
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    Shape Sh;
    for (auto &[Name, V] : job().Shapes[I].Vars)
      Sh.set(Name, V);
    R.Shapes[I].Shape = Sh.str();
    R.Shapes[I].Generated = job().Shapes[I].Generated;
  }
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    Out.FailedShape = int(I);
    if (!checkShape(I, R.Shapes[I]))
      return;
    if (!R.Shapes[I].Dropped.empty() && !job().Shapes[I].Generated) {
      Out.Status = WorkerStatus::Error;
      Out.Message = "the original kernel fails on the spec's shape " +
                    R.Shapes[I].Shape + ": " + R.Shapes[I].Dropped;
      return;
    }
  }
  for (size_t I = 0; I < job().Shapes.size(); ++I) {
    Out.FailedShape = int(I);
    if (job().Shapes[I].Timed && !timeShape(I, R.Shapes[I]))
      return;
  }
  Out.FailedShape = -1;
}

} // namespace

int runHarnessWorker(StringRef JobPath) {
  auto Start = Clock::now();
  std::string ResultPath = resultPathFor(JobPath);
  auto Finish = [&](WorkerOutcome &O) {
    O.Result.WorkerSeconds = secondsSince(Start);
    if (Error E = writeFileAtomically(ResultPath, O.toJSONText()))
      return reportError(std::move(E), "astra-opt worker");
    return 0;
  };
  WorkerOutcome Early;
  Expected<const cu::Api *> Api = cu::load();
  if (!Api) {
    Early.Status = WorkerStatus::NoDevice;
    Early.Message = errorText(Api.takeError());
    return Finish(Early);
  }
  // The driver starts (and the copy bandwidth is measured) while the parent
  // still compiles the original and the candidate; then the job arrives.
  Worker W(**Api);
  W.Out.Progress = [](Party Who, const std::string &Msg) {
    errs() << progressLine(Who, Msg) << "\n";
    errs().flush();
  };
  W.Out.Progress(Party::Harness, "starting the CUDA driver");
  if (W.init()) {
    Expected<WorkerJob> Job = waitForJob(JobPath);
    if (!Job) {
      W.Out.Status = WorkerStatus::Error;
      W.Out.Message = errorText(Job.takeError());
      return Finish(W.Out);
    }
    W.setJob(*Job);
    if (W.loadModules())
      W.run();
  }
  if (W.F) {
    W.Out.Status = W.F->Who == Party::Candidate  ? WorkerStatus::Refused
                   : W.F->Who == Party::Original ? WorkerStatus::OriginalFails
                                                 : WorkerStatus::Error;
    W.Out.Who = W.F->Who;
    W.Out.Sticky = W.F->Sticky;
    W.Out.Result.Why = W.F->Why;
    W.Out.Message = (partyName(W.F->Who) + ": " + W.F->Msg).str();
    W.Out.Result.Detail = W.F->Msg;
  }
  return Finish(W.Out);
}

} // namespace astra
