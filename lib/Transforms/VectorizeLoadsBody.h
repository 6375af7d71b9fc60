//===- VectorizeLoadsBody.h - The loop body seen by vectorize-loads -*- C++
//-*-//
// Private to lib/Transforms.
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSBODY_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSBODY_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <string>
#include <vector>

namespace astra {

/// The accesses `p[base + i]` of one pointer at one base offset.
struct BodyGroup {
  const clang::VarDecl *Ptr = nullptr;
  const clang::Expr *PtrRef = nullptr; ///< one reference to the pointer
  std::string Base;                    ///< as written, empty for 0
  std::string BaseKey;                 ///< Base without blanks
  std::vector<const clang::Expr *> BaseTerms;
  const clang::Expr *FirstAccess = nullptr;
  bool Stored = false;
  bool NeedsLoad = false; ///< read, or not written on every path
  bool AllLdg = true;     ///< every access is a read through __ldg
  /// Some access runs on every step; some store runs only under a
  /// condition; some store runs on every step.
  bool EveryStep = false, CondStore = false, EveryStepStore = false;
};

/// One access to replace by its lane: `p[...]` or `__ldg(&p[...])`.
struct BodyAccess {
  const clang::Expr *E = nullptr;
  unsigned Group = 0;
};

struct BodyFacts {
  std::vector<BodyGroup> Groups;
  std::vector<BodyAccess> Accesses;
  /// Runtime strides `s` of accesses `p[base + i * s]`: the vector path
  /// requires s == 1.
  std::vector<const clang::Expr *> UnitStrides;
  llvm::SmallPtrSet<const clang::VarDecl *, 16> DeclaredInBody;
  llvm::SmallPtrSet<const clang::VarDecl *, 16> WrittenInBody;
  /// A reduction sums or multiplies non-integer values (float, half, a
  /// template type): its rounding depends on the order of the steps.
  bool FloatReduction = false;
};

/// Checks the body of \p Loop (induction variable \p IV) and collects its
/// vectorizable accesses. Returns the reason it cannot be vectorized (and
/// sets \p Where), or an empty string.
std::string analyzeBody(clang::ASTContext &Ctx, const clang::ForStmt *Loop,
                        const clang::VarDecl *IV, BodyFacts &Facts,
                        clang::SourceLocation &Where);

} // namespace astra

#endif
