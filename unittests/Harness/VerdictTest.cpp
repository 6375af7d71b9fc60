//===- VerdictTest.cpp - Verdicts, mixed results, the worker protocol -----===//
#include "WorkerInternal.h"
#include "astra/Harness/Verify.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace astra;
using namespace llvm;

namespace {

ShapeResult timed(StringRef Shape, double Speedup, Verdict V) {
  ShapeResult S;
  S.Shape = Shape.str();
  S.Checked = S.Correct = true;
  TimingResult T;
  T.Speedup.Median = Speedup;
  T.Speedup.N = 30;
  T.Control.Median = 1.0;
  T.Verdict = V;
  S.Timing = T;
  return S;
}

std::string verdictLine(const VerifyResult &R) {
  std::string S;
  raw_string_ostream OS(S);
  printVerdictLine(OS, R);
  return S;
}

TEST(VerdictTest, NamesRoundTrip) {
  for (Verdict V : {Verdict::Faster, Verdict::NoChange, Verdict::Slower,
                    Verdict::Mixed, Verdict::Refused})
    EXPECT_EQ(parseVerdict(verdictName(V)), V);
  EXPECT_EQ(verdictName(Verdict::NoChange), "no-significant-change");
  EXPECT_EQ(verdictName(Verdict::Mixed), "mixed");
  EXPECT_FALSE(parseVerdict("faster-ish").has_value());
  EXPECT_EQ(parseReason(reasonName(Reason::TimedRunsDiffer)),
            Reason::TimedRunsDiffer);
  EXPECT_EQ(reasonName(Reason::TimedRunsDiffer), "timed-runs-differ");
  EXPECT_EQ(parseReason("writes-unwritten"), Reason::WritesUnwritten);
  EXPECT_EQ(reasonName(Reason::WritesUnwritten), "writes-unwritten");
}

TEST(VerdictTest, FasterAndSlowerShapesAreMixed) {
  VerifyResult R;
  R.Shapes.push_back(timed("T=128, d=11008", 1.61, Verdict::Faster));
  R.Shapes.push_back(timed("T=64, d=4096", 1.55, Verdict::Faster));
  R.Shapes.push_back(timed("T=1, d=4096", 0.72, Verdict::Slower));
  R.Shapes.push_back(timed("T=2, d=4096", 1.00, Verdict::NoChange));
  judgeResult(R);
  EXPECT_EQ(R.Verdict, Verdict::Mixed);
  EXPECT_EQ(R.FasterShapes,
            (std::vector<std::string>{"T=128,d=11008", "T=64,d=4096"}));
  EXPECT_EQ(R.SlowerShapes, (std::vector<std::string>{"T=1,d=4096"}));
  EXPECT_NEAR(R.GeoMeanSpeedup, std::pow(1.61 * 1.55 * 0.72 * 1.0, 0.25),
              1e-12);
  std::string Line = verdictLine(R);
  EXPECT_EQ(StringRef(Line).find("verdict: mixed: faster on T=128,d=11008 "
                                 "(1.61x), T=64,d=4096 (1.55x); slower on "
                                 "T=1,d=4096 (0.72x) (geometric-mean"),
            0u)
      << Line;
  EXPECT_EQ(Line.find("slower ("), std::string::npos) << Line;
}

TEST(VerdictTest, OneSideOnly) {
  VerifyResult R;
  R.Shapes.push_back(timed("n=1", 0.9, Verdict::Slower));
  R.Shapes.push_back(timed("n=2", 1.0, Verdict::NoChange));
  judgeResult(R);
  EXPECT_EQ(R.Verdict, Verdict::Slower);
  EXPECT_NE(verdictLine(R).find("slower on n=1 (0.90x)"), std::string::npos);

  VerifyResult F;
  F.Shapes.push_back(timed("n=1", 1.3, Verdict::Faster));
  F.Shapes.push_back(timed("n=2", 1.0, Verdict::NoChange));
  judgeResult(F);
  EXPECT_EQ(F.Verdict, Verdict::Faster);
  EXPECT_TRUE(F.SlowerShapes.empty());

  VerifyResult N;
  N.Shapes.push_back(timed("n=1", 1.0, Verdict::NoChange));
  judgeResult(N);
  EXPECT_EQ(N.Verdict, Verdict::NoChange);
  EXPECT_EQ(verdictLine(N).rfind("verdict: no-significant-change (", 0), 0u);
}

TEST(VerdictTest, RefusedStaysRefused) {
  VerifyResult R;
  R.Verdict = Verdict::Refused;
  R.Why = Reason::WrongResult;
  R.Detail = "3 element checks fail";
  R.Shapes.push_back(timed("n=1", 1.3, Verdict::Faster));
  judgeResult(R);
  EXPECT_EQ(R.Verdict, Verdict::Refused);
  EXPECT_EQ(verdictLine(R),
            "verdict: refused: wrong-result: 3 element checks fail\n");
}

TEST(VerdictTest, MixedJsonRoundTrip) {
  VerifyResult R;
  R.Shapes.push_back(timed("a=1", 1.5, Verdict::Faster));
  R.Shapes.push_back(timed("a=2", 0.5, Verdict::Slower));
  judgeResult(R);
  json::Value V = toJSON(R);
  EXPECT_EQ(*V.getAsObject()->getString("verdict"), "mixed");
  VerifyResult Back;
  json::Path::Root Root;
  ASSERT_TRUE(fromJSON(V, Back, Root));
  EXPECT_EQ(Back.Verdict, Verdict::Mixed);
  EXPECT_EQ(Back.FasterShapes, R.FasterShapes);
  EXPECT_EQ(Back.SlowerShapes, R.SlowerShapes);
  (*V.getAsObject())["verdict"] = "fastest";
  VerifyResult Bad;
  json::Path::Root Root2;
  EXPECT_FALSE(fromJSON(V, Bad, Root2));
}

TEST(VerdictTest, WorkerProtocolNames) {
  for (WorkerStatus S :
       {WorkerStatus::Ok, WorkerStatus::Refused, WorkerStatus::OriginalFails,
        WorkerStatus::NoDevice, WorkerStatus::Error})
    EXPECT_EQ(parseWorkerStatus(workerStatusName(S)), S);
  for (Party P : {Party::None, Party::Harness, Party::Original,
                  Party::Candidate, Party::Control})
    EXPECT_EQ(parseParty(partyName(P)), P);
  EXPECT_FALSE(parseParty("the original").has_value());
}

TEST(VerdictTest, LastProgressLine) {
  std::string Log =
      progressLine(Party::Harness, "starting the CUDA driver") + "\n" +
      progressLine(Party::Original, "running the original on shape n=3") +
      "\nsome driver chatter\n" +
      progressLine(Party::Candidate,
                   "running the candidate on shape n=3 (mentions the "
                   "original)") +
      "\n";
  auto [Who, Text] = lastProgress(Log);
  // Whose phase it is comes from the party field, not from the text.
  EXPECT_EQ(Who, Party::Candidate);
  EXPECT_EQ(Text, "running the candidate on shape n=3 (mentions the original)");
  EXPECT_EQ(lastProgress("nothing here\n").first, Party::None);
}

} // namespace
