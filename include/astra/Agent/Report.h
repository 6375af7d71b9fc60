//===- Report.h - The agent's report: JSON and Markdown ---------*- C++ -*-===//
//
// `--report r.json` writes every candidate of every kernel (plan, PTX hash,
// registers and spills, status or verdict with its reason, per-shape times
// and speedups with their intervals, GB/s and % of copy bandwidth), the
// winner, the time per phase; `r.md` beside it says the same for people.
// The JSON is also what `--agent-replay` reads back.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_REPORT_H
#define ASTRA_AGENT_REPORT_H

#include "astra/Agent/Run.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace astra {

llvm::json::Value toJSON(const Evaluation &E);
llvm::json::Value reportToJSON(const AgentResult &R);
void printReportMarkdown(llvm::raw_ostream &OS, const AgentResult &R);
/// The one-screen summary printed at the end of a run (stderr).
void printRunSummary(llvm::raw_ostream &OS, const AgentResult &R);

} // namespace astra

#endif // ASTRA_AGENT_REPORT_H
