//===- VectorizeLoadsUtil.cpp - AST helpers of vectorize-loads ------------===//
#include "VectorizeLoadsUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

bool matchBuiltin(const Expr *E, StringRef Builtin, char &Dim) {
  std::optional<CudaBuiltin> B = matchCudaBuiltin(stripIntCasts(E));
  if (!B || B->Var != Builtin)
    return false;
  Dim = B->Dim;
  return true;
}

namespace {
struct VarCollector : RecursiveASTVisitor<VarCollector> {
  SmallPtrSetImpl<const VarDecl *> &Out;
  explicit VarCollector(SmallPtrSetImpl<const VarDecl *> &Out) : Out(Out) {}
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      Out.insert(VD);
    return true;
  }
};

} // namespace

bool mentions(const Stmt *S, const VarDecl *VD) {
  SmallPtrSet<const VarDecl *, 8> Vars;
  collectVars(S, Vars);
  return Vars.count(VD);
}

void collectVars(const Stmt *S, SmallPtrSetImpl<const VarDecl *> &Out) {
  VarCollector C(Out);
  C.TraverseStmt(const_cast<Stmt *>(S));
}

namespace {
struct DepVisitor : RecursiveASTVisitor<DepVisitor> {
  unsigned Bits = 0;
  function_ref<unsigned(const VarDecl *)> VarDeps;
  explicit DepVisitor(function_ref<unsigned(const VarDecl *)> F) : VarDeps(F) {}
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *E) {
    char Dim;
    if (matchBuiltin(E, "threadIdx", Dim))
      Bits |= depBit(DepTid, Dim);
    else if (matchBuiltin(E, "blockIdx", Dim))
      Bits |= depBit(DepBid, Dim);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      Bits |= VarDeps(VD);
    return true;
  }
};
} // namespace

unsigned DependenceInfo::get(const Expr *E) {
  auto VarDeps = [this](const VarDecl *VD) { return getVar(VD); };
  DepVisitor V(VarDeps);
  V.TraverseStmt(const_cast<Expr *>(E));
  return V.Bits;
}

unsigned DependenceInfo::getVar(const VarDecl *VD) {
  auto [It, New] = Cache.try_emplace(VD, 0);
  if (!New)
    return It->second; // known, or in progress (a cycle adds nothing new)
  unsigned Bits = 0;
  if (VD->hasAttr<CUDASharedAttr>())
    Bits = DepBid | depBit(DepBid, 'y') | depBit(DepBid, 'z');
  else if (!VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
    Bits = 0; // a global or __constant__: the same for every thread
  else {
    if (Writes.AddressTaken.count(VD))
      Bits |= DepUnknown;
    if (const Expr *Init = VD->getInit())
      Bits |= get(Init);
    auto A = Writes.Assigned.find(VD);
    if (A != Writes.Assigned.end())
      for (const Expr *RHS : A->second)
        Bits |= get(RHS);
  }
  Cache[VD] = Bits;
  return Bits;
}

bool isBarrierOrCollective(StringRef Name) {
  for (StringRef P :
       {"__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync",
        "__all_sync", "__match", "__reduce_", "__activemask", "__barrier"})
    if (Name.starts_with(P))
      return true;
  return false;
}

StringSet<> collectIdentifiers(ASTContext &Ctx, const FunctionDecl *K) {
  StringSet<> Used;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange KR = K->getSourceRange();
  SourceLocation Begin = SM.getFileLoc(KR.getBegin());
  StringRef Buf = SM.getBufferData(SM.getFileID(Begin));
  unsigned BOff = SM.getFileOffset(Begin);
  unsigned EOff = SM.getFileOffset(SM.getFileLoc(KR.getEnd()));
  Lexer Lex(SM.getLocForStartOfFile(SM.getFileID(Begin)), Ctx.getLangOpts(),
            Buf.begin(), Buf.begin() + BOff,
            Buf.begin() + std::min<size_t>(EOff + 1, Buf.size()));
  Token Tok;
  while (!Lex.LexFromRawLexer(Tok))
    if (Tok.is(tok::raw_identifier))
      Used.insert(Tok.getRawIdentifier());
  return Used;
}

WriteKind writeOf(const clang::Stmt *Par, const clang::Expr *A) {
  using namespace clang;
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(Par)) {
    if (!B->isAssignmentOp() || B->getLHS()->IgnoreParens() != A)
      return WriteKind::None;
    return B->isCompoundAssignmentOp() ? WriteKind::Update : WriteKind::Assign;
  }
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Par))
    return U->isIncrementDecrementOp() ? WriteKind::Update : WriteKind::None;
  if (const auto *C = dyn_cast_or_null<CXXOperatorCallExpr>(Par)) {
    if (C->getNumArgs() < 1 || C->getArg(0)->IgnoreParens() != A)
      return WriteKind::None;
    OverloadedOperatorKind Op = C->getOperator();
    if (Op == OO_Equal)
      return WriteKind::Assign;
    if (C->isAssignmentOp() || Op == OO_PlusPlus || Op == OO_MinusMinus)
      return WriteKind::Update;
  }
  return WriteKind::None;
}

} // namespace vectorize
} // namespace astra
