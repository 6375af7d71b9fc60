//===- SiteUtil.h - Where a rewrite looks -----------------------*- C++ -*-===//
//
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_SITEUTIL_H
#define ASTRA_LIB_TRANSFORMS_SITEUTIL_H

#include "astra/Frontend/ExprMatch.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

namespace astra {

struct DeviceFunction;

/// Whether the kernel/loop/function filter of \p P selects a site in the
/// body of kernel \p Kernel (`function=` naming the kernel selects its body).
/// A site outside any loop is deselected by a loop filter.
bool isSelected(const RewriteParams &P, llvm::StringRef Kernel,
                llvm::StringRef LoopId);

/// Fills Function and ReachedFrom of \p Site, a site in the body of \p DF,
/// and whether \p P selects it: `function=` naming DF, or `kernel=K` when K
/// is the only kernel that reaches DF (an edit there changes no other
/// kernel); never `loop=` (the loops of device functions are not numbered).
void markDeviceFunctionSite(RewriteSite &Site, const DeviceFunction &DF,
                            const RewriteParams &P);

/// Why the body of \p DF cannot be edited: it lies outside the input file.
std::string getOutsideReason(const RewriteContext &RC,
                             const DeviceFunction &DF);

/// Loop id (`k:L<n>`) of every loop in a kernel's body.
llvm::DenseMap<const clang::Stmt *, std::string>
getLoopIds(const clang::FunctionDecl *Kernel);

/// The file range of the written range \p R when it can be edited (it lies
/// in the input file, possibly spanning whole macro invocations), else an
/// invalid range.
clang::CharSourceRange getEditableRange(const RewriteContext &RC,
                                        clang::SourceRange R);

/// Empty when the written range \p R can be edited (it lies in the input
/// file, possibly spanning whole macro invocations); otherwise why not, e.g.
/// "inside the expansion of macro 'M'".
std::string getMacroReason(const RewriteContext &RC, clang::SourceRange R);

/// The loops of \p Ids that contain \p S, innermost first.
std::vector<const clang::Stmt *>
getEnclosingLoops(clang::ASTContext &Ctx, const clang::Stmt *S,
                  const llvm::DenseMap<const clang::Stmt *, std::string> &Ids);

/// \p E with the parentheses written around it (outside macros): what an
/// edit replaces when the result needs none.
const clang::Expr *getWithParens(const RewriteContext &RC,
                                 const clang::Expr *E);

/// The statement that holds \p S: its parent, or, for an expression in a
/// variable's initialiser, the declaration's statement; null at the
/// function (or when \p S has several parents).
const clang::Stmt *getParentStmt(clang::ASTContext &Ctx, const clang::Stmt *S);

/// Whether \p S runs every time \p Unit (a statement holding it) runs: on
/// the way up no branch, loop body, case, `?:` arm or right-hand side of
/// `&&`/`||` holds it (a condition, a loop's init and first test, a do
/// body count as running).
bool runsEveryTime(clang::ASTContext &Ctx, const clang::Stmt *S,
                   const clang::Stmt *Unit);

/// \p S as written (its tokens' text).
std::string getStmtText(clang::ASTContext &Ctx, const clang::Stmt *S);

/// `line:col` of \p Loc, for details that point at another place.
std::string getLineCol(const RewriteContext &RC, clang::SourceLocation Loc);

/// Whether \p FD is a math function from a system header (the CUDA wrappers,
/// libdevice declarations, <cmath>) rather than a user's function.
bool isLibraryFunction(const clang::FunctionDecl *FD);

/// Whether \p Sub is used as an element value: read, assigned, or
/// incremented, never its address taken or bound to a reference.
bool isElementUse(clang::ASTContext &Ctx,
                  const clang::ArraySubscriptExpr *Sub);

/// Whether a call named \p Name synchronises or exchanges data between
/// threads: barriers, warp collectives, cooperative groups.
bool isCollectiveCall(llvm::StringRef Name);

/// Whether the text of \p R (file locations of its expansion) holds a
/// preprocessor conditional: a line `#if`, `# ifdef`, `#ifndef`, `#elif`,
/// `#else` or `#endif`, with any blanks around the `#`. The branch not
/// compiled is not in the AST, so a scan cannot see what it holds.
bool hasConditionalDirective(const RewriteContext &RC, clang::SourceRange R);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_SITEUTIL_H
