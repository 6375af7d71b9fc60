//===- LlmClient.cpp - OpenAI-compatible chat completions -----------------===//
#include "astra/Agent/LlmClient.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace llvm;

namespace astra {

char EndpointError::ID;
ChatClient::~ChatClient() = default;

json::Value makeChatRequest(const ChatSettings &S, StringRef System,
                            StringRef User, const json::Array &Tools) {
  json::Object O{
      {"model", S.Model},
      {"messages",
       // Owned copies: a json::Value made from a StringRef only refers.
       json::Array{json::Object{{"role", "system"}, {"content", System.str()}},
                   json::Object{{"role", "user"}, {"content", User.str()}}}},
      {"max_tokens", S.MaxTokens},
      {"temperature", S.Temperature},
      {"stream", false}};
  if (!Tools.empty()) {
    O["tools"] = json::Array(Tools);
    O["tool_choice"] = "auto";
  }
  return std::move(O);
}

Expected<ChatReply> parseChatReply(StringRef Body) {
  auto Bad = [&](const Twine &Why) -> Error {
    std::string Excerpt = Body.take_front(200).str();
    return createStringError(inconvertibleErrorCode(),
                             "malformed reply: " + Why +
                                 " (reply begins: " + Excerpt + ")");
  };
  Expected<json::Value> V = json::parse(Body);
  if (!V) {
    std::string Why = toString(V.takeError());
    return Bad("not JSON: " + Why);
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return Bad("not a JSON object");
  const json::Array *Choices = O->getArray("choices");
  if (!Choices || Choices->empty())
    return Bad("no 'choices'");
  const json::Object *Choice = (*Choices)[0].getAsObject();
  const json::Object *Msg = Choice ? Choice->getObject("message") : nullptr;
  if (!Msg)
    return Bad("choices[0] has no 'message'");
  ChatReply R;
  if (auto F = Choice->getString("finish_reason"))
    R.FinishReason = F->str();
  if (auto C = Msg->getString("content"))
    R.Content = C->str();
  if (const json::Array *Calls = Msg->getArray("tool_calls")) {
    for (size_t I = 0; I < Calls->size(); ++I) {
      const json::Object *C = (*Calls)[I].getAsObject();
      const json::Object *F = C ? C->getObject("function") : nullptr;
      auto Name = F ? F->getString("name") : std::nullopt;
      if (!Name)
        return Bad(formatv("tool_calls[{0}] has no function name", I).str());
      ToolCall TC;
      TC.Name = Name->str();
      if (auto Id = C->getString("id"))
        TC.Id = Id->str();
      // Arguments are a JSON string; some servers send an object.
      if (const json::Value *A = F->get("arguments")) {
        if (auto S = A->getAsString())
          TC.Arguments = S->str();
        else
          TC.Arguments = formatv("{0}", *A).str();
      }
      R.ToolCalls.push_back(std::move(TC));
    }
  }
  if (const json::Object *U = O->getObject("usage")) {
    R.PromptTokens = U->getInteger("prompt_tokens").value_or(0);
    R.CompletionTokens = U->getInteger("completion_tokens").value_or(0);
  }
  return std::move(R);
}

std::string chatCompletionsUrl(StringRef Endpoint) {
  StringRef E = Endpoint.trim();
  if (E.ends_with("/chat/completions"))
    return E.str();
  E.consume_back("/");
  return (E + "/chat/completions").str();
}

std::string redactSecret(StringRef Text, StringRef Secret) {
  if (Secret.empty())
    return Text.str();
  std::string Out;
  while (true) {
    size_t P = Text.find(Secret);
    if (P == StringRef::npos)
      break;
    Out += Text.take_front(P);
    Out += "[REDACTED]";
    Text = Text.drop_front(P + Secret.size());
  }
  return Out + Text.str();
}

namespace {
/// The server's own words for an error, when its body says (OpenAI style:
/// {"error": {"message": ...}}), else the body's beginning.
std::string serverMessage(StringRef Body) {
  if (Expected<json::Value> V = json::parse(Body)) {
    if (const json::Object *O = V->getAsObject()) {
      if (const json::Object *E = O->getObject("error"))
        if (auto M = E->getString("message"))
          return M->str();
      if (auto M = O->getString("error"))
        return M->str();
    }
  } else {
    consumeError(V.takeError());
  }
  return Body.take_front(300).trim().str();
}

class HttpChatClient : public ChatClient {
public:
  HttpChatClient(HttpChatOptions O, std::unique_ptr<raw_fd_ostream> T)
      : Opts(std::move(O)), Transcript(std::move(T)) {}

  Expected<std::string> send(const json::Value &Request,
                             StringRef Label) override {
    HttpRequest R;
    R.Url = chatCompletionsUrl(Opts.Endpoint);
    R.Headers = {"Content-Type: application/json"};
    if (!Opts.ApiKey.empty())
      R.Headers.push_back("Authorization: Bearer " + Opts.ApiKey);
    R.Body = formatv("{0}", Request).str();
    R.TimeoutSeconds = Opts.TimeoutSeconds;
    R.Cancel = Opts.Cancel;
    auto T0 = std::chrono::steady_clock::now();
    Expected<HttpResponse> Resp = httpPostWithRetries(R, Opts.Retry);
    double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    json::Object Entry{{"seq", ++Seq},
                       {"label", Label.str()},
                       {"request", Request},
                       {"seconds", Secs}};
    std::string Body, Msg;
    bool Failed = true, Fatal = false;
    if (!Resp) {
      // Never reached at all: a wrong URL or port more likely than an
      // outage, and there is nothing to keep yet.
      Fatal = !isHttpAvailable() || (!Reached && !cancelled());
      Msg = "the LLM endpoint is unreachable: " + toString(Resp.takeError());
      if (Fatal && isHttpAvailable())
        Msg += " (no request has reached it yet: check --llm-endpoint)";
    } else if (Resp->Status == 200) {
      Body = std::move(Resp->Body);
      Entry["status"] = 200;
      Failed = false;
    } else {
      long S = Resp->Status;
      std::string Said = serverMessage(Resp->Body);
      if (S == 401 || S == 403) {
        Fatal = true;
        Msg = formatv("HTTP {0} from {1}: the endpoint refused the API key "
                      "(set ASTRA_LLM_API_KEY or OPENAI_API_KEY)",
                      S, R.Url);
      } else if (S == 404) {
        Fatal = true;
        Msg = formatv("HTTP 404 from {0}: no such endpoint or model (check "
                      "--llm-endpoint, which names the API base such as "
                      "http://host:8000/v1, and --llm-model)",
                      R.Url);
      } else if (isRetryableStatus(S)) {
        Msg = formatv("HTTP {0} from {1} after {2} attempts", S, R.Url,
                      Opts.Retry.MaxAttempts);
      } else {
        Msg = formatv("HTTP {0} from {1}", S, R.Url);
      }
      if (!Said.empty())
        Msg += ": " + Said;
      Entry["status"] = S;
      Entry["error_body"] = redactSecret(Resp->Body, Opts.ApiKey);
    }
    Reached |= bool(Resp);
    if (Failed) {
      Msg = redactSecret(Msg, Opts.ApiKey);
      Entry["error"] = Msg;
      Entry["fatal"] = Fatal;
      record(std::move(Entry));
      return make_error<EndpointError>(Msg, Fatal);
    }
    Entry["response"] = redactSecret(Body, Opts.ApiKey);
    record(std::move(Entry));
    return std::move(Body);
  }

private:
  void record(json::Object Entry) {
    if (!Transcript)
      return;
    // A server that echoes the key must not get it onto disk either.
    *Transcript << redactSecret(
                       formatv("{0}", json::Value(std::move(Entry))).str(),
                       Opts.ApiKey)
                << "\n";
    Transcript->flush();
  }
  HttpChatOptions Opts;
  std::unique_ptr<raw_fd_ostream> Transcript;
  unsigned Seq = 0;
  bool Reached = false; ///< some request got an HTTP reply
  bool cancelled() const { return Opts.Cancel && Opts.Cancel->load(); }
};

class ReplayChatClient : public ChatClient {
public:
  std::vector<json::Object> Entries;
  std::string Path;
  std::function<void(StringRef)> Log;
  size_t Next = 0;

  Expected<std::string> send(const json::Value &Request,
                             StringRef Label) override {
    if (Next == Entries.size())
      return make_error<EndpointError>(
          formatv("{0}: the transcript has no reply {1} ({2})", Path, Next + 1,
                  Label)
              .str(),
          /*Fatal=*/false);
    const json::Object &E = Entries[Next++];
    if (const json::Value *Rec = E.get("request"))
      if (*Rec != Request && Log)
        Log(formatv("{0}: request {1} ({2}) differs from the recorded one; "
                    "replaying the recorded reply",
                    Path, Next, Label)
                .str());
    if (auto Resp = E.getString("response"))
      return Resp->str();
    return make_error<EndpointError>(
        E.getString("error").value_or("recorded failure").str(),
        E.getBoolean("fatal").value_or(false));
  }
};
} // namespace

Expected<std::unique_ptr<ChatClient>>
createHttpChatClient(const HttpChatOptions &O) {
  std::unique_ptr<raw_fd_ostream> T;
  if (!O.TranscriptPath.empty()) {
    std::error_code EC;
    T = std::make_unique<raw_fd_ostream>(O.TranscriptPath, EC,
                                         sys::fs::OF_Text);
    if (EC)
      return makeInputError(O.TranscriptPath +
                            ": cannot write the LLM "
                            "transcript: " +
                            EC.message());
  }
  return std::make_unique<HttpChatClient>(O, std::move(T));
}

Expected<std::unique_ptr<ChatClient>>
createReplayChatClient(StringRef Path, std::function<void(StringRef)> Log) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  auto C = std::make_unique<ReplayChatClient>();
  C->Path = Path.str();
  C->Log = std::move(Log);
  SmallVector<StringRef, 32> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (size_t I = 0; I < Lines.size(); ++I) {
    Expected<json::Value> V = json::parse(Lines[I]);
    json::Object *O = V ? V->getAsObject() : nullptr;
    if (!O) {
      std::string Why = V ? "not an object" : toString(V.takeError());
      return makeInputError(DiagLoc{Path.str(), unsigned(I + 1), 1},
                            "not an LLM transcript line: " + Why);
    }
    C->Entries.push_back(std::move(*O));
  }
  return std::unique_ptr<ChatClient>(std::move(C));
}

} // namespace astra
