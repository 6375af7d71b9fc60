//===- RegisterCachePlan.h - Two-pass row kernels --------------*- C++ -*-===//
//
// Private to lib/Transforms. The analysis (RegisterCacheAnalysis.cpp) finds a
// chain of row loops that register-cache can serve from registers; the
// generator (RegisterCache.cpp) writes the cached path. The plan holds
// source text and plain facts.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_REGISTERCACHEPLAN_H
#define ASTRA_LIB_TRANSFORMS_REGISTERCACHEPLAN_H

#include "astra/Transforms/Rewrite.h"
#include "clang/AST/Stmt.h"
#include <string>
#include <vector>

namespace astra {

/// The accesses `p[base + i]` of one pointer at one base offset, across the
/// chain.
struct RcGroup {
  std::string Addr;     ///< `p + base` as written (the row's first element)
  std::string ElemType; ///< pointee type, unqualified, as C++ text
  std::string Key;      ///< identity across loops
  bool Cached = false;  ///< re-read by a later loop: kept in registers
  bool Stored = false;  ///< stored by some loop of the chain
  std::string Var;      ///< its register array (cached) or pack local
};

/// One text replacement inside a loop body, offsets relative to the body.
struct RcEdit {
  unsigned Offset = 0, Length = 0;
  unsigned Group = 0; ///< index into RcChain::Groups
};

struct RcLoop {
  const clang::Stmt *Loop = nullptr;
  std::string Id;
  std::string IVType, IVName;
  std::string LoopText, BodyText;
  std::vector<RcEdit> Edits;
  std::vector<unsigned> Loads;  ///< groups whose pack is loaded first
  std::vector<unsigned> Stores; ///< groups whose pack is stored after
  std::vector<unsigned> Used;   ///< every group the loop accesses
};

/// A chain L1 .. Lm: sibling loops `for (i = threadIdx.d; i < n; i +=
/// blockDim.d)` over the same n, the later ones re-reading rows of the
/// earlier ones.
struct RcChain {
  std::vector<RcLoop> Loops;
  std::vector<RcGroup> Groups;
  std::string Bound;       ///< n as written
  std::string Start, Step; ///< threadIdx.d, blockDim.d
  /// Single elements stored between the loops (`scale[token]`), as the
  /// address expressions `&(...)`, for the overlap guard.
  std::vector<std::string> BetweenStores;
  /// What the block must be for the trees the per-thread values go through
  /// to cover every thread (checkPartials).
  std::vector<std::string> BlockConds;
  bool ChangesRounding = false;
};

/// Finds the chain that starts at \p Loop of \p K. Returns the reason when
/// there is none; on success fills \p Chain (all but the local names).
std::string analyzeRowChain(RewriteContext &RC, const clang::FunctionDecl *K,
                            const clang::Stmt *Loop, RcChain &Chain);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_REGISTERCACHEPLAN_H
