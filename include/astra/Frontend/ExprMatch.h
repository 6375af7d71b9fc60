//===- ExprMatch.h - Matching expressions of CUDA code ----------*- C++ -*-===//
//
// The one set of expression helpers the kernel model and the rewrites share:
// how much to strip before looking at an expression, CUDA built-in variables
// (threadIdx.x, blockDim.y, ...), operators written as overloaded calls in
// templates, callee names. Each fact has one definition here so that the
// model and a rewrite never disagree about what an expression is.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_EXPRMATCH_H
#define ASTRA_FRONTEND_EXPRMATCH_H

#include "clang/AST/Expr.h"
#include <optional>
#include <string>

namespace astra {

/// Strips parentheses and every cast (implicit and explicit) and
/// temporaries: what a value is computed from.
const clang::Expr *stripCasts(const clang::Expr *E);
/// Strips parentheses, implicit nodes and explicit casts to integer types:
/// an index expression as the arithmetic sees it.
const clang::Expr *stripIntCasts(const clang::Expr *E);
/// Strips implicit nodes and the parentheses written around \p E, nothing
/// else: the expression as written, for edits.
const clang::Expr *stripParens(const clang::Expr *E);

/// A CUDA built-in variable access: `threadIdx.x` is {"threadIdx", 'x'}.
struct CudaBuiltin {
  std::string Var; ///< threadIdx, blockIdx, blockDim or gridDim
  char Dim = 0;    ///< x, y or z
  /// The reference to the variable the access reads (`threadIdx`).
  const clang::DeclRefExpr *Ref = nullptr;
  std::string str() const { return Var + "." + Dim; }
};
/// \p E (through parentheses and implicit casts only) as a built-in access.
std::optional<CudaBuiltin> matchCudaBuiltin(const clang::Expr *E);

/// `threadIdx.x`, `blockDim.y`, ... for a built-in access through any casts,
/// else empty.
std::string getBuiltinVarName(const clang::Expr *E);

/// Matches a binary operation written as a BinaryOperator or, in templates,
/// as an unresolved overloaded operator call.
bool matchBinary(const clang::Expr *E, clang::BinaryOperatorKind &Op,
                 const clang::Expr *&LHS, const clang::Expr *&RHS);

/// Matches a unary operation (see matchBinary).
bool matchUnary(const clang::Expr *E, clang::UnaryOperatorKind &Op,
                const clang::Expr *&Sub);

/// The variable \p E names (through any casts), or null.
const clang::VarDecl *getReferencedVar(const clang::Expr *E);

/// The variable \p E names through stripIntCasts (an index or counter as
/// the arithmetic sees it), or null.
const clang::VarDecl *getIndexVar(const clang::Expr *E);

/// The name of the function \p Call calls, also for unresolved calls in
/// templates; empty when unknown.
std::string getCalleeName(const clang::CallExpr *Call);

} // namespace astra

#endif // ASTRA_FRONTEND_EXPRMATCH_H
