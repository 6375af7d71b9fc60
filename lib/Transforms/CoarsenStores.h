//===- CoarsenStores.h - One pack for a coarsened thread's stores -*- C++
//-*-===//
//
// Private to lib/Transforms (Coarsen.cpp). After coarsen, each thread stores
// what C threads of the original block stored, one element each: often C
// consecutive elements, which one 4-, 8- or 16-byte store writes at once.
//
//   p[IDX] = VAL;   // in the loop over c, after the tree
//
// is deferred while every c so far stored, to consecutive addresses from
// c = 0's (checked at run time):
//
//   (pNew = (VAL), pAt = &(p[IDX]),
//    pStored == (1u << c) - 1u && (c == 0 || pAt == pBase + c)
//        ? (void)(pBase = c == 0 ? pAt : pBase, pVal[c] = pNew,
//                 pStored |= 1u << c)
//        : (void)(*pAt = pNew))
//
// and after the loop the deferred elements are written: as one pack when
// all C were deferred and the first is aligned to the pack, else one by one
// (pBase[c]). Where the index provably rises by one per thread of the
// original block (CoarsenAffine.h), the test per store goes: every store is
// deferred, `(pVal[c] = (VAL), pStored |= 1u << c)`, and after the loop the
// pack is written when all C happened, the first address is aligned and the
// last is C - 1 elements after it, else each deferred element at its own
// address, computed again (measured on an H100: 226 -> 198 us for
// per_token_group_int8_quant, docs/benchmarks.md). A store that breaks the
// run is made at once; the deferred ones
// are other elements (distinct threads of the original block), so only the
// order of stores to different addresses changes. One pointer, not C, is
// kept per store. Taken only for a scalar element, a
// pointer parameter that the kernel uses only in that store (no alias, no
// read), a store that runs at most once per c (no loop or switch around it), an
// index without side effects, and a pack of 4, 8 or 16 bytes. Assumed, as
// vectorize-loads does: distinct pointer parameters that are stored do not
// overlap.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_COARSENSTORES_H
#define ASTRA_LIB_TRANSFORMS_COARSENSTORES_H

#include "CoarsenAffine.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace astra {

struct CombinedStore {
  const clang::BinaryOperator *Store = nullptr; ///< p[IDX] = VAL
  std::string ElemType;                         ///< of p[IDX], as C++ text
  std::string PackType;                         ///< unsigned int, uint2, uint4
  unsigned PackBytes = 0;
  /// Fresh names: this c's address and value, c = 0's address, the
  /// deferred values, which c were deferred, the pack.
  std::string Ptr, New, Base, Buf, Did, Pack;
  /// The index rises by one per thread of the original block
  /// (CoarsenAffine.h): every store is deferred with no test, and the
  /// addresses are computed after the loop, for c = 0, for c = C - 1 and
  /// for the loop's c (`p[IDX]` with the per-thread values of that c).
  bool Affine = false;
  std::string AtFirst, AtLast, AtC;
};

/// The stores of \p Stmts (a coarsened loop's body, in the kernel body
/// \p Body) that can be combined into packs of \p C elements.
std::vector<CombinedStore>
findCombinableStores(clang::ASTContext &Ctx, const clang::Stmt *Body,
                     llvm::ArrayRef<const clang::Stmt *> Stmts, int64_t C,
                     llvm::StringSet<> &Taken);

/// Marks the stores of \p Stores whose index rises by one per thread
/// (CoarsenAffine.h) and gives them their addresses after the loop; the
/// per-thread locals of \p Scope are arrays of \p C there, and \p ThreadX
/// the kernel's reads of threadIdx.x. Returns why the first other store's
/// index was not proved (empty when all were).
std::string markRisingStores(RewriteContext &RC,
                             std::vector<CombinedStore> &Stores,
                             const AffineScope &Scope,
                             llvm::ArrayRef<const clang::Expr *> ThreadX,
                             int64_t C, llvm::StringRef CVar);

/// The declarations before the loop.
std::string declareStores(llvm::ArrayRef<CombinedStore> Stores, int64_t C);

/// The store expression's replacement, given its operands' rewritten text.
std::string recordStore(const CombinedStore &S, llvm::StringRef CVar,
                        llvm::StringRef Lhs, llvm::StringRef Rhs);

/// The writes after the loop.
std::string writeStores(llvm::ArrayRef<CombinedStore> Stores, int64_t C,
                        llvm::StringRef CVar);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_COARSENSTORES_H
