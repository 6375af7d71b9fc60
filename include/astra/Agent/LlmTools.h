//===- LlmTools.h - What the model may answer -------------------*- C++ -*-===//
//
// The tools the model may call (OpenAI function calling), their JSON
// schemas, a validator for the schema subset they use, and the reading of a
// reply into proposals. A reply's problems (unknown tool, arguments that are
// not JSON or break the schema) are collected as text for the next round.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_LLMTOOLS_H
#define ASTRA_AGENT_LLMTOOLS_H

#include "astra/Agent/LlmClient.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace astra {

/// The tools: `apply_rewrites` and `replace_kernel` (llm), or
/// `choose_rewrites` (hybrid), with \p RewriteNames as the allowed names.
llvm::json::Array llmTools(bool Hybrid,
                           llvm::ArrayRef<std::string> RewriteNames);

/// Checks \p V against \p Schema: type (object, array, string, integer,
/// number, boolean), properties, required, additionalProperties: false,
/// items, minItems, maxItems, enum. Errors name the path ("steps[2]").
llvm::Error checkSchema(const llvm::json::Value &V,
                        const llvm::json::Value &Schema,
                        llvm::StringRef Path = "arguments");

/// One thing the model asked for.
struct Proposal {
  enum KindT { Plan, Replacement, Choose } Kind = Plan;
  std::vector<std::string> Steps;    ///< Plan; Replacement: the base plan
  std::string Source;                ///< Replacement
  std::vector<std::string> Rewrites; ///< Choose
  std::string Rationale;
};

/// The proposals of \p R: its tool calls checked against \p Tools' schemas,
/// or, without tool calls (llm only), a fenced code block in the content as
/// a replacement. \p Problems gets one line per rejected part.
std::vector<Proposal> readProposals(const ChatReply &R,
                                    const llvm::json::Array &Tools, bool Hybrid,
                                    std::vector<std::string> &Problems);

/// The first fenced code block of \p Text (```cuda, ```cpp, ```c++, ```).
std::optional<std::string> extractCodeBlock(llvm::StringRef Text);

} // namespace astra

#endif // ASTRA_AGENT_LLMTOOLS_H
