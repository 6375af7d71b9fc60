//===- LaunchConst.h - Block sizes written as constants ---------*- C++ -*-===//
//
// Private to lib/Transforms: how the launch rewrite reads a block size that
// is not an integer literal (a constant, a template parameter), and whether
// a constant may carry a new one.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_LAUNCHCONST_H
#define ASTRA_LIB_TRANSFORMS_LAUNCHCONST_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace astra {

/// How a block size (the thread count of `__launch_bounds__`, the block of a
/// `<<<...>>>`) is written.
struct BlockSizeExpr {
  enum Kind {
    Plain,         ///< an integer literal or a run-time value: edited in place
    Constant,      ///< a constant (`constexpr int kBlock = 256;`, `static
                   ///< const`, a local `const`) with an integer literal
                   ///< initializer: the initializer carries the change
    TemplateParam, ///< a template parameter (`__launch_bounds__(BLOCK)`) or
                   ///< an expression that depends on one (`Cfg::kBlock`)
    Computed,      ///< an expression over constants or template parameters
  } K = Plain;
  /// Constant: the variable; TemplateParam: the parameter (may be null for
  /// a dependent expression); Computed: the first constant or parameter it
  /// reads.
  const clang::ValueDecl *Decl = nullptr;
};

/// Classifies \p E, a block size as written (implicit conversions dropped).
BlockSizeExpr classifyBlockSize(const clang::Expr *E);

/// A constant (a variable or an object-like macro) that carries a block
/// size: where it is declared, its integer literal and that literal's value.
struct BlockConstant {
  std::string Name;
  clang::SourceLocation Decl;
  clang::SourceRange Init;
  int64_t Value = 0;
  bool IsMacro = false;
};

/// Checks that \p Var may carry a new block size of kernel \p K: it is
/// declared in the input file with an integer literal initializer written
/// there, and every use of it lies in K (its body, its attributes, any of
/// its declarations) or in the configuration (`<<<...>>>`) of one of
/// \p Launches (K's launches). The error names the first other use.
llvm::Expected<BlockConstant>
checkBlockConstant(const RewriteContext &RC, const clang::VarDecl *Var,
                   const clang::FunctionDecl *K,
                   llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Launches);

/// The same for the object-like macro \p Name (`#define BLOCK 256`): defined
/// once, in the input file, as one integer literal; every other occurrence
/// of the name in the file lies in K or in the configuration of one of
/// \p Launches.
llvm::Expected<BlockConstant>
checkBlockMacro(const RewriteContext &RC, llvm::StringRef Name,
                const clang::FunctionDecl *K,
                llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Launches);

/// What encodes kernel \p K's block size besides integer literals, from its
/// `__launch_bounds__` \p LB (may be null) and its launches \p Launches.
struct BlockSizes {
  /// The constants that carry a new block size (checkBlockConstant).
  std::vector<BlockConstant> Constants;
  /// The block sizes (the thread count of `__launch_bounds__`, the block of
  /// a launch) that read one of Constants: not edited in place.
  llvm::SmallPtrSet<const clang::Expr *, 4> Carried;
  /// Why a new block size cannot be written: the block size is a template
  /// parameter or argument, or `__launch_bounds__` computes it.
  std::string Issue;
  /// The top-level template argument of the kernel that is its block size
  /// (`__launch_bounds__(BLOCK)` with BLOCK that parameter, or a launch
  /// `k<256><<<g, 256>>>` passing the block as that argument): with Issue
  /// set, a new block size is a new instantiation (`template-arg=N`,
  /// LaunchTemplate.cpp).
  std::optional<unsigned> TemplateIndex;
  /// Why a constant cannot carry it (the first constant's error).
  std::string ConstantIssue;
  /// Local constants of a launcher that the host code reads besides the
  /// launch: the launch is edited in place; one warning each.
  std::vector<std::string> Kept;
  /// For a site that changes nothing: where a new block size would go, or
  /// why it would be refused ("; ..."; empty when only literals hold it).
  std::string summary() const;
};
BlockSizes
inspectBlockSizes(const RewriteContext &RC, const clang::FunctionDecl *K,
                  const clang::CUDALaunchBoundsAttr *LB,
                  llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Launches);

/// The template arguments a launch writes for its kernel (`k<256>` in
/// `k<256><<<g, 256>>>`); empty when it writes none.
llvm::ArrayRef<clang::TemplateArgumentLoc>
launchTemplateArgs(const clang::CUDAKernelCallExpr *Call);

/// A launch argument as written: an integer passes through an implicit
/// conversion to dim3 (a constructor call with defaulted y and z).
const clang::Expr *getWrittenLaunchArg(const clang::Expr *E);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_LAUNCHCONST_H
