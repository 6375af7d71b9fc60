//===- Timing.cpp - The worker's timing rounds ----------------------------===//
//
// Per timed shape: rotating copies (each party its own outputs, which the
// timed launches take in turn), the original's reference, warm-up, batches
// for short kernels, rounds of the palindrome over original, candidate and
// control until the stopping rule says so (Stats.h), then the check of what
// the last round's launches and a closing batch per party wrote, and the
// physical floor. docs/harness.md, "Timing".
//
//===----------------------------------------------------------------------===//
#include "Worker.h"
#include "WorkerPhases.h"
#include "astra/Harness/InputGen.h"
#include "astra/Harness/Stats.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace llvm;

namespace astra {
namespace worker {

bool Worker::checkTimedOutputs(
    const Shape &Sh, const ResolvedLaunch &L,
    const std::vector<cu::DevicePtr> (&RefDev)[2],
    const std::vector<std::vector<cu::DevicePtr>> (&Copies)[3], unsigned Batch,
    function_ref<int(int, unsigned)> SetOf, StringRef What) {
  const size_t NA = K->Args.size();
  std::vector<uint8_t> Got;
  // The reference on the host, downloaded only for an output that is not
  // bit-identical to it on the device.
  std::vector<std::vector<uint8_t>> Ref[2];
  Ref[0].resize(NA);
  Ref[1].resize(NA);
  // The candidate first: its failure is the refusal; the original's and the
  // control's are errors about the original.
  for (int W : {Cand, Orig, Ctrl}) {
    for (unsigned C = 0; C < Batch; ++C) {
      for (size_t I = 0; I < NA; ++I) {
        const ArgSpec &AS = K->Args[I];
        if (AS.IsScalar || AS.Role == ArgRole::In || !L.Args[I].Bytes)
          continue;
        bool Same = false;
        cu::DevicePtr Out = Copies[SetOf(W, C)][C][I];
        if (!sameOnDevice(Out, RefDev[0][I], L.Args[I].Bytes, Same))
          return false;
        if (Same)
          continue;
        for (unsigned Run = 0; Run < 2; ++Run)
          if (Ref[Run][I].empty()) {
            Ref[Run][I].resize(L.Args[I].Bytes);
            if (!ok(dtoh(Ref[Run][I].data(), RefDev[Run][I], L.Args[I].Bytes),
                    "download"))
              return false;
          }
        Got.resize(L.Args[I].Bytes);
        if (!ok(dtoh(Got.data(), Out, Got.size()), "download"))
          return false;
        ArrayRef<uint8_t> R0 = Ref[0][I], R1 = Ref[1][I];
        size_t N = L.Args[I].Count;
        Spread Sp = originalSpread(R0, R1, AS.Type, N, AS.Role == ArgRole::Out);
        // Got is compared as both candidate runs, each poisoned with
        // Poison[0] (Prepare in timeShape).
        Tally T = compareOutputs(R0, R1, Got, Got, AS.Type, N,
                                 AS.Role == ArgRole::Out, K->toleranceFor(AS),
                                 Sp, {Poison[0], Poison[0]});
        if (!T.mismatches())
          continue;
        size_t E = T.firstMismatch();
        // Both "runs" compared are the same buffer: each NaN and value check
        // counts twice (unwritten elements, and elements the original
        // leaves unwritten, once).
        size_t Elems = T.Unwritten + T.Extra + (T.NanBad + T.Bad + 1) / 2;
        return fail(Reason::TimedRunsDiffer, W,
                    formatv("the {0}'s {9} wrote other values than "
                            "its checked runs: {1} elements of '{2}' (copy {3} "
                            "of {4}) differ from the original's reference on "
                            "shape {5}, first at index {6} ({0} {7}, "
                            "reference {8})",
                            whoName(W), Elems, AS.Name, C + 1, Batch, Sh.str(),
                            E, fmtElem(Got, AS.Type, E),
                            fmtElem(R0, AS.Type, E), What)
                        .str());
      }
    }
  }
  return true;
}

bool Worker::timeShape(size_t Index, ShapeResult &SR) {
  const WorkerShape &WS = job().Shapes[Index];
  Shape Sh = WS.shape();
  Out.Progress(Party::Candidate, "timing shape " + Sh.str());
  ScopedPhase Phase(Phase::Timing);
  Expected<ResolvedLaunch> L = resolve(*K, Sh);
  if (!L) {
    Out.Result.Notes.push_back("not timed: " + errorText(L.takeError()));
    return true;
  }
  if (Error E = resolveCandidateLaunch(*K, Sh, job().Launch, *L))
    return fail(Reason::LaunchFailed, Cand, errorText(std::move(E)));
  Expected<std::vector<std::vector<uint8_t>>> In =
      std::vector<std::vector<uint8_t>>();
  auto Kept = TimingInputs.find(Index);
  if (Kept != TimingInputs.end() && !Kept->second.empty()) {
    *In = std::move(Kept->second);
    TimingInputs.erase(Kept);
  } else {
    GenOptions G;
    G.Seed = 77 + Index;
    ScopedPhase P(Phase::InputGen);
    In = generateInputs(*K, Sh, *L, G);
  }
  if (!In) {
    Out.Result.Notes.push_back("not timed: " + errorText(In.takeError()));
    return true;
  }
  const size_t NA = K->Args.size();
  const DeviceInfo &D = Out.Result.Device;
  uint64_t Footprint = 0, OutBytes = 0;
  for (size_t I = 0; I < NA; ++I) {
    if (L->Args[I].IsScalar)
      continue;
    uint64_t B = L->Args[I].Bytes;
    Footprint += B;
    ArgRole R = K->Args[I].Role;
    if (R != ArgRole::In)
      OutBytes += B;
  }
  // Copies[W][C][I]: party W's buffers of rotating copy C. The inputs are
  // shared; each party has its own outputs (the timed launches take them in
  // turn, SetOf below), so that what each party wrote can be checked after
  // the rounds. Pristine: inout contents for restores.
  std::vector<std::vector<cu::DevicePtr>> Copies[3];
  std::vector<cu::DevicePtr> Pristine(NA, 0), AllBufs;
  auto Alloc = [&](cu::DevicePtr &P, uint64_t Bytes) {
    if (!ok(A.MemAlloc(&P, std::max<uint64_t>(Bytes, 256)), "cuMemAlloc"))
      return false;
    AllBufs.push_back(P);
    return true;
  };
  auto FreeAll = [&] {
    for (cu::DevicePtr P : AllBufs)
      A.MemFree(P);
  };
  // A new rotating copy: inputs from copy 0 (the upload), outputs fresh.
  auto AddCopy = [&] {
    size_t C = Copies[0].size();
    for (int W = Orig; W <= Ctrl; ++W)
      Copies[W].emplace_back(NA, 0);
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar)
        continue;
      uint64_t B = L->Args[I].Bytes;
      bool Shared = K->Args[I].Role == ArgRole::In;
      for (int W = Orig; W <= Ctrl; ++W) {
        if (Shared && W != Orig) {
          Copies[W][C][I] = Copies[Orig][C][I];
          continue;
        }
        if (!Alloc(Copies[W][C][I], B))
          return false;
      }
      if (C > 0 && Shared &&
          !ok(A.MemcpyDtoDAsync(Copies[Orig][C][I], Copies[Orig][0][I], B, S),
              "copy inputs"))
        return false;
    }
    return true;
  };
  if (!AddCopy())
    return FreeAll(), false;
  for (size_t I = 0; I < NA; ++I) {
    uint64_t B = L->Args[I].Bytes;
    if (L->Args[I].IsScalar || K->Args[I].Role == ArgRole::Out || !B)
      continue;
    if (!upload(Copies[Orig][0][I], (*In)[I].data(), B, "upload"))
      return FreeAll(), false;
    if (K->Args[I].Role == ArgRole::InOut &&
        (!Alloc(Pristine[I], B) ||
         !ok(A.MemcpyDtoDAsync(Pristine[I], Copies[Orig][0][I], B, S), "copy")))
      return FreeAll(), false;
  }
  cu::DevicePtr Flush = 0;
  size_t FlushBytes = std::max<int64_t>(2 * D.L2Bytes, 8 << 20);
  if (!Alloc(Flush, FlushBytes))
    return FreeAll(), false;

  cu::Event Ev[12];
  for (cu::Event &E : Ev)
    A.EventCreate(&E, cu::EventDefault);
  auto Cleanup = [&] {
    for (cu::Event &E : Ev)
      A.EventDestroy(E);
    FreeAll();
  };
  unsigned FlushCount = 0;
  unsigned Batch = 1;
  // Where a buffer lies in memory moves a short kernel's time by up to ~2%,
  // the same for every launch on it (docs/harness.md, "Timing"). So the
  // timed launches do not keep a party on its own buffers: launch C of a
  // measurement in round Turn runs party W on the buffers of party
  // (W + C + Turn) % 3, and every party uses every party's buffers equally
  // often. SetOf(W, C) is that party; Closing (after the rounds) sets it to
  // W itself. In the last round each copy's buffers of one set are written
  // by one party only: what they hold then is that party's.
  unsigned Turn = 0;
  bool Closing = false;
  auto SetOf = [&](int W, unsigned C) {
    return Closing ? W : int((W + C + Turn) % 3);
  };
  // Before each launch on the buffers of copy C of party W's set: inout
  // buffers restored, out buffers poisoned, so every launch must write all
  // it writes again.
  auto Prepare = [&](int W, unsigned C, uint8_t Fill) {
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar || !L->Args[I].Bytes)
        continue;
      if (Pristine[I] && !ok(A.MemcpyDtoDAsync(Copies[W][C][I], Pristine[I],
                                               L->Args[I].Bytes, S),
                             "restore inout"))
        return false;
      if (K->Args[I].Role == ArgRole::Out &&
          !ok(A.MemsetD8Async(Copies[W][C][I], Fill, L->Args[I].Bytes, S),
              "poison outputs"))
        return false;
    }
    return true;
  };
  // The original's reference outputs on these inputs, from both poisons
  // (as in a correctness case), kept on the device.
  std::vector<cu::DevicePtr> RefDev[2];
  for (unsigned Run = 0; Run < 2; ++Run) {
    RefDev[Run].assign(NA, 0);
    if (!Prepare(Orig, 0, Poison[Run]) || !launch(Orig, *L, Copies[Orig][0]) ||
        !syncAfter(Orig,
                   "in the original's reference run on shape " + Sh.str()))
      return Cleanup(), false;
    for (size_t I = 0; I < NA; ++I) {
      if (L->Args[I].IsScalar || K->Args[I].Role == ArgRole::In ||
          !L->Args[I].Bytes)
        continue;
      if (!Alloc(RefDev[Run][I], L->Args[I].Bytes) ||
          !ok(A.MemcpyDtoDAsync(RefDev[Run][I], Copies[Orig][0][I],
                                L->Args[I].Bytes, S),
              "copy the reference"))
        return Cleanup(), false;
    }
  }
  // One measurement: prepare the copies, flush L2, hold the stream while
  // the batch is queued, then Batch launches over the copies.
  auto Measure = [&](int W, cu::Event E0, cu::Event E1) {
    for (unsigned C = 0; C < Batch; ++C)
      if (!Prepare(SetOf(W, C), C, Poison[0]))
        return false;
    if (!ok(A.MemsetD32Async(Flush, 0x9E3779B9u * ++FlushCount, FlushBytes / 4,
                             S),
            "L2 flush"))
      return false;
    uint64_t SpinNs = 20000 + 4000ull * Batch;
    void *SpinParams[] = {&SpinNs};
    if (!ok(A.LaunchKernel(SpinFn, 1, 1, 1, 1, 1, 1, 0, S, SpinParams, nullptr),
            "spin"))
      return false;
    A.EventRecord(E0, S);
    for (unsigned C = 0; C < Batch; ++C)
      if (!launch(W, *L, Copies[SetOf(W, C)][C]))
        return false;
    A.EventRecord(E1, S);
    return true;
  };
  auto Elapsed = [&](cu::Event E0, cu::Event E1) {
    float Ms = 0;
    A.EventElapsedTime(&Ms, E0, E1);
    return double(Ms) * 1e3 / Batch; // microseconds per launch
  };
  // Warm-up (module load, caches, clocks) and a first estimate.
  double Est = 1e30;
  for (int Rep = 0; Rep < 3; ++Rep)
    for (int W = Orig; W <= Ctrl; ++W) {
      if (!Measure(W, Ev[0], Ev[1]) ||
          !syncAfter(W, "while timing shape " + Sh.str()))
        return Cleanup(), false;
      if (W == Orig && Rep > 0)
        Est = std::min(Est, Elapsed(Ev[0], Ev[1]));
    }
  // Short kernels: batches over rotating copies of the inputs, so that
  // each sample spans >= ~100 us (event resolution is ~0.5 us).
  if (Est < 100) {
    size_t Free = 0, Total = 0;
    A.MemGetInfo(&Free, &Total);
    uint64_t MemCap = std::min<uint64_t>(Free / 4, 4ull << 30);
    unsigned Want = unsigned(std::ceil(100.0 / std::max(Est, 1.0)));
    Want = std::min(Want, 64u);
    // Per copy: the inputs once, the outputs once per party.
    if (uint64_t PerCopy = Footprint + 2 * OutBytes)
      Want = unsigned(std::min<uint64_t>(Want, MemCap / PerCopy));
    // A multiple of 3 from 3 on, so that each measurement uses each
    // party's buffers equally often.
    Batch = Want >= 3 ? Want - Want % 3 : std::max(1u, Want);
  }
  for (unsigned C = 1; C < Batch; ++C)
    if (!AddCopy())
      return Cleanup(), false;
  if (Batch > 1)
    for (int W = Orig; W <= Ctrl; ++W)
      if (!Measure(W, Ev[0], Ev[1]) || !syncAfter(W, "while timing"))
        return Cleanup(), false;

  // Rounds of a palindrome A B C C B A over the original (O), the
  // candidate and the control (X, a second copy of the original), so that
  // linear drift cancels within a round; the roles rotate through all six
  // orders so that no kernel keeps a position (first after the host sync,
  // right after itself, ...) and position effects cancel over 6 rounds.
  static const int Orders[6][3] = {{Orig, Cand, Ctrl}, {Cand, Ctrl, Orig},
                                   {Ctrl, Orig, Cand}, {Orig, Ctrl, Cand},
                                   {Cand, Orig, Ctrl}, {Ctrl, Cand, Orig}};
  std::vector<double> TO, TC, Speed, Control;
  auto Start = Clock::now();
  StoppingRule Stop;
  Stop.TimeBudget = job().TimeBudget;
  Stop.TargetHalfWidth = job().TargetHalfWidth;
  TimingResult TR;
  while (true) {
    const int *Ord = Orders[Speed.size() % 6];
    Turn = unsigned(Speed.size());
    int Pattern[6] = {Ord[0], Ord[1], Ord[2], Ord[2], Ord[1], Ord[0]};
    for (int P = 0; P < 6; ++P)
      if (!Measure(Pattern[P], Ev[2 * P], Ev[2 * P + 1]))
        return Cleanup(), false;
    if (!syncAfter(Cand, "while timing shape " + Sh.str()))
      return Cleanup(), false;
    double Sum[3] = {0, 0, 0};
    for (int P = 0; P < 6; ++P)
      Sum[Pattern[P]] += Elapsed(Ev[2 * P], Ev[2 * P + 1]) / 2;
    double O = Sum[Orig], C = Sum[Cand], X = Sum[Ctrl];
    TO.push_back(O);
    TC.push_back(C);
    Speed.push_back(O / C);
    Control.push_back(O / X);
    if (Stop.shouldStop(Speed, Control, secondsSince(Start)))
      break;
  }
  // What the last round's launches wrote (each party's last timed launch
  // on each copy); then a closing batch, each party once more on its own
  // buffers, untimed, after all its timed launches (a launch counter is at
  // its highest), checked too.
  bool Checked =
      checkTimedOutputs(Sh, *L, RefDev, Copies, Batch, SetOf, "timed launches");
  if (Checked) {
    Closing = true;
    for (int W = Orig; W <= Ctrl; ++W)
      if (!Measure(W, Ev[0], Ev[1]) ||
          !syncAfter(W, "in the closing batch on shape " + Sh.str()))
        return Cleanup(), false;
    Checked = checkTimedOutputs(Sh, *L, RefDev, Copies, Batch, SetOf,
                                "closing batch (after its timed rounds)");
  }
  Cleanup();
  if (!Checked)
    return false;
  TR.Rounds = Speed.size();
  TR.Batch = Batch;
  TR.OrigUs = median(TO);
  TR.CandUs = median(TC);
  TR.Speedup = medianCI(Speed);
  TR.Control = medianCI(Control);
  TR.Margin = acceptanceMargin(TR.Control, job().MinGain);
  TR.Verdict = judgeSpeedup(TR.Speedup, TR.Control, job().MinGain);
  // The spec's minimum bytes when it gives them, else every buffer whole.
  TR.Bytes = double(L->MinBytes);
  // Bytes the batch must move to or from DRAM. With the spec's `bytes` (a
  // lower bound on all traffic): less what L2 may hold of the inputs at the
  // start and of the outputs at the end. Without: only the outputs, less what
  // does not fit in L2 at the end (the whole inputs are no lower bound).
  double MustMove =
      L->MinBytesFromSpec
          ? std::max(0.0, double(Batch) * double(L->MinBytes) -
                              2.0 * double(D.L2Bytes))
          : std::max(0.0, double(Batch) * double(OutBytes) - double(D.L2Bytes));
  TR.FloorUs =
      D.PeakDramGBs > 0 ? MustMove / (D.PeakDramGBs * 1e9) / Batch * 1e6 : 0;
  TR.OrigGBs = TR.OrigUs > 0 ? TR.Bytes / (TR.OrigUs * 1e-6) / 1e9 : 0;
  TR.CandGBs = TR.CandUs > 0 ? TR.Bytes / (TR.CandUs * 1e-6) / 1e9 : 0;
  if (D.CopyGBs > 0) {
    TR.OrigPctCopy = 100 * TR.OrigGBs / D.CopyGBs;
    TR.CandPctCopy = 100 * TR.CandGBs / D.CopyGBs;
  }
  // Nominal bytes count every buffer once; an input much larger than the
  // outputs (a gather's table) is likely read only in part.
  for (size_t I = 0; I < NA; ++I)
    if (!L->MinBytesFromSpec && !L->Args[I].IsScalar &&
        K->Args[I].Role == ArgRole::In &&
        double(L->Args[I].Bytes) > 2.0 * std::max<double>(OutBytes, 1) &&
        !NominalNoted) {
      NominalNoted = true;
      Out.Result.Notes.push_back(
          "GB/s counts every buffer once (nominal bytes); input '" +
          K->Args[I].Name +
          "' is larger than twice all outputs: if the kernel reads only part "
          "of it, the GB/s overstate the traffic (the spec's \"bytes\" "
          "gives the real figure)");
    }
  SR.Timing = TR;
  if (TR.OrigUs < TR.FloorUs) {
    Out.Status = WorkerStatus::Error;
    Out.Message = formatv("the original is timed at {0:f2} us on shape {1}, "
                          "below the physical floor of {2:f2} us: the "
                          "measurement is broken",
                          TR.OrigUs, Sh.str(), TR.FloorUs)
                      .str();
    return false;
  }
  if (TR.CandUs < TR.FloorUs)
    return fail(
        Reason::BelowPhysicalFloor, Cand,
        formatv("timed at {0:f2} us per launch on shape {1}, below "
                "the physical floor of {2:f2} us ({3} bytes {4} at "
                "{5:f0} GB/s peak DRAM bandwidth): a measurement "
                "error, not a speedup",
                TR.CandUs, Sh.str(), TR.FloorUs,
                L->MinBytesFromSpec ? L->MinBytes : OutBytes,
                L->MinBytesFromSpec ? "moved (the spec's bytes)" : "of output",
                D.PeakDramGBs)
            .str());
  return true;
}
} // namespace worker
} // namespace astra
