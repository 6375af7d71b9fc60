//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// astra-opt builds without the CUDA toolkit: the driver library is opened with
// dlopen("libcuda.so.1") and the few entry points the harness uses are looked
// up with dlsym under their versioned (_v2) ABI names. The types and enum
// values are declared here from the driver API's documented ABI; no CUDA
// header is needed at build time.
//
// Only the harness worker process (astra-opt --harness-worker) loads and
// initialises the driver; the parent tool never does.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_CUDADRIVER_H
#define ASTRA_HARNESS_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>
#include <string>

namespace astra {
namespace cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
struct CtxSt;
struct ModSt;
struct FuncSt;
struct StreamSt;
struct EventSt;
using Context = CtxSt *;
using Module = ModSt *;
using Function = FuncSt *;
using Stream = StreamSt *;
using Event = EventSt *;

// CUresult values the harness tells apart.
enum : int {
  Success = 0,
  ErrorNotInitialized = 3,
  ErrorNoDevice = 100,
  ErrorIllegalAddress = 700,
  ErrorLaunchOutOfResources = 701,
  ErrorLaunchTimeout = 702,
  ErrorAssert = 710,
  ErrorHardwareStack = 714,
  ErrorIllegalInstruction = 715,
  ErrorMisalignedAddress = 716,
  ErrorInvalidAddressSpace = 717,
  ErrorInvalidPc = 718,
  ErrorLaunchFailed = 719,
};

// CUdevice_attribute values.
enum : int {
  AttrMaxThreadsPerBlock = 1,
  AttrClockRate = 13,
  AttrMultiprocessorCount = 16,
  AttrMemoryClockRate = 36,
  AttrGlobalMemoryBusWidth = 37,
  AttrL2CacheSize = 38,
  AttrComputeCapabilityMajor = 75,
  AttrComputeCapabilityMinor = 76,
  AttrMaxSharedMemoryPerBlockOptin = 97,
};

// CUfunction_attribute values.
enum : int {
  FuncAttrSharedSizeBytes = 1,
  FuncAttrLocalSizeBytes = 3,
  FuncAttrNumRegs = 4,
  FuncAttrMaxDynamicSharedSizeBytes = 8,
};

// CUjit_option values.
enum : int {
  JitInfoLogBuffer = 3,
  JitInfoLogBufferSizeBytes = 4,
  JitErrorLogBuffer = 5,
  JitErrorLogBufferSizeBytes = 6,
  JitLogVerbose = 12,
};

enum : unsigned { StreamNonBlocking = 1, EventDefault = 0 };

/// True for the errors after which the context is unusable (a trap in a
/// kernel): every later call fails, so the worker must stop.
bool isStickyError(Result R);

/// The driver's entry points. Obtain with load().
struct Api {
  Result (*Init)(unsigned);
  Result (*DriverGetVersion)(int *);
  Result (*DeviceGetCount)(int *);
  Result (*DeviceGet)(Device *, int);
  Result (*DeviceGetName)(char *, int, Device);
  Result (*DeviceGetAttribute)(int *, int, Device);
  Result (*DeviceTotalMem)(size_t *, Device);
  Result (*DevicePrimaryCtxRetain)(Context *, Device);
  Result (*DevicePrimaryCtxRelease)(Device);
  Result (*CtxSetCurrent)(Context);
  Result (*CtxSynchronize)();
  Result (*ModuleLoadDataEx)(Module *, const void *, unsigned, int *,
                             void **);
  Result (*ModuleUnload)(Module);
  Result (*ModuleGetFunction)(Function *, Module, const char *);
  Result (*FuncGetAttribute)(int *, int, Function);
  Result (*FuncSetAttribute)(Function, int, int);
  Result (*MemGetInfo)(size_t *, size_t *);
  Result (*MemAlloc)(DevicePtr *, size_t);
  Result (*MemFree)(DevicePtr);
  Result (*MemAllocHost)(void **, size_t);
  Result (*MemFreeHost)(void *);
  Result (*MemcpyHtoD)(DevicePtr, const void *, size_t);
  Result (*MemcpyDtoH)(void *, DevicePtr, size_t);
  Result (*MemcpyDtoDAsync)(DevicePtr, DevicePtr, size_t, Stream);
  Result (*MemsetD8Async)(DevicePtr, unsigned char, size_t, Stream);
  Result (*MemsetD32Async)(DevicePtr, unsigned, size_t, Stream);
  Result (*StreamCreate)(Stream *, unsigned);
  Result (*StreamDestroy)(Stream);
  Result (*StreamSynchronize)(Stream);
  Result (*EventCreate)(Event *, unsigned);
  Result (*EventDestroy)(Event);
  Result (*EventRecord)(Event, Stream);
  Result (*EventSynchronize)(Event);
  Result (*EventElapsedTime)(float *, Event, Event);
  Result (*LaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, Stream, void **,
                         void **);
  Result (*GetErrorName)(Result, const char **);
  Result (*GetErrorString)(Result, const char **);
};

/// Opens the driver library (\p Path, default $ASTRA_CUDA_DRIVER or
/// "libcuda.so.1") and resolves the entry points. Does not call cuInit. The
/// error (exit code 2) says what is missing.
llvm::Expected<const Api *> load(llvm::StringRef Path = "");

/// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string describe(const Api &A, Result R);

} // namespace cu
} // namespace astra

#endif // ASTRA_HARNESS_CUDADRIVER_H
