//===- ReplayEvaluator.cpp - Judge candidates from a recording ------------===//
//
// Reads an agent report (the JSON `--report` writes): for the kernel asked
// for, every evaluated candidate's plan and harness result. Replaying it
// runs the whole loop deterministically without a GPU: the CPU tests do,
// and so can a user who wants to see what another plan choice would do.
// A winner's re-verification gives its recorded failed recheck where the
// report has one with a result, else the candidate's first verdict.
//
//===----------------------------------------------------------------------===//
#include "astra/Agent/Evaluator.h"
#include "astra/Agent/Plan.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include <map>

using namespace llvm;

namespace astra {

namespace {
class ReplayEvaluator : public Evaluator {
public:
  StringMap<VerifyResult> Recorded;
  /// Re-verifications that did not say faster (the report's
  /// failed_rechecks with a result), by candidate key.
  StringMap<VerifyResult> Rechecks;

  Expected<VerifyResult> evaluate(const Candidate &C, StringRef,
                                  unsigned) override {
    auto It = Recorded.find(C.key());
    if (It != Recorded.end())
      return It->second;
    VerifyResult R;
    R.Verdict = Verdict::Refused;
    R.Why = Reason::None;
    R.Detail = "not in the recording";
    return R;
  }
  Expected<VerifyResult> verifyFully(const Candidate &C,
                                     StringRef Ptx) override {
    auto It = Rechecks.find(C.key());
    if (It != Rechecks.end())
      return It->second;
    return evaluate(C, Ptx, 0);
  }
};
} // namespace

Expected<std::unique_ptr<Evaluator>>
createReplayEvaluator(StringRef ReportPath, StringRef Kernel) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(ReportPath);
  if (!Buf)
    return Buf.takeError();
  auto Bad = [&](const Twine &Msg) {
    return makeInputError(DiagLoc{ReportPath.str()},
                          "cannot replay this report: " + Msg);
  };
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return Bad(toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  const json::Array *Ks = O ? O->getArray("kernels") : nullptr;
  if (!Ks)
    return Bad("no 'kernels' array");
  auto R = std::make_unique<ReplayEvaluator>();
  bool Found = false;
  for (const json::Value &KV : *Ks) {
    const json::Object *K = KV.getAsObject();
    if (!K || K->getString("kernel") != Kernel)
      continue;
    Found = true;
    const json::Array *Cs = K->getArray("candidates");
    if (!Cs)
      return Bad("kernel '" + Kernel + "' has no 'candidates'");
    std::map<int64_t, std::string> KeyOfIndex;
    for (const json::Value &CV : *Cs) {
      const json::Object *C = CV.getAsObject();
      if (!C)
        continue;
      Candidate Cand;
      if (const json::Array *Steps = C->getArray("plan"))
        for (const json::Value &S : *Steps)
          if (auto T = S.getAsString())
            Cand.Steps.push_back(T->str());
      std::string Key = Cand.key();
      if (auto K = C->getString("key"))
        Key = K->str();
      if (auto I = C->getInteger("index"))
        KeyOfIndex[*I] = Key;
      // The harness's full result when recorded, else the verdict alone
      // (hand-written recordings).
      VerifyResult VR;
      if (const json::Value *Res = C->get("result")) {
        json::Path::Root Root("result");
        if (!fromJSON(*Res, VR, Root))
          return Bad("candidate '" + Key + "': " + toString(Root.getError()));
      } else if (auto V = C->getString("verdict")) {
        std::optional<Verdict> PV = parseVerdict(*V);
        if (!PV)
          return Bad("candidate '" + Key + "': unknown verdict '" + *V + "'");
        VR.Verdict = *PV;
        VR.GeoMeanSpeedup = C->getNumber("geomean_speedup").value_or(1);
        if (auto Why = C->getString("reason"))
          VR.Why = parseReason(*Why);
        if (auto D = C->getString("detail"))
          VR.Detail = D->str();
      } else {
        continue; // not judged on the GPU
      }
      R->Recorded[Key] = std::move(VR);
    }
    if (const json::Array *Fs = K->getArray("failed_rechecks"))
      for (const json::Value &FV : *Fs) {
        const json::Object *F = FV.getAsObject();
        const json::Value *Res = F ? F->get("result") : nullptr;
        auto I = F ? F->getInteger("index") : std::nullopt;
        if (!Res || !I || !KeyOfIndex.count(*I))
          continue; // no result recorded: the first verdict stands
        VerifyResult VR;
        json::Path::Root Root("result");
        if (!fromJSON(*Res, VR, Root))
          return Bad("failed recheck of candidate " + std::to_string(*I) +
                     ": " + toString(Root.getError()));
        R->Rechecks[KeyOfIndex[*I]] = std::move(VR);
      }
  }
  if (!Found)
    return Bad("no kernel '" + Kernel + "' in it");
  return std::unique_ptr<Evaluator>(std::move(R));
}

} // namespace astra
