//===- Dtype.cpp - Map C++ types to launch-spec dtypes --------------------===//
#include "astra/Frontend/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace astra {

namespace {
struct NamedDtype {
  const char *Dtype;
  unsigned Lanes;
};
} // namespace

/// The CUDA half, bfloat16 and fp8 types are structs; they are known by name.
static std::optional<NamedDtype> getNamedDtype(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<NamedDtype>>(Name)
      .Case("__half", NamedDtype{"f16", 1})
      .Case("__half2", NamedDtype{"f16", 2})
      .Case("__nv_bfloat16", NamedDtype{"bf16", 1})
      .Case("__nv_bfloat162", NamedDtype{"bf16", 2})
      .Case("__nv_fp8_e4m3", NamedDtype{"fp8e4m3", 1})
      .Case("__nv_fp8x2_e4m3", NamedDtype{"fp8e4m3", 2})
      .Case("__nv_fp8x4_e4m3", NamedDtype{"fp8e4m3", 4})
      .Case("__nv_fp8_e5m2", NamedDtype{"fp8e5m2", 1})
      .Case("__nv_fp8x2_e5m2", NamedDtype{"fp8e5m2", 2})
      .Case("__nv_fp8x4_e5m2", NamedDtype{"fp8e5m2", 4})
      .Default(std::nullopt);
}

static std::string getBuiltinDtype(ASTContext &Ctx, const BuiltinType *B) {
  switch (B->getKind()) {
  case BuiltinType::Float:
    return "f32";
  case BuiltinType::Double:
    return "f64";
  case BuiltinType::Half:
  case BuiltinType::Float16:
    return "f16";
  case BuiltinType::BFloat16:
    return "bf16";
  case BuiltinType::Bool:
    return "";
  default:
    break;
  }
  if (!B->isInteger())
    return "";
  uint64_t Bits = Ctx.getTypeSize(B);
  if (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64)
    return "";
  return (B->isSignedInteger() ? "i" : "u") + std::to_string(Bits);
}

/// CUDA vector types (float4, int2, uchar4, double2, ...): a struct whose name
/// ends in the lane count and whose fields all have one scalar type.
static std::string getVectorDtype(ASTContext &Ctx, const RecordDecl *RD,
                                  unsigned *Lanes) {
  llvm::StringRef Name = RD->getName();
  if (Name.empty() || Name.back() < '1' || Name.back() > '4')
    return "";
  unsigned N = Name.back() - '0';
  QualType Elt;
  unsigned Fields = 0;
  for (const FieldDecl *F : RD->fields()) {
    QualType T = F->getType().getCanonicalType().getUnqualifiedType();
    if (Fields++ == 0)
      Elt = T;
    else if (T != Elt)
      return "";
  }
  if (Fields != N)
    return "";
  const auto *B = Elt->getAs<BuiltinType>();
  if (!B)
    return "";
  std::string D = getBuiltinDtype(Ctx, B);
  if (!D.empty() && Lanes)
    *Lanes = N;
  return D;
}

std::string getDtype(ASTContext &Ctx, QualType T, unsigned *Lanes) {
  if (Lanes)
    *Lanes = 1;
  if (T.isNull() || T->isDependentType())
    return "";
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *B = T->getAs<BuiltinType>())
    return getBuiltinDtype(Ctx, B);
  if (const auto *ET = T->getAs<EnumType>())
    return getDtype(Ctx, ET->getDecl()->getIntegerType());
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD)
    return "";
  if (std::optional<NamedDtype> N = getNamedDtype(RD->getName())) {
    if (Lanes)
      *Lanes = N->Lanes;
    return N->Dtype;
  }
  if (!RD->getDefinition())
    return "";
  return getVectorDtype(Ctx, RD->getDefinition(), Lanes);
}

} // namespace astra
