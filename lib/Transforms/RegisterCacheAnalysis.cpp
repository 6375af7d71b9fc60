//===- RegisterCacheAnalysis.cpp - Row loops that can share registers -----===//
//
// A chain starts at a loop `for (int i = threadIdx.d; i < n; i += blockDim.d)`
// and takes the later loops of the same { } block with the same header (same
// n, same dimension). Each loop body must pass the vectorize-loads body
// analysis (analyzeBody: accesses `p[base + i]`, scalar reductions, no
// barriers, stores only to such accesses). A row `p[base + i]` is cached when
// a later loop reads it after an earlier one accessed it.
//
// What stays equal in the cached path: the rows' addresses and n (their
// variables change nowhere in the kernel); the contents of every row
// (each thread only touches the packs it owns, in every loop of the chain,
// and writes a stored pack back after the loop; a cached row is read from
// registers that hold exactly what the thread last loaded or stored). The
// statements between the loops must not mention a stored row's pointer, and
// may store to memory only through __shared__ arrays or at single addresses
// known before the chain (checked at run time not to overlap a row).
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "PerThreadValues.h"
#include "RegisterCacheChecks.h"
#include "RegisterCachePlan.h"
#include "SiteUtil.h"
#include "VectorizeLoadsBody.h"
#include "VectorizeLoadsUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/LoopForm.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include <functional>
#include <map>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

struct Header {
  const VarDecl *IV = nullptr;
  const Expr *Bound = nullptr;
  char Dim = 0;
};

/// `for (T i = threadIdx.d; i < n; i += blockDim.d)` (a block partition of
/// its LoopForm); empty on success.
std::string matchHeader(ASTContext &Ctx, const VarUses &Writes,
                        const ForStmt *F, Header &H) {
  LoopForm Form = analyzeLoopForm(Ctx, F, &Writes);
  H.IV = Form.DeclaresIV ? Form.IV : nullptr;
  if (!H.IV || !H.IV->getType()->isIntegerType() ||
      Form.Partition != LoopPartition::Block)
    return "not a block-strided row loop (expected `for (int i = "
           "threadIdx.x; i < n; i += blockDim.x)`)";
  H.Dim = Form.Dim;
  if (Form.Cmp != BO_LT || Form.BoundOnLeft)
    return "the loop condition is not `i < n`";
  H.Bound = Form.Bound;
  if (Form.Update != LoopUpdate::AddAssign)
    return "the loop step is not `i += blockDim." + std::string(1, H.Dim) + "`";
  return "";
}

/// Whether \p A and \p B name the same declarations, in order (the same
/// text may name another `n` in a nested scope).
bool sameDecls(const Expr *A, const Expr *B) {
  std::vector<const DeclRefExpr *> RA = findAllRefs(A), RB = findAllRefs(B);
  if (RA.size() != RB.size())
    return false;
  for (size_t I = 0; I < RA.size(); ++I)
    if (RA[I]->getDecl() != RB[I]->getDecl())
      return false;
  return true;
}

/// What the statements between the loops store and whether they return
/// (what else they may write: findMemoryWriter).
class BetweenScan : public RecursiveASTVisitor<BetweenScan> {
public:
  explicit BetweenScan(RewriteContext &RC) : RC(RC) {}
  bool VisitReturnStmt(ReturnStmt *S) {
    fail(S, "returns (the threads that go on would not own the elements "
            "they owned)");
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      store(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      store(U->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->isAssignmentOp() && C->getNumArgs() > 0)
      store(C->getArg(0));
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    Refs.push_back(E);
    return true;
  }

  std::vector<const Expr *> Stores; ///< global-memory lvalues stored
  std::vector<const DeclRefExpr *> Refs;
  std::string Why;

private:
  void store(const Expr *LHS) {
    const Expr *E = LHS->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl()))
        if ((V->hasLocalStorage() && !V->getType()->isReferenceType()) ||
            V->hasAttr<CUDASharedAttr>())
          return;
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
      if (const VarDecl *A = getReferencedVar(Sub->getBase()))
        if (A->hasAttr<CUDASharedAttr>())
          return;
    Stores.push_back(E);
  }
  void fail(const Stmt *S, const Twine &What) {
    if (Why.empty())
      Why = ("line " + getLineCol(RC, S->getBeginLoc()) + " " + What).str();
  }
  RewriteContext &RC;
};

} // namespace

std::string analyzeRowChain(RewriteContext &RC, const FunctionDecl *K,
                            const Stmt *Loop, RcChain &Chain) {
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *F = dyn_cast<ForStmt>(Loop);
  if (!F)
    return "not a for loop";
  Header H1;
  VarUses KernelWrites(K->getBody());
  std::string Why = matchHeader(Ctx, KernelWrites, F, H1);
  if (!Why.empty())
    return Why;
  DynTypedNodeList Ps = Ctx.getParents(*Loop);
  const auto *Block = Ps.size() == 1 ? Ps[0].get<CompoundStmt>() : nullptr;
  if (!Block)
    return "the loop is not directly inside a { } block (or carries a "
           "pragma)";
  // A version made by vectorize-loads: the rows' loops now sit in separate
  // branches.
  DynTypedNodeList Up = Ctx.getParents(*Block);
  if (const auto *If = Up.size() == 1 ? Up[0].get<IfStmt>() : nullptr)
    if (RC.getText(If->getSourceRange()).contains("astra-opt vectorize-loads"))
      return "the loop is one version of a loop vectorize-loads rewrote; "
             "apply register-cache first (it packs every row access of its "
             "cached path; vectorize-loads then vectorizes the fallback loops)";
  ChangedVars KernelCV(Ctx, K, K->getBody());
  if (!isInvariant(Ctx, H1.Bound, KernelCV, Why, /*AllowIntDivision=*/true))
    return "the row length may change between the loops: " + Why;
  std::string Bound = RC.getText(H1.Bound->getSourceRange()).str();
  Chain.Bound = Bound;
  Chain.Start = "threadIdx." + std::string(1, H1.Dim);
  Chain.Step = "blockDim." + std::string(1, H1.Dim);

  // The loops of the chain and the statements between them.
  std::vector<const ForStmt *> Loops;
  std::vector<Header> Headers;
  std::vector<std::vector<const Stmt *>> Between; // before each loop
  bool Seen = false;
  std::vector<const Stmt *> Pending;
  for (const Stmt *S : Block->body()) {
    if (S == Loop) {
      Seen = true;
      Loops.push_back(F);
      Headers.push_back(H1);
      Between.push_back({});
      continue;
    }
    if (!Seen)
      continue;
    Header H;
    const auto *G = dyn_cast<ForStmt>(S);
    if (G && matchHeader(Ctx, KernelWrites, G, H).empty() && H.Dim == H1.Dim &&
        RC.getText(H.Bound->getSourceRange()) == Bound &&
        sameDecls(H.Bound, H1.Bound)) {
      Loops.push_back(G);
      Headers.push_back(H);
      Between.push_back(Pending);
      Pending.clear();
      continue;
    }
    Pending.push_back(S);
  }

  // Groups across the loops, keyed by pointer and base.
  std::map<std::pair<const VarDecl *, std::string>, unsigned> GroupIndex;
  std::vector<const VarDecl *> GroupPtr;
  std::vector<BodyFacts> Facts(Loops.size());
  std::vector<int> FirstUse;
  std::vector<int> LastReread; // last loop that reads the row after another
  std::vector<SmallVector<unsigned, 4>> LoopGroups(Loops.size());
  size_t Analysed = 0;
  for (size_t L = 0; L < Loops.size(); ++L) {
    SourceLocation Where;
    std::string BodyWhy =
        analyzeBody(Ctx, Loops[L], Headers[L].IV, Facts[L], Where);
    if (!BodyWhy.empty()) {
      if (L == 0)
        return BodyWhy;
      break; // the chain ends before a loop it cannot serve
    }
    if (!Facts[L].UnitStrides.empty())
      return "a row is accessed with a run-time stride";
    Analysed = L + 1;
    for (const BodyGroup &G : Facts[L].Groups) {
      auto Key = std::make_pair(G.Ptr, G.BaseKey);
      auto [It, New] = GroupIndex.try_emplace(Key, GroupPtr.size());
      if (New) {
        GroupPtr.push_back(G.Ptr);
        FirstUse.push_back(L);
        LastReread.push_back(-1);
        RcGroup RG;
        RG.Addr = G.Base.empty() ? G.Ptr->getNameAsString()
                                 : G.Ptr->getNameAsString() + " + " + G.Base;
        RG.Key = G.Ptr->getNameAsString() + "[" + G.BaseKey + "]";
        Chain.Groups.push_back(RG);
      } else if (G.NeedsLoad) {
        LastReread[It->second] = L;
      }
      LoopGroups[L].push_back(It->second);
      Chain.Groups[It->second].Stored |= G.Stored;
    }
  }
  int Last = -1;
  for (size_t G = 0; G < Chain.Groups.size(); ++G)
    if (LastReread[G] >= 0) {
      Chain.Groups[G].Cached = true;
      Last = std::max(Last, LastReread[G]);
    }
  if (Last < 0)
    return Analysed > 1 ? "no later loop re-reads a row this loop reads or "
                          "writes"
                        : "no later loop of the block runs over the same "
                          "row (same n, same thread index)";
  Loops.resize(Last + 1);

  // Rows: fixed addresses, known element types. (ChangedVars counts a
  // pointer used in a template-dependent subscript as escaped.)
  for (size_t G = 0; G < Chain.Groups.size(); ++G) {
    const VarDecl *P = GroupPtr[G];
    if (KernelWrites.Modified.count(P))
      return "'" + P->getNameAsString() + "' changes in the kernel";
    QualType PT = P->getType();
    if (!PT->isPointerType())
      return "'" + P->getNameAsString() + "' is not a pointer";
    Chain.Groups[G].ElemType =
        PT->getPointeeType().getUnqualifiedType().getAsString(
            Ctx.getPrintingPolicy());
  }
  for (size_t L = 0; L < Loops.size(); ++L)
    for (const BodyGroup &G : Facts[L].Groups)
      for (const Expr *T : G.BaseTerms)
        if (!isInvariant(Ctx, T, KernelCV, Why, /*AllowIntDivision=*/true))
          return "the row offset '" + G.Base + "' may change: " + Why;

  // Between the loops.
  SmallPtrSet<const VarDecl *, 8> StoredPtrs;
  for (size_t G = 0; G < Chain.Groups.size(); ++G)
    if (Chain.Groups[G].Stored)
      StoredPtrs.insert(GroupPtr[G]);
  for (size_t L = 1; L < Loops.size(); ++L)
    for (const Stmt *S : Between[L]) {
      const Stmt *Where = nullptr;
      std::string Writes = findMemoryWriter(S, Where);
      if (!Writes.empty())
        return "between the loops, line " +
               getLineCol(RC, Where->getBeginLoc()) + " " + Writes;
      BetweenScan Scan(RC);
      Scan.TraverseStmt(const_cast<Stmt *>(S));
      if (!Scan.Why.empty())
        return "between the loops, " + Scan.Why;
      for (const DeclRefExpr *R : Scan.Refs)
        if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
          if (StoredPtrs.count(V))
            return "line " + getLineCol(RC, R->getBeginLoc()) + " uses '" +
                   V->getNameAsString() +
                   "' between the loops, whose row the chain stores";
      for (const Expr *St : Scan.Stores) {
        // `p[idx]` with p and idx's variables unchanged in the kernel and
        // declared before the chain, and no memory read in idx: the guard
        // can compute its address.
        const auto *Sub = dyn_cast<ArraySubscriptExpr>(St);
        class Fixedness : public RecursiveASTVisitor<Fixedness> {
        public:
          bool Fixed = true;
          std::function<bool(const VarDecl *)> Known;
          bool VisitDeclRefExpr(DeclRefExpr *E) {
            if (const auto *V = dyn_cast<VarDecl>(E->getDecl()))
              Fixed &= Known(V);
            return true;
          }
          bool VisitArraySubscriptExpr(ArraySubscriptExpr *) {
            return Fixed = false;
          }
          bool VisitUnaryOperator(UnaryOperator *U) {
            Fixed &= U->getOpcode() != UO_Deref;
            return true;
          }
        } Fx;
        SmallPtrSet<const VarDecl *, 1> NoIgnore;
        if (Sub && isThreadDependent(Sub, 4, NoIgnore))
          return "line " + getLineCol(RC, St->getBeginLoc()) +
                 " stores to memory between the loops at an address that "
                 "depends on the thread (the guard that checks it must take "
                 "one path for the whole block)";
        Fx.Known = [&](const VarDecl *V) {
          return !KernelWrites.Modified.count(V) &&
                 (!V->hasLocalStorage() ||
                  SM.isBeforeInTranslationUnit(V->getLocation(),
                                               Loop->getBeginLoc()));
        };
        if (Sub) {
          Fx.TraverseStmt(const_cast<Expr *>(Sub->getBase()));
          Fx.TraverseStmt(const_cast<Expr *>(Sub->getIdx()));
        }
        if (!Sub || !Fx.Fixed)
          return "line " + getLineCol(RC, St->getBeginLoc()) +
                 " stores to memory between the loops at an address not "
                 "known before them";
        Chain.BetweenStores.push_back(
            "&(" + RC.getText(St->getSourceRange()).str() + ")");
      }
    }

  {
    std::vector<const ForStmt *> ChainLoops(Loops.begin(), Loops.end());
    std::vector<const VarDecl *> IVs;
    std::vector<const BodyFacts *> FactPtrs;
    for (size_t L = 0; L < Loops.size(); ++L) {
      IVs.push_back(Headers[L].IV);
      FactPtrs.push_back(&Facts[L]);
    }
    std::string Code =
        checkChainCode(RC, K, ChainLoops, IVs, FactPtrs, GroupPtr);
    if (!Code.empty())
      return Code;
    Code = checkPerThreadValues(RC.getASTContext(), K, ChainLoops, FactPtrs,
                                Chain.Start.back(), /*Grid=*/false,
                                Chain.BlockConds);
    if (!Code.empty())
      return Code;
  }

  // Texts and edits of each loop.
  for (size_t L = 0; L < Loops.size(); ++L) {
    RcLoop RL;
    RL.Loop = Loops[L];
    RL.IVName = Headers[L].IV->getNameAsString();
    RL.IVType =
        RC.getText(
              Headers[L].IV->getTypeSourceInfo()->getTypeLoc().getSourceRange())
            .str();
    // With its indentation, so that continuation lines keep their alignment.
    RL.LoopText = RC.getIndent(Loops[L]->getBeginLoc()) +
                  RC.getText(Loops[L]->getSourceRange()).str();
    const auto *Body = dyn_cast<CompoundStmt>(Loops[L]->getBody());
    if (!Body)
      return "the body of the loop at line " +
             getLineCol(RC, Loops[L]->getBeginLoc()) + " is not a { } block";
    CharSourceRange BR = getEditableRange(RC, Body->getSourceRange());
    if (BR.isInvalid())
      return "the loop is " + getMacroReason(RC, Body->getSourceRange());
    unsigned BodyBegin = SM.getFileOffset(BR.getBegin()) + 1;
    unsigned BodyEnd = SM.getFileOffset(BR.getEnd()) - 1;
    StringRef Buf = SM.getBufferData(SM.getMainFileID());
    RL.BodyText = Buf.slice(BodyBegin, BodyEnd).str();
    for (const BodyAccess &A : Facts[L].Accesses) {
      CharSourceRange AR = getEditableRange(RC, A.E->getSourceRange());
      if (AR.isInvalid())
        return "an access is " + getMacroReason(RC, A.E->getSourceRange());
      RcEdit E;
      E.Offset = SM.getFileOffset(AR.getBegin()) - BodyBegin;
      E.Length =
          SM.getFileOffset(AR.getEnd()) - SM.getFileOffset(AR.getBegin());
      E.Group = LoopGroups[L][A.Group];
      RL.Edits.push_back(E);
    }
    for (size_t GI = 0; GI < Facts[L].Groups.size(); ++GI) {
      const BodyGroup &G = Facts[L].Groups[GI];
      unsigned Idx = LoopGroups[L][GI];
      RL.Used.push_back(Idx);
      bool Cached = Chain.Groups[Idx].Cached;
      if (G.NeedsLoad && (!Cached || FirstUse[Idx] == (int)L))
        RL.Loads.push_back(Idx);
      if (G.Stored)
        RL.Stores.push_back(Idx);
    }
    Chain.ChangesRounding |= Facts[L].FloatReduction;
    Chain.Loops.push_back(std::move(RL));
  }
  return "";
}

} // namespace astra
