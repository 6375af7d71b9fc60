//===- Verdict.cpp - Names of verdicts and refusal reasons ----------------===//
#include "astra/Harness/Verdict.h"
#include "NameTable.h"
#include <utility>

using namespace llvm;

namespace astra {

static const std::pair<Verdict, const char *> VerdictNames[] = {
    {Verdict::Faster, "faster"},   {Verdict::NoChange, "no-significant-change"},
    {Verdict::Slower, "slower"},   {Verdict::Mixed, "mixed"},
    {Verdict::Refused, "refused"},
};

StringRef verdictName(Verdict V) { return nameIn(VerdictNames, V); }

std::optional<Verdict> parseVerdict(StringRef Name) {
  return parseIn(VerdictNames, Name);
}

static const std::pair<Reason, const char *> ReasonNames[] = {
    {Reason::None, "none"},
    {Reason::Trap, "trap"},
    {Reason::Hang, "hang"},
    {Reason::Crash, "crash"},
    {Reason::DoesNotLoad, "does-not-load"},
    {Reason::LaunchFailed, "launch-failed"},
    {Reason::DeviceSideLaunch, "device-side-launch"},
    {Reason::OutOfBoundsWrite, "out-of-bounds-write"},
    {Reason::WritesInput, "writes-input"},
    {Reason::UnwrittenOutput, "unwritten-output"},
    {Reason::WritesUnwritten, "writes-unwritten"},
    {Reason::Nondeterministic, "nondeterministic"},
    {Reason::NanMismatch, "nan-mismatch"},
    {Reason::WrongResult, "wrong-result"},
    {Reason::BelowPhysicalFloor, "below-physical-floor"},
    {Reason::TimedRunsDiffer, "timed-runs-differ"},
};

StringRef reasonName(Reason R) { return nameIn(ReasonNames, R); }

Reason parseReason(StringRef Name) {
  return parseIn(ReasonNames, Name).value_or(Reason::None);
}

} // namespace astra
