//===- FloatConv.cpp - Narrow float formats, bit-exact --------------------===//
//
// One encoder and one decoder for every small binary format (f16, fp8 e4m3,
// fp8 e5m2), parameterised by exponent and mantissa widths, working on the
// binary32 bit pattern with integer arithmetic: round to nearest, ties to
// even, no dependence on the host's float environment.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/InputGen.h"
#include <cmath>
#include <cstring>

namespace astra {

namespace {
uint32_t bitsOf(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  return X;
}
float fromBits(uint32_t X) {
  float F;
  std::memcpy(&F, &X, 4);
  return F;
}

struct Format {
  int ExpBits, ManBits;
  bool HasInf;      ///< IEEE-style top exponent (f16, e5m2); else e4m3
  uint32_t NaN;     ///< the NaN code (without sign)
  uint32_t MaxCode; ///< largest finite magnitude code
};
constexpr Format F16Fmt = {5, 10, true, 0x7e00, 0x7bff};
constexpr Format E4M3Fmt = {4, 3, false, 0x7f, 0x7e};
constexpr Format E5M2Fmt = {5, 2, true, 0x7f, 0x7b};

/// Rounds M >> Shift to nearest, ties to even.
uint32_t shiftRoundEven(uint32_t M, unsigned Shift) {
  if (Shift == 0)
    return M;
  if (Shift > 25)
    return 0;
  uint32_t Q = M >> Shift;
  uint32_t R = M & ((1u << Shift) - 1);
  uint32_t Half = 1u << (Shift - 1);
  if (R > Half || (R == Half && (Q & 1)))
    ++Q;
  return Q;
}

uint32_t encode(float F, const Format &Fmt) {
  uint32_t X = bitsOf(F);
  uint32_t Sign = (X >> 31) << (Fmt.ExpBits + Fmt.ManBits);
  X &= 0x7fffffff;
  uint32_t InfCode = ((1u << Fmt.ExpBits) - 1) << Fmt.ManBits;
  if (X > 0x7f800000) // NaN
    return Sign | Fmt.NaN;
  if (X == 0x7f800000)
    return Sign | (Fmt.HasInf ? InfCode : Fmt.NaN);
  int E = int(X >> 23); // biased binary32 exponent
  if (E == 0)           // binary32 subnormal: far below every format here
    return Sign;
  uint32_t M = (X & 0x7fffff) | 0x800000; // 24 bits with the implicit one
  int Bias = (1 << (Fmt.ExpBits - 1)) - 1;
  int Unbiased = E - 127;
  int MinNormal = 1 - Bias;
  uint32_t Q;
  if (Unbiased >= MinNormal) {
    uint32_t ExpField = uint32_t(Unbiased + Bias);
    if (ExpField > 255) // far too large for any format here
      Q = ~0u >> 1;
    else
      Q = shiftRoundEven((ExpField << 23) | (X & 0x7fffff), 23 - Fmt.ManBits);
  } else {
    // Subnormal in the target: in units of 2^(MinNormal - ManBits).
    unsigned Shift = unsigned(23 - Fmt.ManBits + (MinNormal - Unbiased));
    Q = shiftRoundEven(M, Shift);
  }
  if (Q > Fmt.MaxCode)
    Q = Fmt.HasInf ? InfCode : Fmt.MaxCode; // e4m3 saturates
  return Sign | Q;
}

float decode(uint32_t Code, const Format &Fmt) {
  uint32_t SignBit = 1u << (Fmt.ExpBits + Fmt.ManBits);
  bool Neg = Code & SignBit;
  uint32_t Mag = Code & (SignBit - 1);
  uint32_t ExpMax = (1u << Fmt.ExpBits) - 1;
  uint32_t E = Mag >> Fmt.ManBits;
  uint32_t M = Mag & ((1u << Fmt.ManBits) - 1);
  int Bias = (1 << (Fmt.ExpBits - 1)) - 1;
  float V;
  if (Fmt.HasInf && E == ExpMax)
    V = M ? NAN : INFINITY;
  else if (!Fmt.HasInf && Mag == Fmt.NaN)
    V = NAN;
  else if (E == 0)
    V = std::ldexp(float(M), 1 - Bias - Fmt.ManBits);
  else
    V = std::ldexp(float(M | (1u << Fmt.ManBits)),
                   int(E) - Bias - Fmt.ManBits);
  return Neg ? -V : V;
}
} // namespace

uint16_t floatToHalf(float F) { return uint16_t(encode(F, F16Fmt)); }
float halfToFloat(uint16_t H) { return decode(H, F16Fmt); }
uint8_t floatToFp8E4M3(float F) { return uint8_t(encode(F, E4M3Fmt)); }
float fp8E4M3ToFloat(uint8_t B) { return decode(B, E4M3Fmt); }
uint8_t floatToFp8E5M2(float F) { return uint8_t(encode(F, E5M2Fmt)); }
float fp8E5M2ToFloat(uint8_t B) { return decode(B, E5M2Fmt); }

uint16_t floatToBF16(float F) {
  uint32_t X = bitsOf(F);
  if ((X & 0x7fffffff) > 0x7f800000) // NaN: keep it a (quiet) NaN
    return uint16_t((X >> 16) | 0x40);
  X += 0x7fff + ((X >> 16) & 1);
  return uint16_t(X >> 16);
}

float bf16ToFloat(uint16_t B) { return fromBits(uint32_t(B) << 16); }

} // namespace astra
