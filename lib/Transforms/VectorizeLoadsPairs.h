//===- VectorizeLoadsPairs.h - The pairs form of vectorize-loads -*- C++
//-*-===//
//
// Private to lib/Transforms. The pairs form vectorizes a loop whose body
// stores one buffer at two offsets a loop-invariant distance apart, as a
// rotary embedding does (`x[j]` and `x[j + half]`, j the index or `i % d`),
// also when the accesses sit in a device function the body calls (the call
// is inlined into the vector loop). See VectorizeLoadsPairs.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSPAIRS_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSPAIRS_H

#include "VectorizeLoadsLanes.h"
#include "VectorizeLoadsPlan.h"
#include "VectorizeLoadsUtil.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include <map>

namespace astra {

/// Analyses the body of \p Loop (induction variable \p IV; \p PartitionDeps:
/// the DepBits of the thread coordinates that spread its iterations) for the
/// pairs form. \p Plan holds the loop header on entry. On success fills
/// Plan.Groups, DivisibleBy, NonZero, DependentElem, WidenedBody and the
/// local names and returns ""; else returns the reason and sets \p Where.
/// \p Candidate tells whether the body has the shape the form looks for (a
/// buffer accessed at two offsets, or a call passing a pointer), so that a
/// refusal is worth reporting.
std::string widenPairs(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                       const clang::ForStmt *Loop, const clang::VarDecl *IV,
                       unsigned PartitionDeps, VecLoopPlan &Plan,
                       clang::SourceLocation &Where, bool &Candidate);

namespace vectorize {

/// A device function call of the body that the vector loop inlines.
struct InlinedCall {
  const clang::CallExpr *Call = nullptr;
  const clang::FunctionDecl *Callee = nullptr; ///< the definition as written
  /// Callee template type parameters -> the type they stand for, as text.
  llvm::DenseMap<const clang::Decl *, std::string> TypeArgs;
  std::vector<std::string> ParamNames; ///< fresh names of the parameters
};

/// One access `p[e]` that becomes a lane of a vector access.
struct PairAccess {
  const clang::ArraySubscriptExpr *A = nullptr;
  const clang::VarDecl *Root = nullptr;   ///< pointer declared outside the loop
  const clang::VarDecl *Origin = nullptr; ///< Root followed to its source
  std::vector<std::string> BaseTerms;     ///< guard-evaluable, signed text
  std::string VaryKey;                    ///< the per-pack part, normalised
  bool Read = false, Write = false;
  unsigned Group = 0;
  std::string Addr; ///< `&...` at lane 0, valid before the lane loop
};

class PairsAnalyzer : public LaneAlgebra {
public:
  PairsAnalyzer(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                const clang::ForStmt *Loop, const clang::VarDecl *IV,
                unsigned PartitionDeps, VecLoopPlan &Plan);
  std::string run(clang::SourceLocation &Where);
  bool Candidate = false;

  // Analysis (VectorizeLoadsPairs.cpp).
  Lane formOf(const clang::Expr *E) override;
  const clang::Expr *seeThrough(const clang::Expr *E) const;
  bool isGuardEvaluable(const clang::Expr *E) const override;
  bool isIndexCopy(const clang::Expr *E) const override;
  std::string guardText(const clang::Expr *E) override { return kernelText(E); }
  void requireDivisible(const std::string &D) override;
  const clang::Expr *valueOf(const clang::VarDecl *VD,
                             bool &IsIndex) const override;
  const clang::Expr *resolve(const clang::Expr *E) const override {
    return seeThrough(E);
  }
  bool refuse(clang::SourceLocation L, const llvm::Twine &Why) {
    if (Reason.empty()) {
      Reason = Why.str();
      ReasonLoc = L;
    }
    return false;
  }
  std::string text(const clang::Stmt *S) const;
  /// \p S as kernel text: callee parameters replaced by their arguments,
  /// body variables that are not declared before the lane loop by their
  /// initializers.
  std::string kernelText(const clang::Expr *E);
  /// The file text [Begin, End) with \p Edits (offset -> length, text).
  std::string renderText(
      unsigned Begin, unsigned End,
      const std::map<unsigned, std::pair<unsigned, std::string>> &Edits) const;
  bool isHoistedVar(const clang::VarDecl *VD) const;

  // Text generation (VectorizeLoadsPairsEmit.cpp).
  std::string emit();

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  const clang::FunctionDecl *K;
  const clang::ForStmt *Loop;
  const clang::VarDecl *IV;
  unsigned PartitionDeps;
  VecLoopPlan &Plan;
  VarUses KernelWrites;
  mutable vectorize::DependenceInfo Deps;

  std::vector<const clang::Stmt *> Body; ///< the loop body's statements
  /// Declarations of the body (and of inlined callees) -> lane form.
  llvm::DenseMap<const clang::VarDecl *, Lane> Forms;
  /// Callee parameters -> the argument (kernel expression).
  llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> ParamArg;
  llvm::DenseMap<const clang::VarDecl *, unsigned> ParamIndex;
  std::vector<InlinedCall> Calls;
  llvm::DenseMap<const clang::Stmt *, unsigned> CallOf; ///< statement -> Calls
  /// Body statements declared before the lane loop (Inv/Aff declarations).
  llvm::SmallPtrSet<const clang::Stmt *, 8> Hoisted;
  llvm::SmallPtrSet<const clang::VarDecl *, 8> HoistedVars;
  std::vector<const clang::ArraySubscriptExpr *> Subscripts;
  std::vector<PairAccess> Accesses;
  /// Accesses that stay per lane: their buffer (null when unknown) and
  /// whether they write.
  struct ScalarAccess {
    const clang::ArraySubscriptExpr *A = nullptr;
    const clang::VarDecl *Origin = nullptr;
    bool Write = false;
  };
  std::vector<ScalarAccess> Scalars;
  /// Why each access of Scalars is not a lane of a vector access.
  llvm::DenseMap<const clang::Expr *, std::string> ScalarWhy;
  /// Per group of Plan.Groups: its address at lane 0.
  std::vector<std::string> GroupAddr;
  llvm::DenseMap<const clang::Expr *, unsigned> AccessOf;
  std::string Reason;
  clang::SourceLocation ReasonLoc;
  /// The reference to the pointer resolvePointer() found last.
  const clang::Expr *RootRef = nullptr;

private:
  bool checkExpr(const clang::Stmt *S, const clang::CallExpr *Inlined,
                 bool InCallee);
  bool scanStatement(const clang::Stmt *S, const InlinedCall *In);
  bool inlineCall(const clang::Stmt *S, const clang::CallExpr *C);
  bool declare(const clang::DeclStmt *DS, bool InCallee);
  void findAccesses();
  bool describeAccess(const clang::ArraySubscriptExpr *A, PairAccess &PA,
                      std::string &Why);
  bool resolvePointer(
      const clang::Expr *E,
      llvm::SmallVectorImpl<std::pair<const clang::Expr *, bool>> &Terms,
      const clang::VarDecl *&Root, unsigned Depth = 0);
  void
  flatten(const clang::Expr *E, bool Neg,
          llvm::SmallVectorImpl<std::pair<const clang::Expr *, bool>> &Terms,
          unsigned Depth = 0);
  const clang::VarDecl *originOf(const clang::VarDecl *Root);
  bool isUnconditional(const clang::Expr *E) const;
  void checkStoredBuffers();
  void checkThreadUses();
  std::string buildGroups();
};

} // namespace vectorize
} // namespace astra

#endif
