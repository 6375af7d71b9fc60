//===- Expr.h - Integer expressions over shape variables --------*- C++ -*-===//
//
// The size language of launch specs (docs/spec.md, "Expressions"): integer
// literals, shape variables, + - * / % (64-bit signed, `/` and `%` truncate),
// parentheses, unary minus, min(a,b), max(a,b), ceil_div(a,b). An expression
// is parsed once into a small tree and evaluated per shape; overflow, division
// by zero and unbound variables are errors that name the expression.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_EXPR_H
#define ASTRA_HARNESS_EXPR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace astra {

/// One problem shape: shape variables bound to integers, in spec order.
class Shape {
public:
  /// Binds \p Name (replacing an earlier binding).
  void set(llvm::StringRef Name, int64_t Value);
  std::optional<int64_t> lookup(llvm::StringRef Name) const;
  const std::vector<std::pair<std::string, int64_t>> &vars() const {
    return Vars;
  }
  /// `T=1, d=4096`.
  std::string str() const;
  bool operator==(const Shape &O) const { return Vars == O.Vars; }

private:
  std::vector<std::pair<std::string, int64_t>> Vars;
};

/// A parsed expression. Cheap to copy (the tree is shared and immutable).
class SizeExpr {
public:
  struct Node;

  SizeExpr() = default;
  /// Parses \p Text. On a syntax error the message names the expression and
  /// the 0-based character position; \p ErrorPos (if given) receives it.
  static llvm::Expected<SizeExpr> parse(llvm::StringRef Text,
                                    size_t *ErrorPos = nullptr);
  /// An expression that is the literal \p V.
  static SizeExpr constant(int64_t V);

  /// Evaluates for \p S. Errors: unbound variable, division or modulo by
  /// zero, 64-bit overflow; each names the expression.
  llvm::Expected<int64_t> eval(const Shape &S) const;

  /// The variables used, each once, in order of first use.
  std::vector<std::string> variables() const;
  /// The source text (for a JSON integer: its decimal form).
  const std::string &text() const { return Text; }
  bool empty() const { return !Root; }

private:
  std::shared_ptr<const Node> Root;
  std::string Text;
};

} // namespace astra

#endif // ASTRA_HARNESS_EXPR_H
