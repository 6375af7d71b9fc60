//===- Enumerate.h - Every way the catalogue can rewrite a file -*- C++ -*-===//
//
// The search agent's view of the catalogue: every applicable (rewrite, site,
// parameter value), each as RewriteParams that applyRewrite() accepts and
// that print back as the `--apply=` text they were parsed from. Plans
// (lib/Agent) are ordered lists of these.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_TRANSFORMS_ENUMERATE_H
#define ASTRA_TRANSFORMS_ENUMERATE_H

#include "astra/Support/CompileSetup.h"
#include "astra/Transforms/Rewrite.h"
#include <string>
#include <vector>

namespace astra {

/// One applicable way to run one rewrite at one site.
struct RewriteOption {
  /// Name, site selection (kernel=, loop=, function=) and the rewrite's own
  /// values.
  RewriteParams Params;
  /// Where: the loop id (`rmsnorm:L0`), the kernel's source name or the
  /// device function's name.
  std::string Site;
  DiagLoc Loc;
  /// What it would do there.
  std::string Detail;
  /// The rewrite may change floating-point results in the last bits
  /// (reassociation, fast intrinsics); the harness's tolerance decides.
  bool ChangesRounding = false;
  /// It reassociates floating-point arithmetic (RewriteSite::Reassociates).
  bool Reassociates = false;
  /// What the option takes for granted that the code does not show (e.g.
  /// read-only-cache with assume-noalias=1); empty when nothing. The agent
  /// offers such an option only when the spec states the fact.
  std::string Assumes;
  /// Its site lets a launch divide the block only (RewriteSite).
  bool BlockSplitOnly = false;
  /// The dimensions its any-grid form's stride reads (RewriteSite).
  char GridDim = 0, BlockDim = 0;
  /// The bound of a block-stride loop whose block may shrink (RewriteSite).
  std::string Extent;
};

/// Every combination of the values a search tries for \p R's parameters
/// (ParamDesc::Values), the first parameter varying slowest. One empty
/// combination for a rewrite without parameters.
std::vector<llvm::StringMap<std::string>>
getValueCombinations(const Rewrite &R);

/// The canonical `--apply=` text of \p P: `name[:kernel=K,loop=L,k=v,...]`,
/// keys in a stable order. RewriteParams::parse(formatRewriteParams(P))
/// gives P back.
std::string formatRewriteParams(const RewriteParams &P);

/// Every applicable option of every rewrite in \p Code, restricted to the
/// kernel with source name \p Kernel when given, in a stable order (catalogue
/// order, then source order of sites, then parameter values). A site is a
/// loop or a kernel (Rewrite::getScope()), or a device function
/// (`function=`) for rewrites that reach them; restricted to \p Kernel, only
/// the device functions no other kernel reaches (a plan for one kernel
/// changes no other), and a function option that edits exactly what an
/// earlier option does (all of a kernel's math) is left out. Every parameter
/// value of
/// getValueCombinations() is analysed on its own, and each option is checked
/// by editing with exactly its Params. Params spells out the parameters whose
/// value differs from the default (the shortest `--apply` text). A
/// combination that edits a site exactly as an earlier one does
/// (assume-noalias=1 where the code already shows no aliasing) is left out.
llvm::Expected<std::vector<RewriteOption>>
enumerateRewrites(const CompileSetup &Setup, llvm::StringRef FileName,
                  llvm::StringRef Code, llvm::StringRef Kernel = "");

} // namespace astra

#endif // ASTRA_TRANSFORMS_ENUMERATE_H
