//===- LlmAgent.cpp - A language model proposes, the harness decides ------===//
#include "astra/Agent/LlmAgent.h"
#include "astra/Agent/LlmTools.h"
#include "astra/Agent/Plan.h"
#include "astra/Frontend/KernelReplacement.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <chrono>

using namespace llvm;

namespace astra {

namespace {
/// Replacements larger than this are refused unread (a runaway reply).
constexpr size_t MaxReplacementBytes = 64 * 1024;
/// Problems of earlier replies shown to the model, the latest ones.
constexpr size_t MaxFeedback = 12;

class LlmAgent : public Agent {
public:
  explicit LlmAgent(LlmAgentOptions O) : Opts(std::move(O)) {}
  StringRef getName() const override { return Opts.Hybrid ? "hybrid" : "llm"; }
  Expected<std::vector<Candidate>> propose(const AgentContext &Ctx) override;
  json::Value getReport() const override;
  /// The request the next round would send.
  Expected<json::Value> nextRequest(const AgentContext &Ctx) {
    if (Error E = prepare(Ctx))
      return std::move(E);
    ++RoundsUsed;
    Expected<std::string> User = userPrompt(Ctx);
    --RoundsUsed;
    if (!User)
      return User.takeError();
    return makeChatRequest(Opts.Chat, Opts.Prompts.System, *User, tools());
  }

private:
  LlmAgentOptions Opts;
  unsigned RoundsUsed = 0;
  unsigned PromptTokens = 0, CompletionTokens = 0;
  json::Array RoundLog;
  std::vector<std::string> Feedback;
  std::string Stopped;
  StringSet<> Proposed;
  // Computed once per kernel.
  bool Prepared = false;
  std::string Source, Spec;
  std::vector<RewriteOption> Catalogue;
  // Hybrid: the rewrites the model chose and the search over them.
  StringSet<> Chosen;
  std::unique_ptr<Agent> Search;

  Error prepare(const AgentContext &Ctx);
  Expected<std::string> userPrompt(const AgentContext &Ctx);
  /// The tools of this agent for the kernel's catalogue.
  json::Array tools() const;
  /// Asks the model once; the proposals, or std::nullopt when the endpoint
  /// is lost (Stopped says why). Fatal endpoint errors are returned.
  Expected<std::optional<std::vector<Proposal>>> ask(const AgentContext &Ctx);
  /// Turns a proposal into a candidate; an error says what is wrong.
  Expected<Candidate> validate(const AgentContext &Ctx, const Proposal &P);
  Expected<std::vector<std::string>> checkSteps(const AgentContext &Ctx,
                                                ArrayRef<std::string> Steps,
                                                bool &ChangesRounding);
  std::vector<Candidate> fresh(const AgentContext &Ctx,
                               std::vector<Candidate> Cands);
  /// Records a problem for the model's next round and the report.
  void problem(const Twine &P) {
    std::string Text = P.str();
    Feedback.push_back(formatv("round {0}: {1}", RoundsUsed, Text).str());
    if (!RoundLog.empty())
      if (json::Array *A = RoundLog.back().getAsObject()->getArray("problems"))
        A->push_back(Text);
  }
};

Error LlmAgent::prepare(const AgentContext &Ctx) {
  if (Prepared)
    return Error::success();
  Prepared = true;
  Expected<std::string> S = extractKernelSource(
      Opts.Setup, Ctx.FileName, Ctx.OriginalCode, Ctx.SourceKernel);
  if (!S)
    return S.takeError();
  Source = std::move(*S);
  Spec = specEntryText(Opts.SpecPath, Ctx.SpecKernel);
  Expected<std::vector<RewriteOption>> C = Ctx.OptionsAfter({});
  if (!C)
    return C.takeError();
  for (RewriteOption &O : *C) {
    auto It = O.Params.Values.find("assume-noalias");
    if (It != O.Params.Values.end() && It->second != "0" && !Ctx.SpecNoAlias)
      continue; // as the search agent: only with the spec's noalias
    Catalogue.push_back(std::move(O));
  }
  return Error::success();
}

json::Array LlmAgent::tools() const {
  std::vector<std::string> Names;
  for (const RewriteOption &O : Catalogue)
    if (!llvm::is_contained(Names, O.Params.Name))
      Names.push_back(O.Params.Name);
  return llmTools(Opts.Hybrid, Names);
}

Expected<std::string> LlmAgent::userPrompt(const AgentContext &Ctx) {
  StringMap<std::string> V;
  V["kernel"] = Ctx.SpecKernel;
  V["file"] = Ctx.FileName;
  V["round"] = std::to_string(RoundsUsed);
  V["rounds"] = std::to_string(Opts.Rounds);
  V["rounds_left"] = std::to_string(Opts.Rounds - RoundsUsed);
  V["max_candidates"] = std::to_string(Opts.MaxCandidates);
  V["source"] = Source;
  V["model"] = Ctx.KernelModelJSON;
  V["spec"] = Spec.empty() ? "(not found)" : Spec;
  V["profile"] = formatProfile(Ctx);
  V["catalogue"] = formatCatalogue(Catalogue);
  V["history"] = formatHistory(Ctx.History ? ArrayRef<Evaluation>(*Ctx.History)
                                           : ArrayRef<Evaluation>());
  std::string Problems;
  size_t First =
      Feedback.size() > MaxFeedback ? Feedback.size() - MaxFeedback : 0;
  for (size_t I = First; I < Feedback.size(); ++I)
    Problems += "- " + Feedback[I] + "\n";
  V["problems"] = Problems;
  V["feedback"] = "";
  if (!Feedback.empty()) {
    Expected<std::string> F = fillPrompt(Opts.Prompts.Feedback, V);
    if (!F)
      return F.takeError();
    V["feedback"] = *F;
  }
  Expected<std::string> Task = fillPrompt(Opts.Prompts.Task, V);
  if (!Task)
    return Task.takeError();
  V["task"] = *Task;
  return fillPrompt(Opts.Prompts.Round, V);
}

Expected<std::optional<std::vector<Proposal>>>
LlmAgent::ask(const AgentContext &Ctx) {
  ++RoundsUsed;
  Expected<std::string> User = userPrompt(Ctx);
  if (!User)
    return User.takeError();
  json::Array Tools = tools();
  json::Value Req =
      makeChatRequest(Opts.Chat, Opts.Prompts.System, *User, Tools);
  std::string Label =
      formatv("{0} round {1}", Ctx.SpecKernel, RoundsUsed).str();
  auto T0 = std::chrono::steady_clock::now();
  Expected<std::string> Body = Opts.Client->send(Req, Label);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  RoundLog.push_back(json::Object{
      {"round", RoundsUsed}, {"seconds", Secs}, {"problems", json::Array()}});
  json::Object &Log = *RoundLog.back().getAsObject();
  if (!Body) {
    std::string Msg;
    bool Fatal = false;
    handleAllErrors(
        Body.takeError(),
        [&](const EndpointError &E) {
          Msg = E.message();
          Fatal = E.isFatal();
        },
        [&](const ErrorInfoBase &E) { Msg = E.message(); });
    Log["error"] = Msg;
    if (Fatal) // wrong key, model or URL: the user's to fix (exit 1)
      return makeInputError(Msg);
    Stopped = "the LLM endpoint was lost in round " +
              std::to_string(RoundsUsed) + " (" + Msg +
              "); kept the best verified result so far";
    Opts.Progress(formatv("[{0}] {1}", Ctx.SpecKernel, Stopped).str());
    return std::nullopt;
  }
  std::vector<std::string> Problems;
  std::vector<Proposal> Props;
  if (Expected<ChatReply> R = parseChatReply(*Body)) {
    PromptTokens += R->PromptTokens;
    CompletionTokens += R->CompletionTokens;
    Log["prompt_tokens"] = R->PromptTokens;
    Log["completion_tokens"] = R->CompletionTokens;
    Props = readProposals(*R, Tools, Opts.Hybrid, Problems);
    if (R->FinishReason == "length")
      Problems.push_back("the reply was cut at the token limit; be briefer");
  } else {
    Problems.push_back(toString(R.takeError()));
  }
  Log["proposals"] = Props.size();
  for (const std::string &P : Problems)
    problem(P);
  return std::optional<std::vector<Proposal>>(std::move(Props));
}

Expected<std::vector<std::string>>
LlmAgent::checkSteps(const AgentContext &Ctx, ArrayRef<std::string> Steps,
                     bool &ChangesRounding) {
  std::vector<std::string> Out;
  for (const std::string &Step : Steps) {
    Expected<RewriteParams> P = RewriteParams::parse(Step);
    if (!P)
      return createStringError(inconvertibleErrorCode(),
                               "step '" + Step +
                                   "': " + toString(P.takeError()));
    std::string Text = formatRewriteParams(*P);
    Expected<std::vector<RewriteOption>> Options = Ctx.OptionsAfter(Out);
    if (!Options)
      return Options.takeError();
    const RewriteOption *Match = nullptr;
    std::vector<std::string> There;
    for (const RewriteOption &O : *Options) {
      std::string T = formatRewriteParams(O.Params);
      auto It = O.Params.Values.find("assume-noalias");
      if (It != O.Params.Values.end() && It->second != "0" && !Ctx.SpecNoAlias)
        continue;
      if (T == Text)
        Match = &O;
      if (There.size() < 40)
        There.push_back(T);
    }
    if (!Match)
      return createStringError(
          inconvertibleErrorCode(),
          "step '" + Step + "' is not offered on the file " +
              (Out.empty() ? std::string("as it is")
                           : "after " + formatSteps(Out)) +
              "; offered there: " +
              (There.empty() ? std::string("nothing") : join(There, ", ")));
    ChangesRounding |= Match->ChangesRounding;
    Out.push_back(Text);
  }
  return Out;
}

Expected<Candidate> LlmAgent::validate(const AgentContext &Ctx,
                                       const Proposal &P) {
  Candidate C;
  C.Origin = getName().str();
  C.Rationale = P.Rationale;
  Expected<std::vector<std::string>> Steps =
      checkSteps(Ctx, P.Steps, C.ChangesRounding);
  if (!Steps)
    return Steps.takeError();
  C.Steps = std::move(*Steps);
  if (P.Kind == Proposal::Plan)
    return C;
  if (P.Source.size() > MaxReplacementBytes)
    return createStringError(inconvertibleErrorCode(),
                             "the replacement is larger than 64 KB");
  Expected<std::string> Base =
      applySteps(Opts.Setup, Ctx.FileName, Ctx.OriginalCode, C.Steps);
  if (!Base)
    return Base.takeError();
  if (Error E = checkReplacement(Opts.Setup, Ctx.FileName, *Base,
                                 Ctx.SourceKernel, P.Source))
    return std::move(E);
  C.ReplacementSource = P.Source;
  // New code: whether it keeps the rounding is the harness's to judge.
  C.ChangesRounding = true;
  return C;
}

std::vector<Candidate> LlmAgent::fresh(const AgentContext &Ctx,
                                       std::vector<Candidate> Cands) {
  StringSet<> Judged;
  if (Ctx.History)
    for (const Evaluation &E : *Ctx.History)
      Judged.insert(E.Cand.key());
  std::vector<Candidate> Out;
  for (Candidate &C : Cands) {
    std::string K = C.key();
    if (Judged.contains(K) || !Proposed.insert(K).second) {
      if (!Opts.Hybrid)
        problem("'" + C.describe() + "' was already tried");
      continue;
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

Expected<std::vector<Candidate>> LlmAgent::propose(const AgentContext &Ctx) {
  if (Error E = prepare(Ctx))
    return std::move(E);
  AgentContext Narrow = Ctx;
  Narrow.OptionsAfter = [&](const std::vector<std::string> &Steps)
      -> Expected<std::vector<RewriteOption>> {
    Expected<std::vector<RewriteOption>> O = Ctx.OptionsAfter(Steps);
    if (O)
      llvm::erase_if(*O, [&](const RewriteOption &X) {
        return !Chosen.contains(X.Params.Name);
      });
    return O;
  };
  while (true) {
    // Hybrid: the search over what the model chose goes first.
    while (Search) {
      Expected<std::vector<Candidate>> B = Search->propose(Narrow);
      if (!B)
        return B.takeError();
      if (B->empty()) {
        Search.reset();
        break;
      }
      for (Candidate &C : *B)
        C.Origin = "hybrid";
      std::vector<Candidate> F = fresh(Ctx, std::move(*B));
      if (!F.empty())
        return F;
    }
    if (!Stopped.empty())
      return std::vector<Candidate>();
    if (RoundsUsed >= Opts.Rounds) {
      Stopped = formatv("the round budget of {0} model request(s) is used",
                        Opts.Rounds)
                    .str();
      return std::vector<Candidate>();
    }
    Expected<std::optional<std::vector<Proposal>>> Props = ask(Ctx);
    if (!Props)
      return Props.takeError();
    if (!*Props)
      return std::vector<Candidate>(); // endpoint lost
    std::vector<Candidate> Cands;
    std::vector<std::string> ChoseNow; // hybrid
    for (const Proposal &P : **Props) {
      if (P.Kind == Proposal::Choose) {
        for (const std::string &N : P.Rewrites)
          Chosen.insert(N);
        ChoseNow.insert(ChoseNow.end(), P.Rewrites.begin(), P.Rewrites.end());
        Search = createSearchAgent(Opts.Search);
        continue;
      }
      if (Cands.size() == Opts.MaxCandidates) {
        problem(formatv("more than {0} candidates; the rest were ignored",
                        Opts.MaxCandidates));
        break;
      }
      Expected<Candidate> C = validate(Ctx, P);
      if (!C) {
        std::string What = P.Kind == Proposal::Plan
                               ? "apply_rewrites " + formatSteps(P.Steps)
                               : std::string("replace_kernel");
        // "error: " is for people reading a terminal.
        std::string Text = toString(C.takeError());
        StringRef Why(Text);
        Why.consume_front("error: ");
        problem(What + ": " + Why);
        continue;
      }
      Cands.push_back(std::move(*C));
    }
    Cands = fresh(Ctx, std::move(Cands));
    const json::Object &Log = *RoundLog.back().getAsObject();
    size_t Problems = Log.getArray("problems")->size();
    RoundLog.back().getAsObject()->insert({"candidates", Cands.size()});
    std::string Got =
        Opts.Hybrid ? "chose " + (ChoseNow.empty() ? std::string("nothing")
                                                   : join(ChoseNow, ", "))
                    : formatv("{0} candidate(s)", Cands.size()).str();
    Opts.Progress(formatv("[{0}] {1} round {2}/{3}: {4}, {5} problem(s); {6} "
                          "prompt + {7} completion tokens so far",
                          Ctx.SpecKernel, getName(), RoundsUsed, Opts.Rounds,
                          Got, Problems, PromptTokens, CompletionTokens)
                      .str());
    if (!Cands.empty())
      return std::move(Cands);
  }
}

json::Value LlmAgent::getReport() const {
  json::Object O{{"agent", getName()},
                 {"model", Opts.Chat.Model},
                 {"rounds_used", RoundsUsed},
                 {"round_budget", Opts.Rounds},
                 {"prompt_tokens", PromptTokens},
                 {"completion_tokens", CompletionTokens},
                 {"rounds", json::Array(RoundLog)}};
  if (!Stopped.empty())
    O["stopped"] = Stopped;
  return std::move(O);
}
} // namespace

std::unique_ptr<Agent> createLlmAgent(const LlmAgentOptions &O) {
  return std::make_unique<LlmAgent>(O);
}

Expected<json::Value> previewLlmRequest(const LlmAgentOptions &O,
                                        const AgentContext &Ctx) {
  LlmAgent A(O);
  return A.nextRequest(Ctx);
}

} // namespace astra
