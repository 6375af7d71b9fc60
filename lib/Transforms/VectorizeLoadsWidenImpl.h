//===- VectorizeLoadsWidenImpl.h - The widening analysis -------*- C++ -*-===//
//
// Private to VectorizeLoadsWiden*.cpp: the state shared by the analysis
// (VectorizeLoadsWiden.cpp) and the text generation
// (VectorizeLoadsWidenEmit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSWIDENIMPL_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSWIDENIMPL_H

#include "VectorizeLoadsLanes.h"
#include "VectorizeLoadsPlan.h"
#include "VectorizeLoadsUtil.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>

namespace astra {
namespace vectorize {

/// An access `p[e]` with e Aff and aligned: one lane of a vector access.
struct PackUse {
  const clang::ArraySubscriptExpr *Access = nullptr;
  const clang::Expr *Replace = nullptr;    ///< Access, or `__ldg(&Access)`
  const clang::CallExpr *Atomic = nullptr; ///< `atomicAdd(&Access, v)`
  const clang::Stmt *Unit = nullptr;       ///< the per-lane statement
  bool Read = false, Write = false, NeedsLoad = false;
  std::string Key;    ///< pointer and index, blanks removed
  unsigned Group = 0; ///< in Plan.Groups (guard and union)
  /// The index is `t1 +- t2 ... + i`: terms the guard can evaluate (each
  /// with its sign, blanks removed, and the term) around one copy of the
  /// element index. Two such offsets of one pointer that differ in a single
  /// term d touch disjoint elements when |d| is at least the loop's extent.
  bool InvariantPlusIndex = false;
  std::vector<std::pair<std::string, const clang::Expr *>> InvTerms;
};

class Widener : public LaneAlgebra {
public:
  Widener(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
          const clang::VarDecl *IV, unsigned PartitionDeps,
          llvm::ArrayRef<const clang::Stmt *> Region, VecLoopPlan &Plan);
  std::string run(clang::SourceLocation &Where);

  // Analysis (VectorizeLoadsWiden.cpp).
  Lane formOf(const clang::Expr *E) override;
  Lane formOfVar(const clang::VarDecl *VD);
  bool isGuardEvaluable(const clang::Expr *E) const override;
  bool isIndexCopy(const clang::Expr *E) const override;
  std::string guardText(const clang::Expr *E) override;
  void requireDivisible(const std::string &D) override;
  const clang::Expr *valueOf(const clang::VarDecl *VD,
                             bool &IsIndex) const override;
  std::string text(clang::SourceRange R) const;
  const clang::Stmt *parent(const clang::Stmt *S) const;

  // Text generation (VectorizeLoadsWidenEmit.cpp).
  std::string prepareUnits(clang::SourceLocation &Where);
  std::string emit();

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  const clang::FunctionDecl *K;
  const clang::VarDecl *IV;
  unsigned PartitionDeps;
  std::vector<const clang::Stmt *> Region;
  VecLoopPlan &Plan;

  VarUses KernelWrites;
  VarUses RegionWrites; ///< variables the region writes
  /// Variables declared in the region, their writes other than the
  /// initializer (the write expression and its value, null for ++/--).
  llvm::SmallPtrSet<const clang::VarDecl *, 16> RegionVars;
  llvm::DenseMap<
      const clang::VarDecl *,
      std::vector<std::pair<const clang::Expr *, const clang::Expr *>>>
      VarWritesIn;
  llvm::DenseMap<const clang::VarDecl *, Lane> Forms;
  llvm::SmallPtrSet<const clang::VarDecl *, 8> AddressTaken;
  std::vector<const clang::ArraySubscriptExpr *> Subscripts;
  /// Statements of the region in emission order: structural ones (kept
  /// with their header) and per-lane units.
  llvm::SmallPtrSet<const clang::Stmt *, 16> Structural, Units;
  std::vector<PackUse> Packs;
  llvm::DenseMap<const clang::Expr *, unsigned> PackOf; ///< Replace -> Packs
  llvm::DenseMap<const clang::CallExpr *, unsigned> AtomicOf;
  /// Text edits inside each unit: file offset -> (length, text).
  std::map<unsigned, std::pair<unsigned, std::string>> Edits;
  std::vector<std::string> AtomicVars; ///< per atomic pack, by PackUse index
  llvm::DenseMap<unsigned, std::string> AtomicVarOf;
  std::string Reason;
  clang::SourceLocation ReasonLoc;

  bool refuse(clang::SourceLocation L, const llvm::Twine &Why) {
    if (Reason.empty()) {
      Reason = Why.str();
      ReasonLoc = L;
    }
    return false;
  }

private:
  void scan();
  void computeForms();
  bool isControlled(const clang::Expr *Write);
  bool isStructural(const clang::Stmt *S);
  void classify(llvm::ArrayRef<const clang::Stmt *> Seq);
  void findPacks();
  void checkPointers();
  std::string buildGroups(clang::SourceLocation &Where);
};

/// The statements of \p S as a sequence: a compound's children, else \p S.
std::vector<const clang::Stmt *> getSequence(const clang::Stmt *S);

/// Whether \p E is the index of \p W's body, directly or through body
/// variables that only copy it, and through integer casts that keep every
/// value (VectorizeLoadsWidenApart.cpp).
bool isExactIndex(const Widener &W, const clang::Expr *E);

/// Empty when the vector accesses of \p P at its several offsets touch
/// disjoint elements (proved, or guarded at run time: W.Plan.ApartGuards);
/// else the reason (VectorizeLoadsWidenApart.cpp).
std::string checkApart(Widener &W, const clang::VarDecl *P);

} // namespace vectorize
} // namespace astra

#endif
