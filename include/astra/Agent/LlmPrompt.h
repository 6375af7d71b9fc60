//===- LlmPrompt.h - What the LLM agent shows the model ---------*- C++ -*-===//
//
// Prompts are files (lib/Agent/prompts, installed as share/astra-opt/prompts)
// with `{{name}}` placeholders; this fills them with the round's sections:
// the kernel's source with its helpers, its model (JSON), the spec's entry
// for it, the measurements of the original and the best version so far, the
// catalogue with sites and parameters, the history with verdicts and refusal
// evidence, and the problems of earlier replies.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_LLMPROMPT_H
#define ASTRA_AGENT_LLMPROMPT_H

#include "astra/Agent/Agent.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <string>

namespace astra {

struct PromptFiles {
  std::string System, Round, Task, Feedback;
};

/// The prompt directory: `<exe>/../share/astra-opt/prompts` when it exists
/// (installed layout), else the source tree's lib/Agent/prompts.
std::string findPromptDir();

/// Reads system-<Agent>.md, round.md, task-<Agent>.md and feedback.md from
/// \p Dir (\p Agent: "llm" or "hybrid").
llvm::Expected<PromptFiles> loadPromptFiles(llvm::StringRef Dir,
                                            llvm::StringRef Agent);

/// \p Template with each `{{name}}` replaced by Vars[name]. A placeholder
/// without a value is an error naming it (a prompt file that went wrong).
llvm::Expected<std::string>
fillPrompt(llvm::StringRef Template, const llvm::StringMap<std::string> &Vars);

/// The spec's entry for kernel \p Kernel, as indented JSON ("" if absent).
std::string specEntryText(llvm::StringRef SpecPath, llvm::StringRef Kernel);

/// Per shape: the original's time, GB/s and % of copy bandwidth (from any
/// judged candidate), and the best version's (when there is one), with its
/// registers and spills.
std::string formatProfile(const AgentContext &Ctx);

/// One line per option: `--apply=` text, site, what it does, rounding.
std::string formatCatalogue(llvm::ArrayRef<RewriteOption> Options);

/// One entry per candidate: plan (or replacement), status or verdict with
/// speedup, reason and evidence (truncated to \p MaxDetail characters).
std::string formatHistory(llvm::ArrayRef<Evaluation> History,
                          size_t MaxDetail = 600);

} // namespace astra

#endif // ASTRA_AGENT_LLMPROMPT_H
