//===- SpecParser.h - The launch spec reader, by part ---------*- C++ -*-===//
//
// The walk over a spec's JSON value tree that checks every field and collects
// all errors (SpecParse.cpp: the file, kernels, shapes and arguments;
// SpecParseArgs.cpp: tolerances, struct parameters, buffer fields and input
// generators; SpecParseVars.cpp: variable domains and the checks across a
// kernel). Private to lib/Harness.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_HARNESS_SPECPARSER_H
#define ASTRA_LIB_HARNESS_SPECPARSER_H

#include "SpecInternal.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <cmath>

namespace astra {
namespace detail {
namespace specparse {

// Private to the SpecParse*.cpp files.
using namespace llvm;

inline StringRef kindName(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "a value";
}

inline bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

inline bool isPlaceholder(StringRef S) {
  return S.trim().starts_with_insensitive("TODO");
}

class SpecParser {
public:
  SpecParser(LaunchSpecFile &F, Error &Errs) : F(F), Errs(Errs) {}

  void parseTop(const json::Value &Root);

private:
  LaunchSpecFile &F;
  Error &Errs;
  bool Failed = false;
  unsigned NumErrors = 0;

  void err(StringRef Path, const Twine &Msg);
  void errAt(DiagLoc Loc, const Twine &Msg);

  /// The keys of \p O in file order.
  std::vector<std::string> keysInOrder(const json::Object &O, StringRef Path);

  /// Reports members of \p O that are not in \p Known. Keys starting with
  /// '_' are comments.
  void checkFields(const json::Object &O, StringRef Path,
                   ArrayRef<StringRef> Known);

  const json::Value *required(const json::Object &O, StringRef Path,
                              StringRef Key, StringRef What);

  /// An integer expression: a JSON integer or a string.
  bool parseExpr(const json::Value &V, StringRef Path, SizeExpr &Out);

  /// A scalar value: an integer expression or a float literal.
  bool parseValue(const json::Value &V, StringRef Path, ScalarValue &Out);

  /// 1 to 3 expressions (a single expression is accepted as a list of one).
  void parseDims(const json::Object &O, StringRef Path, StringRef Key,
                 std::vector<SizeExpr> &Out, bool &Ok);

  void parseShapes(const json::Object &O, StringRef Path, KernelSpec &K,
                   bool &Ok);

  /// `{"rtol": r, "atol": a}`, either or both, numbers >= 0.
  bool parseTolerance(const json::Value &V, StringRef P,
                      std::optional<double> &Rtol, std::optional<double> &Atol);

  /// An output's own tolerance (docs/spec.md, "Tolerance").
  void parseArgTolerance(const json::Value &V, ArgSpec &A);

  /// A kernel-level tolerance applies to float outputs only.
  void checkKernelTolerance(const KernelSpec &K);

  void parseKernel(const json::Object &O, StringRef Path, KernelSpec &K);

  void parseArg(const json::Value &V, ArgSpec &A);

  /// A struct passed by value: `"size"` and `"fields"`, each field a
  /// scalar with a byte offset (docs/spec.md, "Struct parameters").
  void parseStructArg(const json::Object &O, ArgSpec &A, unsigned Before);

  void parseField(const json::Value &V, const ArgSpec &A, FieldSpec &F);

  void parseBufferFields(const json::Object &O, ArgSpec &A);

  void parseGen(const json::Value &V, ArgSpec &A);

  /// `"vars": {"<name>": {"vary": b, "min": E, "max": E, "multiple_of": E,
  /// "divides": E, "power_of_two": b}, ...}` (docs/spec.md).
  void parseVars(const json::Value &V, StringRef P, KernelSpec &K);

  /// `"tunable": {"<var>": [v, ...], ...}` (docs/spec.md): each a shape
  /// variable with a `vars` entry that is not varied, positive values, used
  /// by no expression but `grid`, `block` and `shared_bytes`.
  void parseTunable(const json::Value &V, StringRef P, KernelSpec &K);

  VarDomain parseVarDomain(const json::Object &O, StringRef P, StringRef Name);

  /// Every variable of every `vars` bound is bound by every shape.
  static bool domainVariablesBound(const KernelSpec &K);

  /// Every spec shape lies in the domain: one report per constraint, for
  /// the first shape that breaks it.
  void checkShapeDomains(const KernelSpec &K);

  /// csr_indices must name a csr_indptr argument of the same kernel.
  void checkGenReferences(const KernelSpec &K);

  /// Every variable an expression uses must be bound by every shape.
  void checkVariables(const KernelSpec &K);
};

} // namespace specparse
} // namespace detail
} // namespace astra

#endif // ASTRA_LIB_HARNESS_SPECPARSER_H
