//===- LlmAgent.h - A language model proposes, the harness decides -*- C++
//-*-===//
//
// `--agent=llm`: each round the model sees the kernel (LlmPrompt.h) and
// answers with catalogue plans or a replacement kernel (LlmTools.h); what
// passes validation (the catalogue offers each step; a replacement keeps the
// signature and adds no host code, checked on the AST) becomes a candidate
// for the loop, what fails goes back to the model in the next round. Each
// request counts against `--llm-rounds`. `--agent=hybrid`: the model chooses
// catalogue rewrites and the search agent tries their parameters and
// compositions. A lost endpoint ends the agent's proposals: the loop keeps
// the best verified so far, and the report says why it stopped.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_LLMAGENT_H
#define ASTRA_AGENT_LLMAGENT_H

#include "astra/Agent/Agent.h"
#include "astra/Agent/LlmClient.h"
#include "astra/Agent/LlmPrompt.h"
#include "astra/Support/CompileSetup.h"
#include <functional>
#include <memory>

namespace astra {

struct LlmAgentOptions {
  bool Hybrid = false;
  ChatSettings Chat;
  unsigned Rounds = 6;        ///< model requests per kernel
  unsigned MaxCandidates = 4; ///< asked for per round
  std::string SpecPath;
  CompileSetup Setup;
  PromptFiles Prompts;
  SearchOptions Search; ///< hybrid: the search over the chosen rewrites
  std::shared_ptr<ChatClient> Client;
  std::function<void(llvm::StringRef)> Progress = [](llvm::StringRef) {};
};

std::unique_ptr<Agent> createLlmAgent(const LlmAgentOptions &O);

/// The first round's request for the kernel of \p Ctx, as it would be sent
/// (`--dry-run`); \p O needs no client.
llvm::Expected<llvm::json::Value> previewLlmRequest(const LlmAgentOptions &O,
                                                    const AgentContext &Ctx);

} // namespace astra

#endif // ASTRA_AGENT_LLMAGENT_H
