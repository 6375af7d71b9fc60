//===- LaunchTemplate.h - A block size that is a template argument -*- C++ -*-//
//
// Private to lib/Transforms: the launch rewrite's edits for a kernel
// template whose block size is one of its template arguments
// (LaunchTemplate.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_LAUNCHTEMPLATE_H
#define ASTRA_LIB_TRANSFORMS_LAUNCHTEMPLATE_H

#include "LaunchConst.h"

namespace astra {

/// An explicit instantiation definition of the kernel as written in the
/// main file (`template __global__ void k<float, 256>(float *, int);`): file
/// offsets of its `template` keyword, of the end of its `;`, and of each
/// top-level template argument.
struct WrittenInstantiation {
  unsigned Begin = 0, End = 0;
  std::vector<std::pair<unsigned, unsigned>> Args;
  clang::SourceLocation Loc;
  bool Extern = false;
};

/// The explicit instantiations of the function \p Name written in the main
/// file, found on its raw tokens (comments and directives skipped): a
/// `template` not followed by `<`, up to the `;` at depth 0, whose first
/// occurrence of \p Name is followed by a template argument list. Shared
/// with keep-original, which copies them for its copy of a kernel.
std::vector<WrittenInstantiation>
findWrittenInstantiations(const RewriteContext &RC, llvm::StringRef Name);

/// The edits that make the file instantiate kernel \p K with template
/// argument \p Index set to \p Block where it instantiated the old one.
struct TemplateBlockEdits {
  std::vector<std::pair<clang::SourceRange, std::string>> Replace;
  /// Text inserted at a file offset (after an explicit instantiation).
  std::vector<std::pair<unsigned, std::string>> Insert;
  /// What is edited, for the site's detail.
  std::vector<std::string> Where;
  std::vector<std::string> Warnings;
};

/// Plans those edits over \p K's launches in the file \p Launches (with
/// \p Sizes, inspectBlockSizes' view of them) for `template-arg=Index` with
/// `block=Block`. Fails with the reason when Index is not the argument that
/// the analysis shows to be the block size, Block is not given, the launch
/// is bounded (\p MinThreads) or divides or folds the block as well
/// (\p Reshapes), and, naming the place, where an argument is written in a
/// form it cannot change.
llvm::Expected<TemplateBlockEdits>
planTemplateBlock(const RewriteContext &RC, const clang::FunctionDecl *K,
                  llvm::ArrayRef<const clang::CUDAKernelCallExpr *> Launches,
                  const BlockSizes &Sizes, int64_t Index, int64_t Block,
                  int64_t MinThreads, bool Reshapes);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_LAUNCHTEMPLATE_H
