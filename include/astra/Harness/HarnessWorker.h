//===- HarnessWorker.h - The harness's child process ------------*- C++ -*-===//
#ifndef ASTRA_HARNESS_HARNESSWORKER_H
#define ASTRA_HARNESS_HARNESSWORKER_H

#include "llvm/ADT/StringRef.h"

namespace astra {

/// The child side: `astra-opt --harness-worker <job.json>`. Writes the
/// result JSON named in the job; returns the process exit code.
int runHarnessWorker(llvm::StringRef JobPath);

} // namespace astra

#endif // ASTRA_HARNESS_HARNESSWORKER_H
