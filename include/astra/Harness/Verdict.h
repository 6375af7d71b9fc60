//===- Verdict.h - The harness's verdicts and refusal reasons ---*- C++ -*-===//
//
// The typed vocabulary of a verification: what was decided (Verdict) and,
// for a refusal, why (Reason). The names are stable: tests, reports, plans
// and the agent's schemas match them, so they are written in one table each
// (Verdict.cpp) and parsed back through it.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_VERDICT_H
#define ASTRA_HARNESS_VERDICT_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace astra {

/// The outcome of judging a candidate. Per timed shape only Faster,
/// NoChange and Slower occur; a whole result is Mixed when it is faster
/// beyond the margin on some shapes and slower beyond it on others.
enum class Verdict {
  Faster,   ///< "faster"
  NoChange, ///< "no-significant-change"
  Slower,   ///< "slower"
  Mixed,    ///< "mixed"
  Refused,  ///< "refused": incorrect, or not measurable (see Reason)
};
llvm::StringRef verdictName(Verdict V);
/// std::nullopt for a name that is not a verdict.
std::optional<Verdict> parseVerdict(llvm::StringRef Name);

/// Why a candidate is refused. The names (reasonName) are stable: tests and
/// reports match them.
enum class Reason {
  None,
  Trap,               ///< illegal address, misaligned access, ... in a kernel
  Hang,               ///< no result within the time limit
  Crash,              ///< the worker died (signal) outside a kernel
  DoesNotLoad,        ///< PTX does not JIT, or the kernel is missing
  LaunchFailed,       ///< the launch is refused (resources)
  DeviceSideLaunch,   ///< launches device work that outlives the timed region
  OutOfBoundsWrite,   ///< guard bytes around a buffer changed
  WritesInput,        ///< an `in` buffer changed
  UnwrittenOutput,    ///< output elements the original writes kept the poison
  WritesUnwritten,    ///< writes output elements the original leaves unwritten
  Nondeterministic,   ///< two runs on the same inputs differ
  NanMismatch,        ///< NaN where the original has none, or the reverse
  WrongResult,        ///< beyond tolerance (or not bit-equal for integers)
  BelowPhysicalFloor, ///< timed faster than bytes written / peak bandwidth
  TimedRunsDiffer,    ///< the timed launches' outputs differ from the reference
};
llvm::StringRef reasonName(Reason R);
/// Reason::None for a name that is not a reason.
Reason parseReason(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_HARNESS_VERDICT_H
