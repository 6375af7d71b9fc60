//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
#include "astra/Harness/CudaDriver.h"
#include "astra/Support/Error.h"
#include <cstdlib>
#include <dlfcn.h>

using namespace llvm;

namespace astra {
namespace cu {

bool isStickyError(Result R) {
  switch (R) {
  case ErrorIllegalAddress:
  case ErrorLaunchTimeout:
  case ErrorAssert:
  case ErrorHardwareStack:
  case ErrorIllegalInstruction:
  case ErrorMisalignedAddress:
  case ErrorInvalidAddressSpace:
  case ErrorInvalidPc:
  case ErrorLaunchFailed:
    return true;
  default:
    return false;
  }
}

namespace {
struct Loader {
  void *Handle;
  std::string Missing;
  template <typename T> void get(T &Slot, const char *Name,
                                 const char *Fallback = nullptr) {
    void *P = dlsym(Handle, Name);
    if (!P && Fallback)
      P = dlsym(Handle, Fallback);
    if (!P) {
      if (!Missing.empty())
        Missing += ", ";
      Missing += Name;
    }
    Slot = reinterpret_cast<T>(P);
  }
};
} // namespace

Expected<const Api *> load(StringRef Path) {
  static Api A;
  static bool Loaded = false;
  if (Loaded)
    return &A;
  std::string Lib = Path.str();
  if (Lib.empty()) {
    const char *Env = std::getenv("ASTRA_CUDA_DRIVER");
    Lib = Env && *Env ? Env : "libcuda.so.1";
  }
  void *H = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    return makeDeviceError("no CUDA driver: cannot load " + Lib + " (" +
                           (Why ? Why : "unknown reason") +
                           "); --verify needs a machine with an NVIDIA GPU "
                           "and its driver");
  }
  Loader L{H, {}};
  L.get(A.Init, "cuInit");
  L.get(A.DriverGetVersion, "cuDriverGetVersion");
  L.get(A.DeviceGetCount, "cuDeviceGetCount");
  L.get(A.DeviceGet, "cuDeviceGet");
  L.get(A.DeviceGetName, "cuDeviceGetName");
  L.get(A.DeviceGetAttribute, "cuDeviceGetAttribute");
  L.get(A.DeviceTotalMem, "cuDeviceTotalMem_v2");
  L.get(A.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  L.get(A.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
        "cuDevicePrimaryCtxRelease");
  L.get(A.CtxSetCurrent, "cuCtxSetCurrent");
  L.get(A.CtxSynchronize, "cuCtxSynchronize");
  L.get(A.ModuleLoadDataEx, "cuModuleLoadDataEx");
  L.get(A.ModuleUnload, "cuModuleUnload");
  L.get(A.ModuleGetFunction, "cuModuleGetFunction");
  L.get(A.FuncGetAttribute, "cuFuncGetAttribute");
  L.get(A.FuncSetAttribute, "cuFuncSetAttribute");
  L.get(A.MemGetInfo, "cuMemGetInfo_v2");
  L.get(A.MemAlloc, "cuMemAlloc_v2");
  L.get(A.MemFree, "cuMemFree_v2");
  L.get(A.MemAllocHost, "cuMemAllocHost_v2");
  L.get(A.MemFreeHost, "cuMemFreeHost");
  L.get(A.MemcpyHtoD, "cuMemcpyHtoD_v2");
  L.get(A.MemcpyDtoH, "cuMemcpyDtoH_v2");
  L.get(A.MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  L.get(A.MemsetD8Async, "cuMemsetD8Async");
  L.get(A.MemsetD32Async, "cuMemsetD32Async");
  L.get(A.StreamCreate, "cuStreamCreate");
  L.get(A.StreamDestroy, "cuStreamDestroy_v2");
  L.get(A.StreamSynchronize, "cuStreamSynchronize");
  L.get(A.EventCreate, "cuEventCreate");
  L.get(A.EventDestroy, "cuEventDestroy_v2");
  L.get(A.EventRecord, "cuEventRecord");
  L.get(A.EventSynchronize, "cuEventSynchronize");
  L.get(A.EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  L.get(A.LaunchKernel, "cuLaunchKernel");
  L.get(A.GetErrorName, "cuGetErrorName");
  L.get(A.GetErrorString, "cuGetErrorString");
  if (!L.Missing.empty())
    return makeDeviceError("the CUDA driver " + Lib +
                           " is too old: missing " + L.Missing);
  Loaded = true;
  return &A;
}

std::string describe(const Api &A, Result R) {
  const char *Name = nullptr, *Str = nullptr;
  if (A.GetErrorName)
    A.GetErrorName(R, &Name);
  if (A.GetErrorString)
    A.GetErrorString(R, &Str);
  std::string S = Name ? Name : ("CUDA error " + std::to_string(R));
  if (Str)
    S += std::string(" (") + Str + ")";
  return S;
}

} // namespace cu
} // namespace astra
