//===- RecordLayout.cpp - Fields of structs passed by value ---------------===//
//
// A kernel parameter of struct type is passed by value: the launch copies
// its bytes as the target ABI lays the struct out. The launch spec describes
// it field by field (docs/spec.md, "Struct parameters"); the offsets, the
// size and the alignment come from Clang's ASTRecordLayout, so they are the
// ones the device code reads, padding included.
//
//===----------------------------------------------------------------------===//
#include "astra/Frontend/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecordLayout.h"

using namespace clang;

namespace astra {

namespace {

/// More scalar fields than this (a large array member) are not listed: a
/// spec with thousands of entries would not be written by hand.
constexpr size_t MaxFields = 256;

class Flattener {
public:
  Flattener(ASTContext &Ctx, ParamInfo &P) : Ctx(Ctx), P(P) {}

  /// Adds the scalars of \p T at byte \p Offset, named \p Name. False when
  /// the struct cannot be described (P.RecordProblem says why).
  bool add(QualType T, const std::string &Name, uint64_t Offset) {
    T = T.getCanonicalType().getUnqualifiedType();
    unsigned Lanes = 1;
    std::optional<DType> D = getDtype(Ctx, T, &Lanes);
    if (D && Lanes == 1)
      return leaf(T, Name, Offset, D);
    if (const auto *AT = Ctx.getAsConstantArrayType(T)) {
      uint64_t N = AT->getZExtSize();
      uint64_t Step = Ctx.getTypeSizeInChars(AT->getElementType()).getQuantity();
      for (uint64_t I = 0; I < N; ++I)
        if (!add(AT->getElementType(), Name + "[" + std::to_string(I) + "]",
                 Offset + I * Step))
          return false;
      return true;
    }
    if (const RecordDecl *RD = T->getAsRecordDecl())
      return addRecord(RD, Name.empty() ? "" : Name + ".", Offset);
    // A pointer, a reference, an incomplete type: listed without a dtype
    // (--check-spec reports it), so the user sees which field it is.
    return leaf(T, Name, Offset, std::nullopt);
  }

  bool addRecord(const RecordDecl *RD, const std::string &Prefix,
                 uint64_t Offset) {
    RD = RD->getDefinition();
    if (!RD)
      return fail("its type is incomplete");
    if (RD->isUnion())
      return fail("'" + RD->getNameAsString() +
                  "' is a union (its members overlap)");
    const ASTRecordLayout &L = Ctx.getASTRecordLayout(RD);
    if (const auto *CXX = dyn_cast<CXXRecordDecl>(RD)) {
      if (CXX->isDynamicClass())
        return fail("'" + CXX->getNameAsString() +
                    "' has virtual functions or bases");
      for (const CXXBaseSpecifier &B : CXX->bases()) {
        const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
        if (!Base)
          return fail("a base class is dependent");
        if (!addRecord(Base, Prefix,
                       Offset + L.getBaseClassOffset(Base).getQuantity()))
          return false;
      }
    }
    for (const FieldDecl *F : RD->fields()) {
      if (F->isBitField())
        return fail("field '" + F->getNameAsString() + "' is a bit-field");
      uint64_t Bits = L.getFieldOffset(F->getFieldIndex());
      std::string Name = F->getNameAsString();
      if (Name.empty())
        Name = "<anonymous>";
      if (!add(F->getType(), Prefix + Name, Offset + Bits / 8))
        return false;
    }
    return true;
  }

private:
  bool leaf(QualType T, const std::string &Name, uint64_t Offset,
            std::optional<DType> D) {
    if (P.Fields.size() == MaxFields)
      return fail("it has more than " + std::to_string(MaxFields) +
                  " scalar fields");
    RecordFieldInfo F;
    F.Name = Name;
    F.Type = T.getAsString(Ctx.getPrintingPolicy());
    F.Dtype = D;
    F.Offset = Offset;
    P.Fields.push_back(std::move(F));
    return true;
  }

  bool fail(const std::string &Why) {
    P.RecordProblem = Why;
    P.Fields.clear();
    return false;
  }

  ASTContext &Ctx;
  ParamInfo &P;
};

} // namespace

void describeRecordParam(ASTContext &Ctx, QualType T, ParamInfo &P) {
  T = T.getCanonicalType().getUnqualifiedType();
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || T->isDependentType())
    return;
  if (!RD->getDefinition()) {
    P.RecordProblem = "its type is incomplete";
    return;
  }
  P.RecordSize = Ctx.getTypeSizeInChars(T).getQuantity();
  P.RecordAlign = Ctx.getTypeAlignInChars(T).getQuantity();
  Flattener(Ctx, P).addRecord(RD, "", 0);
}

} // namespace astra
