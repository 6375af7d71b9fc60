//===- LlmClient.h - OpenAI-compatible chat completions ---------*- C++ -*-===//
//
// The LLM agent talks to any endpoint that speaks OpenAI's
// `/v1/chat/completions` (OpenAI, vLLM, SGLang, llama.cpp's server): a
// request is a model, messages and tools (function calling); a reply is
// content and/or tool calls, with token usage. Every exchange is appended to
// a transcript (JSON lines; the key is never in it), and a transcript can
// stand in for the endpoint (`--llm-replay`): the same replies in the same
// order, so a run is reproduced without any network.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_AGENT_LLMCLIENT_H
#define ASTRA_AGENT_LLMCLIENT_H

#include "astra/Support/Http.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <string>
#include <vector>

namespace astra {

struct ToolCall {
  std::string Id, Name;
  std::string Arguments; ///< JSON text, as the model wrote it
};

struct ChatReply {
  std::string Content;
  std::vector<ToolCall> ToolCalls;
  std::string FinishReason;
  unsigned PromptTokens = 0, CompletionTokens = 0;
};

struct ChatSettings {
  std::string Model;
  unsigned MaxTokens = 8192; ///< per reply
  double Temperature = 0.2;
};

/// The request body: the system and user messages and the tools.
llvm::json::Value makeChatRequest(const ChatSettings &S, llvm::StringRef System,
                                  llvm::StringRef User,
                                  const llvm::json::Array &Tools);

/// Parses a chat-completions reply body. Errors say what is malformed.
llvm::Expected<ChatReply> parseChatReply(llvm::StringRef Body);

/// The endpoint gave no usable reply: \p Fatal when retrying cannot help
/// (wrong key, model or URL: the run stops with an error), else the endpoint
/// was lost (the run keeps what it verified so far).
class EndpointError : public llvm::ErrorInfo<EndpointError> {
public:
  static char ID;
  EndpointError(std::string Msg, bool Fatal)
      : Msg(std::move(Msg)), Fatal(Fatal) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  bool isFatal() const { return Fatal; }

private:
  std::string Msg;
  bool Fatal;
};

class ChatClient {
public:
  virtual ~ChatClient();
  /// Sends \p Request; the reply's body (HTTP 200), else an EndpointError.
  /// \p Label names the exchange in the transcript ("k<T> round 2").
  virtual llvm::Expected<std::string> send(const llvm::json::Value &Request,
                                           llvm::StringRef Label) = 0;
};

struct HttpChatOptions {
  std::string Endpoint; ///< base (".../v1") or the full completions URL
  std::string ApiKey;   ///< empty: no Authorization header
  double TimeoutSeconds = 300;
  RetryPolicy Retry;
  std::string TranscriptPath;                ///< empty: none written
  const std::atomic<bool> *Cancel = nullptr; ///< Ctrl-C
};

/// A client for a live endpoint. Errors when the transcript cannot be
/// created.
llvm::Expected<std::unique_ptr<ChatClient>>
createHttpChatClient(const HttpChatOptions &O);

/// Replays a transcript written by a live client: the n-th send() gets the
/// n-th recorded reply (or recorded failure). \p Log hears of a request that
/// differs from the recorded one.
llvm::Expected<std::unique_ptr<ChatClient>>
createReplayChatClient(llvm::StringRef TranscriptPath,
                       std::function<void(llvm::StringRef)> Log);

/// ".../v1" -> ".../v1/chat/completions"; a full URL is kept.
std::string chatCompletionsUrl(llvm::StringRef Endpoint);

/// \p Text with every occurrence of \p Secret replaced by "[REDACTED]".
std::string redactSecret(llvm::StringRef Text, llvm::StringRef Secret);

} // namespace astra

#endif // ASTRA_AGENT_LLMCLIENT_H
