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
#include "astra/Agent/Plan.h"
#include "astra/Frontend/KernelModel.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Error.h"
#include "astra/Transforms/Enumerate.h"
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

/// The agent's options from the flags, without a client.
static Expected<LlmAgentOptions>
makeLlmAgentOptions(const CompileSetup &Setup, StringRef AgentName,
                    StringRef SpecPath, const SearchOptions &Search) {
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
  std::string Dir = LlmPrompts.empty() ? findPromptDir() : LlmPrompts;
  Expected<PromptFiles> P = loadPromptFiles(Dir, O.Hybrid ? "hybrid" : "llm");
  if (!P)
    return P.takeError();
  O.Prompts = std::move(*P);
  return O;
}

Expected<std::function<std::unique_ptr<Agent>()>>
makeLlmAgentFactory(const CompileSetup &Setup, StringRef AgentName,
                    StringRef SpecPath, StringRef ReportFile,
                    const SearchOptions &Search,
                    std::function<void(StringRef)> Progress,
                    const std::atomic<bool> *Interrupted) {
  Expected<LlmAgentOptions> OrErr =
      makeLlmAgentOptions(Setup, AgentName, SpecPath, Search);
  if (!OrErr)
    return OrErr.takeError();
  LlmAgentOptions O = std::move(*OrErr);
  O.Progress = Progress;

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

Error printLlmDryRun(const CompileSetup &Setup, StringRef FileName,
                     StringRef Code, StringRef SpecPath, StringRef AgentName,
                     ArrayRef<std::string> Kernels) {
  Expected<LlmAgentOptions> O =
      makeLlmAgentOptions(Setup, AgentName, SpecPath, SearchOptions());
  if (!O)
    return O.takeError();
  Expected<LaunchSpecFile> SF = parseSpecFile(SpecPath);
  if (!SF)
    return SF.takeError();
  Expected<KernelModel> Model = loadKernelModel(Setup, FileName, Code);
  if (!Model)
    return Model.takeError();
  outs() << "astra-opt --agent-rewrite --agent=" << AgentName
         << " would send, per kernel, up to " << LlmRounds
         << " request(s) like these (the first round's; later rounds add the "
            "measurements, the history and the problems of earlier "
            "replies):\n";
  for (const KernelSpec &K : SF->Kernels) {
    if (!Kernels.empty() && !llvm::is_contained(Kernels, K.Kernel))
      continue;
    const KernelInfo *KI = Model->findKernel(K.Kernel);
    if (!KI)
      return makeInputError(DiagLoc{FileName.str()},
                            "spec kernel '" + K.Kernel +
                                "' is not defined in this file");
    AgentContext Ctx;
    Ctx.SpecKernel = K.Kernel;
    Ctx.SourceKernel = KI->Name;
    Ctx.FileName = FileName.str();
    Ctx.OriginalCode = Code.str();
    Ctx.KernelModelJSON = formatv("{0:2}", toJSON(*KI)).str();
    Ctx.SpecNoAlias = K.NoAlias;
    std::vector<Evaluation> None;
    Ctx.History = &None;
    Ctx.OptionsAfter = [&](const std::vector<std::string> &Steps)
        -> Expected<std::vector<RewriteOption>> {
      Expected<std::string> C = applySteps(Setup, FileName, Code, Steps);
      if (!C)
        return C.takeError();
      return enumerateRewrites(Setup, FileName, *C, KI->Name);
    };
    Expected<json::Value> Req = previewLlmRequest(*O, Ctx);
    if (!Req)
      return Req.takeError();
    size_t Chars = 0;
    std::string Text;
    for (const json::Value &M : *Req->getAsObject()->getArray("messages")) {
      const json::Object *MO = M.getAsObject();
      StringRef Content = MO->getString("content").value_or("");
      Chars += Content.size();
      Text += "--- " + MO->getString("role").value_or("").str() + " ---\n" +
              Content.str() + "\n";
    }
    std::vector<std::string> Tools;
    for (const json::Value &T : *Req->getAsObject()->getArray("tools"))
      Tools.push_back(
          T.getAsObject()->getObject("function")->getString("name")->str());
    std::string ToolsJSON = formatv("{0}", *Req->getAsObject()->get("tools"));
    outs() << formatv("\n=== {0}: about {1} prompt tokens (4 characters a "
                      "token), tools: {2}\n",
                      K.Kernel, (Chars + ToolsJSON.size()) / 4,
                      join(Tools, ", "))
           << Text;
  }
  return Error::success();
}

} // namespace astra
