//===- Correctness.cpp - The worker's correctness cases -------------------===//
//
// Per shape: buffers with guards, the test cases (seeds, distributions),
// each run twice for the original and the candidate with the two poisons,
// and the checks of docs/harness.md ("Correctness") in the order a refusal
// names them.
//
//===----------------------------------------------------------------------===//
#include "RefStore.h"
#include "Worker.h"
#include "WorkerPhases.h"
#include "astra/Harness/InputGen.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstring>

using namespace llvm;

namespace astra {
namespace worker {

static std::string distLabel(const GenOptions &G) {
  std::string S = "seed " + std::to_string(G.Seed) + ", " +
                  (G.Distribution ? distName(*G.Distribution).str()
                                  : std::string("spec dist"));
  if (G.Specials)
    S += " + NaN/Inf";
  return S;
}

bool Worker::runCase(const Shape &Sh, const ResolvedLaunch &L,
                     const std::vector<DevBuf> &Bufs,
                     const std::vector<DevBuf> &Side, const GenOptions &G,
                     bool Generated, std::string &Dropped, bool &Regenerate,
                     std::string &Where,
                     std::vector<std::vector<uint8_t>> *Keep,
                     StringRef CasePrefix) {
  Regenerate = false;
  Where = "on shape " + Sh.str() + (Generated ? " (generated)" : "") + ", " +
          distLabel(G);
  const size_t NA = K->Args.size();
  // Outs[W][Run][Arg]: outputs (and inout buffers) after each run.
  std::vector<std::vector<uint8_t>> Outs[2][2];
  const WorkerMode Mode = job().Mode;
  Expected<ArgBuffers> In = ArgBuffers();
  if (Mode == WorkerMode::Candidate) {
    // The original's side of this case, computed once by the session.
    ScopedPhase P(Phase::RefIO);
    if (Error E = Prefetch->take(CasePrefix, *In, Outs[Orig]))
      return fail(Reason::Crash, Orig,
                  "cannot load the original's case " + Where + ": " +
                      errorText(std::move(E)));
  } else {
    ScopedPhase P(Phase::InputGen);
    In = generateInputs(*K, Sh, L, G);
  }
  if (!In) {
    std::string Msg = errorText(In.takeError());
    if (Generated) {
      Dropped = "inputs cannot be generated: " + Msg;
      return false;
    }
    return fail(Reason::Crash, Orig,
                "cannot generate inputs " + Where + ": " + Msg);
  }
  std::vector<cu::DevicePtr> Ptrs(NA, 0);
  for (size_t I = 0; I < NA; ++I)
    if (!L.Args[I].IsScalar)
      Ptrs[I] = Bufs[I].ptr();
  auto Upload = [&](bool InOutOnly) {
    for (size_t I = 0; I < NA; ++I) {
      const ArgSpec &AS = K->Args[I];
      if (AS.IsScalar || AS.Role == ArgRole::Out || !L.Args[I].Bytes)
        continue;
      if (InOutOnly && AS.Role != ArgRole::InOut)
        continue;
      if (!upload(Ptrs[I], (*In)[I].data(), L.Args[I].Bytes,
                  "upload " + AS.Name))
        return false;
    }
    return true;
  };
  if (!Upload(false))
    return false;
  // Device-side copies in Side: each input as uploaded (the unchanged-input
  // check compares with it on the device), and the original's run-0 output
  // (loaded here in candidate mode, copied after its run otherwise): a
  // candidate output bit-identical to it is neither downloaded nor compared
  // element by element.
  std::vector<char> HaveRef(NA, 0), SameAsRef[2];
  SameAsRef[0].assign(NA, 0);
  SameAsRef[1].assign(NA, 0);
  // Floating-point outputs that differ from the original's in the last bits
  // (fast math, reassociation) are compared on the device too, when the
  // original is deterministic there: run 0's output, within tolerance, is
  // kept on the device (Cand0) instead of downloaded; when run 1's is within
  // tolerance as well and bit-identical to run 0's, the host comparison
  // would pass (WorkerDevice.h, closeOnDevice) and nothing is downloaded.
  // Otherwise both runs are downloaded and compared on the host, which
  // names what failed.
  std::vector<DevBuf> Cand0(NA);
  llvm::scope_exit ReleaseCand0([&] { release(Cand0); });
  std::vector<char> Run0OnDevice(NA, 0), CloseToRef(NA, 0);
  // Decided once per output (the original's two runs are compared at most
  // once, not after each candidate run).
  std::vector<signed char> Comparable(NA, -1);
  auto DeviceComparable = [&](size_t I) {
    if (Comparable[I] < 0) {
      DType T = K->Args[I].Type;
      ArrayRef<uint8_t> O0 = Outs[Orig][0][I], O1 = origRun1(Outs[Orig], I);
      Comparable[I] =
          (T == DType::F32 || T == DType::F16 || T == DType::BF16) &&
          O0.size() == L.Args[I].Bytes && O1.size() == O0.size() &&
          (O1.data() == O0.data() ||
           std::memcmp(O0.data(), O1.data(), O0.size()) == 0);
    }
    return Comparable[I] == 1;
  };
  for (size_t I = 0; I < NA; ++I) {
    const ArgSpec &AS = K->Args[I];
    uint64_t Bytes = L.Args[I].Bytes;
    if (AS.IsScalar || !Bytes)
      continue;
    if (AS.Role == ArgRole::In) {
      if (!ok(A.MemcpyDtoDAsync(Side[I].ptr(), Ptrs[I], Bytes, S),
              "copy inputs"))
        return false;
    } else if (Mode == WorkerMode::Candidate &&
               Outs[Orig][0][I].size() == Bytes) {
      if (!upload(Side[I].ptr(), Outs[Orig][0][I].data(), Bytes,
                  "upload the original's outputs"))
        return false;
      HaveRef[I] = 1;
    }
  }

  const int First = Mode == WorkerMode::Candidate ? Cand : Orig;
  const int Last = Mode == WorkerMode::Reference ? Orig : Cand;
  for (int W = First; W <= Last; ++W) {
    for (unsigned Run = 0; Run < 2; ++Run) {
      Out.Progress(partyOf(W),
                   ("running the " + whoName(W) + " " + Where).str());
      if (!Upload(true))
        return false;
      for (size_t I = 0; I < NA; ++I) {
        if (L.Args[I].IsScalar)
          continue;
        const DevBuf &B = Bufs[I];
        A.MemsetD8Async(B.Base, GuardFill[Run], GuardBytes, S);
        A.MemsetD8Async(B.ptr() + B.Bytes, GuardFill[Run], GuardBytes, S);
        if (K->Args[I].Role == ArgRole::Out && B.Bytes)
          A.MemsetD8Async(B.ptr(), Poison[Run], B.Bytes, S);
      }
      if (!scrub(Run) || !launch(W, L, Ptrs) ||
          !syncAfter(W, "in the " + Twine(whoName(W)) + " " + Where))
        return false;
      auto &O = Outs[W][Run];
      O.assign(NA, {});
      std::vector<uint8_t> Guard(2 * GuardBytes);
      for (size_t I = 0; I < NA; ++I) {
        if (L.Args[I].IsScalar)
          continue;
        const ArgSpec &AS = K->Args[I];
        const DevBuf &B = Bufs[I];
        // Guards: nothing written outside any buffer.
        if (!ok(dtoh(Guard.data(), B.Base, GuardBytes), "download") ||
            !ok(dtoh(Guard.data() + GuardBytes, B.ptr() + B.Bytes, GuardBytes),
                "download"))
          return false;
        for (size_t J = 0; J < Guard.size(); ++J) {
          if (Guard[J] == GuardFill[Run])
            continue;
          bool After = J >= GuardBytes;
          long Off = After ? long(J - GuardBytes) : long(J) - long(GuardBytes);
          std::string Msg =
              ("writes outside its buffers: byte " + Twine(Off) +
               (After ? " past the end of '" : " (before the start) of '") +
               AS.Name + "' (" + Twine(B.Bytes) + " bytes) changed " + Where)
                  .str();
          if (W == Orig && Generated) {
            Dropped = "the original " + Msg;
            return false;
          }
          return fail(Reason::OutOfBoundsWrite, W, Msg);
        }
        if (AS.Role == ArgRole::In) {
          if (Run == 0 || !B.Bytes)
            continue; // inputs are uploaded once per kernel: check after
                      // its second run
          bool Same = false;
          if (!sameOnDevice(B.ptr(), Side[I].ptr(), B.Bytes, Same))
            return false;
          if (Same)
            continue;
          std::vector<uint8_t> Now(B.Bytes);
          if (!ok(dtoh(Now.data(), B.ptr(), B.Bytes), "download"))
            return false;
          if (Now != (*In)[I]) {
            size_t First = 0;
            while (First < Now.size() && Now[First] == (*In)[I][First])
              ++First;
            std::string Msg = ("writes to its input '" + AS.Name + "' (byte " +
                               Twine(First) + " changed) " + Where)
                                  .str();
            if (W == Orig && Generated) {
              Dropped = "the original " + Msg;
              return false;
            }
            if (W == Orig)
              return fail(Reason::WritesInput, W,
                          Msg + "; declare it \"inout\" in the spec");
            return fail(Reason::WritesInput, W, Msg);
          }
          continue;
        }
        if (W == Cand && HaveRef[I]) {
          bool Same = false;
          if (!sameOnDevice(B.ptr(), Side[I].ptr(), B.Bytes, Same))
            return false;
          bool Close = false;
          if (!Same && DeviceComparable(I) &&
              !closeOnDevice(B.ptr(), Side[I].ptr(), L.Args[I].Count, AS.Type,
                             K->toleranceFor(AS), Poison[Run], Close))
            return false;
          if (Run == 0 && Close) {
            // Kept on the device until run 1 decides.
            if (!alloc(Cand0[I], B.Bytes) ||
                !ok(A.MemcpyDtoDAsync(Cand0[I].ptr(), B.ptr(), B.Bytes, S),
                    "copy outputs"))
              return false;
            Run0OnDevice[I] = 1;
            continue;
          }
          if (Run == 1 && Run0OnDevice[I]) {
            bool SameRuns = false;
            if (Close &&
                !sameOnDevice(B.ptr(), Cand0[I].ptr(), B.Bytes, SameRuns))
              return false;
            if (SameRuns) {
              CloseToRef[I] = 1; // both runs' O[I] stay empty
              continue;
            }
            // Compared on the host after all: run 0's output too.
            auto &O0 = Outs[Cand][0][I];
            O0.resize(B.Bytes);
            if (!ok(dtoh(O0.data(), Cand0[I].ptr(), B.Bytes), "download"))
              return false;
          }
          if (Same) {
            SameAsRef[Run][I] = 1; // O[I] stays empty
            continue;
          }
        }
        O[I].resize(B.Bytes);
        if (B.Bytes && !ok(dtoh(O[I].data(), B.ptr(), B.Bytes), "download"))
          return false;
        if (W == Orig && Run == 0 && Mode == WorkerMode::Full && B.Bytes) {
          if (!ok(A.MemcpyDtoDAsync(Side[I].ptr(), B.ptr(), B.Bytes, S),
                  "copy outputs"))
            return false;
          HaveRef[I] = 1;
        }
      }
    }
    if (W == Orig) {
      // Informative test case: the original's outputs must tell a correct
      // kernel from a trivial one.
      std::vector<ArrayRef<uint8_t>> InRefs;
      for (size_t I = 0; I < NA; ++I)
        if (!K->Args[I].IsScalar && K->Args[I].Role != ArgRole::Out)
          InRefs.push_back((*In)[I]);
      for (size_t I = 0; I < NA; ++I) {
        const ArgSpec &AS = K->Args[I];
        if (AS.IsScalar || AS.Role == ArgRole::In)
          continue;
        if (std::optional<std::string> Why =
                uninformativeReason(Outs[Orig][0][I], AS.Type, InRefs)) {
          Regenerate = true;
          Where += "; output '" + AS.Name + "' " + *Why;
          return false;
        }
      }
    }
  }

  // The original's own run-to-run spread, output by output. On a generated
  // shape, an original that is deterministic on the spec's shapes but not
  // here is outside its contract: the shape is dropped.
  std::vector<Spread> Spreads(NA);
  for (size_t I = 0; I < NA; ++I) {
    const ArgSpec &AS = K->Args[I];
    if (AS.IsScalar || AS.Role == ArgRole::In)
      continue;
    Spreads[I] =
        originalSpread(Outs[Orig][0][I], origRun1(Outs[Orig], I), AS.Type,
                       L.Args[I].Count, AS.Role == ArgRole::Out);
    if (!Spreads[I].Differs)
      continue;
    if (Generated && OrigDeterministic) {
      Dropped = "the original is not deterministic here (output '" + AS.Name +
                "' differs between two runs) although it is on the spec's "
                "shapes";
      return false;
    }
    if (OrigDeterministic) {
      OrigDeterministic = false;
      Out.Result.Notes.push_back(
          formatv("the original is not deterministic (output '{0}' differs "
                  "between two runs by up to {1:e2} {2}): the candidate's "
                  "runs are not compared with each other, and its tolerance "
                  "widens by twice the original's spread",
                  AS.Name, Spreads[I].MaxAbs, Where)
              .str());
    }
  }

  if (Mode == WorkerMode::Reference) {
    // Stored for the session's candidates; nothing to compare here.
    ScopedPhase P(Phase::RefIO);
    if (Error E = writeRefCase(job().RefDir, CasePrefix, *In, Outs[Orig])) {
      F = Failure{Reason::Crash, Party::Harness,
                  "cannot store the original's case: " +
                      errorText(std::move(E))};
      return false;
    }
    return true;
  }

  // Compare, output by output, in parallel chunks.
  for (size_t I = 0; I < NA; ++I) {
    const ArgSpec &AS = K->Args[I];
    if (AS.IsScalar || AS.Role == ArgRole::In)
      continue;
    // Both runs bit-identical to the original's run 0: nothing differs,
    // is unwritten or is nondeterministic (compareRange), unless the
    // original leaves elements unwritten: they hold run 0's poison, which
    // the candidate's run 1 then wrote (run 1's poison differs). One of
    // them: it is that buffer. (CloseToRef: the original's runs are
    // bit-identical, so it leaves nothing unwritten.)
    if ((SameAsRef[0][I] && SameAsRef[1][I] && !Spreads[I].Unwritten) ||
        CloseToRef[I])
      continue;
    for (unsigned Run = 0; Run < 2; ++Run)
      if (SameAsRef[Run][I])
        Outs[Cand][Run][I] = Outs[Orig][0][I];
    DType T = AS.Type;
    size_t N = L.Args[I].Count;
    Tally All = compareOutputs(Outs[Orig][0][I], origRun1(Outs[Orig], I),
                               Outs[Cand][0][I], Outs[Cand][1][I], T, N,
                               AS.Role == ArgRole::Out, K->toleranceFor(AS),
                               Spreads[I]);
    if (std::optional<Mismatch> M = describeMismatch(
            All, AS.Name, T, N, K->toleranceFor(AS), Spreads[I].Unwritten,
            OrigDeterministic, Outs[Orig][0][I], Outs[Cand][0][I],
            Outs[Cand][1][I], Where))
      return fail(M->Why, Cand, M->Msg);
  }
  if (Keep)
    *Keep = std::move(*In);
  return true;
}

/// The test cases of a shape of \p Bytes total size: several distributions
/// and seeds on small shapes, fewer on large ones (docs/harness.md).
static std::vector<GenOptions> casesFor(size_t Index, uint64_t Bytes,
                                        bool AnySpecials) {
  std::vector<GenOptions> C;
  uint64_t Base = 1000 * (Index + 1);
  auto Add = [&](std::optional<Dist> D, bool Specials = false) {
    GenOptions G;
    G.Seed = Base + C.size() + 1;
    G.Distribution = D;
    G.Specials = Specials;
    C.push_back(G);
  };
  Add(std::nullopt); // the spec's own distributions
  if (Bytes <= (256u << 20))
    Add(Dist::Heavy);
  if (Bytes <= (32u << 20)) {
    Add(std::nullopt);
    Add(Dist::Large);
    Add(Dist::Small);
    Add(Dist::Uniform);
    if (AnySpecials)
      Add(std::nullopt, true);
  }
  return C;
}

bool Worker::checkShape(size_t Index, ShapeResult &SR) {
  const WorkerShape &WS = job().Shapes[Index];
  Shape Sh = WS.shape();
  SR.Shape = Sh.str();
  SR.Generated = WS.Generated;
  SR.Checked = true;
  Expected<ResolvedLaunch> L = resolve(*K, Sh);
  if (!L) {
    std::string Msg = errorText(L.takeError());
    if (WS.Generated) {
      SR.Dropped = "does not resolve: " + Msg;
      return true;
    }
    Out.Status = WorkerStatus::Error;
    Out.Message = Msg;
    return false;
  }
  // The candidate's own launch (launch overrides): the same buffers.
  if (Error E = resolveCandidateLaunch(*K, Sh, job().Launch, *L))
    return fail(Reason::LaunchFailed, Cand, errorText(std::move(E)));
  if (!setSharedLimit(*L))
    return false;
  uint64_t Total = 0;
  bool AnySpecials = false;
  // Side: per buffer, its device-side copy for the comparisons on the
  // device (runCase).
  std::vector<DevBuf> Bufs(K->Args.size()), Side(K->Args.size());
  auto ReleaseAll = [&] {
    release(Bufs);
    release(Side);
  };
  for (size_t I = 0; I < K->Args.size(); ++I) {
    AnySpecials |= K->Args[I].Specials;
    if (L->Args[I].IsScalar)
      continue;
    Total += L->Args[I].Bytes;
    if (!alloc(Bufs[I], L->Args[I].Bytes) ||
        !alloc(Side[I], L->Args[I].Bytes)) {
      ReleaseAll();
      return false;
    }
  }
  // The cases: generated here (full and reference modes), or the ones the
  // session's reference stored (candidate mode).
  std::vector<RefCase> Cases;
  if (job().Mode == WorkerMode::Candidate) {
    const RefShape &RS = Reference->Shapes[Index];
    if (!RS.Dropped.empty()) {
      SR.Dropped = RS.Dropped;
      ReleaseAll();
      return true;
    }
    Cases = RS.Cases;
  } else {
    for (const GenOptions &G : casesFor(Index, Total, AnySpecials))
      Cases.push_back({G, formatv("s{0}_c{1}", Index, Cases.size()).str()});
  }
  bool Ok = true;
  for (RefCase &C : Cases) {
    GenOptions &G = C.G;
    std::string Dropped, Where;
    bool Regenerate = false;
    unsigned Tries = 0;
    // The first case's inputs are kept for timing (no second generation).
    std::vector<std::vector<uint8_t>> *Keep =
        WS.Timed && SR.Cases == 0 ? &TimingInputs[Index] : nullptr;
    bool Done;
    while (!(Done = runCase(Sh, *L, Bufs, Side, G, WS.Generated, Dropped,
                            Regenerate, Where, Keep, C.Prefix))) {
      if (F || !Dropped.empty() || !Regenerate)
        break;
      // Not informative: new inputs from another seed, a few times.
      if (++Tries == 3) {
        Out.Result.Notes.push_back("uninformative test case kept after 3 "
                                   "regenerations " +
                                   Where);
        Regenerate = false;
        break;
      }
      G.Seed += 7919;
    }
    if (F) {
      Ok = false;
      break;
    }
    if (!Dropped.empty()) {
      SR.Dropped = Dropped;
      break;
    }
    ++SR.Cases;
    if (Done && job().Mode == WorkerMode::Reference)
      Reference->Shapes[Index].Cases.push_back(C);
  }
  if (job().Mode == WorkerMode::Reference)
    Reference->Shapes[Index].Dropped = SR.Dropped;
  ReleaseAll();
  if (Ok && SR.Dropped.empty())
    SR.Correct = true;
  return Ok;
}

} // namespace worker
} // namespace astra
