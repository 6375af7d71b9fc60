//===- CoarsenLoads.h - One pack for a coarsened thread's loads -*- C++ -*-===//
//
// Private to lib/Transforms (Coarsen.cpp, coarsen's `loads=packs`). After
// coarsen, each thread loads what C threads of the original block loaded,
// one element each, in its loop over c:
//
//   float v = 0.0f;                                  // or: T v = G ? F(p[IDX])
//   : 0; if (G) v = __bfloat162float(p[IDX]);             // or: T v =
//   F(p[IDX]);
//
// With loads=packs the statement leaves the loop. Before it, in a loop of
// its own, run the per-thread statements before the load; then the C
// elements are loaded into a pack of 4, 8 or 16-byte words that keeps them
// in their own type (8 registers for 16 bf16 instead of 16 floats):
//
//   union { uint4 Pack[2]; __nv_bfloat16 Elem[16]; } pPack;
//   if (G holds for every c && &(p[IDX_15]) == &(p[IDX_0]) + 15 &&
//       &(p[IDX_0]) is aligned to 16)
//     pPack.Pack[k] = reinterpret_cast<const uint4 *>(&(p[IDX_0]))[k];
//   else { every word = 0; for each c: if (G_c) pPack.Elem[c] = p[IDX_c]; }
//
// and every read of v becomes `static_cast<float>(__bfloat162float(
// pPack.Elem[c]))`: the conversion is applied again where the value is read
// (measured on an H200, docs/benchmarks.md: 2.42x against 2.27x for the
// element loads, 61% of copy against 57%).
//
// Why it is the original's result. IDX rises by one per thread of the
// original block (CoarsenAffine.h): when the last copy's address is C - 1
// elements after the first's, copy c's is c elements after it, so the pack
// holds exactly the elements the C threads loaded, and only when every
// guard holds (each thread would have loaded its element); otherwise each
// element is loaded under its own guard. Where a guard fails, v keeps its
// initial value, a literal zero; the element there is all-zero bits, a +0
// of its type, which the conversion (casts, __bfloat162float, __half2float,
// the conversion operators of __half and __nv_bfloat16) takes to +0 of v's
// type. The loads move ahead of the statements of other copies, which are
// other threads of the original block (no order between them); within a
// copy the order stays: the statements before the load, the load, the rest.
// The guard and the index are evaluated with no side effects, at most where
// the original evaluates them (IDX only where G holds).
//
// Taken only for: a scalar arithmetic v, not volatile, declared in the
// per-thread work, whose every other use reads it (no write, no address);
// an element type that is const, arithmetic (not bool), __half or
// __nv_bfloat16, trivially copyable; a pointer parameter the kernel never
// changes; a guard and an index without side effects that do not read v;
// C elements filling whole 4-, 8- or 16-byte words.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_COARSENLOADS_H
#define ASTRA_LIB_TRANSFORMS_COARSENLOADS_H

#include "CoarsenAffine.h"
#include "CoarsenScan.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include <string>

namespace astra {

struct PackedLoad {
  const clang::VarDecl *V = nullptr;  ///< the per-thread value
  const clang::Stmt *Load = nullptr;  ///< the statement that loads it
  const clang::Stmt *VDecl = nullptr; ///< v's declaration (Load when it is)
  const clang::Expr *Guard = nullptr; ///< G; null when there is none
  const clang::ArraySubscriptExpr *Element = nullptr; ///< p[IDX]
  std::string ElemType, PackType, Zero;               ///< as C++ text
  unsigned PackBytes = 0, Packs = 0;
  std::string Pack, All; ///< fresh names: the union, every guard held
  /// A read of v, with `Pack.Elem[CVar]` in place of the element.
  std::string ReadText;
  llvm::DenseSet<unsigned> Reads; ///< raw begin locations of v's reads
};

/// Finds, among \p PhaseA (the per-thread statements before the leaf, at
/// the body's top level), the statement that loads a per-thread value as
/// the header states, and fills \p L. Returns why it is refused (empty when
/// taken).
std::string findPackedLoad(RewriteContext &RC, const clang::Stmt *Body,
                           llvm::ArrayRef<const clang::Stmt *> PhaseA,
                           const AffineScope &Scope, int64_t C,
                           llvm::StringRef CVar, llvm::StringSet<> &Taken,
                           PackedLoad &L);

/// Makes each edit of \p Edits (copyEdits') that reads v read the pack.
void editPackedReads(const PackedLoad &L, TextEdits &Edits);

/// The declaration of the pack (before the first loop over c).
std::string declarePackedLoad(const PackedLoad &L, int64_t C);

/// The loads, after the loop over the statements before them.
std::string writePackedLoad(RewriteContext &RC, const PackedLoad &L,
                            llvm::ArrayRef<const clang::Expr *> ThreadX,
                            const llvm::DenseSet<const clang::VarDecl *> &PT,
                            int64_t C, llvm::StringRef CVar,
                            llvm::StringRef TVar);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_COARSENLOADS_H
