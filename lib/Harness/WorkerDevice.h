//===- WorkerDevice.h - The worker's device context -------------*- C++ -*-===//
//
// What every part of the harness worker stands on: the driver, the device,
// its context and stream, the harness's own kernels, the three modules
// (original, candidate, control), buffers with guard regions, launches,
// and the failure (who failed, why) that ends the worker. Private to
// lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_WORKERDEVICE_H
#define ASTRA_LIB_HARNESS_WORKERDEVICE_H

#include "WorkerInternal.h"
#include "astra/Harness/CudaDriver.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/ErrorText.h"
#include "llvm/ADT/Twine.h"
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace astra {
namespace worker {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point T);

/// The PTX of the harness's own kernels (WorkerKernels.cpp), which init()
/// loads: the shared-memory scrub, the spin kernel and the comparisons on
/// the device.
extern const char *const HarnessPtx;

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
/// Guard fills and shared-memory scrub words, one per run (the output
/// poisons are in Compare.h).
constexpr uint8_t GuardFill[2] = {0x3C, 0xC3};
constexpr uint32_t ScrubWord[2] = {0x7FBADBADu, 0x4B1D4B1Du};

/// One device buffer with guard regions.
struct DevBuf {
  cu::DevicePtr Base = 0;
  size_t Bytes = 0;
  cu::DevicePtr ptr() const { return Base + GuardBytes; }
};

enum Who { Orig = 0, Cand = 1, Ctrl = 2 };
inline Party partyOf(int W) {
  return W == Orig   ? Party::Original
         : W == Cand ? Party::Candidate
                     : Party::Control;
}
inline llvm::StringRef whoName(int W) { return partyName(partyOf(W)); }

class DeviceContext {
public:
  explicit DeviceContext(const cu::Api &A) : A(A) {}

  /// Driver, device, context, stream, harness module, device numbers.
  bool init();
  /// Loads the original, the candidate and the control (the original's PTX
  /// again) from \p Ptx with kernels \p Entry, indexed by Who; a JIT error
  /// refuses whose module it is. A non-empty \p CandSmall is the
  /// candidate's entry below its min-threads bound (`small-entry=1`).
  bool loadModules(const std::string *const (&Ptx)[3],
                   const std::string *const (&Entry)[3],
                   const std::string &CandSmall);

  /// What the worker reports: status, device, notes, progress.
  WorkerOutcome Out;
  /// Set by the first failure; the worker stops there.
  std::optional<Failure> F;

protected:
  const cu::Api &A;
  cu::Device Dev = 0;
  cu::Context Ctx = nullptr;
  cu::Stream S = nullptr;
  cu::Module HarnessMod = nullptr, Mods[3] = {};
  cu::Function Fn[3] = {}, CandSmallFn = nullptr, ScrubFn = nullptr,
               SpinFn = nullptr, DiffFn = nullptr, CloseFn = nullptr;
  /// astra_diff's result: differing words, first differing byte offset.
  cu::DevicePtr DiffOut = 0;
  int ScrubBytes = 0;
  unsigned Launches[3] = {};

  /// True on success; else a harness failure (a trap when sticky).
  bool ok(cu::Result R, const llvm::Twine &What);
  /// Records a failure of \p W; returns false.
  bool fail(Reason Why, int W, const llvm::Twine &Msg, bool Sticky = false);
  /// Copies host memory to the device and waits until it is there: a
  /// pageable cuMemcpyHtoD may return before its DMA ends, and the harness's
  /// stream does not wait for the legacy stream, so a launch right after it
  /// could read the old contents.
  bool upload(cu::DevicePtr To, const void *From, size_t Bytes,
              const llvm::Twine &What);
  bool alloc(DevBuf &B, size_t Bytes);
  void release(std::vector<DevBuf> &Bufs);
  bool setSharedLimit(const ResolvedLaunch &L);
  /// The function party \p W launches on \p L: the candidate's small entry
  /// where L.CandSmall, else Fn[W].
  cu::Function functionOf(int W, const ResolvedLaunch &L) const;
  bool launch(int W, const ResolvedLaunch &L,
              const std::vector<cu::DevicePtr> &Ptrs);
  bool syncAfter(int W, const llvm::Twine &Where);
  /// cuMemcpyDtoH, counted as download time (WorkerPhases.h).
  cu::Result dtoh(void *To, cu::DevicePtr From, size_t Bytes);
  /// Fills every SM's shared memory with run \p Run's pattern.
  bool scrub(unsigned Run);
  /// Whether the \p Bytes at \p X and \p Y are bit-identical, compared on
  /// the device (no download): true or false in \p Same, with the offset of
  /// the first differing 4-byte word in \p First when given. False on a
  /// driver failure (F set).
  bool sameOnDevice(cu::DevicePtr X, cu::DevicePtr Y, size_t Bytes, bool &Same,
                    size_t *First = nullptr);

  /// Whether every element of the candidate's output \p C (\p Count
  /// elements of \p T: F32, F16 or BF16) passes the host comparison's
  /// element test against the original's \p O under \p Tol with no
  /// widening (Compare.cpp), none holding the bytes \p PoisonByte: a
  /// sufficient condition for that comparison to pass, computed on the
  /// device. False on a driver failure (F set).
  bool closeOnDevice(cu::DevicePtr C, cu::DevicePtr O, size_t Count, DType T,
                     const Tolerance &Tol, uint8_t PoisonByte, bool &Close);

private:
  bool measureCopyBandwidth();
};

} // namespace worker
} // namespace astra

#endif // ASTRA_LIB_HARNESS_WORKERDEVICE_H
