//===- VectorizeLoadsFences.cpp - Elements shared with other statements ---===//
//
// A thread-partitioned loop in packs hands element i to another thread than
// the original did, and only when its guard holds: another statement of the
// kernel that accesses the same memory (another loop over the same elements,
// each thread reading back what it wrote) may then meet an element that
// another thread wrote, with no barrier between them. findUnfencedClash
// refuses such a statement unless a `__syncthreads()` that always runs lies
// between it and the loop on every path from one to the other (within a
// loop around them, also on the way round to the next iteration).
//
//===----------------------------------------------------------------------===//
#include "SiteUtil.h"
#include "VectorizeLoadsMemory.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {
namespace {

/// Whether \p S always runs a block-wide barrier when it runs.
bool isBarrier(ASTContext &Ctx, const Stmt *S) {
  struct Calls : RecursiveASTVisitor<Calls> {
    std::vector<const CallExpr *> Found;
    bool VisitCallExpr(CallExpr *C) {
      if (getCalleeName(C) == "__syncthreads")
        Found.push_back(C);
      return true;
    }
  } C;
  C.TraverseStmt(const_cast<Stmt *>(S));
  return any_of(C.Found, [&](const CallExpr *Call) {
    return runsEveryTime(Ctx, Call, S);
  });
}

bool isLoopStmt(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

} // namespace

std::string findUnfencedClash(const FunctionDecl *K, const ForStmt *Loop,
                              SourceLocation &Where) {
  ASTContext &Ctx = K->getASTContext();
  VarUses Writes;
  Writes.collect(K->getBody());
  // The compounds from the loop up, each with its child on the way and
  // whether a loop around it runs it again.
  struct Level {
    const CompoundStmt *CS;
    const Stmt *Child;
  };
  SmallVector<Level, 4> Levels;
  SmallVector<bool, 4> Repeats;
  const Stmt *Child = Loop;
  for (const Stmt *P = getParentStmt(Ctx, Loop); P;
       Child = P, P = getParentStmt(Ctx, P)) {
    if (isLoopStmt(P))
      for (bool &R : Repeats)
        R = true;
    if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      Levels.push_back({CS, Child});
      Repeats.push_back(false);
    }
  }
  for (size_t L = 0; L < Levels.size(); ++L) {
    std::vector<const Stmt *> Stmts(Levels[L].CS->body_begin(),
                                    Levels[L].CS->body_end());
    size_t At = find(Stmts, Levels[L].Child) - Stmts.begin();
    auto FencedIn = [&](size_t From, size_t To) {
      for (size_t I = From; I < To; ++I)
        if (isBarrier(Ctx, Stmts[I]))
          return true;
      return false;
    };
    for (size_t J = 0; J < Stmts.size(); ++J) {
      if (J == At)
        continue;
      size_t Lo = std::min(J, At), Hi = std::max(J, At);
      bool Fenced = FencedIn(Lo + 1, Hi);
      // Round a loop: from the later statement to the end, then from the
      // start to the earlier one.
      if (Fenced && Repeats[L])
        Fenced = FencedIn(Hi + 1, Stmts.size()) || FencedIn(0, Lo);
      if (Fenced)
        continue;
      SourceLocation ClashAt;
      if (std::string Why =
              findMemoryClash(Writes, {Loop}, {Stmts[J]}, ClashAt);
          !Why.empty()) {
        Where = ClashAt;
        return "'" + Why.substr(1, Why.find('\'', 1) - 1) +
               "' is accessed by the loop and, with no barrier between them, "
               "by another statement where each thread keeps its original "
               "elements (the vector path, taken or not on its own guard, "
               "gives them to other threads), and one of them writes it";
      }
    }
  }
  return "";
}

} // namespace vectorize
} // namespace astra
