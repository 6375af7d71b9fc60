//===- VerifyJSON.cpp - Verify results as JSON and back -------------------===//
//
// The report's format (`--report r.json`) and the worker's result: both are
// a VerifyResult in JSON. Verdicts and reasons by their stable names.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/VerifyResult.h"

using namespace llvm;

namespace astra {

json::Value toJSON(const MedianCI &C) {
  return json::Object{{"median", C.Median},
                      {"lo", C.Lo},
                      {"hi", C.Hi},
                      {"n", int64_t(C.N)},
                      {"coverage", C.Coverage},
                      {"exact", C.Exact}};
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
                      {"compute_capability", std::to_string(D.CcMajor) + "." +
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
         O.map("peak_dram_gbs", D.PeakDramGBs) && O.map("copy_gbs", D.CopyGBs);
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
            O.map("batch", T.Batch) && O.map("bytes", T.Bytes) &&
            O.map("floor_us", T.FloorUs) && O.map("original_gbs", T.OrigGBs) &&
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
         O.map("checked", S.Checked) && O.map("correct", S.Correct) &&
         O.map("cases", S.Cases) && O.mapOptional("dropped", S.Dropped) &&
         O.mapOptional("timing", S.Timing);
}

json::Value toJSON(const VerifyResult &R) {
  json::Array Shapes;
  for (const ShapeResult &S : R.Shapes)
    Shapes.push_back(toJSON(S));
  json::Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  json::Object O{{"kernel", R.KernelName},
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
  if (!R.Launch.empty())
    O["candidate_launch"] = R.Launch;
  return O;
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
      O.map("wall_seconds", R.WallSeconds) &&
      O.mapOptional("candidate_launch", R.Launch);
  R.Why = parseReason(Why);
  std::optional<Verdict> Parsed = parseVerdict(VerdictText);
  if (Ok && !Parsed) {
    P.field("verdict").report("not a verdict");
    return false;
  }
  R.Verdict = Parsed.value_or(Verdict::Refused);
  return Ok;
}

} // namespace astra
