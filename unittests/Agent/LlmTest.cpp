//===- LlmTest.cpp - The LLM agent's request, reply and prompt logic ------===//
#include "astra/Agent/LlmClient.h"
#include "astra/Agent/LlmPrompt.h"
#include "astra/Agent/LlmTools.h"
#include "astra/Support/Http.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace astra;

namespace {

json::Value parsed(StringRef Text) {
  Expected<json::Value> V = json::parse(Text);
  EXPECT_TRUE(bool(V)) << toString(V.takeError());
  return V ? std::move(*V) : json::Value(nullptr);
}

TEST(LlmRequest, CarriesModelMessagesAndTools) {
  ChatSettings S;
  S.Model = "qwen";
  S.MaxTokens = 100;
  json::Value R = makeChatRequest(S, "sys", "user", llmTools(false, {}));
  const json::Object *O = R.getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getString("model"), "qwen");
  EXPECT_EQ(O->getInteger("max_tokens"), 100);
  EXPECT_EQ(O->getBoolean("stream"), false);
  const json::Array *M = O->getArray("messages");
  ASSERT_TRUE(M && M->size() == 2);
  EXPECT_EQ((*M)[0].getAsObject()->getString("role"), "system");
  EXPECT_EQ((*M)[1].getAsObject()->getString("content"), "user");
  const json::Array *T = O->getArray("tools");
  ASSERT_TRUE(T && T->size() == 2);
  EXPECT_EQ((*T)[1].getAsObject()->getObject("function")->getString("name"),
            "replace_kernel");
  // No tools: no tool_choice either (some servers reject it alone).
  json::Value Plain = makeChatRequest(S, "s", "u", json::Array());
  EXPECT_FALSE(Plain.getAsObject()->get("tool_choice"));
}

TEST(LlmReply, ToolCallsContentAndUsage) {
  Expected<ChatReply> R = parseChatReply(R"({"choices": [{"message": {
      "content": "thinking",
      "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "apply_rewrites",
         "arguments": "{\"steps\": [\"fast-math\"]}"}},
        {"id": "b", "type": "function", "function": {"name": "replace_kernel",
         "arguments": {"source": "x"}}}]},
      "finish_reason": "tool_calls"}],
      "usage": {"prompt_tokens": 12, "completion_tokens": 3}})");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Content, "thinking");
  EXPECT_EQ(R->FinishReason, "tool_calls");
  ASSERT_EQ(R->ToolCalls.size(), 2u);
  EXPECT_EQ(R->ToolCalls[0].Id, "a");
  EXPECT_EQ(R->ToolCalls[0].Arguments, R"({"steps": ["fast-math"]})");
  // Arguments sent as an object (some servers) come back as JSON text.
  EXPECT_EQ(R->ToolCalls[1].Arguments, R"({"source":"x"})");
  EXPECT_EQ(R->PromptTokens, 12u);
  EXPECT_EQ(R->CompletionTokens, 3u);
}

TEST(LlmReply, MalformedRepliesSayWhat) {
  auto Why = [](StringRef Body) {
    Expected<ChatReply> R = parseChatReply(Body);
    EXPECT_FALSE(bool(R));
    return R ? std::string() : toString(R.takeError());
  };
  EXPECT_NE(Why("{\"choices\": [ oops").find("not JSON"), std::string::npos);
  EXPECT_NE(Why("[1]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(Why("{\"choices\": []}").find("no 'choices'"), std::string::npos);
  EXPECT_NE(Why("{\"choices\": [{}]}").find("no 'message'"), std::string::npos);
  EXPECT_NE(Why(R"({"choices": [{"message": {"tool_calls": [{}]}}]})")
                .find("tool_calls[0] has no function name"),
            std::string::npos);
}

TEST(LlmSchema, ChecksTheSubsetTheToolsUse) {
  json::Value Schema = parsed(R"({"type": "object",
      "properties": {"steps": {"type": "array", "items": {"type": "string"},
                               "minItems": 1, "maxItems": 2},
                     "mode": {"type": "string", "enum": ["a", "b"]},
                     "n": {"type": "number"}},
      "required": ["steps"], "additionalProperties": false})");
  auto Check = [&](StringRef V) {
    Error E = checkSchema(parsed(V), Schema);
    return E ? toString(std::move(E)) : std::string();
  };
  EXPECT_EQ(Check(R"({"steps": ["x"], "mode": "a", "n": 3})"), "");
  EXPECT_EQ(Check(R"({"steps": ["x"], "n": 2.5})"), "");
  EXPECT_EQ(Check(R"({"mode": "a"})"), "arguments: missing 'steps'");
  EXPECT_EQ(Check(R"({"steps": []})"),
            "arguments.steps: needs at least 1 item(s)");
  EXPECT_EQ(Check(R"({"steps": ["a", "b", "c"]})"),
            "arguments.steps: takes at most 2 item(s)");
  EXPECT_EQ(Check(R"({"steps": [1]})"),
            "arguments.steps[0]: expected string, got integer");
  EXPECT_EQ(Check(R"({"steps": ["x"], "mode": "c"})"),
            "arguments.mode: \"c\" is not one of \"a\", \"b\"");
  EXPECT_EQ(Check(R"({"steps": ["x"], "extra": 1})"),
            "arguments: unexpected property 'extra'");
  EXPECT_EQ(Check(R"([1])"), "arguments: expected object, got array");
}

TEST(LlmProposals, ToolCallsAreValidatedOneByOne) {
  ChatReply R;
  R.ToolCalls = {{"1", "apply_rewrites", R"({"steps": ["a", "b"]})"},
                 {"2", "replace_kernel", R"({"source": "S", "base_plan":
                                             ["a"], "rationale": "why"})"},
                 {"3", "delete_everything", "{}"},
                 {"4", "apply_rewrites", "{not json"},
                 {"5", "apply_rewrites", R"({"steps": "a"})"}};
  std::vector<std::string> Problems;
  std::vector<Proposal> P =
      readProposals(R, llmTools(false, {}), false, Problems);
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Kind, Proposal::Plan);
  EXPECT_EQ(P[0].Steps, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(P[1].Kind, Proposal::Replacement);
  EXPECT_EQ(P[1].Source, "S");
  EXPECT_EQ(P[1].Steps, (std::vector<std::string>{"a"}));
  EXPECT_EQ(P[1].Rationale, "why");
  ASSERT_EQ(Problems.size(), 3u);
  EXPECT_EQ(Problems[0], "unknown tool 'delete_everything'");
  EXPECT_NE(Problems[1].find("the arguments are not JSON"), std::string::npos);
  EXPECT_EQ(Problems[2],
            "apply_rewrites: arguments.steps: expected array, got string");
}

TEST(LlmProposals, CodeBlockWithoutToolsAndHybridChoices) {
  ChatReply R;
  R.Content = "Here:\n```cuda\n__global__ void k() {}\n```\nDone.";
  std::vector<std::string> Problems;
  std::vector<Proposal> P =
      readProposals(R, llmTools(false, {}), false, Problems);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].Source, "__global__ void k() {}\n");
  EXPECT_TRUE(Problems.empty());
  // Hybrid takes tool calls only, with names from the catalogue.
  P = readProposals(R, llmTools(true, {"fast-math"}), true, Problems);
  EXPECT_TRUE(P.empty());
  ASSERT_EQ(Problems.size(), 1u);
  EXPECT_NE(Problems[0].find("call choose_rewrites"), std::string::npos);
  ChatReply C;
  C.ToolCalls = {{"1", "choose_rewrites", R"({"rewrites": ["fast-math"]})"},
                 {"2", "choose_rewrites", R"({"rewrites": ["unroll"]})"}};
  Problems.clear();
  P = readProposals(C, llmTools(true, {"fast-math"}), true, Problems);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].Kind, Proposal::Choose);
  EXPECT_EQ(P[0].Rewrites, (std::vector<std::string>{"fast-math"}));
  ASSERT_EQ(Problems.size(), 1u);
  EXPECT_NE(Problems[0].find("\"unroll\" is not one of \"fast-math\""),
            std::string::npos);
}

TEST(LlmProposals, CodeBlockLanguages) {
  EXPECT_EQ(extractCodeBlock("```cpp\nx\n```"), "x\n");
  EXPECT_EQ(extractCodeBlock("```\ny\n```"), "y\n");
  EXPECT_EQ(extractCodeBlock("```python\nz\n```"), std::nullopt);
  EXPECT_EQ(extractCodeBlock("```cuda\nunterminated"), std::nullopt);
  EXPECT_EQ(extractCodeBlock("no code"), std::nullopt);
}

TEST(LlmPrompt, FillsPlaceholders) {
  StringMap<std::string> V;
  V["a"] = "1";
  V["b"] = "{{a}}"; // values are not expanded again
  Expected<std::string> S = fillPrompt("x {{a}} y {{ b }} z", V);
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(*S, "x 1 y {{a}} z");
  Expected<std::string> Bad = fillPrompt("{{missing}}", V);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("'{{missing}}' has no value"),
            std::string::npos);
}

TEST(LlmPrompt, HistoryShowsVerdictsAndEvidence) {
  std::vector<Evaluation> H(3);
  H[0].Index = 1;
  H[0].Cand.Steps = {"fast-math:kernel=k"};
  H[0].Cand.Origin = "llm";
  H[0].Result.emplace();
  H[0].Result->Verdict = Verdict::Refused;
  H[0].Result->Why = Reason::WrongResult;
  H[0].Result->Detail = "out[3]: 1.0 vs 1.1";
  H[1].Index = 2;
  H[1].Cand.ReplacementSource = "src";
  H[1].Cand.Origin = "llm";
  H[1].Status = EvalStatus::DoesNotCompile;
  H[1].Note = "error: boom";
  H[2].Index = 3;
  H[2].Cand.Steps = {"unroll"};
  H[2].Cand.Origin = "llm";
  H[2].Result.emplace();
  H[2].Result->Verdict = Verdict::Mixed;
  H[2].Result->GeoMeanSpeedup = 1.05;
  H[2].Result->SlowerShapes = {"T=1,d=8"};
  std::string S = formatHistory(H);
  EXPECT_NE(S.find("1. round 1, llm: `fast-math:kernel=k`\n   -> refused: "
                   "wrong-result: out[3]: 1.0 vs 1.1"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("does-not-compile: error: boom"), std::string::npos) << S;
  EXPECT_NE(S.find("mixed, 1.050x geomean; slower on T=1,d=8"),
            std::string::npos)
      << S;
}

TEST(LlmPrompt, ProfileOfOriginalAndBest) {
  std::vector<Evaluation> H(1);
  Evaluation &E = H[0];
  E.Index = 4;
  E.Cand.Steps = {"vectorize-loads:loop=k:L0"};
  E.Registers = 30;
  E.SpillBytes = 0;
  E.Result.emplace();
  E.Result->Verdict = Verdict::Faster;
  E.Result->GeoMeanSpeedup = 1.5;
  E.Result->Device.Name = "NVIDIA H100";
  E.Result->Device.CcMajor = 9;
  E.Result->Device.CopyGBs = 2900;
  ShapeResult S;
  S.Shape = "T=64, d=4096";
  S.Timing.emplace();
  S.Timing->OrigUs = 30;
  S.Timing->CandUs = 20;
  S.Timing->OrigGBs = 1000;
  S.Timing->CandGBs = 1500;
  S.Timing->OrigPctCopy = 34;
  S.Timing->CandPctCopy = 52;
  S.Timing->Speedup.Median = 1.5;
  E.Result->Shapes.push_back(S);
  AgentContext Ctx;
  Ctx.History = &H;
  // Not yet the best (e.g. its re-run): the original's times only.
  std::string P = formatProfile(Ctx);
  EXPECT_NE(P.find("Device: NVIDIA H100 (sm_90"), std::string::npos) << P;
  EXPECT_NE(P.find("| T=64, d=4096 | 30.00 | 1000 | 34% |\n"),
            std::string::npos)
      << P;
  EXPECT_NE(P.find("No candidate was verified faster yet."), std::string::npos);
  Ctx.Best = &E;
  P = formatProfile(Ctx);
  EXPECT_NE(P.find("| T=64, d=4096 | 30.00 | 1000 | 34% | 20.00 | 1500 | 52% "
                   "| 1.500x |"),
            std::string::npos)
      << P;
  EXPECT_NE(P.find("Best so far: candidate 4 (vectorize-loads:loop=k:L0), "
                   "1.500x geomean, 30 registers, 0 bytes of spills."),
            std::string::npos)
      << P;
  Ctx.Best = nullptr;
  Ctx.History = nullptr;
  EXPECT_NE(formatProfile(Ctx).find("Nothing measured yet"), std::string::npos);
}

TEST(LlmClient, UrlsAndRedaction) {
  EXPECT_EQ(chatCompletionsUrl("http://h:8000/v1"),
            "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chatCompletionsUrl("http://h:8000/v1/"),
            "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chatCompletionsUrl("https://x/v1/chat/completions"),
            "https://x/v1/chat/completions");
  EXPECT_EQ(redactSecret("a sk-1 b sk-1", "sk-1"), "a [REDACTED] b [REDACTED]");
  EXPECT_EQ(redactSecret("nothing", ""), "nothing");
}

TEST(Http, RetryAfterAndRetryableStatuses) {
  EXPECT_EQ(parseRetryAfter("7", 0), 7.0);
  EXPECT_EQ(parseRetryAfter(" 1.5 ", 0), 1.5);
  // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480.
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470), 10.0);
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490), 0.0);
  EXPECT_EQ(parseRetryAfter("soon", 0), std::nullopt);
  EXPECT_TRUE(isRetryableStatus(429));
  EXPECT_TRUE(isRetryableStatus(503));
  EXPECT_FALSE(isRetryableStatus(401));
  EXPECT_FALSE(isRetryableStatus(404));
  EXPECT_FALSE(isRetryableStatus(200));
}

TEST(Http, RetriesTransportFailuresWithBackoff) {
  if (!isHttpAvailable())
    GTEST_SKIP() << "libcurl is not installed";
  HttpRequest R;
  R.Url = "http://127.0.0.1:1/v1/chat/completions"; // nothing listens
  R.ConnectTimeoutSeconds = 2;
  RetryPolicy P;
  P.MaxAttempts = 3;
  P.InitialBackoff = 1;
  std::vector<double> Waits;
  std::vector<std::string> Logs;
  P.Sleep = [&](double S) { Waits.push_back(S); };
  P.Log = [&](StringRef L) { Logs.push_back(L.str()); };
  Expected<HttpResponse> Resp = httpPostWithRetries(R, P);
  ASSERT_FALSE(bool(Resp));
  std::string Msg = toString(Resp.takeError());
  EXPECT_NE(Msg.find("gave up after 3 attempts"), std::string::npos) << Msg;
  EXPECT_EQ(Waits, (std::vector<double>{1, 2}));
  ASSERT_EQ(Logs.size(), 2u);
  EXPECT_NE(Logs[0].find("retrying in 1.0 s (attempt 2 of 3)"),
            std::string::npos);
}

} // namespace
