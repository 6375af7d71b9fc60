//===- LlmTools.cpp - What the model may answer ---------------------------===//
#include "astra/Agent/LlmTools.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

namespace {
json::Object tool(StringRef Name, StringRef Description, json::Object Params) {
  return json::Object{
      {"type", "function"},
      {"function", json::Object{{"name", Name.str()},
                                {"description", Description.str()},
                                {"parameters", std::move(Params)}}}};
}

json::Object stringArray(unsigned Min, unsigned Max) {
  return json::Object{{"type", "array"},
                      {"items", json::Object{{"type", "string"}}},
                      {"minItems", Min},
                      {"maxItems", Max}};
}

Error bad(StringRef Path, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(), (Path + ": " + Why).str());
}

StringRef kindOf(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "boolean";
  case json::Value::Number:
    return V.getAsInteger() ? "integer" : "number";
  case json::Value::String:
    return "string";
  case json::Value::Array:
    return "array";
  case json::Value::Object:
    return "object";
  }
  return "unknown";
}
} // namespace

json::Array llmTools(bool Hybrid, ArrayRef<std::string> RewriteNames) {
  json::Array Names;
  for (const std::string &N : RewriteNames)
    Names.push_back(N);
  if (Hybrid) {
    json::Object Items{{"type", "string"}};
    if (!Names.empty())
      Items["enum"] = std::move(Names);
    return json::Array{tool(
        "choose_rewrites",
        "Choose catalogue rewrites to explore; a search tries their sites, "
        "parameters and compositions.",
        json::Object{
            {"type", "object"},
            {"properties",
             json::Object{{"rewrites", json::Object{{"type", "array"},
                                                    {"items", std::move(Items)},
                                                    {"minItems", 1},
                                                    {"maxItems", 8}}},
                          {"rationale", json::Object{{"type", "string"}}}}},
            {"required", json::Array{"rewrites"}},
            {"additionalProperties", false}})};
  }
  return json::Array{
      tool("apply_rewrites",
           "Try a plan: catalogue rewrites applied in order to the original "
           "file, each written exactly as the catalogue lists it.",
           json::Object{
               {"type", "object"},
               {"properties",
                json::Object{{"steps", stringArray(1, 6)},
                             {"rationale", json::Object{{"type", "string"}}}}},
               {"required", json::Array{"steps"}},
               {"additionalProperties", false}}),
      tool("replace_kernel",
           "Try a new definition of the kernel (same name, template "
           "parameters and parameter list), preceded by any new __device__ "
           "helpers it needs; optionally on top of a catalogue plan.",
           json::Object{
               {"type", "object"},
               {"properties",
                json::Object{{"source", json::Object{{"type", "string"}}},
                             {"base_plan", stringArray(0, 6)},
                             {"rationale", json::Object{{"type", "string"}}}}},
               {"required", json::Array{"source"}},
               {"additionalProperties", false}})};
}

Error checkSchema(const json::Value &V, const json::Value &SchemaV,
                  StringRef Path) {
  const json::Object *S = SchemaV.getAsObject();
  if (!S)
    return Error::success();
  if (auto T = S->getString("type")) {
    StringRef K = kindOf(V);
    bool Ok = K == *T || (*T == "number" && K == "integer");
    if (!Ok)
      return bad(Path, "expected " + *T + ", got " + K);
  }
  if (const json::Array *Enum = S->getArray("enum"))
    if (!llvm::is_contained(*Enum, V)) {
      std::vector<std::string> Allowed;
      for (const json::Value &E : *Enum)
        Allowed.push_back(formatv("{0}", E).str());
      return bad(
          Path, formatv("{0} is not one of {1}", V, join(Allowed, ", ")).str());
    }
  if (const json::Object *O = V.getAsObject()) {
    const json::Object *Props = S->getObject("properties");
    if (const json::Array *Req = S->getArray("required"))
      for (const json::Value &R : *Req)
        if (auto Name = R.getAsString(); Name && !O->get(*Name))
          return bad(Path, "missing '" + *Name + "'");
    for (const auto &[Key, Val] : *O) {
      const json::Value *PS = Props ? Props->get(Key) : nullptr;
      std::string Sub = (Path + "." + Key.str()).str();
      if (!PS) {
        if (S->getBoolean("additionalProperties") == false)
          return bad(Path, "unexpected property '" + Key.str() + "'");
        continue;
      }
      if (Error E = checkSchema(Val, *PS, Sub))
        return E;
    }
  }
  if (const json::Array *A = V.getAsArray()) {
    if (auto Min = S->getInteger("minItems"); Min && int64_t(A->size()) < *Min)
      return bad(Path, formatv("needs at least {0} item(s)", *Min).str());
    if (auto Max = S->getInteger("maxItems"); Max && int64_t(A->size()) > *Max)
      return bad(Path, formatv("takes at most {0} item(s)", *Max).str());
    if (const json::Value *Items = S->get("items"))
      for (size_t I = 0; I < A->size(); ++I)
        if (Error E = checkSchema((*A)[I], *Items,
                                  formatv("{0}[{1}]", Path, I).str()))
          return E;
  }
  return Error::success();
}

std::optional<std::string> extractCodeBlock(StringRef Text) {
  size_t B = Text.find("```");
  if (B == StringRef::npos)
    return std::nullopt;
  StringRef Rest = Text.drop_front(B + 3);
  size_t NL = Rest.find('\n');
  if (NL == StringRef::npos)
    return std::nullopt;
  StringRef Lang = Rest.take_front(NL).trim();
  if (!Lang.empty() && Lang != "cuda" && Lang != "cpp" && Lang != "c++" &&
      Lang != "cu")
    return std::nullopt;
  Rest = Rest.drop_front(NL + 1);
  size_t E = Rest.find("```");
  if (E == StringRef::npos)
    return std::nullopt;
  return Rest.take_front(E).rtrim().str() + "\n";
}

std::vector<Proposal> readProposals(const ChatReply &R,
                                    const json::Array &Tools, bool Hybrid,
                                    std::vector<std::string> &Problems) {
  std::vector<Proposal> Out;
  for (const ToolCall &TC : R.ToolCalls) {
    const json::Value *Schema = nullptr;
    for (const json::Value &T : Tools)
      if (const json::Object *F = T.getAsObject()->getObject("function"))
        if (F->getString("name") == TC.Name)
          Schema = F->get("parameters");
    if (!Schema) {
      Problems.push_back("unknown tool '" + TC.Name + "'");
      continue;
    }
    Expected<json::Value> Args = json::parse(TC.Arguments);
    if (!Args) {
      Problems.push_back(TC.Name + ": the arguments are not JSON: " +
                         toString(Args.takeError()));
      continue;
    }
    if (Error E = checkSchema(*Args, *Schema)) {
      Problems.push_back(TC.Name + ": " + toString(std::move(E)));
      continue;
    }
    const json::Object &A = *Args->getAsObject();
    Proposal P;
    P.Rationale = A.getString("rationale").value_or("").str();
    auto Strings = [&](StringRef Key) {
      std::vector<std::string> V;
      if (const json::Array *Arr = A.getArray(Key))
        for (const json::Value &X : *Arr)
          V.push_back(X.getAsString()->str());
      return V;
    };
    if (TC.Name == "apply_rewrites") {
      P.Kind = Proposal::Plan;
      P.Steps = Strings("steps");
    } else if (TC.Name == "replace_kernel") {
      P.Kind = Proposal::Replacement;
      P.Source = A.getString("source")->str();
      P.Steps = Strings("base_plan");
    } else {
      P.Kind = Proposal::Choose;
      P.Rewrites = Strings("rewrites");
    }
    Out.push_back(std::move(P));
  }
  if (R.ToolCalls.empty() && !Hybrid) {
    if (std::optional<std::string> Code = extractCodeBlock(R.Content)) {
      Proposal P;
      P.Kind = Proposal::Replacement;
      P.Source = *Code;
      P.Rationale = "replacement from a code block";
      Out.push_back(std::move(P));
    }
  }
  if (Out.empty() && Problems.empty())
    Problems.push_back(
        Hybrid ? "the reply called no tool; call choose_rewrites"
               : "the reply had neither a tool call nor a ```cuda code block");
  return Out;
}

} // namespace astra
