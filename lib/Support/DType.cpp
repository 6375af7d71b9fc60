//===- DType.cpp - Element types: names and sizes -------------------------===//
#include "astra/Support/DType.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace astra {

namespace {
struct DTypeRow {
  DType T;
  const char *Name;
  unsigned Size;
};
const DTypeRow DTypeTable[] = {
    {DType::F32, "f32", 4},         {DType::F64, "f64", 8},
    {DType::F16, "f16", 2},         {DType::BF16, "bf16", 2},
    {DType::FP8E4M3, "fp8e4m3", 1}, {DType::FP8E5M2, "fp8e5m2", 1},
    {DType::I8, "i8", 1},           {DType::U8, "u8", 1},
    {DType::I16, "i16", 2},         {DType::U16, "u16", 2},
    {DType::I32, "i32", 4},         {DType::U32, "u32", 4},
    {DType::I64, "i64", 8},         {DType::U64, "u64", 8},
    {DType::Bool, "bool", 1},
};
const DTypeRow &row(DType T) {
  for (const DTypeRow &R : DTypeTable)
    if (R.T == T)
      return R;
  llvm_unreachable("unknown dtype");
}
} // namespace

unsigned dtypeSize(DType T) { return row(T).Size; }
StringRef dtypeName(DType T) { return row(T).Name; }

std::optional<DType> parseDType(StringRef Name) {
  for (const DTypeRow &R : DTypeTable)
    if (Name == R.Name)
      return R.T;
  return std::nullopt;
}

StringRef dtypeNames() {
  static const std::string Names = [] {
    std::string S;
    for (const DTypeRow &R : DTypeTable)
      S += (S.empty() ? "" : " ") + std::string(R.Name);
    return S;
  }();
  return Names;
}

bool isFloatDType(DType T) {
  switch (T) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
    return true;
  default:
    return false;
  }
}

bool isSignedIntDType(DType T) {
  return T == DType::I8 || T == DType::I16 || T == DType::I32 ||
         T == DType::I64;
}

bool isHalfDType(DType T) { return T == DType::F16 || T == DType::BF16; }

void intDTypeLimits(DType T, int64_t &Lo, uint64_t &Hi) {
  switch (T) {
  case DType::Bool:
    Lo = 0, Hi = 1;
    return;
  case DType::I8:
    Lo = INT8_MIN, Hi = INT8_MAX;
    return;
  case DType::U8:
    Lo = 0, Hi = UINT8_MAX;
    return;
  case DType::I16:
    Lo = INT16_MIN, Hi = INT16_MAX;
    return;
  case DType::U16:
    Lo = 0, Hi = UINT16_MAX;
    return;
  case DType::I32:
    Lo = INT32_MIN, Hi = INT32_MAX;
    return;
  case DType::U32:
    Lo = 0, Hi = UINT32_MAX;
    return;
  case DType::I64:
    Lo = INT64_MIN, Hi = INT64_MAX;
    return;
  default: // u64 (and floats, which have no integer limits of their own)
    Lo = 0, Hi = UINT64_MAX;
    return;
  }
}

} // namespace astra
