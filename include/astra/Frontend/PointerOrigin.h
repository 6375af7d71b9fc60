//===- PointerOrigin.h - Which parameter a pointer derives from -*- C++ -*-===//
//
// The one pointer provenance the kernel model and the rewrites share: the
// kernel parameter a pointer expression or local pointer variable is derived
// from, and the offsets added on the way. Followed: parentheses and casts,
// `p + off`, `off + p`, `p - off` (also as unresolved operators in
// templates), `&p[i]`, `&*p`, and local pointer variables through their
// initialisers. The model reads it backward (an access to its parameter);
// read-only-cache forward (a parameter to the local copies it tracks).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_POINTERORIGIN_H
#define ASTRA_FRONTEND_POINTERORIGIN_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace astra {

struct VarUses;

/// One offset added to (or, Negated, subtracted from) the pointer.
struct PointerOffset {
  const clang::Expr *Offset = nullptr;
  bool Negated = false;
};

/// Where a pointer comes from.
struct PointerOrigin {
  const clang::ParmVarDecl *Param = nullptr;
  /// The outermost local pointer variable in between, if any.
  const clang::VarDecl *Via = nullptr;
  /// The offsets from Param, innermost (closest to Param) first.
  llvm::SmallVector<PointerOffset, 2> Offsets;
};

/// The pointer parameter of \p Kernel (or one of dependent type) that \p E
/// derives from, or none. Local
/// variables (not references) are followed to their initialisers: all of
/// them when \p Writes is null, else only those \p Writes never sees
/// modified (then the local stands for its initial value everywhere).
std::optional<PointerOrigin>
findPointerOrigin(const clang::Expr *E, const clang::FunctionDecl *Kernel,
                  const VarUses *Writes);

/// The local pointer variables of \p Kernel initialised from \p Param,
/// directly or through other such copies (findPointerOrigin with no
/// Writes: a copy assigned later is still a copy).
llvm::SmallPtrSet<const clang::VarDecl *, 4>
findPointerCopies(const clang::FunctionDecl *Kernel,
                  const clang::ParmVarDecl *Param);

} // namespace astra

#endif // ASTRA_FRONTEND_POINTERORIGIN_H
