//===- RefStore.h - The original's test cases on disk -----------*- C++ -*-===//
//
// An evaluation session computes the original's side of every correctness
// case once per kernel (a worker in reference mode) and stores it in the
// session's directory: per case the inputs and the original's outputs from
// both poisons as raw buffers, and an index (JSON) of the shapes, their
// cases (seed, distribution, NaN/Inf) and the shapes dropped. Workers in
// candidate mode load the cases instead of generating inputs and running the
// original again. Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_REFSTORE_H
#define ASTRA_LIB_HARNESS_REFSTORE_H

#include "astra/Harness/InputGen.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace astra {

/// Buffers by argument (empty for scalars and unused roles).
using ArgBuffers = std::vector<std::vector<uint8_t>>;

struct RefCase {
  GenOptions G;       ///< the inputs' seed and distribution (the final ones)
  std::string Prefix; ///< file name prefix in the directory: "s2_c0"
};

struct RefShape {
  /// Not run: why (as ShapeResult::Dropped); empty when it has cases.
  std::string Dropped;
  std::vector<RefCase> Cases;
};

struct RefIndex {
  std::vector<RefShape> Shapes; ///< in the job's shape order
};

/// Writes case \p Prefix: inputs \p In and the original's outputs \p Out
/// (run 0 and run 1) into \p Dir.
llvm::Error writeRefCase(llvm::StringRef Dir, llvm::StringRef Prefix,
                         const ArgBuffers &In, const ArgBuffers (&Out)[2]);
/// Reads what writeRefCase wrote; buffers that were empty stay empty. A
/// run-1 output equal to run 0's is not stored: it reads back empty while
/// its run-0 buffer is not (origRun1() gives the buffer to use).
llvm::Error readRefCase(llvm::StringRef Dir, llvm::StringRef Prefix,
                        size_t NumArgs, ArgBuffers &In, ArgBuffers (&Out)[2]);

/// The original's run-1 output \p I of a case read by readRefCase.
inline llvm::ArrayRef<uint8_t> origRun1(const ArgBuffers (&Out)[2], size_t I) {
  return Out[1][I].empty() ? llvm::ArrayRef<uint8_t>(Out[0][I])
                           : llvm::ArrayRef<uint8_t>(Out[1][I]);
}

/// Reads a candidate worker's cases one ahead, on a thread of its own, in
/// the order the worker runs them: while the GPU runs case k, case k+1 is
/// read from the session's directory (at most two cases in memory). A case
/// asked for out of order is read then.
class RefPrefetcher {
public:
  RefPrefetcher(std::string Dir, std::vector<std::string> Prefixes,
                size_t NumArgs);
  ~RefPrefetcher();
  RefPrefetcher(const RefPrefetcher &) = delete;
  RefPrefetcher &operator=(const RefPrefetcher &) = delete;

  /// Case \p Prefix, as readRefCase gives it.
  llvm::Error take(llvm::StringRef Prefix, ArgBuffers &In,
                   ArgBuffers (&Out)[2]);

private:
  struct Slot {
    ArgBuffers In, Out[2];
    std::string Error; ///< non-empty: the read failed
  };
  void readAhead();

  const std::string Dir;
  const std::vector<std::string> Prefixes;
  const size_t NumArgs;
  std::mutex M;
  std::condition_variable CV;
  size_t Next = 0;   ///< index in Prefixes of the case the worker takes next
  bool Full = false; ///< Ready holds Prefixes[Next]
  bool Stop = false;
  Slot Ready;
  std::thread Reader;
};

llvm::Error writeRefIndex(llvm::StringRef Dir, const RefIndex &Index);
llvm::Expected<RefIndex> readRefIndex(llvm::StringRef Dir);

} // namespace astra

#endif // ASTRA_LIB_HARNESS_REFSTORE_H
