//===- InputGen.h - Deterministic test inputs -------------------*- C++ -*-===//
//
// Inputs for the harness, generated from (seed, shape, argument): the same
// seed gives the same bytes on any machine and with any standard library. So
// the generator is our own (splitmix64 + xoshiro256**), the distributions are
// built from + - * / and sqrt only (correctly rounded everywhere; this file is
// compiled with -ffp-contract=off), and the narrow float formats (f16, bf16,
// fp8) are converted by hand with round-to-nearest-even.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_INPUTGEN_H
#define ASTRA_HARNESS_INPUTGEN_H

#include "astra/Harness/Spec.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace astra {

//===-- Narrow floats (bit-exact, round to nearest even) -------------------===//

/// IEEE binary16. Overflow gives +-Inf; NaN gives a quiet NaN (0x7e00 with
/// the sign).
uint16_t floatToHalf(float F);
float halfToFloat(uint16_t H);
/// bfloat16 (the top half of a binary32, rounded). NaN stays NaN.
uint16_t floatToBF16(float F);
float bf16ToFloat(uint16_t B);
/// OCP FP8 E4M3 (`__nv_fp8_e4m3`): no infinities, max 448, NaN = 0x7f/0xff.
/// Finite values beyond 448 saturate to +-448 (like __NV_SATFINITE); Inf and
/// NaN give NaN.
uint8_t floatToFp8E4M3(float F);
float fp8E4M3ToFloat(uint8_t B);
/// OCP FP8 E5M2 (`__nv_fp8_e5m2`): IEEE-like, max 57344, with Inf and NaN.
/// Values beyond the largest finite round to +-Inf; NaN gives 0x7f/0xff.
uint8_t floatToFp8E5M2(float F);
float fp8E5M2ToFloat(uint8_t B);

/// Reads element \p I of a buffer of \p T as a double.
double loadElement(llvm::ArrayRef<uint8_t> Buf, DType T, size_t I);
/// Writes \p V (converted to \p T: narrow floats rounded to nearest even,
/// integers truncated toward zero and wrapped) as element \p I.
void storeElement(llvm::MutableArrayRef<uint8_t> Buf, DType T, size_t I,
                  double V);
/// Reads element \p I of an integer buffer exactly.
int64_t loadInteger(llvm::ArrayRef<uint8_t> Buf, DType T, size_t I);
void storeInteger(llvm::MutableArrayRef<uint8_t> Buf, DType T, size_t I,
                  int64_t V);

//===-- Random numbers -----------------------------------------------------===//

/// xoshiro256** seeded through splitmix64. Portable and reproducible.
class Rng {
public:
  explicit Rng(uint64_t Seed);
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform integer in [0, N) without bias; N > 0.
  uint64_t below(uint64_t N);

private:
  uint64_t S[4];
};

/// A 64-bit stream seed for one buffer: mixes the run seed, the shape and
/// the argument name.
uint64_t streamSeed(uint64_t Seed, const Shape &S, llvm::StringRef ArgName);

/// Element \p Index of a float input drawn from \p D: a pure function of
/// (stream seed, index), so large buffers are filled in parallel and any
/// element can be recomputed alone. Normal values are the sum of four 16-bit
/// uniforms, centred and scaled to unit variance (tails cut at +-3.46).
double sampleAt(uint64_t StreamSeed, uint64_t Index, Dist D);

//===-- Buffers ------------------------------------------------------------===//

struct GenOptions {
  uint64_t Seed = 1;
  /// Distribution of float inputs that do not fix theirs with `dist`;
  /// default: the spec's, else normal.
  std::optional<Dist> Distribution;
  /// Put a few NaN and +-Inf into float inputs marked `"specials": true`.
  bool Specials = false;
};

/// Initial contents of every argument of \p K for shape \p S: `in` and
/// `inout` buffers generated (from `gen`, `range` or `dist`); `out` buffers
/// and scalars empty. \p L is resolve(K, S). Float buffers without `gen` are
/// filled with sampleAt in parallel (llvm::parallelFor): the bytes do not
/// depend on the thread count. Errors: a generator whose parameters cannot
/// give valid data for this shape.
llvm::Expected<std::vector<std::vector<uint8_t>>>
generateInputs(const KernelSpec &K, const Shape &S, const ResolvedLaunch &L,
               const GenOptions &Opts);

/// Why an output would not tell a correct kernel from a wrong one, or
/// nullopt when it is informative: all zero, all elements equal, or
/// byte-identical to (a prefix of) one of \p Inputs. An empty or
/// one-element output is informative (nothing better exists).
std::optional<std::string>
uninformativeReason(llvm::ArrayRef<uint8_t> Out, DType T,
                    llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Inputs);
inline bool isInformative(llvm::ArrayRef<uint8_t> Out, DType T,
                          llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Inputs) {
  return !uninformativeReason(Out, T, Inputs);
}

} // namespace astra

#endif // ASTRA_HARNESS_INPUTGEN_H
