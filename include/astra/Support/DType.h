//===- DType.h - Element types of kernel buffers and scalars ----*- C++ -*-===//
//
// The one vocabulary of element types that the frontend (a parameter's
// dtype in the KernelModel), the launch spec (`"dtype"`), input generation
// and --emit-spec share. The spellings ("f32", "bf16", "fp8e4m3", ...) are
// those of the spec and of the KernelModel's JSON; they are stable.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_DTYPE_H
#define ASTRA_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace astra {

enum class DType {
  F32,
  F64,
  F16,
  BF16,
  FP8E4M3,
  FP8E5M2,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  /// C++ `bool`: one byte, 0 or 1 (an integer dtype of two values).
  Bool,
};

/// Size of one element in bytes.
unsigned dtypeSize(DType T);
/// The spelling: "f32", "bf16", "fp8e4m3", "u64", ...
llvm::StringRef dtypeName(DType T);
/// The dtype spelt \p Name, or none.
std::optional<DType> parseDType(llvm::StringRef Name);
/// Every spelling, in enum order, separated by spaces (for messages).
llvm::StringRef dtypeNames();
bool isFloatDType(DType T);     ///< f32 f64 f16 bf16 fp8*
bool isSignedIntDType(DType T); ///< i8 i16 i32 i64
/// f16 and bf16: the 16-bit floats that CUDA gives as structs.
bool isHalfDType(DType T);
/// The integer values a dtype holds: [\p Lo, \p Hi] (integer dtypes and
/// bool).
void intDTypeLimits(DType T, int64_t &Lo, uint64_t &Hi);

} // namespace astra

#endif // ASTRA_SUPPORT_DTYPE_H
