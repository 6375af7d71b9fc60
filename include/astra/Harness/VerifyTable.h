//===- VerifyTable.h - Verify results as the human table --------*- C++ -*-===//
#ifndef ASTRA_HARNESS_VERIFYTABLE_H
#define ASTRA_HARNESS_VERIFYTABLE_H

#include "astra/Harness/VerifyResult.h"
#include "llvm/Support/raw_ostream.h"

namespace astra {

/// The human table: one line per shape, then the verdict.
void printVerifyTable(llvm::raw_ostream &OS, const VerifyResult &R);
/// The table's last word: "verdict: mixed: faster on T=128,d=11008 (1.61x);
/// slower on T=1,d=4096 (0.72x) (geometric-mean speedup ...)", "verdict:
/// refused: <reason>: <evidence>", ...
void printVerdictLine(llvm::raw_ostream &OS, const VerifyResult &R);

} // namespace astra

#endif // ASTRA_HARNESS_VERIFYTABLE_H
