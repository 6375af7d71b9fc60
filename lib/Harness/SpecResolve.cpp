//===- SpecResolve.cpp - A kernel spec on one shape -----------------------===//
#include "SpecInternal.h"
#include "astra/Harness/InputGen.h"
#include <cstring>
#include <limits>

using namespace llvm;

namespace astra {
namespace detail {

namespace {

bool fitsInt(DType T, int64_t V) {
  int64_t Lo;
  uint64_t Hi;
  intDTypeLimits(T, Lo, Hi);
  return V >= Lo && (V < 0 || uint64_t(V) <= Hi);
}

template <typename T> void put(ResolvedArg &A, T V) {
  A.ParamBytes.resize(sizeof(T));
  std::memcpy(A.ParamBytes.data(), &V, sizeof(T));
  A.ParamSize = sizeof(T);
}

void encodeScalar(ResolvedArg &A) {
  switch (A.Type) {
  case DType::F32:
    return put(A, float(A.FloatValue));
  case DType::F64:
    return put(A, A.FloatValue);
  case DType::F16:
    return put(A, floatToHalf(float(A.FloatValue)));
  case DType::BF16:
    return put(A, floatToBF16(float(A.FloatValue)));
  case DType::FP8E4M3:
    return put(A, floatToFp8E4M3(float(A.FloatValue)));
  case DType::FP8E5M2:
    return put(A, floatToFp8E5M2(float(A.FloatValue)));
  case DType::Bool:
  case DType::I8:
  case DType::U8:
    return put(A, uint8_t(A.IntValue));
  case DType::I16:
  case DType::U16:
    return put(A, uint16_t(A.IntValue));
  case DType::I32:
  case DType::U32:
    return put(A, uint32_t(A.IntValue));
  case DType::I64:
  case DType::U64:
    return put(A, uint64_t(A.IntValue));
  }
}
/// Can each generator give valid data on this shape?
template <typename EvalFn, typename FailFn>
void checkGenerators(const KernelSpec &K, const Shape &S,
                     const ResolvedLaunch &L, EvalFn &Eval, FailFn &Fail) {
  std::string In = " for shape {" + S.str() + "}";
  for (size_t I = 0; I < K.Args.size(); ++I) {
    const ArgSpec &A = K.Args[I];
    if (A.IsScalar || I >= L.Args.size() || A.Count.empty())
      continue;
    int64_t Count = int64_t(L.Args[I].Count);
    std::optional<int64_t> Lo, Hi;
    if (A.Range) {
      std::string RP = member(A.Path, "range");
      Lo = Eval(A.Range->first, element(RP, 0));
      Hi = Eval(A.Range->second, element(RP, 1));
      if (Lo && Hi) {
        if (*Lo >= *Hi && Count > 0)
          Fail(RP, "empty range [" + Twine(*Lo) + ", " + Twine(*Hi) + ")" +
                       In);
        else if (!fitsInt(A.Type, *Lo) || !fitsInt(A.Type, *Hi - 1))
          Fail(RP, "range [" + Twine(*Lo) + ", " + Twine(*Hi) + ")" + In +
                       " does not fit in " + dtypeName(A.Type));
      }
    }
    if (!A.Gen)
      continue;
    const GenSpec &G = *A.Gen;
    std::string GP = member(A.Path, "gen");
    switch (G.Kind) {
    case GenKind::CsrIndptr: {
      std::optional<int64_t> Rows = Eval(G.Rows, member(GP, "rows"));
      std::optional<int64_t> MinD = Eval(G.MinDegree, member(GP, "min_degree"));
      std::optional<int64_t> MaxD = Eval(G.MaxDegree, member(GP, "max_degree"));
      if (!Rows || !MinD || !MaxD)
        break;
      if (*Rows < 0 || *MinD < 0 || *MinD > *MaxD)
        Fail(GP, "needs rows >= 0 and 0 <= min_degree <= max_degree; got "
                 "rows=" + Twine(*Rows) + ", min_degree=" + Twine(*MinD) +
                     ", max_degree=" + Twine(*MaxD) + In);
      else if (Count != *Rows + 1)
        Fail(member(A.Path, "count"),
             "a csr_indptr buffer holds rows + 1 = " + Twine(*Rows + 1) +
                 " elements, count is " + Twine(Count) + In);
      else if (!fitsInt(A.Type, *Rows * *MaxD))
        Fail(GP, "rows * max_degree = " + Twine(*Rows * *MaxD) +
                     " does not fit in " + dtypeName(A.Type) + In);
      break;
    }
    case GenKind::CsrIndices: {
      for (size_t J = 0; J < K.Args.size(); ++J) {
        const ArgSpec &P = K.Args[J];
        if (P.Name != G.Indptr || !P.Gen || P.Gen->Kind != GenKind::CsrIndptr)
          continue;
        std::string PG = member(P.Path, "gen");
        std::optional<int64_t> Rows = Eval(P.Gen->Rows, member(PG, "rows"));
        std::optional<int64_t> MaxD =
            Eval(P.Gen->MaxDegree, member(PG, "max_degree"));
        if (!Rows || !MaxD)
          break;
        if (Count < *Rows * *MaxD)
          Fail(member(A.Path, "count"),
               "up to rows * max_degree = " + Twine(*Rows * *MaxD) +
                   " column ids (from '" + P.Name + "'), count is " +
                   Twine(Count) + In);
        if (Lo && Hi && *Hi - *Lo < *MaxD)
          Fail(member(A.Path, "range"),
               "a row's column ids are distinct: the range holds " +
                   Twine(*Hi - *Lo) + " values, max_degree of '" + P.Name +
                   "' is " + Twine(*MaxD) + In);
      }
      break;
    }
    case GenKind::DistinctPerRow: {
      std::optional<int64_t> Row = Eval(G.Row, member(GP, "row"));
      if (!Row)
        break;
      if (*Row < 1)
        Fail(member(GP, "row"), "row is " + Twine(*Row) + In +
                                    ": expected at least 1");
      else if (Count % *Row != 0)
        Fail(member(A.Path, "count"),
             "count " + Twine(Count) + " is not a multiple of row = " +
                 Twine(*Row) + In);
      else if (Lo && Hi && *Hi - *Lo < *Row)
        Fail(member(A.Path, "range"),
             "the range holds " + Twine(*Hi - *Lo) + " values, fewer than "
                 "row = " + Twine(*Row) + " distinct ones" + In);
      break;
    }
    case GenKind::Permutation:
    case GenKind::Iota:
      if (Count > 0 && !isFloatDType(A.Type) && !fitsInt(A.Type, Count - 1))
        Fail(GP, "values up to " + Twine(Count - 1) + " do not fit in " +
                     dtypeName(A.Type) + In);
      break;
    case GenKind::Constant:
      if (!G.Value.IsFloat)
        if (std::optional<int64_t> V = Eval(G.Value.Int, member(GP, "value")))
          if (!isFloatDType(A.Type) && !fitsInt(A.Type, *V))
            Fail(member(GP, "value"), "value " + Twine(*V) + In +
                                          " does not fit in " +
                                          dtypeName(A.Type));
      break;
    case GenKind::Sorted:
      break;
    }
  }
}
} // namespace

bool resolveReporting(const KernelSpec &K, const Shape &S,
                      ResolvedLaunch &Out,
                      function_ref<void(StringRef, const Twine &)> Report,
                      bool QuietUnbound) {
  bool Ok = true;
  auto Fail = [&](StringRef Path, const Twine &Msg) {
    Ok = false;
    Report(Path, Msg);
  };
  // An empty expression is one that did not parse (already reported).
  auto Eval = [&](const SizeExpr &E,
                  StringRef Path) -> std::optional<int64_t> {
    if (E.empty())
      return std::nullopt;
    if (QuietUnbound)
      for (const std::string &V : E.variables())
        if (!S.lookup(V))
          return std::nullopt;
    Expected<int64_t> V = E.eval(S);
    if (!V) {
      Fail(Path, toString(V.takeError()));
      return std::nullopt;
    }
    return *V;
  };

  // Grid and block.
  int64_t Threads = 1;
  for (int Which = 0; Which < 2; ++Which) {
    bool IsGrid = Which == 0;
    const std::vector<SizeExpr> &Dims = IsGrid ? K.Grid : K.Block;
    std::string P = member(K.Path, IsGrid ? "grid" : "block");
    for (size_t I = 0; I < Dims.size() && I < 3; ++I) {
      std::string DP = element(P, I);
      std::optional<int64_t> V = Eval(Dims[I], DP);
      if (!V)
        continue;
      const char *Axis = I == 0 ? "x" : I == 1 ? "y" : "z";
      int64_t Max = IsGrid ? (I == 0 ? MaxGridX : MaxGridYZ)
                           : (I == 2 ? MaxBlockZ : MaxThreadsPerBlock);
      if (*V < 1) {
        Fail(DP, Twine(IsGrid ? "grid" : "block") + "." + Axis + " is " +
                     Twine(*V) + " for shape {" + S.str() +
                     "}: sizes must be at least 1");
        continue;
      }
      if (*V > Max) {
        Fail(DP, Twine(IsGrid ? "grid" : "block") + "." + Axis + " is " +
                     Twine(*V) + " for shape {" + S.str() + "}: the limit is " +
                     Twine(Max));
        continue;
      }
      (IsGrid ? Out.Grid : Out.Block)[I] = uint32_t(*V);
      if (!IsGrid)
        Threads *= *V;
    }
  }
  if (Threads > MaxThreadsPerBlock)
    Report(member(K.Path, "block"),
           "block has " + Twine(Threads) + " threads for shape {" + S.str() +
               "}: the limit is 1024 per block"),
        Ok = false;

  if (std::optional<int64_t> Sh =
          K.SharedBytes.empty()
              ? 0
              : Eval(K.SharedBytes, member(K.Path, "shared_bytes"))) {
    if (*Sh < 0 || *Sh > int64_t(UINT32_MAX))
      Fail(member(K.Path, "shared_bytes"),
           "shared_bytes is " + Twine(*Sh) + " for shape {" + S.str() +
               "}: expected 0 to 4294967295");
    else
      Out.SharedBytes = uint32_t(*Sh);
  }

  // Arguments.
  Out.Args.clear();
  bool CountsOk = true; ///< every buffer's byte size is known
  // A scalar of type T with value V (field path VP) in R.
  auto Scalar = [&](DType T, const ScalarValue &V, StringRef VP,
                    ResolvedArg &R) {
    R.Type = T;
    if (V.IsFloat) {
      R.IsFloat = true;
      R.FloatValue = V.Float;
    } else if (std::optional<int64_t> I = Eval(V.Int, VP)) {
      R.IntValue = *I;
      if (isFloatDType(T)) {
        R.IsFloat = true;
        R.FloatValue = double(*I);
      } else if (!fitsInt(T, *I)) {
        Fail(VP, "value " + Twine(*I) + " for shape {" + S.str() +
                     "} does not fit in " + dtypeName(T));
      }
    }
    encodeScalar(R);
  };
  for (const ArgSpec &A : K.Args) {
    ResolvedArg R;
    R.IsScalar = A.IsScalar;
    R.Type = A.Type;
    if (A.IsStruct) {
      // The struct's bytes: each field at its offset (checked to lie inside
      // the struct when the spec was parsed), padding zero.
      R.ParamBytes.assign(A.StructSize, 0);
      R.ParamSize = unsigned(A.StructSize);
      for (const FieldSpec &F : A.Fields) {
        ResolvedArg FR;
        Scalar(F.Type, F.Value, member(F.Path, "value"), FR);
        if (F.Offset + FR.ParamSize <= A.StructSize)
          std::memcpy(R.ParamBytes.data() + F.Offset, FR.ParamBytes.data(),
                      FR.ParamSize);
      }
      Out.Args.push_back(std::move(R));
      continue;
    }
    if (A.IsScalar) {
      Scalar(A.Type, A.Value, member(A.Path, "value"), R);
      Out.Args.push_back(std::move(R));
      continue;
    }
    std::string CP = member(A.Path, "count");
    std::optional<int64_t> C = Eval(A.Count, CP);
    CountsOk &= C && *C >= 0;
    if (C) {
      uint64_t Bytes;
      if (*C < 0)
        Fail(CP, "count is " + Twine(*C) + " for shape {" + S.str() +
                     "}: expected at least 0");
      else if (__builtin_mul_overflow(uint64_t(*C), uint64_t(dtypeSize(A.Type)),
                                      &Bytes)) {
        CountsOk = false;
        Fail(CP, "count " + Twine(*C) + " overflows the byte size");
      } else {
        R.Count = uint64_t(*C);
        R.Bytes = Bytes;
      }
    }
    Out.Args.push_back(R);
  }
  checkGenerators(K, S, Out, Eval, Fail);

  // Bytes moved: nominal (every buffer whole), and the spec's minimum.
  uint64_t Nominal = 0;
  bool NominalOk = true;
  for (size_t I = 0; I < K.Args.size() && I < Out.Args.size(); ++I) {
    if (K.Args[I].IsScalar)
      continue;
    uint64_t B = Out.Args[I].Bytes;
    if (K.Args[I].Role == ArgRole::InOut)
      NominalOk &= !__builtin_add_overflow(Nominal, B, &Nominal);
    NominalOk &= !__builtin_add_overflow(Nominal, B, &Nominal);
  }
  if (!NominalOk)
    Nominal = UINT64_MAX;
  Out.NominalBytes = Out.MinBytes = Nominal;
  Out.MinBytesFromSpec = false;
  std::string BP = member(K.Path, "bytes");
  if (std::optional<int64_t> B =
          K.Bytes.empty() ? std::nullopt : Eval(K.Bytes, BP)) {
    if (*B < 1)
      Fail(BP, "bytes is " + Twine(*B) + " for shape {" + S.str() +
                   "}: the fewest bytes the kernel moves must be at least 1");
    else if (CountsOk && uint64_t(*B) > Nominal)
      Fail(BP, "bytes is " + Twine(*B) + " for shape {" + S.str() +
                   "}, more than the " + Twine(Nominal) +
                   " bytes of every buffer counted whole (inout twice): "
                   "'bytes' is a lower bound on the traffic");
    else {
      Out.MinBytes = uint64_t(*B);
      Out.MinBytesFromSpec = true;
    }
  }
  Out.Cand = Out.dims();
  return Ok;
}

} // namespace detail

Expected<ResolvedLaunch> resolve(const KernelSpec &K, const Shape &S) {
  ResolvedLaunch L;
  Error Errs = Error::success();
  detail::resolveReporting(K, S, L, [&](StringRef Path, const Twine &Msg) {
    detail::addError(Errs, makeInputError("kernel '" + K.Kernel + "': " +
                                          (Path.empty() ? "" : Path + ": ") +
                                          Msg));
  });
  if (Errs)
    return std::move(Errs);
  return L;
}

} // namespace astra
