//===- Dtype.cpp - Map C++ types to dtypes --------------------------------===//
#include "astra/Frontend/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace astra {

namespace {
struct NamedDtype {
  DType Dtype;
  unsigned Lanes;
};
} // namespace

/// The CUDA half, bfloat16 and fp8 types are structs; they are known by name.
static std::optional<NamedDtype> getNamedDtype(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<NamedDtype>>(Name)
      .Case("__half", NamedDtype{DType::F16, 1})
      .Case("__half2", NamedDtype{DType::F16, 2})
      .Case("__nv_bfloat16", NamedDtype{DType::BF16, 1})
      .Case("__nv_bfloat162", NamedDtype{DType::BF16, 2})
      .Case("__nv_fp8_e4m3", NamedDtype{DType::FP8E4M3, 1})
      .Case("__nv_fp8x2_e4m3", NamedDtype{DType::FP8E4M3, 2})
      .Case("__nv_fp8x4_e4m3", NamedDtype{DType::FP8E4M3, 4})
      .Case("__nv_fp8_e5m2", NamedDtype{DType::FP8E5M2, 1})
      .Case("__nv_fp8x2_e5m2", NamedDtype{DType::FP8E5M2, 2})
      .Case("__nv_fp8x4_e5m2", NamedDtype{DType::FP8E5M2, 4})
      .Default(std::nullopt);
}

/// torch's element types (c10/util/Half.h, BFloat16.h, Float8_*.h; `at::Half`
/// and `torch::Half` are aliases of `c10::Half`): the same formats as CUDA's
/// __half, __nv_bfloat16 and __nv_fp8_*, one lane each.
static std::optional<DType> getTorchDtype(const RecordDecl *RD) {
  const auto *NS =
      dyn_cast<NamespaceDecl>(RD->getDeclContext()->getRedeclContext());
  if (!NS || NS->getName() != "c10" ||
      !NS->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return std::nullopt;
  return llvm::StringSwitch<std::optional<DType>>(RD->getName())
      .Case("Half", DType::F16)
      .Case("BFloat16", DType::BF16)
      .Case("Float8_e4m3fn", DType::FP8E4M3)
      .Case("Float8_e5m2", DType::FP8E5M2)
      .Default(std::nullopt);
}

static std::optional<DType> getBuiltinDtype(ASTContext &Ctx,
                                            const BuiltinType *B) {
  switch (B->getKind()) {
  case BuiltinType::Float:
    return DType::F32;
  case BuiltinType::Double:
    return DType::F64;
  case BuiltinType::Half:
  case BuiltinType::Float16:
    return DType::F16;
  case BuiltinType::BFloat16:
    return DType::BF16;
  case BuiltinType::Bool:
    return DType::Bool;
  default:
    break;
  }
  if (!B->isInteger())
    return std::nullopt;
  bool Signed = B->isSignedInteger();
  switch (Ctx.getTypeSize(B)) {
  case 8:
    return Signed ? DType::I8 : DType::U8;
  case 16:
    return Signed ? DType::I16 : DType::U16;
  case 32:
    return Signed ? DType::I32 : DType::U32;
  case 64:
    return Signed ? DType::I64 : DType::U64;
  default:
    return std::nullopt;
  }
}

/// CUDA vector types (float4, int2, uchar4, double2, ...): a struct whose name
/// ends in the lane count and whose fields all have one scalar type.
static std::optional<DType>
getVectorDtype(ASTContext &Ctx, const RecordDecl *RD, unsigned *Lanes) {
  llvm::StringRef Name = RD->getName();
  if (Name.empty() || Name.back() < '1' || Name.back() > '4')
    return std::nullopt;
  unsigned N = Name.back() - '0';
  QualType Elt;
  unsigned Fields = 0;
  for (const FieldDecl *F : RD->fields()) {
    QualType T = F->getType().getCanonicalType().getUnqualifiedType();
    if (Fields++ == 0)
      Elt = T;
    else if (T != Elt)
      return std::nullopt;
  }
  if (Fields != N)
    return std::nullopt;
  const auto *B = Elt->getAs<BuiltinType>();
  if (!B)
    return std::nullopt;
  std::optional<DType> D = getBuiltinDtype(Ctx, B);
  if (D && Lanes)
    *Lanes = N;
  return D;
}

std::optional<DType> getDtype(ASTContext &Ctx, QualType T, unsigned *Lanes) {
  if (Lanes)
    *Lanes = 1;
  if (T.isNull() || T->isDependentType())
    return std::nullopt;
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *B = T->getAs<BuiltinType>())
    return getBuiltinDtype(Ctx, B);
  if (const auto *ET = T->getAs<EnumType>())
    return getDtype(Ctx, ET->getDecl()->getIntegerType());
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD)
    return std::nullopt;
  if (std::optional<NamedDtype> N = getNamedDtype(RD->getName())) {
    if (Lanes)
      *Lanes = N->Lanes;
    return N->Dtype;
  }
  if (std::optional<DType> D = getTorchDtype(RD))
    return D;
  if (!RD->getDefinition())
    return std::nullopt;
  return getVectorDtype(Ctx, RD->getDefinition(), Lanes);
}

} // namespace astra
