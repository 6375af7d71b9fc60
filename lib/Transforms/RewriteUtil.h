//===- RewriteUtil.h - Helpers shared by the rewrites -----------*- C++ -*-===//
//
// Private to lib/Transforms. Site selection, macro checks, a batch of nested
// source edits, fresh names, and the "is this value changed in the loop"
// analysis that hoist-invariant and manual unroll share.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_REWRITEUTIL_H
#define ASTRA_LIB_TRANSFORMS_REWRITEUTIL_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace astra {

/// Fails when \p P has a key that \p R does not declare in getParams().
llvm::Error checkParamKeys(const Rewrite &R, const RewriteParams &P);

/// Parses the integer parameter \p Key and checks it lies in [Lo, Hi].
llvm::Expected<int64_t> getIntInRange(const RewriteParams &P,
                                      llvm::StringRef Key, int64_t Default,
                                      int64_t Lo, int64_t Hi);

/// Whether the kernel/loop filter of \p P selects a site. A site outside any
/// loop is deselected by a loop filter.
bool isSelected(const RewriteParams &P, llvm::StringRef Kernel,
                llvm::StringRef LoopId);

/// Loop id (`k:L<n>`) of every loop in a kernel's body.
llvm::DenseMap<const clang::Stmt *, std::string>
getLoopIds(const clang::FunctionDecl *Kernel);

/// Empty when the written range \p R can be edited (it lies in the input
/// file, possibly spanning whole macro invocations); otherwise why not, e.g.
/// "inside the expansion of macro 'M'".
std::string getMacroReason(const RewriteContext &RC, clang::SourceRange R);

/// The loops of \p Ids that contain \p S, innermost first.
std::vector<const clang::Stmt *>
getEnclosingLoops(clang::ASTContext &Ctx, const clang::Stmt *S,
                  const llvm::DenseMap<const clang::Stmt *, std::string> &Ids);

/// \p E without implicit nodes and the parentheses written around it.
const clang::Expr *stripParens(const clang::Expr *E);

/// `line:col` of \p Loc, for details that point at another place.
std::string getLineCol(const RewriteContext &RC, clang::SourceLocation Loc);

/// Whether \p FD is a math function from a system header (the CUDA wrappers,
/// libdevice declarations, <cmath>) rather than a user's function.
bool isLibraryFunction(const clang::FunctionDecl *FD);

/// \p E is `threadIdx.x`, `blockIdx.y`, `blockDim.z`, `gridDim.x`...
bool isCudaBuiltinIndex(const clang::Expr *E);

/// Collects source edits that may nest (`__fdividef(a, b)` around an edited
/// `a`) and commits them to the context as non-overlapping replacements.
/// Insertions at one offset keep the order they were added in and come
/// before a replacement that starts there.
class EditBatch {
public:
  explicit EditBatch(RewriteContext &RC) : RC(RC) {}
  /// File offsets of the written range \p R (~0u when not editable).
  unsigned beginOf(clang::SourceRange R) const;
  unsigned endOf(clang::SourceRange R) const;

  void replace(unsigned Begin, unsigned End, llvm::StringRef Text);
  void insert(unsigned Offset, llvm::StringRef Text) {
    replace(Offset, Offset, Text);
  }
  void replace(clang::SourceRange R, llvm::StringRef Text) {
    replace(beginOf(R), endOf(R), Text);
  }
  /// Adds every edit to the RewriteContext. Fails on overlapping edits or
  /// edits outside the main file.
  llvm::Error commit();

private:
  struct Edit {
    unsigned Begin, End;
    std::string Text;
    unsigned Seq;
  };
  clang::CharSourceRange getFileRange(clang::SourceRange R) const;
  RewriteContext &RC;
  std::vector<Edit> Edits;
  bool Invalid = false;
};

/// Adds the statement \p Text as the first line of \p Body, on a line of its
/// own (so the lines around it, the function signature included, keep their
/// formatting).
void insertAtBodyStart(const RewriteContext &RC, EditBatch &Edits,
                       const clang::CompoundStmt *Body, llvm::StringRef Text);

/// Inserts the statement \p Text on its own line before \p S, indented like
/// it. Fails when \p S does not start its line.
bool insertLineBefore(const RewriteContext &RC, EditBatch &Edits,
                      const clang::Stmt *S, llvm::StringRef Text);

/// An identifier based on \p Base that is not spelled anywhere in the
/// translation unit and was not handed out before through \p Taken.
std::string makeFreshName(clang::ASTContext &Ctx, llvm::StringRef Base,
                          llvm::StringSet<> &Taken);

/// Every reference to \p V inside \p S, in source order.
std::vector<const clang::DeclRefExpr *> findRefs(const clang::Stmt *S,
                                                 const clang::VarDecl *V);

/// How an expression naming a variable is used.
enum class UseKind {
  Read,   ///< its value is loaded
  Write,  ///< assigned, compound-assigned, incremented or decremented
  Escape, ///< address taken, bound to a reference, or something not analysed
};
UseKind classifyUse(clang::ASTContext &Ctx, const clang::Expr *E);

/// Which local variables and parameters of a function may change while a
/// statement (a loop) runs: written inside it, or escaped anywhere in the
/// function (their address is taken, so any store may change them).
class ChangedVars {
public:
  ChangedVars(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn,
              const clang::Stmt *Region);
  bool mayChange(const clang::VarDecl *V) const {
    return Changed.count(V) || Escaped.count(V);
  }
  /// Whether \p V is declared inside the region (fresh each iteration).
  bool isDeclaredInside(const clang::VarDecl *V) const;

private:
  llvm::SmallPtrSet<const clang::VarDecl *, 16> Changed, Escaped;
  const clang::SourceManager &SM;
  clang::SourceRange Region;
};

/// Whether \p E has the same value on every iteration of the region that
/// \p CV describes and can be evaluated before it without side effects:
/// literals, unchanged variables declared outside it, `threadIdx.x` and
/// friends, arithmetic and casts on those, and calls to pure math library
/// functions. Integer division is refused unless \p AllowIntDivision (it is
/// undefined for a zero divisor, so it must not be evaluated ahead of where
/// the program evaluates it). On failure \p Why names the first offending
/// part.
bool isInvariant(clang::ASTContext &Ctx, const clang::Expr *E,
                 const ChangedVars &CV, std::string &Why,
                 bool AllowIntDivision = false);

/// Whether \p Name is a side-effect-free CUDA math function (float or double
/// flavour, intrinsics included).
bool isPureMathFunction(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_REWRITEUTIL_H
