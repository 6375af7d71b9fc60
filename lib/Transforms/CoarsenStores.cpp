//===- CoarsenStores.cpp - One pack for a coarsened thread's stores -------===//
//
// See CoarsenStores.h.
//
//===----------------------------------------------------------------------===//
#include "CoarsenStores.h"
#include "CoarsenScan.h"
#include "FreshName.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
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
  if (!E || !getBuiltinVarName(E).empty()) // threadIdx.x: a getter call
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

/// Whether the value of \p B is not used (a statement of its own) and it
/// runs at most once per c: only blocks and ifs around it up to one of
/// \p Stmts, no loop, switch or label that could run it twice (a second
/// store would replace the recorded one).
bool isStatementOnce(ASTContext &Ctx, const BinaryOperator *B,
                     ArrayRef<const Stmt *> Stmts) {
  const Stmt *Child = B;
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    if (llvm::is_contained(Stmts, Child))
      return true;
    DynTypedNodeList Ps = Ctx.getParents(*Child);
    if (Ps.size() != 1)
      return false;
    const Stmt *Up = Ps[0].get<Stmt>();
    const auto *If = dyn_cast_or_null<IfStmt>(Up);
    if (!isa_and_nonnull<CompoundStmt>(Up) &&
        !(If && (If->getThen() == Child || If->getElse() == Child)))
      return false;
    Child = Up;
  }
  return false;
}

} // namespace

std::vector<CombinedStore> findCombinableStores(ASTContext &Ctx,
                                                const Stmt *Body,
                                                ArrayRef<const Stmt *> Stmts,
                                                int64_t C, StringSet<> &Taken) {
  StoreScan Scan;
  for (const Stmt *S : Stmts)
    Scan.TraverseStmt(const_cast<Stmt *>(S));
  StoreScan Everywhere; // the parameter's uses in the whole body
  Everywhere.TraverseStmt(const_cast<Stmt *>(Body));
  std::vector<CombinedStore> Out;
  for (const BinaryOperator *B : Scan.Assigns) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(B->getLHS()->IgnoreParens());
    const auto *Base =
        Sub ? dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts())
            : nullptr;
    const auto *P = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
    if (!P || !P->getType()->isPointerType() || !isPure(Sub->getIdx()) ||
        !isStatementOnce(Ctx, B, Stmts))
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
    // The pointer: this store is its only use in the kernel (no alias of
    // it, no read through it).
    unsigned Uses = 0;
    for (const DeclRefExpr *R : Everywhere.Refs)
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
    S.New = makeFreshName(Ctx, Stem + "New", Taken);
    S.Base = makeFreshName(Ctx, Stem + "Base", Taken);
    S.Buf = makeFreshName(Ctx, Stem + "Val", Taken);
    S.Did = makeFreshName(Ctx, Stem + "Stored", Taken);
    S.Pack = makeFreshName(Ctx, Stem + "Pack", Taken);
    Out.push_back(std::move(S));
  }
  return Out;
}

std::string markRisingStores(RewriteContext &RC,
                             std::vector<CombinedStore> &Stores,
                             const AffineScope &Scope,
                             ArrayRef<const Expr *> ThreadX, int64_t C,
                             StringRef CVar) {
  const SourceManager &SM = RC.getSourceManager();
  std::string NotRising;
  for (CombinedStore &St : Stores) {
    const auto *Lhs =
        cast<ArraySubscriptExpr>(St.Store->getLHS()->IgnoreParens());
    std::string Why;
    St.Affine =
        risesByOnePerThread(RC.getASTContext(), Lhs->getIdx(), Scope, Why);
    if (!St.Affine) {
      if (NotRising.empty())
        NotRising = Why;
      continue;
    }
    // `p[IDX]` as copy K of the original threads computes it.
    auto AtCopy = [&](const std::string &K) {
      return spliceText(
          RC, Lhs->getSourceRange(),
          copyEdits(SM, Lhs, ThreadX, Scope.PerThread,
                    "(threadIdx.x * " + std::to_string(C) + " + " + K + ")",
                    K));
    };
    St.AtFirst = AtCopy("0");
    St.AtLast = AtCopy(std::to_string(C - 1));
    St.AtC = AtCopy(CVar.str());
  }
  return NotRising;
}

std::string declareStores(ArrayRef<CombinedStore> Stores, int64_t C) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const CombinedStore &S : Stores) {
    if (!S.Affine)
      OS << S.ElemType << " *" << S.Ptr << ";\n"
         << S.ElemType << " " << S.New << ";\n"
         << S.ElemType << " *" << S.Base << " = nullptr;\n";
    OS << S.ElemType << " " << S.Buf << "[" << C << "];\n"
       << "unsigned int " << S.Did << " = 0;\n";
  }
  return Out;
}

std::string recordStore(const CombinedStore &S, StringRef CVar, StringRef Lhs,
                        StringRef Rhs) {
  std::string Bit = "(1u << " + CVar.str() + ")";
  if (S.Affine)
    return "(" + S.Buf + "[" + CVar.str() + "] = (" + Rhs.str() + "), " +
           S.Did + " |= " + Bit + ")";
  // The value first, as C++17 sequences an assignment.
  return "(" + S.New + " = (" + Rhs.str() + "), " + S.Ptr + " = &(" +
         Lhs.str() + "), " + S.Did + " == " + Bit + " - 1u && (" + CVar.str() +
         " == 0 || " + S.Ptr + " == " + S.Base + " + " + CVar.str() +
         ") ? (void)(" + S.Base + " = " + CVar.str() + " == 0 ? " + S.Ptr +
         " : " + S.Base + ", " + S.Buf + "[" + CVar.str() + "] = " + S.New +
         ", " + S.Did + " |= " + Bit + ") : (void)(*" + S.Ptr + " = " + S.New +
         "))";
}

std::string writeStores(ArrayRef<CombinedStore> Stores, int64_t C,
                        StringRef CVar) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const CombinedStore &S : Stores) {
    std::string Whole = std::to_string((uint64_t(1) << C) - 1) + "u";
    // Where the pack goes, and where element c goes in the fallback.
    std::string First = S.Affine ? "&(" + S.AtFirst + ")" : S.Base;
    std::string AtC = S.Affine ? S.AtC : S.Base + "[" + CVar.str() + "]";
    if (S.Affine)
      OS << "// astra-opt coarsen: the deferred stores, as one " << S.PackBytes
         << "-byte pack when all " << C
         << " happened, the first is aligned and the last follows it by "
         << C - 1 << " (the index rises by one per thread: then so do all "
         << "between)\n"
         << "if (" << S.Did << " == " << Whole << " &&\n"
         << "&(" << S.AtLast << ") == " << First << " + " << C - 1 << " &&\n"
         << "reinterpret_cast<unsigned long long>(" << First << ") % "
         << S.PackBytes << " == 0) {\n";
    else
      OS << "// astra-opt coarsen: the deferred stores, as one " << S.PackBytes
         << "-byte pack when all " << C << " were consecutive and the first "
         << "is aligned\n"
         << "if (" << S.Did << " == " << Whole
         << " && reinterpret_cast<unsigned long long>(" << S.Base << ") % "
         << S.PackBytes << " == 0) {\n";
    OS << "union {\n"
       << S.PackType << " Pack;\n"
       << S.ElemType << " Elem[" << C << "];\n} " << S.Pack << ";\n"
       << "#pragma unroll\n"
       << "for (int " << CVar << " = 0; " << CVar << " < " << C << "; ++"
       << CVar << ")\n"
       << "  " << S.Pack << ".Elem[" << CVar << "] = " << S.Buf << "[" << CVar
       << "];\n"
       << "*reinterpret_cast<" << S.PackType << " *>(" << First
       << ") = " << S.Pack << ".Pack;\n"
       << "} else {\n"
       << "#pragma unroll\n"
       << "for (int " << CVar << " = 0; " << CVar << " < " << C << "; ++"
       << CVar << ")\n"
       << "  if (" << S.Did << " >> " << CVar << " & 1u)\n"
       << "    " << AtC << " = " << S.Buf << "[" << CVar << "];\n"
       << "}\n";
  }
  return Out;
}

} // namespace astra
