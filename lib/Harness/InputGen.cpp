//===- InputGen.cpp - Deterministic test inputs ---------------------------===//
//
// Compiled with -ffp-contract=off (lib/Harness/CMakeLists.txt): a fused
// multiply-add would change the low bits of generated values on machines that
// have one.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/InputGen.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Parallel.h"
#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace astra {

//===-- Element access ------------------------------------------------------===//

namespace {
template <typename T> T loadAs(ArrayRef<uint8_t> Buf, size_t I) {
  T V;
  std::memcpy(&V, Buf.data() + I * sizeof(T), sizeof(T));
  return V;
}
template <typename T> void storeAs(MutableArrayRef<uint8_t> Buf, size_t I, T V) {
  std::memcpy(Buf.data() + I * sizeof(T), &V, sizeof(T));
}
} // namespace

int64_t loadInteger(ArrayRef<uint8_t> Buf, DType T, size_t I) {
  switch (T) {
  case DType::I8:
    return loadAs<int8_t>(Buf, I);
  case DType::U8:
  case DType::Bool:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
    return loadAs<uint8_t>(Buf, I);
  case DType::I16:
    return loadAs<int16_t>(Buf, I);
  case DType::U16:
  case DType::F16:
  case DType::BF16:
    return loadAs<uint16_t>(Buf, I);
  case DType::I32:
    return loadAs<int32_t>(Buf, I);
  case DType::U32:
  case DType::F32:
    return loadAs<uint32_t>(Buf, I);
  case DType::I64:
  case DType::U64:
  case DType::F64:
    return loadAs<int64_t>(Buf, I);
  }
  llvm_unreachable("unknown dtype");
}

void storeInteger(MutableArrayRef<uint8_t> Buf, DType T, size_t I, int64_t V) {
  switch (dtypeSize(T)) {
  case 1:
    return storeAs(Buf, I, uint8_t(V));
  case 2:
    return storeAs(Buf, I, uint16_t(V));
  case 4:
    return storeAs(Buf, I, uint32_t(V));
  default:
    return storeAs(Buf, I, uint64_t(V));
  }
}

double loadElement(ArrayRef<uint8_t> Buf, DType T, size_t I) {
  switch (T) {
  case DType::F32:
    return loadAs<float>(Buf, I);
  case DType::F64:
    return loadAs<double>(Buf, I);
  case DType::F16:
    return halfToFloat(loadAs<uint16_t>(Buf, I));
  case DType::BF16:
    return bf16ToFloat(loadAs<uint16_t>(Buf, I));
  case DType::FP8E4M3:
    return fp8E4M3ToFloat(loadAs<uint8_t>(Buf, I));
  case DType::FP8E5M2:
    return fp8E5M2ToFloat(loadAs<uint8_t>(Buf, I));
  case DType::U64:
    return double(loadAs<uint64_t>(Buf, I));
  default:
    return double(loadInteger(Buf, T, I));
  }
}

void storeElement(MutableArrayRef<uint8_t> Buf, DType T, size_t I, double V) {
  switch (T) {
  case DType::F32:
    return storeAs(Buf, I, float(V));
  case DType::F64:
    return storeAs(Buf, I, V);
  case DType::F16:
    return storeAs(Buf, I, floatToHalf(float(V)));
  case DType::BF16:
    return storeAs(Buf, I, floatToBF16(float(V)));
  case DType::FP8E4M3:
    return storeAs(Buf, I, floatToFp8E4M3(float(V)));
  case DType::FP8E5M2:
    return storeAs(Buf, I, floatToFp8E5M2(float(V)));
  default:
    // Truncate toward zero; out-of-range and NaN values become 0.
    if (!(std::fabs(V) < 9.2e18))
      V = 0;
    return storeInteger(Buf, T, I, int64_t(V));
  }
}

//===-- Random numbers ------------------------------------------------------===//

static uint64_t splitmix64(uint64_t &State) {
  uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

static uint64_t rotl(uint64_t X, int K) { return (X << K) | (X >> (64 - K)); }

Rng::Rng(uint64_t Seed) {
  for (uint64_t &W : S)
    W = splitmix64(Seed);
}

uint64_t Rng::next() {
  uint64_t Result = rotl(S[1] * 5, 7) * 9;
  uint64_t T = S[1] << 17;
  S[2] ^= S[0];
  S[3] ^= S[1];
  S[1] ^= S[2];
  S[0] ^= S[3];
  S[2] ^= T;
  S[3] = rotl(S[3], 45);
  return Result;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

uint64_t Rng::below(uint64_t N) {
  // Rejection sampling on the top bits: unbiased, portable.
  uint64_t Limit = UINT64_MAX - UINT64_MAX % N;
  uint64_t X;
  do
    X = next();
  while (X >= Limit);
  return X % N;
}

static uint64_t fnv1a(StringRef S, uint64_t H) {
  for (unsigned char C : S) {
    H ^= C;
    H *= 0x100000001b3ULL;
  }
  return H;
}

uint64_t streamSeed(uint64_t Seed, const Shape &S, StringRef ArgName) {
  uint64_t H = fnv1a(S.str(), 0xcbf29ce484222325ULL);
  H = fnv1a("|", H);
  H = fnv1a(ArgName, H);
  uint64_t State = Seed ^ H;
  return splitmix64(State);
}

//===-- Buffers -------------------------------------------------------------===//

namespace {
/// Four 16-bit uniforms (each centred in its bucket) summed, centred and
/// scaled to variance 1.
double normalFromBits(uint64_t H) {
  double Sum = 0;
  for (int I = 0; I < 4; ++I)
    Sum += (double((H >> (16 * I)) & 0xffff) + 0.5) * 0x1.0p-16;
  return (Sum - 2.0) * 1.7320508075688772; // sqrt(12 / 4)
}

double unitFromBits(uint64_t H) { return double(H >> 11) * 0x1.0p-53; }
} // namespace

double sampleAt(uint64_t StreamSeed, uint64_t Index, Dist D) {
  uint64_t State = Index;
  uint64_t H = splitmix64(State) ^ StreamSeed;
  State = H;
  H = splitmix64(State);
  switch (D) {
  case Dist::Normal:
    return normalFromBits(H);
  case Dist::Uniform:
    return 2.0 * unitFromBits(H) - 1.0;
  case Dist::Positive:
    return 0.5 + 1.5 * unitFromBits(H);
  case Dist::Heavy: {
    // Student-t with 3 degrees of freedom: mostly O(1), rarely large.
    double Z = normalFromBits(H);
    double Chi = 0;
    for (int I = 0; I < 3; ++I) {
      double N = normalFromBits(splitmix64(State));
      Chi += N * N;
    }
    return Z / std::sqrt(std::max(Chi / 3.0, 1e-4));
  }
  case Dist::Small:
    return 1e-3 * normalFromBits(H);
  case Dist::Large:
    return 1e3 * normalFromBits(H);
  }
  llvm_unreachable("unknown dist");
}

namespace {
/// \p K distinct values from [0, N), in random order (Floyd's algorithm,
/// then a shuffle).
std::vector<int64_t> distinct(Rng &R, int64_t N, int64_t K) {
  std::vector<int64_t> Out;
  Out.reserve(K);
  for (int64_t J = N - K; J < N; ++J) {
    int64_t T = int64_t(R.below(uint64_t(J + 1)));
    Out.push_back(is_contained(Out, T) ? J : T);
  }
  for (size_t I = Out.size(); I > 1; --I)
    std::swap(Out[I - 1], Out[R.below(I)]);
  return Out;
}

class BufferGen {
public:
  BufferGen(const KernelSpec &K, const Shape &S, const GenOptions &Opts)
      : K(K), S(S), Opts(Opts) {}

  Error fill(size_t Index, std::vector<uint8_t> &Buf, uint64_t Count,
             const std::vector<std::vector<uint8_t>> &All) {
    const ArgSpec &A = K.Args[Index];
    uint64_t Stream = streamSeed(Opts.Seed, S, A.Name);
    Rng R(Stream);
    DType T = A.Type;
    Buf.assign(Count * dtypeSize(T), 0);
    int64_t Lo = 0, Hi = 0;
    if (A.Range) {
      Expected<int64_t> L = A.Range->first.eval(S);
      if (!L)
        return L.takeError();
      Expected<int64_t> H = A.Range->second.eval(S);
      if (!H)
        return H.takeError();
      Lo = *L, Hi = *H;
    } else if (!isFloatDType(T)) {
      Lo = isSignedIntDType(T) ? -64 : 0;
      Hi = T == DType::Bool ? 2 : isSignedIntDType(T) ? 64 : 128;
    }
    auto Uniform = [&]() { return Lo + int64_t(R.below(uint64_t(Hi - Lo))); };
    if (Count > 0 && !isFloatDType(T) && Hi <= Lo &&
        !(A.Gen && (A.Gen->Kind == GenKind::Iota ||
                    A.Gen->Kind == GenKind::Permutation ||
                    A.Gen->Kind == GenKind::CsrIndptr ||
                    A.Gen->Kind == GenKind::Constant)))
      return err(A, "empty range [" + Twine(Lo) + ", " + Twine(Hi) + ")");

    if (!A.Gen) {
      if (isFloatDType(T)) {
        Dist D = A.Distribution ? *A.Distribution
                                : Opts.Distribution.value_or(Dist::Normal);
        // Chunks of 64Ki elements, in parallel for large buffers.
        const uint64_t Chunk = 1 << 16;
        auto Fill = [&](size_t C) {
          uint64_t End = std::min(Count, (C + 1) * Chunk);
          for (uint64_t I = C * Chunk; I < End; ++I)
            storeElement(Buf, T, I, sampleAt(Stream, I, D));
        };
        uint64_t Chunks = (Count + Chunk - 1) / Chunk;
        if (Chunks > 4)
          parallelFor(0, Chunks, Fill);
        else
          for (uint64_t C = 0; C < Chunks; ++C)
            Fill(C);
        if (Opts.Specials && A.Specials)
          injectSpecials(R, Buf, T, Count);
      } else {
        for (uint64_t I = 0; I < Count; ++I)
          storeInteger(Buf, T, I, Uniform());
      }
      return Error::success();
    }

    const GenSpec &G = *A.Gen;
    switch (G.Kind) {
    case GenKind::Iota:
      for (uint64_t I = 0; I < Count; ++I)
        storeElement(Buf, T, I, double(I));
      return Error::success();
    case GenKind::Constant: {
      double V = G.Value.IsFloat ? G.Value.Float : 0;
      int64_t IV = 0;
      if (!G.Value.IsFloat) {
        Expected<int64_t> E = G.Value.Int.eval(S);
        if (!E)
          return E.takeError();
        IV = *E;
        V = double(IV);
      }
      for (uint64_t I = 0; I < Count; ++I) {
        if (isFloatDType(T))
          storeElement(Buf, T, I, V);
        else
          storeInteger(Buf, T, I, G.Value.IsFloat ? int64_t(V) : IV);
      }
      return Error::success();
    }
    case GenKind::Permutation: {
      std::vector<int64_t> P(Count);
      for (uint64_t I = 0; I < Count; ++I)
        P[I] = int64_t(I);
      for (uint64_t I = Count; I > 1; --I)
        std::swap(P[I - 1], P[R.below(I)]);
      for (uint64_t I = 0; I < Count; ++I)
        storeInteger(Buf, T, I, P[I]);
      return Error::success();
    }
    case GenKind::Sorted: {
      std::vector<int64_t> V(Count);
      for (int64_t &X : V)
        X = Uniform();
      llvm::sort(V);
      for (uint64_t I = 0; I < Count; ++I)
        storeInteger(Buf, T, I, V[I]);
      return Error::success();
    }
    case GenKind::DistinctPerRow: {
      Expected<int64_t> Row = G.Row.eval(S);
      if (!Row)
        return Row.takeError();
      if (*Row < 1 || Count % uint64_t(*Row) != 0 || Hi - Lo < *Row)
        return err(A, "distinct_per_row cannot give valid data here (row " +
                          Twine(*Row) + ", count " + Twine(Count) +
                          ", range [" + Twine(Lo) + ", " + Twine(Hi) + "))");
      for (uint64_t Start = 0; Start < Count; Start += uint64_t(*Row)) {
        std::vector<int64_t> D = distinct(R, Hi - Lo, *Row);
        for (int64_t J = 0; J < *Row; ++J)
          storeInteger(Buf, T, Start + J, Lo + D[J]);
      }
      return Error::success();
    }
    case GenKind::CsrIndptr: {
      Expected<int64_t> Rows = G.Rows.eval(S);
      if (!Rows)
        return Rows.takeError();
      Expected<int64_t> MinD = G.MinDegree.eval(S);
      if (!MinD)
        return MinD.takeError();
      Expected<int64_t> MaxD = G.MaxDegree.eval(S);
      if (!MaxD)
        return MaxD.takeError();
      if (*Rows < 0 || uint64_t(*Rows) + 1 != Count || *MinD < 0 ||
          *MinD > *MaxD)
        return err(A, "csr_indptr cannot give valid data here (rows " +
                          Twine(*Rows) + ", count " + Twine(Count) + ")");
      int64_t Acc = 0;
      storeInteger(Buf, T, 0, 0);
      for (int64_t I = 0; I < *Rows; ++I) {
        Acc += *MinD + int64_t(R.below(uint64_t(*MaxD - *MinD + 1)));
        storeInteger(Buf, T, uint64_t(I + 1), Acc);
      }
      return Error::success();
    }
    case GenKind::CsrIndices: {
      const ArgSpec *Ptr = nullptr;
      size_t PtrIndex = 0;
      for (size_t J = 0; J < K.Args.size(); ++J)
        if (K.Args[J].Name == G.Indptr) {
          Ptr = &K.Args[J];
          PtrIndex = J;
        }
      if (!Ptr || All[PtrIndex].empty())
        return err(A, "csr_indices: indptr argument '" + G.Indptr +
                          "' has no generated data");
      const std::vector<uint8_t> &PB = All[PtrIndex];
      size_t Rows = PB.size() / dtypeSize(Ptr->Type) - 1;
      // Unused tail entries still hold valid ids.
      for (uint64_t I = 0; I < Count; ++I)
        storeInteger(Buf, T, I, Lo);
      for (size_t Row = 0; Row < Rows; ++Row) {
        int64_t B = loadInteger(PB, Ptr->Type, Row);
        int64_t E = loadInteger(PB, Ptr->Type, Row + 1);
        if (E < B || uint64_t(E) > Count || E - B > Hi - Lo)
          return err(A, "csr_indices: row " + Twine(Row) + " of '" +
                            G.Indptr + "' does not fit (count " +
                            Twine(Count) + ", range [" + Twine(Lo) + ", " +
                            Twine(Hi) + "))");
        std::vector<int64_t> D = distinct(R, Hi - Lo, E - B);
        llvm::sort(D);
        for (int64_t J = 0; J < E - B; ++J)
          storeInteger(Buf, T, uint64_t(B + J), Lo + D[J]);
      }
      return Error::success();
    }
    }
    llvm_unreachable("unknown generator");
  }

private:
  const KernelSpec &K;
  const Shape &S;
  const GenOptions &Opts;

  Error err(const ArgSpec &A, const Twine &Msg) {
    return makeInputError("kernel '" + K.Kernel + "', argument '" + A.Name +
                          "', shape {" + S.str() + "}: " + Msg);
  }

  /// A few NaN, +Inf and -Inf at random positions: about one in a thousand
  /// elements, at least 1, at most 8.
  void injectSpecials(Rng &R, std::vector<uint8_t> &Buf, DType T,
                      uint64_t Count) {
    if (Count == 0)
      return;
    uint64_t N = std::min<uint64_t>(8, std::max<uint64_t>(1, Count / 1000));
    const double Values[] = {NAN, INFINITY, -INFINITY};
    for (uint64_t I = 0; I < N; ++I)
      storeElement(Buf, T, R.below(Count), Values[I % 3]);
  }
};
} // namespace

Expected<std::vector<std::vector<uint8_t>>>
generateInputs(const KernelSpec &K, const Shape &S, const ResolvedLaunch &L,
               const GenOptions &Opts) {
  if (L.Args.size() != K.Args.size())
    return makeInternalError("generateInputs: launch not resolved for kernel '" +
                             K.Kernel + "'");
  std::vector<std::vector<uint8_t>> Out(K.Args.size());
  BufferGen G(K, S, Opts);
  // csr_indices reads its indptr buffer: generate those last.
  for (int Pass = 0; Pass < 2; ++Pass)
    for (size_t I = 0; I < K.Args.size(); ++I) {
      const ArgSpec &A = K.Args[I];
      if (A.IsScalar || A.Role == ArgRole::Out)
        continue;
      bool Late = A.Gen && A.Gen->Kind == GenKind::CsrIndices;
      if (Late != (Pass == 1))
        continue;
      if (Error E = G.fill(I, Out[I], L.Args[I].Count, Out))
        return std::move(E);
    }
  return Out;
}

std::optional<std::string>
uninformativeReason(ArrayRef<uint8_t> Out, DType T,
                    ArrayRef<ArrayRef<uint8_t>> Inputs) {
  size_t Size = dtypeSize(T);
  size_t N = Out.size() / Size;
  if (N <= 1)
    return std::nullopt;
  bool AllZero = true;
  for (size_t I = 0; I < N && AllZero; ++I)
    AllZero = loadElement(Out, T, I) == 0.0;
  if (AllZero)
    return std::string("every output element is zero");
  bool Constant = true;
  for (size_t I = 1; I < N && Constant; ++I)
    Constant = std::memcmp(Out.data(), Out.data() + I * Size, Size) == 0;
  if (Constant)
    return std::string("every output element is equal");
  for (size_t I = 0; I < Inputs.size(); ++I)
    if (Inputs[I].size() >= Out.size() &&
        std::memcmp(Inputs[I].data(), Out.data(), Out.size()) == 0)
      return "the output is a copy of input buffer " + std::to_string(I);
  return std::nullopt;
}

} // namespace astra
