//===- VectorizeLoadsThread.cpp - One element per thread, a pack instead --===//
//
// The kernels that give every thread one element:
//
//   const T i = blockIdx.b * blockDim.t + threadIdx.t;   (b may differ from t)
//          or  threadIdx.t                               (one block's threads)
//   ...                                     (no exit that depends on i)
//   if (i >= n || other) return;            or  if (i < n && other) { BODY }
//   BODY                                        ... (statements after it)
//
// Thread i runs element i when i < n, so the elements run are
// [0, min(n, G)) with G = gridDim.b * blockDim.t threads along the index
// (G = blockDim.t for threadIdx alone, per block). The rewrite keeps exactly
// that set, for any grid and block: a loop with step G over the packs of
// [0, min(n, G)) (each thread takes pack i, i + G, ...), then the last
// min(n, G) % W elements, each by its original thread. The threads that
// share packs differ only in (blockIdx.b, threadIdx.t); BODY may not depend
// on those other than through i, and the guard depends on neither, so all of
// them take the same path. The statements around BODY stay per thread with
// the original i: before the check they may only exit on all those threads
// alike, and no memory written on one side may be accessed on the other
// (findMemoryClash). Host code needs no change. A launch with fewer threads
// runs fewer elements, as the original would: shrinking the launch changes
// the contract (vecLimit = min(n, G)), which the launch rewrite must carry.
// The any-grid form (`any-grid=1`, VectorizeLoadsCodegen.cpp) covers every
// element below n for any grid instead, so that `launch:grid-x-div` may
// shrink the grid; it runs the body several times per thread, so it needs a
// body that neither returns nor synchronises (RegionOnce) and, for a global
// index, no statements after the bound check's block. For `threadIdx`
// alone it is the any-block form (block-stride, for any block: only
// `launch:block-x-div` may shrink that launch); the statements around the
// region must then act alike for any block (VectorizeLoadsAnyBlock.cpp).
//
//===----------------------------------------------------------------------===//
#include "Indent.h"
#include "SiteUtil.h"
#include "VectorizeLoadsMemory.h"
#include "VectorizeLoadsPlan.h"
#include "VectorizeLoadsUtil.h"
#include "VectorizeLoadsWiden.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace astra {
using namespace vectorize;

namespace {
struct Index {
  const VarDecl *IV = nullptr;
  char BlockDim = 0, ThreadDim = 0;
};

/// `blockIdx.b * blockDim.t + threadIdx.t` (any order, through unmodified
/// locals and integer casts), or `threadIdx.t` alone (BlockDim stays 0).
bool matchGlobalIndex(const Expr *E, const VarUses &W, Index &Out) {
  char Alone;
  if (matchBuiltin(resolveValue(E, W), "threadIdx", Alone)) {
    Out.ThreadDim = Alone;
    return true;
  }
  const auto *Add = dyn_cast<BinaryOperator>(resolveValue(E, W));
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  for (const Expr *T : {Add->getLHS(), Add->getRHS()}) {
    const Expr *Other = T == Add->getLHS() ? Add->getRHS() : Add->getLHS();
    char TD, BD, DD;
    if (!matchBuiltin(resolveValue(T, W), "threadIdx", TD))
      continue;
    const auto *M = dyn_cast<BinaryOperator>(resolveValue(Other, W));
    if (!M || M->getOpcode() != BO_Mul)
      continue;
    const Expr *L = resolveValue(M->getLHS(), W),
               *R = resolveValue(M->getRHS(), W);
    if ((matchBuiltin(L, "blockIdx", BD) && matchBuiltin(R, "blockDim", DD)) ||
        (matchBuiltin(R, "blockIdx", BD) && matchBuiltin(L, "blockDim", DD)))
      if (DD == TD) {
        Out.BlockDim = BD;
        Out.ThreadDim = TD;
        return true;
      }
  }
  return false;
}

void splitOn(const Expr *E, BinaryOperatorKind Op,
             SmallVectorImpl<const Expr *> &Out) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (B && B->getOpcode() == Op) {
    splitOn(B->getLHS(), Op, Out);
    splitOn(B->getRHS(), Op, Out);
    return;
  }
  Out.push_back(E);
}

/// Whether \p S contains a statement that leaves the kernel (a return, a
/// goto, or a call that may not come back).
bool containsExit(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt>(S))
    return true;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = C->getDirectCallee())
      if (FD->isNoReturn())
        return true;
  return any_of(S->children(), containsExit);
}

bool isReturn(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return CS->size() == 1 && isReturn(CS->body_front());
  const auto *R = dyn_cast_or_null<ReturnStmt>(S);
  return R && !R->getRetValue();
}
/// Why \p S cannot run more than once per thread in a loop: a return (it
/// would end the thread's later elements too), a barrier or a warp
/// collective (threads run different numbers of iterations). Empty if none.
std::string whyNotRepeatable(const Stmt *S) {
  if (!S)
    return "";
  if (isa<ReturnStmt>(S))
    return "the body returns";
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = C->getDirectCallee()) {
      StringRef N = F->getName();
      for (StringRef P : {"__sync", "__shfl", "__ballot", "__any", "__all",
                          "__reduce", "__match", "__activemask"})
        if (N.starts_with(P))
          return "the body calls " + N.str() +
                 ", which needs every thread of the block or warp";
    }
  for (const Stmt *C : S->children())
    if (std::string Why = whyNotRepeatable(C); !Why.empty())
      return Why;
  return "";
}

/// The first of \p Before that may exit on some threads only: anything
/// holding an exit other than `if (c) return;` with \p c free of the
/// thread coordinates in \p PartitionDeps.
const Stmt *findUnevenExit(ArrayRef<const Stmt *> Before, DependenceInfo &Deps,
                           unsigned PartitionDeps) {
  for (const Stmt *S : Before) {
    if (!containsExit(S))
      continue;
    const auto *If = dyn_cast<IfStmt>(S);
    if (If && !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
        isReturn(If->getThen()) && !containsExit(If->getCond()) &&
        !(Deps.get(If->getCond()) & (PartitionDeps | DepUnknown)))
      continue;
    return S;
  }
  return nullptr;
}
} // namespace

bool analyzePerThread(ASTContext &Ctx, const FunctionDecl *K,
                      unsigned WidthBytes, VecLoopPlan &Plan,
                      SourceLocation &Where, std::string &Why,
                      unsigned &EditBegin, unsigned &EditEnd) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  auto Text = [&](SourceRange R) {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM, LO)
        .str();
  };
  VarUses Writes;
  Writes.collect(Body);
  std::vector<const Stmt *> Stmts(Body->body_begin(), Body->body_end());
  // Candidates, threadIdx.x first: the dimension consecutive threads share.
  std::vector<std::pair<Index, unsigned>> Cands;
  for (unsigned I = 0; I < Stmts.size(); ++I) {
    const auto *DS = dyn_cast<DeclStmt>(Stmts[I]);
    const auto *VD = DS && DS->isSingleDecl()
                         ? dyn_cast<VarDecl>(DS->getSingleDecl())
                         : nullptr;
    Index Idx;
    if (VD && VD->getInit() && VD->getType()->isIntegerType() &&
        !Writes.Modified.count(VD) &&
        matchGlobalIndex(VD->getInit(), Writes, Idx)) {
      Idx.IV = VD;
      Cands.push_back({Idx, I});
    }
  }
  // Global indices before block-local ones, threadIdx.x first: the
  // dimension consecutive threads share.
  stable_sort(Cands, [](const auto &A, const auto &B) {
    auto Rank = [](const Index &I) {
      return (I.BlockDim ? 0 : 2) + (I.ThreadDim == 'x' ? 0 : 1);
    };
    return Rank(A.first) < Rank(B.first);
  });
  std::string FirstWhy;
  SourceLocation FirstWhere;
  bool AnySite = false;
  for (auto [Idx, DeclAt] : Cands) {
    const VarDecl *IV = Idx.IV;
    const bool PerBlock = !Idx.BlockDim;
    unsigned PartitionDeps = depBit(DepTid, Idx.ThreadDim) |
                             (PerBlock ? 0 : depBit(DepBid, Idx.BlockDim));
    // A global index is a site even without its bound check; `threadIdx`
    // alone is too common (block-stride loops, reductions) to be one until
    // a bound check `if (i < n)` on it is found.
    AnySite |= !PerBlock;
    auto Fail = [&](SourceLocation L, std::string R) {
      if (FirstWhy.empty()) {
        FirstWhy = std::move(R);
        FirstWhere = L;
      }
    };
    // The bound check: the first `if` after the index that tests it (the
    // statements before it stay as they are, see findMemoryClash).
    unsigned At = DeclAt + 1;
    auto IsCheck = [&](const Stmt *S) {
      const auto *If = dyn_cast<IfStmt>(S);
      return If && If->getCond() && mentions(If->getCond(), IV);
    };
    while (At < Stmts.size() && !IsCheck(Stmts[At]))
      ++At;
    const auto *If = At < Stmts.size() ? cast<IfStmt>(Stmts[At]) : nullptr;
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable()) {
      if (!PerBlock)
        Fail(IV->getLocation(), "no bound check `if (" + IV->getNameAsString() +
                                    " >= n) return;` or `if (" +
                                    IV->getNameAsString() +
                                    " < n) {...}` follows the global index '" +
                                    IV->getNameAsString() + "'");
      continue;
    }
    bool ReturnForm = isReturn(If->getThen());
    SmallVector<const Expr *, 4> Terms;
    splitOn(If->getCond(), ReturnForm ? BO_LOr : BO_LAnd, Terms);
    const Expr *End = nullptr, *BadTerm = nullptr;
    std::vector<std::string> Others;
    DependenceInfo Deps(Writes);
    for (const Expr *T : Terms) {
      const auto *B = dyn_cast<BinaryOperator>(T->IgnoreParenImpCasts());
      const Expr *Bound = nullptr;
      if (B && ReturnForm && B->getOpcode() == BO_GE &&
          getIndexVar(B->getLHS()) == IV)
        Bound = B->getRHS();
      else if (B && ReturnForm && B->getOpcode() == BO_LE &&
               getIndexVar(B->getRHS()) == IV)
        Bound = B->getLHS();
      else if (B && !ReturnForm && B->getOpcode() == BO_LT &&
               getIndexVar(B->getLHS()) == IV)
        Bound = B->getRHS();
      else if (B && !ReturnForm && B->getOpcode() == BO_GT &&
               getIndexVar(B->getRHS()) == IV)
        Bound = B->getLHS();
      if (Bound && !End && !mentions(Bound, IV)) {
        End = Bound;
        continue;
      }
      if (mentions(T, IV) || (Deps.get(T) & (PartitionDeps | DepUnknown))) {
        BadTerm = BadTerm ? BadTerm : T;
        continue;
      }
      Others.push_back(ReturnForm ? "(" + Text(T->getSourceRange()) + ")"
                                  : "!(" + Text(T->getSourceRange()) + ")");
    }
    if (PerBlock && !End)
      continue; // not a bound check: no site
    AnySite = true;
    if (BadTerm) {
      Fail(BadTerm->getBeginLoc(),
           "the condition '" + Text(BadTerm->getSourceRange()) +
               "' of the bound check differs between the threads that "
               "would share packs");
      continue;
    }
    if (!End || (Deps.get(End) & (PartitionDeps | DepUnknown))) {
      Fail(If->getBeginLoc(),
           "the bound check is not `" + IV->getNameAsString() +
               " >= n` (return) or `" + IV->getNameAsString() +
               " < n` (block) with n the same for every "
               "thread");
      continue;
    }
    std::vector<const Stmt *> Region;
    SourceLocation RegionBegin, RegionEnd, ReplaceEnd;
    bool Trailing = false;
    if (ReturnForm) {
      Region.assign(Stmts.begin() + At + 1, Stmts.end());
      RegionBegin = Lexer::getLocForEndOfToken(If->getEndLoc(), 0, SM, LO);
      SourceLocation Semi = Lexer::findLocationAfterToken(
          If->getEndLoc(), tok::semi, SM, LO, false);
      if (Semi.isValid())
        RegionBegin = Semi;
      RegionEnd = ReplaceEnd = Body->getRBracLoc();
    } else {
      const auto *Then = dyn_cast<CompoundStmt>(If->getThen());
      if (!Then) {
        Fail(If->getBeginLoc(), "the bound check's body is not a `{ }` block");
        continue;
      }
      Trailing = any_of(ArrayRef(Stmts).drop_front(At + 1),
                        [](const Stmt *S) { return !isa<NullStmt>(S); });
      Region.assign(Then->body_begin(), Then->body_end());
      RegionBegin = Then->getLBracLoc().getLocWithOffset(1);
      RegionEnd = Then->getRBracLoc();
      ReplaceEnd = Then->getRBracLoc().getLocWithOffset(1);
    }
    // The statements around the region stay as they are, run by each thread
    // for its original index; they must not meet the region's elements,
    // which other threads now run.
    std::vector<const Stmt *> Around(Stmts.begin(), Stmts.begin() + At);
    if (!ReturnForm)
      Around.insert(Around.end(), Stmts.begin() + At + 1, Stmts.end());
    SourceLocation ClashAt;
    if (std::string Why = findMemoryClash(Writes, Region, Around, ClashAt);
        !Why.empty()) {
      Fail(ClashAt, Why);
      continue;
    }
    // A thread that leaves before the check leaves its element undone; in
    // the rewrite its pack's other elements belong to other threads. Only
    // exits that every thread sharing the elements takes alike are kept.
    if (const Stmt *Exit = findUnevenExit(ArrayRef(Stmts).take_front(At), Deps,
                                          PartitionDeps)) {
      Fail(Exit->getBeginLoc(),
           "a statement before the bound check may leave the kernel on some "
           "threads only (not `if (c) return;` with c the same for the "
           "threads that would share packs)");
      continue;
    }
    SourceLocation IfBegin = If->getBeginLoc();
    if (IfBegin.isMacroID() || RegionBegin.isMacroID() ||
        RegionEnd.isMacroID() || !SM.isWrittenInMainFile(IfBegin)) {
      Fail(IfBegin, "the bound check is written in a macro");
      continue;
    }
    VecLoopPlan P;
    P.WidthBytes = WidthBytes;
    P.PerThread = true;
    P.PerBlock = PerBlock;
    P.HasTrailing = Trailing;
    P.IVName = IV->getNameAsString();
    P.IVType =
        IV->getType().getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    P.End = Text(End->getSourceRange());
    std::string Threads =
        "static_cast<" + P.IVType + ">(blockDim." + Idx.ThreadDim + ")";
    P.StrideGridDim = PerBlock ? 0 : Idx.BlockDim;
    P.StrideBlockDim = Idx.ThreadDim;
    // The grid's thread count, taken modulo the index type (no signed
    // overflow); the guard checks it fits, else the original runs.
    std::string GridThreads = "static_cast<unsigned long long>(gridDim." +
                              std::string(1, Idx.BlockDim) + ") * blockDim." +
                              std::string(1, Idx.ThreadDim);
    bool Wide = Ctx.getTypeSize(IV->getType()) >= 64; // holds any grid
    P.Step = PerBlock ? Threads
             : Wide   ? "static_cast<" + P.IVType + ">(gridDim." +
                          std::string(1, Idx.BlockDim) + ") * " + Threads
                    : "static_cast<" + P.IVType + ">(" + GridThreads + ")";
    if (!PerBlock && !Wide)
      P.BlockGuards.push_back("static_cast<unsigned long long>(" + P.Step +
                              ") == " + GridThreads);
    P.OtherExits = Others;
    if (PerBlock) {
      SourceLocation At;
      P.AnyBlockWhy = whyNotAnyBlock(K, IV, Idx.ThreadDim, Writes, Around, At);
      if (!P.AnyBlockWhy.empty() && At.isValid())
        P.AnyBlockWhy +=
            " (line " + std::to_string(SM.getPresumedLineNumber(At)) + ")";
    }
    StringRef Buf = SM.getBufferData(SM.getFileID(IfBegin));
    EditBegin = SM.getFileOffset(IfBegin);
    EditEnd = SM.getFileOffset(ReplaceEnd);
    P.LoopText = Buf.slice(EditBegin, EditEnd).rtrim().str();
    P.LoopIndent = getLineIndent(Buf, EditBegin);
    P.RegionText =
        Buf.slice(SM.getFileOffset(RegionBegin), SM.getFileOffset(RegionEnd))
            .trim("\n")
            .rtrim()
            .str();
    SourceLocation W = IfBegin;
    for (const Stmt *S : Region)
      if (P.RegionOnce.empty())
        P.RegionOnce = whyNotRepeatable(S);
    std::string R = widenRegion(Ctx, K, IV, PartitionDeps, Region, P, W);
    if (!R.empty()) {
      Fail(W, R);
      continue;
    }
    Plan = std::move(P);
    Where = IfBegin;
    Why.clear();
    return true;
  }
  Why = FirstWhy;
  Where = FirstWhere;
  return AnySite;
}

} // namespace astra
