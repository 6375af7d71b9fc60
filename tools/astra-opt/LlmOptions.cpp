//===- LlmOptions.cpp - --agent=llm and --agent=hybrid options ------------===//
//
//   --llm-endpoint URL   an OpenAI-compatible API base (http://host:8000/v1)
//   --llm-model NAME     the model the endpoint serves
//   --llm-rounds N       model requests per kernel (default 6)
//   --llm-replay FILE    replay a saved transcript instead of an endpoint
//   --llm-transcript F   where to save the transcript (default: beside
//                        --report, as <report>.llm.jsonl)
//
// The key comes from $ASTRA_LLM_API_KEY, else $OPENAI_API_KEY, and goes
// only into the Authorization header: never printed, logged or written.
//
//===----------------------------------------------------------------------===//
#include "LlmOptions.h"
#include "Options.h"
#include "astra/Agent/LlmAgent.h"
#include "astra/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace astra {

static cl::opt<std::string> LlmEndpoint(
    "llm-endpoint",
    cl::desc("--agent=llm|hybrid: an OpenAI-compatible chat-completions API "
             "base, e.g. https://api.openai.com/v1 or http://localhost:8000/v1 "
             "(key from $ASTRA_LLM_API_KEY or $OPENAI_API_KEY)"),
    cl::value_desc("url"), cl::cat(AstraCategory));
static cl::opt<std::string>
    LlmModel("llm-model", cl::desc("--agent=llm|hybrid: the model name"),
             cl::value_desc("name"), cl::cat(AstraCategory));
static cl::opt<unsigned> LlmRounds(
    "llm-rounds",
    cl::desc("--agent=llm|hybrid: model requests per kernel, replies that "
             "fail validation included (default 6)"),
    cl::init(6), cl::cat(AstraCategory));
static cl::opt<unsigned> LlmCandidates(
    "llm-candidates",
    cl::desc("--agent=llm: candidates asked for per round (default 4)"),
    cl::init(4), cl::cat(AstraCategory));
static cl::opt<unsigned> LlmMaxTokens(
    "llm-max-tokens",
    cl::desc("--agent=llm|hybrid: completion tokens per reply (default "
             "8192)"),
    cl::init(8192), cl::cat(AstraCategory));
static cl::opt<unsigned> LlmTimeout(
    "llm-timeout",
    cl::desc("--agent=llm|hybrid: seconds to wait for one reply (default "
             "300)"),
    cl::init(300), cl::cat(AstraCategory));
static cl::opt<unsigned> LlmAttempts(
    "llm-attempts",
    cl::desc("--agent=llm|hybrid: attempts per request on 429, 5xx and "
             "network errors, with exponential back-off (default 5)"),
    cl::init(5), cl::cat(AstraCategory));
static cl::opt<std::string> LlmReplay(
    "llm-replay",
    cl::desc("--agent=llm|hybrid: replay a transcript of an earlier run "
             "instead of asking an endpoint"),
    cl::value_desc("transcript.jsonl"), cl::cat(AstraCategory));
static cl::opt<std::string> LlmTranscript(
    "llm-transcript",
    cl::desc("--agent=llm|hybrid: save every request and reply here (default "
             "beside --report: <report>.llm.jsonl)"),
    cl::value_desc("file"), cl::cat(AstraCategory));
static cl::opt<std::string> LlmPrompts(
    "llm-prompts",
    cl::desc("--agent=llm|hybrid: a directory of prompt files to use instead "
             "of the installed ones (share/astra-opt/prompts)"),
    cl::value_desc("dir"), cl::cat(AstraCategory));

/// The API key from the environment, and which variable held it.
static std::pair<std::string, std::string> apiKey() {
  for (const char *Var : {"ASTRA_LLM_API_KEY", "OPENAI_API_KEY"})
    if (std::optional<std::string> V = sys::Process::GetEnv(Var))
      if (!StringRef(*V).trim().empty())
        return {StringRef(*V).trim().str(), Var};
  return {"", ""};
}

Expected<std::function<std::unique_ptr<Agent>()>>
makeLlmAgentFactory(const CompileSetup &Setup, StringRef AgentName,
                    StringRef SpecPath, StringRef ReportFile,
                    const SearchOptions &Search,
                    std::function<void(StringRef)> Progress,
                    const std::atomic<bool> *Interrupted) {
  if (LlmRounds == 0 || LlmCandidates == 0 || LlmAttempts == 0)
    return makeInputError("--llm-rounds, --llm-candidates and --llm-attempts "
                          "must be at least 1");
  LlmAgentOptions O;
  O.Hybrid = AgentName == "hybrid";
  O.Chat.Model = LlmModel;
  O.Chat.MaxTokens = LlmMaxTokens;
  O.Rounds = LlmRounds;
  O.MaxCandidates = LlmCandidates;
  O.SpecPath = SpecPath.str();
  O.Setup = Setup;
  O.Search = Search;
  O.Progress = Progress;
  std::string Dir = LlmPrompts.empty() ? findPromptDir() : LlmPrompts;
  Expected<PromptFiles> P = loadPromptFiles(Dir, O.Hybrid ? "hybrid" : "llm");
  if (!P)
    return P.takeError();
  O.Prompts = std::move(*P);

  if (!LlmReplay.empty()) {
    Expected<std::unique_ptr<ChatClient>> C =
        createReplayChatClient(LlmReplay, Progress);
    if (!C)
      return C.takeError();
    O.Client = std::move(*C);
  } else {
    if (LlmEndpoint.empty() || LlmModel.empty())
      return makeInputError(
          "--agent=" + AgentName +
          " needs --llm-endpoint URL and --llm-model NAME (or --llm-replay "
          "transcript.jsonl)");
    HttpChatOptions H;
    H.Endpoint = LlmEndpoint;
    auto [Key, Var] = apiKey();
    H.ApiKey = Key;
    H.TimeoutSeconds = LlmTimeout;
    H.Cancel = Interrupted;
    H.Retry.MaxAttempts = LlmAttempts;
    H.Retry.Log = [Progress](StringRef Line) {
      Progress("LLM: " + Line.str());
    };
    H.TranscriptPath = LlmTranscript;
    if (H.TranscriptPath.empty() && !ReportFile.empty()) {
      SmallString<128> T(ReportFile);
      sys::path::replace_extension(T, "llm.jsonl");
      H.TranscriptPath = T.str().str();
    }
    Progress(formatv("LLM: {0} at {1}, {2}; transcript: {3}", LlmModel,
                     chatCompletionsUrl(LlmEndpoint),
                     Var.empty() ? "no API key (neither ASTRA_LLM_API_KEY "
                                   "nor OPENAI_API_KEY is set)"
                                 : "API key from $" + Var,
                     H.TranscriptPath.empty()
                         ? "none (give --report or --llm-transcript)"
                         : H.TranscriptPath)
                 .str());
    Expected<std::unique_ptr<ChatClient>> C = createHttpChatClient(H);
    if (!C)
      return C.takeError();
    O.Client = std::move(*C);
  }
  return std::function<std::unique_ptr<Agent>()>(
      [O] { return createLlmAgent(O); });
}

} // namespace astra
