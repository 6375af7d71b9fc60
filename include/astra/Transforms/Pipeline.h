//===- Pipeline.h - Apply rewrites to a file --------------------*- C++ -*-===//
#ifndef ASTRA_TRANSFORMS_PIPELINE_H
#define ASTRA_TRANSFORMS_PIPELINE_H

#include "astra/Support/CompileSetup.h"
#include "astra/Transforms/Rewrite.h"

namespace astra {

struct ApplyResult {
  std::string Code;               ///< the whole rewritten file
  std::vector<RewriteSite> Sites; ///< every site visited
};

/// Parses \p Code, runs the rewrite named in \p P, applies its edits and
/// formats the edited lines. Fails (exit 1) with every refused site's location
/// and reason when the rewrite applied nowhere.
llvm::Expected<ApplyResult> applyRewrite(const CompileSetup &Setup,
                                         llvm::StringRef FileName,
                                         llvm::StringRef Code,
                                         const RewriteParams &P);

/// The sites one rewrite looked at under one combination of its parameters.
struct SiteListing {
  RewriteParams Params; ///< name and every parameter spelled out
  std::vector<RewriteSite> Sites;
};

/// Analyses every rewrite under every combination of the parameter values a
/// search tries (getValueCombinations() in Enumerate.h), without editing:
/// catalogue order, then the default values followed by the other
/// combinations, each with its sites in source order.
llvm::Expected<std::vector<SiteListing>>
listRewriteSites(const CompileSetup &Setup, llvm::StringRef FileName,
                 llvm::StringRef Code);

} // namespace astra

#endif
