//===- LlmPrompt.cpp - What the LLM agent shows the model -----------------===//
#include "astra/Agent/LlmPrompt.h"
#include "astra/Agent/Plan.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace astra {

namespace {
std::string readText(StringRef Dir, StringRef Name, Error &Err) {
  SmallString<256> P(Dir);
  sys::path::append(P, Name);
  Expected<std::unique_ptr<MemoryBuffer>> B = readInputFile(P);
  if (!B) {
    if (!Err)
      Err = B.takeError();
    else
      consumeError(B.takeError());
    return "";
  }
  return (*B)->getBuffer().str();
}

std::string clip(StringRef S, size_t Max) {
  S = S.trim();
  if (S.size() <= Max)
    return S.str();
  return S.take_front(Max).str() + " [...]";
}
} // namespace

std::string findPromptDir() {
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  SmallString<256> P(sys::path::parent_path(Exe));
  sys::path::append(P, "..", "share", "astra-opt", "prompts");
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  if (sys::fs::is_directory(P))
    return P.str().str();
  return ASTRA_SOURCE_PROMPT_DIR;
}

Expected<PromptFiles> loadPromptFiles(StringRef Dir, StringRef Agent) {
  Error Err = Error::success();
  PromptFiles F;
  F.System = readText(Dir, ("system-" + Agent + ".md").str(), Err);
  F.Round = readText(Dir, "round.md", Err);
  F.Task = readText(Dir, ("task-" + Agent + ".md").str(), Err);
  F.Feedback = readText(Dir, "feedback.md", Err);
  if (Err)
    return std::move(Err);
  return F;
}

Expected<std::string> fillPrompt(StringRef T,
                                 const StringMap<std::string> &Vars) {
  std::string Out;
  while (true) {
    size_t B = T.find("{{");
    if (B == StringRef::npos)
      break;
    size_t E = T.find("}}", B);
    if (E == StringRef::npos)
      break;
    StringRef Name = T.slice(B + 2, E).trim();
    auto It = Vars.find(Name);
    if (It == Vars.end())
      return makeInputError("prompt placeholder '{{" + Name +
                            "}}' has no value");
    Out += T.take_front(B);
    Out += It->second;
    T = T.drop_front(E + 2);
  }
  return Out + T.str();
}

std::string specEntryText(StringRef SpecPath, StringRef Kernel) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readInputFile(SpecPath);
  if (!B) {
    consumeError(B.takeError());
    return "";
  }
  Expected<json::Value> V = json::parse((*B)->getBuffer());
  if (!V) {
    consumeError(V.takeError());
    return "";
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return "";
  auto Show = [](const json::Value &X) { return formatv("{0:2}", X).str(); };
  if (const json::Array *Ks = O->getArray("kernels")) {
    for (const json::Value &K : *Ks)
      if (const json::Object *KO = K.getAsObject())
        if (KO->getString("kernel") == Kernel)
          return Show(K);
    return "";
  }
  return Show(*V);
}

std::string formatProfile(const AgentContext &Ctx) {
  // Any judged candidate carries the original's timings.
  const Evaluation *Timed = Ctx.Best;
  if (!Timed && Ctx.History)
    for (const Evaluation &E : *Ctx.History)
      if (E.Result && llvm::any_of(E.Result->Shapes, [](const ShapeResult &S) {
            return S.Timing.has_value();
          })) {
        Timed = &E;
        break;
      }
  if (!Timed)
    return "Nothing measured yet: the original is timed together with the "
           "first candidate.";
  std::string Out;
  raw_string_ostream OS(Out);
  const VerifyResult &R = *Timed->Result;
  if (!R.Device.Name.empty())
    OS << formatv("Device: {0} (sm_{1}{2}, {3} SMs, copy bandwidth {4:F0} "
                  "GB/s).\n\n",
                  R.Device.Name, R.Device.CcMajor, R.Device.CcMinor,
                  R.Device.SMs, R.Device.CopyGBs);
  bool Best = Timed == Ctx.Best;
  bool AnyTimed = llvm::any_of(
      R.Shapes, [](const ShapeResult &S) { return S.Timing.has_value(); });
  if (AnyTimed)
    OS << "| shape | original us | original GB/s | original % of copy |"
       << (Best ? " best us | best GB/s | best % of copy | speedup |" : "")
       << "\n|---|---|---|---|" << (Best ? "---|---|---|---|" : "") << "\n";
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Timing)
      continue;
    const TimingResult &T = *S.Timing;
    OS << formatv("| {0} | {1:F2} | {2:F0} | {3:F0}% |", S.Shape, T.OrigUs,
                  T.OrigGBs, T.OrigPctCopy);
    if (Best)
      OS << formatv(" {0:F2} | {1:F0} | {2:F0}% | {3:F3}x |", T.CandUs,
                    T.CandGBs, T.CandPctCopy, T.Speedup.Median);
    OS << "\n";
  }
  if (Best) {
    OS << formatv("\nBest so far: candidate {0} ({1}), {2:F3}x geomean",
                  Ctx.Best->Index, Ctx.Best->Cand.describe(),
                  Ctx.Best->speedup());
    if (Ctx.Best->Registers)
      OS << formatv(", {0} registers, {1} bytes of spills",
                    *Ctx.Best->Registers, Ctx.Best->SpillBytes.value_or(0));
    OS << ".\n";
    if (!Ctx.Best->Cand.ReplacementSource.empty())
      OS << "\nIts source:\n\n```cuda\n"
         << Ctx.Best->Cand.ReplacementSource << "\n```\n";
  } else {
    OS << "\nNo candidate was verified faster yet.\n";
  }
  return Out;
}

std::string formatCatalogue(ArrayRef<RewriteOption> Options) {
  if (Options.empty())
    return "No catalogue rewrite applies to this kernel.";
  std::string Out;
  for (const RewriteOption &O : Options)
    Out += formatv("- `{0}` at {1}: {2}{3}\n", formatRewriteParams(O.Params),
                   O.Site, O.Detail,
                   O.ChangesRounding ? " [changes rounding]" : "")
               .str();
  return Out;
}

std::string formatHistory(ArrayRef<Evaluation> History, size_t MaxDetail) {
  if (History.empty())
    return "No candidate yet.";
  std::string Out;
  for (const Evaluation &E : History) {
    std::string What = E.Cand.describe();
    if (!E.Cand.ReplacementSource.empty())
      What += formatv(" [{0}]", E.Cand.key()).str();
    Out += formatv("{0}. round {1}, {2}: `{3}`", E.Index, E.Round + 1,
                   E.Cand.Origin, What)
               .str();
    if (!E.Cand.Rationale.empty())
      Out += " (" + clip(E.Cand.Rationale, 160) + ")";
    Out += "\n   -> ";
    if (E.Status != EvalStatus::Evaluated || !E.Result) {
      Out += evalStatusName(E.Status).str();
      if (!E.Note.empty())
        Out += ": " + clip(E.Note, MaxDetail);
    } else if (E.Result->Verdict == Verdict::Refused) {
      Out += "refused: " + reasonName(E.Result->Why).str();
      if (!E.Result->Detail.empty())
        Out += ": " + clip(E.Result->Detail, MaxDetail);
    } else {
      Out += formatv("{0}, {1:F3}x geomean", verdictName(E.Result->Verdict),
                     E.Result->GeoMeanSpeedup)
                 .str();
      if (!E.Result->SlowerShapes.empty())
        Out += "; slower on " + join(E.Result->SlowerShapes, " ");
    }
    if (E.Registers)
      Out += formatv("; {0} registers, {1} B spills", *E.Registers,
                     E.SpillBytes.value_or(0))
                 .str();
    Out += "\n";
  }
  return Out;
}

} // namespace astra
