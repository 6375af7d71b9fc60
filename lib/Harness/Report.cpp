//===- Report.cpp - Verify results as JSON and as a table -----------------===//
#include "NameTable.h"
#include "WorkerInternal.h"
#include "astra/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <cmath>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace astra {

//===-- JSON ---------------------------------------------------------------===//

json::Value toJSON(const MedianCI &C) {
  return json::Object{{"median", C.Median}, {"lo", C.Lo},
                      {"hi", C.Hi},         {"n", int64_t(C.N)},
                      {"coverage", C.Coverage}, {"exact", C.Exact}};
}

bool fromJSON(const json::Value &V, MedianCI &C, json::Path P) {
  json::ObjectMapper O(V, P);
  int64_t N = 0;
  bool Ok = O && O.map("median", C.Median) && O.map("lo", C.Lo) &&
            O.map("hi", C.Hi) && O.map("n", N) &&
            O.map("coverage", C.Coverage) && O.map("exact", C.Exact);
  C.N = size_t(N);
  return Ok;
}

json::Value toJSON(const DeviceInfo &D) {
  return json::Object{{"name", D.Name},
                      {"compute_capability",
                       std::to_string(D.CcMajor) + "." +
                           std::to_string(D.CcMinor)},
                      {"cc_major", D.CcMajor},
                      {"cc_minor", D.CcMinor},
                      {"sms", D.SMs},
                      {"l2_bytes", D.L2Bytes},
                      {"memory_bytes", D.TotalMem},
                      {"driver_version", D.DriverVersion},
                      {"peak_dram_gbs", D.PeakDramGBs},
                      {"copy_gbs", D.CopyGBs}};
}

bool fromJSON(const json::Value &V, DeviceInfo &D, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("name", D.Name) && O.map("cc_major", D.CcMajor) &&
         O.map("cc_minor", D.CcMinor) && O.map("sms", D.SMs) &&
         O.map("l2_bytes", D.L2Bytes) && O.map("memory_bytes", D.TotalMem) &&
         O.map("driver_version", D.DriverVersion) &&
         O.map("peak_dram_gbs", D.PeakDramGBs) &&
         O.map("copy_gbs", D.CopyGBs);
}

static json::Value toJSON(const TimingResult &T) {
  return json::Object{{"original_us", T.OrigUs},
                      {"candidate_us", T.CandUs},
                      {"speedup", toJSON(T.Speedup)},
                      {"control", toJSON(T.Control)},
                      {"verdict", verdictName(T.Verdict)},
                      {"margin", T.Margin},
                      {"rounds", T.Rounds},
                      {"batch", T.Batch},
                      {"copies", T.Copies},
                      {"bytes", T.Bytes},
                      {"floor_us", T.FloorUs},
                      {"original_gbs", T.OrigGBs},
                      {"candidate_gbs", T.CandGBs},
                      {"original_pct_copy", T.OrigPctCopy},
                      {"candidate_pct_copy", T.CandPctCopy}};
}

bool fromJSON(const json::Value &V, TimingResult &T, json::Path P) {
  json::ObjectMapper O(V, P);
  std::string VerdictText;
  bool Ok = O && O.map("original_us", T.OrigUs) &&
            O.map("candidate_us", T.CandUs) && O.map("speedup", T.Speedup) &&
            O.map("control", T.Control) && O.map("verdict", VerdictText) &&
            O.map("margin", T.Margin) && O.map("rounds", T.Rounds) &&
            O.map("batch", T.Batch) && O.map("copies", T.Copies) &&
            O.map("bytes", T.Bytes) && O.map("floor_us", T.FloorUs) &&
            O.map("original_gbs", T.OrigGBs) &&
            O.map("candidate_gbs", T.CandGBs) &&
            O.map("original_pct_copy", T.OrigPctCopy) &&
            O.map("candidate_pct_copy", T.CandPctCopy);
  std::optional<Verdict> Parsed = parseVerdict(VerdictText);
  if (Ok && !Parsed) {
    P.field("verdict").report("not a verdict");
    return false;
  }
  T.Verdict = Parsed.value_or(Verdict::NoChange);
  return Ok;
}

json::Value toJSON(const ShapeResult &S) {
  json::Object O{{"shape", S.Shape},
                 {"generated", S.Generated},
                 {"checked", S.Checked},
                 {"correct", S.Correct},
                 {"cases", S.Cases}};
  if (!S.Dropped.empty())
    O["dropped"] = S.Dropped;
  if (S.Timing)
    O["timing"] = toJSON(*S.Timing);
  return O;
}

bool fromJSON(const json::Value &V, ShapeResult &S, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("shape", S.Shape) && O.map("generated", S.Generated) &&
         O.map("checked", S.Checked) && O.map("correct", S.Correct) && O.map("cases", S.Cases) &&
         O.mapOptional("dropped", S.Dropped) &&
         O.mapOptional("timing", S.Timing);
}

json::Value toJSON(const VerifyResult &R) {
  json::Array Shapes;
  for (const ShapeResult &S : R.Shapes)
    Shapes.push_back(toJSON(S));
  json::Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  return json::Object{{"kernel", R.KernelName},
                      {"original", R.OriginalFile},
                      {"candidate", R.CandidateFile},
                      {"control_run", R.IsControlRun},
                      {"verdict", verdictName(R.Verdict)},
                      {"faster_shapes", R.FasterShapes},
                      {"slower_shapes", R.SlowerShapes},
                      {"reason", reasonName(R.Why)},
                      {"detail", R.Detail},
                      {"geomean_speedup", R.GeoMeanSpeedup},
                      {"control_median", R.ControlMedian},
                      {"device", toJSON(R.Device)},
                      {"shapes", std::move(Shapes)},
                      {"notes", std::move(Notes)},
                      {"worker_seconds", R.WorkerSeconds},
                      {"wall_seconds", R.WallSeconds}};
}

bool fromJSON(const json::Value &V, VerifyResult &R, json::Path P) {
  json::ObjectMapper O(V, P);
  std::string Why, VerdictText;
  bool Ok =
      O && O.map("kernel", R.KernelName) && O.map("original", R.OriginalFile) &&
      O.map("candidate", R.CandidateFile) &&
      O.map("control_run", R.IsControlRun) && O.map("verdict", VerdictText) &&
      O.mapOptional("faster_shapes", R.FasterShapes) &&
      O.mapOptional("slower_shapes", R.SlowerShapes) && O.map("reason", Why) &&
      O.map("detail", R.Detail) && O.map("geomean_speedup", R.GeoMeanSpeedup) &&
      O.map("control_median", R.ControlMedian) && O.map("device", R.Device) &&
      O.map("shapes", R.Shapes) && O.map("notes", R.Notes) &&
      O.map("worker_seconds", R.WorkerSeconds) &&
      O.map("wall_seconds", R.WallSeconds);
  R.Why = parseReason(Why);
  std::optional<Verdict> Parsed = parseVerdict(VerdictText);
  if (Ok && !Parsed) {
    P.field("verdict").report("not a verdict");
    return false;
  }
  R.Verdict = Parsed.value_or(Verdict::Refused);
  return Ok;
}

//===-- The worker protocol ------------------------------------------------===//

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
  json::Value V = json::Object{{"spec", J.SpecPath},
                               {"kernel", J.Kernel},
                               {"original_ptx", J.OrigPtx},
                               {"candidate_ptx", J.CandPtx},
                               {"original_entry", J.OrigEntry},
                               {"candidate_entry", J.CandEntry},
                               {"shapes", std::move(Shapes)},
                               {"time_budget", J.TimeBudget},
                               {"target_half_width", J.TargetHalfWidth},
                               {"min_gain", J.MinGain}};
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
  return O && O.map("spec", J.SpecPath) && O.map("kernel", J.Kernel) &&
         O.map("original_ptx", J.OrigPtx) &&
         O.map("candidate_ptx", J.CandPtx) &&
         O.map("original_entry", J.OrigEntry) &&
         O.map("candidate_entry", J.CandEntry) &&
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

//===-- The table ----------------------------------------------------------===//

/// "T=128,d=11008 (1.61x), T=4,d=4096 (1.55x)": the timed shapes whose
/// verdict is \p V, with their median speedups.
static std::string shapesWith(const VerifyResult &R, Verdict V) {
  std::string Out;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Timing || S.Timing->Verdict != V)
      continue;
    if (!Out.empty())
      Out += ", ";
    for (char C : S.Shape)
      if (C != ' ')
        Out += C;
    Out += formatv(" ({0:f2}x)", S.Timing->Speedup.Median).str();
  }
  return Out;
}

void printVerdictLine(raw_ostream &OS, const VerifyResult &R) {
  std::string Mean = formatv("geometric-mean speedup {0:f3}x, control {1:f3}x",
                             R.GeoMeanSpeedup, R.ControlMedian)
                         .str();
  switch (R.Verdict) {
  case Verdict::Refused:
    OS << "verdict: refused: " << reasonName(R.Why) << ": " << R.Detail << "\n";
    return;
  case Verdict::Mixed:
    OS << "verdict: mixed: faster on " << shapesWith(R, Verdict::Faster)
       << "; slower on " << shapesWith(R, Verdict::Slower) << " (" << Mean
       << ")\n";
    return;
  case Verdict::Faster:
  case Verdict::Slower:
    OS << "verdict: " << verdictName(R.Verdict) << " (" << Mean << "; "
       << verdictName(R.Verdict) << " on " << shapesWith(R, R.Verdict) << ")\n";
    return;
  case Verdict::NoChange:
    OS << "verdict: " << verdictName(R.Verdict) << " (" << Mean << ")\n";
    return;
  }
}

void printVerifyTable(raw_ostream &OS, const VerifyResult &R) {
  const DeviceInfo &D = R.Device;
  OS << formatv("device: {0} (sm_{1}{2}, {3} SMs, L2 {4} MiB), copy "
                "bandwidth {5:f0} GB/s, peak DRAM {6:f0} GB/s\n",
                D.Name, D.CcMajor, D.CcMinor, D.SMs, D.L2Bytes >> 20,
                D.CopyGBs, D.PeakDramGBs);
  OS << "kernel: " << R.KernelName << "  original: " << R.OriginalFile
     << "  candidate: "
     << (R.IsControlRun ? "the original itself (control run)"
                        : R.CandidateFile)
     << "\n";
  OS << formatv("{0,-34} {1,-8} {2,10} {3,10} {4,-24} {5,8} {6,6} {7,-21}\n",
                "shape", "correct", "orig us", "cand us",
                "speedup [95% CI]", "GB/s", "%copy", "control [95% CI]");
  for (const ShapeResult &S : R.Shapes) {
    std::string Name = S.Shape + (S.Generated ? " (edge)" : "");
    std::string Correct = !S.Dropped.empty() ? "dropped"
                          : S.Correct        ? "yes"
                                             : "NO";
    if (!S.Timing) {
      // Generated shapes appear only when the candidate failed there.
      if (!S.Generated || (S.Checked && !S.Correct && S.Dropped.empty()))
        OS << formatv("{0,-34} {1,-8} {2,10}\n", Name, Correct,
                      S.Cases ? formatv("{0} cases", S.Cases).str() : "");
      continue;
    }
    const TimingResult &T = *S.Timing;
    OS << formatv("{0,-34} {1,-8} {2,10:f2} {3,10:f2} {4,-24} {5,8:f0} "
                  "{6,6:f1} {7,-21}\n",
                  Name, Correct, T.OrigUs, T.CandUs,
                  formatv("{0:f3}x [{1:f3},{2:f3}]", T.Speedup.Median,
                          T.Speedup.Lo, T.Speedup.Hi)
                      .str(),
                  T.CandGBs, T.CandPctCopy,
                  formatv("{0:f3} [{1:f3},{2:f3}]", T.Control.Median,
                          T.Control.Lo, T.Control.Hi)
                      .str());
  }
  unsigned Edge = 0, EdgeOk = 0, Dropped = 0, Unchecked = 0;
  for (const ShapeResult &S : R.Shapes) {
    if (!S.Generated)
      continue;
    ++Edge;
    EdgeOk += S.Correct;
    Dropped += !S.Dropped.empty();
    Unchecked += !S.Checked;
  }
  if (Edge)
    OS << formatv("edge shapes: {0} generated, {1} correct, {2} dropped "
                  "(not valid for the original), {3} not reached\n",
                  Edge, EdgeOk, Dropped, Unchecked);
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";
  printVerdictLine(OS, R);
  OS << formatv("harness time: {0:f2} s (worker {1:f2} s)\n", R.WallSeconds,
                R.WorkerSeconds);
}

} // namespace astra
