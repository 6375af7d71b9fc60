//===- WorkerProtocol.cpp - The parent/worker protocol --------------------===//
//
// The job the parent writes and the worker waits for, the outcome the worker
// writes back, the names of the worker's status and parties, and its
// progress lines. See WorkerInternal.h.
//
//===----------------------------------------------------------------------===//
#include "NameTable.h"
#include "WorkerInternal.h"
#include "astra/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace astra {

static const std::pair<WorkerStatus, const char *> StatusNames[] = {
    {WorkerStatus::Ok, "ok"},
    {WorkerStatus::Refused, "refused"},
    {WorkerStatus::OriginalFails, "original-fails"},
    {WorkerStatus::NoDevice, "no-device"},
    {WorkerStatus::Error, "error"},
};

static const std::pair<Party, const char *> PartyNames[] = {
    {Party::None, "none"},         {Party::Harness, "harness"},
    {Party::Original, "original"}, {Party::Candidate, "candidate"},
    {Party::Control, "control"},
};

static const std::pair<WorkerMode, const char *> ModeNames[] = {
    {WorkerMode::Full, "full"},
    {WorkerMode::Reference, "reference"},
    {WorkerMode::Candidate, "candidate"},
};

StringRef workerModeName(WorkerMode M) { return nameIn(ModeNames, M); }
std::optional<WorkerMode> parseWorkerMode(StringRef Name) {
  return parseIn(ModeNames, Name);
}

StringRef workerStatusName(WorkerStatus S) { return nameIn(StatusNames, S); }
std::optional<WorkerStatus> parseWorkerStatus(StringRef Name) {
  return parseIn(StatusNames, Name);
}
StringRef partyName(Party P) { return nameIn(PartyNames, P); }
std::optional<Party> parseParty(StringRef Name) {
  return parseIn(PartyNames, Name);
}

std::string progressLine(Party Who, StringRef Text) {
  return ("astra-worker: " + partyName(Who) + ": " + Text).str();
}

std::pair<Party, std::string> lastProgress(StringRef Log) {
  SmallVector<StringRef, 0> Lines;
  Log.split(Lines, '\n');
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It) {
    StringRef L = *It;
    if (!L.consume_front("astra-worker: "))
      continue;
    auto [Name, Text] = L.split(": ");
    if (std::optional<Party> P = parseParty(Name))
      return {*P, Text.str()};
    return {Party::None, L.str()};
  }
  return {Party::None, ""};
}

Shape WorkerShape::shape() const {
  Shape S;
  for (auto &[Name, V] : Vars)
    S.set(Name, V);
  return S;
}

std::string resultPathFor(StringRef JobPath) {
  return (JobPath + ".result.json").str();
}

std::string jobToJSONText(const WorkerJob &J) {
  json::Array Shapes;
  for (const WorkerShape &S : J.Shapes) {
    json::Array Vars;
    for (auto &[N, V] : S.Vars)
      Vars.push_back(json::Array{N, V});
    Shapes.push_back(json::Object{{"vars", std::move(Vars)},
                                  {"generated", S.Generated},
                                  {"timed", S.Timed}});
  }
  json::Value V = json::Object{{"mode", workerModeName(J.Mode)},
                               {"ref_dir", J.RefDir},
                               {"spec", J.SpecPath},
                               {"kernel", J.Kernel},
                               {"original_ptx", J.OrigPtx},
                               {"candidate_ptx", J.CandPtx},
                               {"original_entry", J.OrigEntry},
                               {"candidate_entry", J.CandEntry},
                               {"candidate_small_entry", J.CandSmallEntry},
                               {"shapes", std::move(Shapes)},
                               {"time_budget", J.TimeBudget},
                               {"target_half_width", J.TargetHalfWidth},
                               {"min_gain", J.MinGain},
                               {"candidate_launch", J.Launch.str()}};
  std::string S;
  raw_string_ostream(S) << V;
  return S;
}

static bool fromJSON(const json::Value &V, WorkerShape &S, json::Path P) {
  json::ObjectMapper O(V, P);
  const json::Array *Vars = nullptr;
  if (const json::Object *Obj = V.getAsObject())
    Vars = Obj->getArray("vars");
  if (!O || !Vars || !O.map("generated", S.Generated) ||
      !O.map("timed", S.Timed))
    return false;
  for (const json::Value &E : *Vars) {
    const json::Array *Pair = E.getAsArray();
    if (!Pair || Pair->size() != 2 || !(*Pair)[0].getAsString() ||
        !(*Pair)[1].getAsInteger())
      return false;
    S.Vars.emplace_back((*Pair)[0].getAsString()->str(),
                        *(*Pair)[1].getAsInteger());
  }
  return true;
}

static bool fromJSON(const json::Value &V, WorkerJob &J, json::Path P) {
  json::ObjectMapper O(V, P);
  std::string Mode;
  if (!O || !O.map("mode", Mode) || !O.map("ref_dir", J.RefDir))
    return false;
  std::optional<WorkerMode> M = parseWorkerMode(Mode);
  if (!M) {
    P.field("mode").report("not a worker mode");
    return false;
  }
  J.Mode = *M;
  std::string Launch;
  if (!O.mapOptional("candidate_launch", Launch))
    return false;
  Expected<LaunchOverrides> LO = LaunchOverrides::parse(Launch);
  if (!LO) {
    P.field("candidate_launch").report("not launch overrides");
    consumeError(LO.takeError());
    return false;
  }
  J.Launch = std::move(*LO);
  return O.map("spec", J.SpecPath) && O.map("kernel", J.Kernel) &&
         O.map("original_ptx", J.OrigPtx) &&
         O.map("candidate_ptx", J.CandPtx) &&
         O.map("original_entry", J.OrigEntry) &&
         O.map("candidate_entry", J.CandEntry) &&
         O.mapOptional("candidate_small_entry", J.CandSmallEntry) &&
         O.map("shapes", J.Shapes) && O.map("time_budget", J.TimeBudget) &&
         O.map("target_half_width", J.TargetHalfWidth) &&
         O.map("min_gain", J.MinGain);
}

Expected<WorkerJob> waitForJob(StringRef Path) {
  pid_t Parent = getppid();
  auto Start = std::chrono::steady_clock::now();
  while (!sys::fs::exists(Path)) {
    if (getppid() != Parent)
      return makeInternalError("the parent process is gone");
    if (std::chrono::steady_clock::now() - Start > std::chrono::minutes(10))
      return makeInternalError("no job arrived at " + Path);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeInternalError("cannot read the job " + Path);
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return V.takeError();
  WorkerJob J;
  json::Path::Root Root("job");
  if (!fromJSON(*V, J, Root))
    return makeInternalError("malformed job " + Path);
  return J;
}

std::string WorkerOutcome::toJSONText() const {
  json::Value V = json::Object{{"status", workerStatusName(Status)},
                               {"message", Message},
                               {"who", partyName(Who)},
                               {"sticky", Sticky},
                               {"failed_shape", FailedShape},
                               {"result", toJSON(Result)}};
  std::string S;
  raw_string_ostream(S) << formatv("{0:2}", V);
  return S;
}

Expected<WorkerOutcome> readOutcome(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeInternalError("the harness worker wrote no result");
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return V.takeError();
  WorkerOutcome W;
  json::Path::Root Root("outcome");
  json::ObjectMapper O(*V, Root);
  std::string Status, Who;
  if (!O || !O.map("status", Status) || !O.map("message", W.Message) ||
      !O.map("who", Who) || !O.map("sticky", W.Sticky) ||
      !O.map("failed_shape", W.FailedShape) || !O.map("result", W.Result))
    return makeInternalError("malformed harness result " + Path);
  std::optional<WorkerStatus> S = parseWorkerStatus(Status);
  std::optional<Party> P = parseParty(Who);
  if (!S || !P)
    return makeInternalError("malformed harness result " + Path + ": status '" +
                             Status + "', who '" + Who + "'");
  W.Status = *S;
  W.Who = *P;
  return W;
}

} // namespace astra
