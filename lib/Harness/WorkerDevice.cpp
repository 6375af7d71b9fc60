//===- WorkerDevice.cpp - The worker's device context ---------------------===//
//
// Driver and device set-up (device numbers, the copy bandwidth), the
// harness's own module (its kernels are WorkerKernels.cpp's), module
// loading, buffers with guards, launches.
//
//===----------------------------------------------------------------------===//
#include "WorkerDevice.h"
#include "WorkerPhases.h"
#include "astra/Harness/Stats.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <cstring>

using namespace llvm;

namespace astra {
namespace worker {

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

bool DeviceContext::ok(cu::Result R, const Twine &What) {
  if (R == cu::Success)
    return true;
  F = Failure{cu::isStickyError(R) ? Reason::Trap : Reason::Crash,
              Party::Harness, (What + ": " + cu::describe(A, R)).str(),
              cu::isStickyError(R)};
  return false;
}

bool DeviceContext::fail(Reason Why, int W, const Twine &Msg, bool Sticky) {
  F = Failure{Why, partyOf(W), Msg.str(), Sticky};
  return false;
}

bool DeviceContext::init() {
  cu::Result R = A.Init(0);
  if (R != cu::Success) {
    Out.Status = WorkerStatus::NoDevice;
    Out.Message =
        "no usable CUDA device: cuInit failed with " + cu::describe(A, R);
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
          "astra_spin") ||
      !ok(A.ModuleGetFunction(&DiffFn, HarnessMod, "astra_diff"),
          "astra_diff") ||
      !ok(A.ModuleGetFunction(&CloseFn, HarnessMod, "astra_close"),
          "astra_close") ||
      !ok(A.MemAlloc(&DiffOut, 16), "cuMemAlloc"))
    return false;
  if (ScrubBytes > 48 * 1024 &&
      A.FuncSetAttribute(ScrubFn, cu::FuncAttrMaxDynamicSharedSizeBytes,
                         ScrubBytes) != cu::Success)
    ScrubBytes = 48 * 1024;
  return measureCopyBandwidth();
}

bool DeviceContext::measureCopyBandwidth() {
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

bool DeviceContext::loadModules(const std::string *const (&Ptx)[3],
                                const std::string *const (&Entry)[3],
                                const std::string &CandSmall) {
  for (int W = 0; W < 3; ++W) {
    std::string Log(16384, '\0');
    int Opts[] = {cu::JitErrorLogBuffer, cu::JitErrorLogBufferSizeBytes};
    void *Vals[] = {&Log[0],
                    reinterpret_cast<void *>(uintptr_t(Log.size() - 1))};
    cu::Result R = A.ModuleLoadDataEx(&Mods[W], Ptx[W]->c_str(), 2, Opts, Vals);
    Log.resize(strlen(Log.c_str()));
    if (R != cu::Success)
      return fail(Reason::DoesNotLoad, W,
                  "the PTX does not load: " + cu::describe(A, R) +
                      (Log.empty() ? "" : ": " + StringRef(Log).trim()));
    R = A.ModuleGetFunction(&Fn[W], Mods[W], Entry[W]->c_str());
    if (R != cu::Success)
      return fail(Reason::DoesNotLoad, W,
                  "no kernel '" + *Entry[W] +
                      "' in the module: " + cu::describe(A, R));
  }
  if (!CandSmall.empty()) {
    cu::Result R =
        A.ModuleGetFunction(&CandSmallFn, Mods[Cand], CandSmall.c_str());
    if (R != cu::Success)
      return fail(Reason::DoesNotLoad, Cand,
                  "no kernel '" + CandSmall +
                      "' (its entry below the min-threads bound, "
                      "small-entry=1) in the module: " +
                      cu::describe(A, R));
  }
  auto NoteResources = [&](cu::Function F, StringRef Who) {
    int Regs = 0, Local = 0, Shared = 0;
    A.FuncGetAttribute(&Regs, cu::FuncAttrNumRegs, F);
    A.FuncGetAttribute(&Local, cu::FuncAttrLocalSizeBytes, F);
    A.FuncGetAttribute(&Shared, cu::FuncAttrSharedSizeBytes, F);
    Out.Result.Notes.push_back((Who + ": " + Twine(Regs) + " registers, " +
                                Twine(Local) + " bytes local (stack/spill), " +
                                Twine(Shared) + " bytes static shared")
                                   .str());
  };
  NoteResources(Fn[Orig], whoName(Orig));
  NoteResources(Fn[Cand], whoName(Cand));
  if (CandSmallFn)
    NoteResources(CandSmallFn, "candidate below the bound");
  return true;
}

bool DeviceContext::upload(cu::DevicePtr To, const void *From, size_t Bytes,
                           const Twine &What) {
  ScopedPhase P(Phase::Upload);
  return ok(A.MemcpyHtoD(To, From, Bytes), What) &&
         ok(A.CtxSynchronize(), What);
}

bool DeviceContext::alloc(DevBuf &B, size_t Bytes) {
  B.Bytes = Bytes;
  size_t Total = Bytes + 2 * GuardBytes;
  return ok(A.MemAlloc(&B.Base, Total),
            "cuMemAlloc(" + Twine(Total) + " bytes)");
}

void DeviceContext::release(std::vector<DevBuf> &Bufs) {
  for (DevBuf &B : Bufs)
    if (B.Base)
      A.MemFree(B.Base);
  Bufs.clear();
}

/// The launch party \p W runs with: the candidate its own (launch
/// overrides), the original and the control the spec's.
static LaunchDims dimsOf(int W, const ResolvedLaunch &L) {
  return W == Cand ? L.Cand : L.dims();
}

cu::Function DeviceContext::functionOf(int W, const ResolvedLaunch &L) const {
  return W == Cand && L.CandSmall && CandSmallFn ? CandSmallFn : Fn[W];
}

bool DeviceContext::setSharedLimit(const ResolvedLaunch &L) {
  for (int W = 0; W < 3; ++W) {
    uint32_t Shared = dimsOf(W, L).SharedBytes;
    if (Shared <= 48 * 1024)
      continue;
    cu::Result R = A.FuncSetAttribute(
        functionOf(W, L), cu::FuncAttrMaxDynamicSharedSizeBytes, int(Shared));
    if (R != cu::Success)
      return fail(Reason::LaunchFailed, W,
                  "cannot allow " + Twine(Shared) +
                      " bytes of dynamic shared memory: " + cu::describe(A, R));
  }
  return true;
}

bool DeviceContext::launch(int W, const ResolvedLaunch &L,
                           const std::vector<cu::DevicePtr> &Ptrs) {
  SmallVector<void *, 16> Params;
  SmallVector<cu::DevicePtr, 16> PtrStore(Ptrs.begin(), Ptrs.end());
  for (size_t I = 0; I < L.Args.size(); ++I)
    Params.push_back(L.Args[I].IsScalar
                         ? const_cast<uint8_t *>(L.Args[I].ParamBytes.data())
                         : static_cast<void *>(&PtrStore[I]));
  if (W == Cand && L.CandSmall && !CandSmallFn)
    return fail(Reason::LaunchFailed, W,
                "the launch runs the candidate's entry below its min-threads "
                "bound (small-entry), but the job names none");
  ++Launches[W];
  LaunchDims D = dimsOf(W, L);
  cu::Result R = A.LaunchKernel(functionOf(W, L), D.Grid[0], D.Grid[1],
                                D.Grid[2], D.Block[0], D.Block[1], D.Block[2],
                                D.SharedBytes, S, Params.data(), nullptr);
  if (R == cu::Success)
    return true;
  return fail(cu::isStickyError(R) ? Reason::Trap : Reason::LaunchFailed, W,
              "launch failed: " + cu::describe(A, R), cu::isStickyError(R));
}

cu::Result DeviceContext::dtoh(void *To, cu::DevicePtr From, size_t Bytes) {
  ScopedPhase P(Phase::Download);
  return A.MemcpyDtoH(To, From, Bytes);
}

bool DeviceContext::syncAfter(int W, const Twine &Where) {
  ScopedPhase P(Phase::Run);
  cu::Result R = A.StreamSynchronize(S);
  if (R == cu::Success)
    return true;
  return fail(cu::isStickyError(R) ? Reason::Trap : Reason::Crash, W,
              cu::describe(A, R) + " " + Where, cu::isStickyError(R));
}

} // namespace worker
} // namespace astra
