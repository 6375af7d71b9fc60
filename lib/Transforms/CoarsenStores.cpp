//===- CoarsenStores.cpp - One pack for a coarsened thread's stores -------===//
//
// See CoarsenStores.h.
//
//===----------------------------------------------------------------------===//
#include "CoarsenStores.h"
#include "FreshName.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

/// Every reference to a parameter, and every assignment, in some statements.
struct StoreScan : RecursiveASTVisitor<StoreScan> {
  std::vector<const DeclRefExpr *> Refs;
  std::vector<const BinaryOperator *> Assigns;
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (isa<ParmVarDecl>(E->getDecl()))
      Refs.push_back(E);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Assign)
      Assigns.push_back(B);
    return true;
  }
};

/// Whether \p E computes a value without side effects (reads are fine).
bool isPure(const Expr *E) {
  if (!E)
    return true;
  if (isa<CallExpr>(E) || isa<StmtExpr>(E) || isa<LambdaExpr>(E))
    return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->isIncrementDecrementOp())
      return false;
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAssignmentOp())
      return false;
  for (const Stmt *C : E->children())
    if (!isPure(dyn_cast_or_null<Expr>(C)))
      return false;
  return true;
}

/// Whether the value of \p B is not used: a statement of its own.
bool isStatement(ASTContext &Ctx, const BinaryOperator *B) {
  DynTypedNodeList Ps = Ctx.getParents(*B);
  if (Ps.size() != 1)
    return false;
  if (Ps[0].get<CompoundStmt>())
    return true;
  if (const auto *If = Ps[0].get<IfStmt>())
    return If->getThen() == B || If->getElse() == B;
  return false;
}

} // namespace

std::vector<CombinedStore> findCombinableStores(ASTContext &Ctx,
                                                ArrayRef<const Stmt *> Stmts,
                                                int64_t C, StringSet<> &Taken) {
  StoreScan Scan;
  for (const Stmt *S : Stmts)
    Scan.TraverseStmt(const_cast<Stmt *>(S));
  std::vector<CombinedStore> Out;
  for (const BinaryOperator *B : Scan.Assigns) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(B->getLHS()->IgnoreParens());
    const auto *Base =
        Sub ? dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts())
            : nullptr;
    const auto *P = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
    if (!P || !P->getType()->isPointerType() || !isPure(Sub->getIdx()) ||
        !isStatement(Ctx, B))
      continue;
    QualType T = Sub->getType();
    if (!T->isScalarType() || T->isPointerType() || T.isVolatileQualified())
      continue;
    unsigned Bytes = Ctx.getTypeSizeInChars(T).getQuantity() * C;
    const char *Pack = Bytes == 4    ? "unsigned int"
                       : Bytes == 8  ? "uint2"
                       : Bytes == 16 ? "uint4"
                                     : nullptr;
    if (!Pack)
      continue;
    // The pointer: this store is its only use in the loop.
    unsigned Uses = 0;
    for (const DeclRefExpr *R : Scan.Refs)
      Uses += R->getDecl() == P;
    if (Uses != 1)
      continue;
    CombinedStore S;
    S.Store = B;
    S.ElemType =
        T.getUnqualifiedType().getAsString(PrintingPolicy(Ctx.getLangOpts()));
    S.PackType = Pack;
    S.PackBytes = Bytes;
    std::string Stem = P->getNameAsString();
    S.Ptr = makeFreshName(Ctx, Stem + "At", Taken);
    S.Buf = makeFreshName(Ctx, Stem + "Val", Taken);
    S.Did = makeFreshName(Ctx, Stem + "Stored", Taken);
    S.Whole = makeFreshName(Ctx, Stem + "Packed", Taken);
    S.Pack = makeFreshName(Ctx, Stem + "Pack", Taken);
    Out.push_back(std::move(S));
  }
  return Out;
}

std::string declareStores(ArrayRef<CombinedStore> Stores, int64_t C) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const CombinedStore &S : Stores)
    OS << S.ElemType << " *" << S.Ptr << "[" << C << "];\n"
       << S.ElemType << " " << S.Buf << "[" << C << "];\n"
       << "unsigned int " << S.Did << " = 0;\n";
  return Out;
}

std::string recordStore(const CombinedStore &S, StringRef CVar, StringRef Lhs,
                        StringRef Rhs) {
  return (S.Ptr + "[" + CVar + "] = &(" + Lhs + "), " + S.Buf + "[" + CVar +
          "] = (" + Rhs + "), " + S.Did + " |= 1u << " + CVar)
      .str();
}

std::string writeStores(ArrayRef<CombinedStore> Stores, int64_t C,
                        StringRef CVar) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const CombinedStore &S : Stores) {
    std::string Whole = std::to_string((uint64_t(1) << C) - 1) + "u";
    OS << "// astra-opt coarsen: the " << C << " stores as one " << S.PackBytes
       << "-byte pack when all happened, to consecutive aligned elements\n"
       << "bool " << S.Whole << " = " << S.Did << " == " << Whole
       << " && reinterpret_cast<unsigned long long>(" << S.Ptr << "[0]) % "
       << S.PackBytes << " == 0;\n"
       << "#pragma unroll\n"
       << "for (int " << CVar << " = 1; " << CVar << " < " << C << "; ++"
       << CVar << ")\n"
       << "  " << S.Whole << " = " << S.Whole << " && " << S.Ptr << "[" << CVar
       << "] == " << S.Ptr << "[0] + " << CVar << ";\n"
       << "if (" << S.Whole << ") {\n"
       << "union {\n"
       << S.PackType << " Pack;\n"
       << S.ElemType << " Elem[" << C << "];\n} " << S.Pack << ";\n"
       << "#pragma unroll\n"
       << "for (int " << CVar << " = 0; " << CVar << " < " << C << "; ++"
       << CVar << ")\n"
       << "  " << S.Pack << ".Elem[" << CVar << "] = " << S.Buf << "[" << CVar
       << "];\n"
       << "*reinterpret_cast<" << S.PackType << " *>(" << S.Ptr
       << "[0]) = " << S.Pack << ".Pack;\n"
       << "} else {\n"
       << "#pragma unroll\n"
       << "for (int " << CVar << " = 0; " << CVar << " < " << C << "; ++"
       << CVar << ")\n"
       << "  if (" << S.Did << " >> " << CVar << " & 1u)\n"
       << "    *" << S.Ptr << "[" << CVar << "] = " << S.Buf << "[" << CVar
       << "];\n"
       << "}\n";
  }
  return Out;
}

} // namespace astra
