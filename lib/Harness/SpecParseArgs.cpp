//===- SpecParseArgs.cpp - Spec tolerances, struct parameters, inputs -----===//
#include "SpecParser.h"

using namespace llvm;

namespace astra {
namespace detail {
namespace specparse {

bool SpecParser::parseTolerance(const json::Value &V, StringRef P,
                                std::optional<double> &Rtol,
                                std::optional<double> &Atol) {
  const json::Object *O = V.getAsObject();
  if (!O) {
    err(P, "expected {\"rtol\": r, \"atol\": a}, got " + kindName(V));
    return false;
  }
  checkFields(*O, P, {"rtol", "atol"});
  bool Ok = true;
  for (StringRef Key : {"rtol", "atol"}) {
    const json::Value *T = O->get(Key);
    if (!T)
      continue;
    std::optional<double> D = T->getAsNumber();
    if (!D || *D < 0 || !std::isfinite(*D)) {
      err(member(P, Key), "expected a number >= 0");
      Ok = false;
      continue;
    }
    (Key == "rtol" ? Rtol : Atol) = *D;
  }
  return Ok;
}

void SpecParser::parseArgTolerance(const json::Value &V, ArgSpec &A) {
  std::string P = member(A.Path, "tolerance");
  if (A.Role == ArgRole::In) {
    err(P, "'tolerance' applies to outputs (role 'out' or 'inout'); '" +
               A.Name + "' is an input");
    return;
  }
  if (!parseTolerance(V, P, A.Rtol, A.Atol) || isFloatDType(A.Type))
    return;
  // Integer outputs: a whole number of steps, no relative part.
  if (A.Rtol) {
    err(member(P, "rtol"),
        "an integer output ('" + dtypeName(A.Type) +
            "') is compared exactly, or within 'atol' steps: 'rtol' does "
            "not apply");
    A.Rtol.reset();
  }
  if (A.Atol && *A.Atol != std::floor(*A.Atol)) {
    std::string Got;
    raw_string_ostream(Got) << format("%g", *A.Atol);
    err(member(P, "atol"), "an integer output ('" + dtypeName(A.Type) +
                               "') takes a whole number of steps, got " + Got);
    A.Atol.reset();
  }
}

void SpecParser::checkKernelTolerance(const KernelSpec &K) {
  if (!K.Rtol && !K.Atol)
    return;
  bool AnyFloatOut = any_of(K.Args, [](const ArgSpec &A) {
    return !A.IsScalar && A.Role != ArgRole::In && isFloatDType(A.Type);
  });
  bool AnyOut = any_of(K.Args, [](const ArgSpec &A) {
    return !A.IsScalar && A.Role != ArgRole::In;
  });
  if (AnyOut && !AnyFloatOut)
    err(member(K.Path, "tolerance"),
        "the kernel-level tolerance applies to float outputs and this "
        "kernel has none: integer outputs are compared bit for bit unless "
        "an output gives its own \"tolerance\": {\"atol\": n}");
}

void SpecParser::parseStructArg(const json::Object &O, ArgSpec &A,
                                unsigned Before) {
  const std::string &P = A.Path;
  A.IsScalar = A.IsStruct = true;
  for (StringRef Key : {"dtype", "count", "role", "dist", "range", "gen",
                        "specials", "tolerance", "value"})
    if (O.get(Key))
      err(member(P, Key), "a struct ('fields' given) has no '" + Key +
                              "': each field takes its dtype and value");
  if (const json::Value *V =
          required(O, P, "size", "the struct's size in bytes")) {
    std::optional<int64_t> N = V->getAsInteger();
    if (N && *N >= 1 && *N <= 32764)
      A.StructSize = uint64_t(*N);
    else
      err(member(P, "size"),
          "expected the struct's size in bytes, an integer from 1 to 32764");
  }
  A.Valid = NumErrors == Before;
  const json::Value *V = required(
      O, P, "fields", "the struct's fields: name, dtype, offset and value");
  if (!V)
    return;
  std::string FP = member(P, "fields");
  const json::Array *Arr = V->getAsArray();
  if (std::optional<StringRef> S = V->getAsString(); S && isPlaceholder(*S)) {
    err(FP, "placeholder not filled in: '" + *S + "'");
    return;
  }
  if (!Arr || Arr->empty()) {
    err(FP, "expected a non-empty array of field objects");
    return;
  }
  for (size_t I = 0; I < Arr->size(); ++I) {
    FieldSpec F;
    F.Path = element(FP, I);
    parseField((*Arr)[I], A, F);
    A.Fields.push_back(std::move(F));
  }
}

void SpecParser::parseField(const json::Value &V, const ArgSpec &A,
                            FieldSpec &F) {
  const json::Object *O = V.getAsObject();
  if (!O) {
    err(F.Path, "expected a field object, got " + kindName(V));
    F.Valid = false;
    return;
  }
  checkFields(*O, F.Path, {"name", "dtype", "offset", "value"});
  unsigned Before = NumErrors;
  if (const json::Value *N = required(*O, F.Path, "name", "the field name")) {
    if (std::optional<StringRef> S = N->getAsString())
      F.Name = S->str();
    else
      err(member(F.Path, "name"), "expected a string");
  }
  if (const json::Value *D = required(*O, F.Path, "dtype", "its type")) {
    std::optional<StringRef> S = D->getAsString();
    std::optional<DType> T = S ? parseDType(*S) : std::nullopt;
    if (T)
      F.Type = *T;
    else if (S && isPlaceholder(*S))
      err(member(F.Path, "dtype"), "placeholder not filled in: '" + *S + "'");
    else
      err(member(F.Path, "dtype"),
          (S ? "unknown dtype '" + *S + "'" : Twine("expected a string")) +
              " (dtypes: " + dtypeNames() + ")");
  }
  if (const json::Value *Off =
          required(*O, F.Path, "offset", "its byte offset in the struct")) {
    std::optional<int64_t> N = Off->getAsInteger();
    if (!N || *N < 0)
      err(member(F.Path, "offset"), "expected a byte offset, an integer >= 0");
    else
      F.Offset = uint64_t(*N);
  }
  F.Valid = NumErrors == Before;
  if (F.Valid && A.StructSize && F.Offset + dtypeSize(F.Type) > A.StructSize)
    err(member(F.Path, "offset"),
        "field '" + F.Name + "' (" + dtypeName(F.Type) + ") at offset " +
            Twine(F.Offset) + " ends past the struct's " + Twine(A.StructSize) +
            " bytes");
  if (const json::Value *Val =
          required(*O, F.Path, "value", "an expression or float literal")) {
    parseValue(*Val, member(F.Path, "value"), F.Value);
    if (F.Valid && F.Value.IsFloat && !isFloatDType(F.Type))
      err(member(F.Path, "value"),
          "float literal given for integer dtype '" + dtypeName(F.Type) + "'");
  }
}

void SpecParser::parseBufferFields(const json::Object &O, ArgSpec &A) {
  const std::string &P = A.Path;
  unsigned Before = NumErrors;
  if (const json::Value *R = required(O, P, "role", "in, out or inout")) {
    std::optional<StringRef> S = R->getAsString();
    if (S && *S == "in")
      A.Role = ArgRole::In;
    else if (S && *S == "out")
      A.Role = ArgRole::Out;
    else if (S && *S == "inout")
      A.Role = ArgRole::InOut;
    else
      err(member(P, "role"), "expected \"in\", \"out\" or \"inout\"");
  }
  bool RoleOk = NumErrors == Before;
  if (!RoleOk)
    A.Valid = false;
  bool IsInput = A.Role != ArgRole::Out;
  if (const json::Value *D = O.get("dist")) {
    std::string DP = member(P, "dist");
    std::optional<StringRef> S = D->getAsString();
    std::optional<Dist> Di = S ? parseDist(*S) : std::nullopt;
    if (!Di)
      err(DP, "unknown distribution (expected normal, uniform, positive, "
              "heavy, small or large)");
    else if (!isFloatDType(A.Type))
      err(DP, "'dist' applies to float buffers; integer buffers take "
              "'range'");
    else
      A.Distribution = Di;
  }
  if (const json::Value *R = O.get("range")) {
    std::string RP = member(P, "range");
    const json::Array *Arr = R->getAsArray();
    if (!Arr || Arr->size() != 2) {
      err(RP, "expected [lo, hi]: two integer expressions");
    } else if (isFloatDType(A.Type)) {
      err(RP, "'range' applies to integer buffers; float buffers take "
              "'dist'");
    } else {
      SizeExpr Lo, Hi;
      bool Ok = parseExpr((*Arr)[0], element(RP, 0), Lo);
      Ok &= parseExpr((*Arr)[1], element(RP, 1), Hi);
      if (Ok)
        A.Range = std::make_pair(Lo, Hi);
    }
  }
  if (const json::Value *S = O.get("specials")) {
    std::optional<bool> B = S->getAsBoolean();
    if (!B)
      err(member(P, "specials"), "expected true or false");
    else if (*B && !isFloatDType(A.Type))
      err(member(P, "specials"), "NaN/Inf injection needs a float dtype");
    else
      A.Specials = *B;
  }
  if (const json::Value *G = O.get("gen"))
    parseGen(*G, A);
  // Only when the role parsed: an input's tolerance is an error.
  if (const json::Value *T = O.get("tolerance"); T && RoleOk)
    parseArgTolerance(*T, A);
  if (!IsInput && (A.Distribution || A.Range || A.Gen || A.Specials))
    err(P, "an 'out' buffer is not initialised from the spec: 'dist', "
           "'range', 'gen' and 'specials' apply to 'in' and 'inout'");
}

void SpecParser::parseGen(const json::Value &V, ArgSpec &A) {
  std::string P = member(A.Path, "gen");
  const json::Object *O = V.getAsObject();
  if (!O) {
    err(P, "expected a generator object {\"kind\": ...}");
    return;
  }
  GenSpec G;
  std::optional<StringRef> Kind;
  if (const json::Value *K = O->get("kind"))
    Kind = K->getAsString();
  static const GenKind Kinds[] = {GenKind::CsrIndptr,      GenKind::CsrIndices,
                                  GenKind::DistinctPerRow, GenKind::Sorted,
                                  GenKind::Permutation,    GenKind::Iota,
                                  GenKind::Constant};
  bool Found = false;
  for (GenKind K : Kinds)
    if (Kind && *Kind == genKindName(K)) {
      G.Kind = K;
      Found = true;
    }
  if (!Found) {
    err(Kind ? member(P, "kind") : P,
        "expected \"kind\": one of csr_indptr, csr_indices, "
        "distinct_per_row, sorted, permutation, iota, constant");
    return;
  }
  auto needExpr = [&](StringRef Key, SizeExpr &Out) {
    if (const json::Value *E = O->get(Key))
      parseExpr(*E, member(P, Key), Out);
    else
      err(P, "missing field '" + Key + "' of generator '" + *Kind + "'");
  };
  bool NeedsInt = true, NeedsRange = false;
  switch (G.Kind) {
  case GenKind::CsrIndptr:
    checkFields(*O, P, {"kind", "rows", "min_degree", "max_degree"});
    needExpr("rows", G.Rows);
    needExpr("min_degree", G.MinDegree);
    needExpr("max_degree", G.MaxDegree);
    break;
  case GenKind::CsrIndices:
    checkFields(*O, P, {"kind", "indptr"});
    NeedsRange = true;
    if (const json::Value *I = O->get("indptr"); I && I->getAsString())
      G.Indptr = I->getAsString()->str();
    else
      err(P, "missing field 'indptr' of generator 'csr_indices' (the name "
             "of the csr_indptr argument)");
    break;
  case GenKind::DistinctPerRow:
    checkFields(*O, P, {"kind", "row"});
    needExpr("row", G.Row);
    NeedsRange = true;
    break;
  case GenKind::Sorted:
    checkFields(*O, P, {"kind"});
    NeedsRange = true;
    break;
  case GenKind::Permutation:
    checkFields(*O, P, {"kind"});
    break;
  case GenKind::Iota:
    checkFields(*O, P, {"kind"});
    NeedsInt = false;
    break;
  case GenKind::Constant:
    checkFields(*O, P, {"kind", "value"});
    NeedsInt = false;
    if (const json::Value *C = O->get("value"))
      parseValue(*C, member(P, "value"), G.Value);
    else
      err(P, "missing field 'value' of generator 'constant'");
    break;
  }
  if (NeedsInt && isFloatDType(A.Type))
    err(P, "generator '" + *Kind +
               "' produces integers: dtype must be an "
               "integer type, not '" +
               dtypeName(A.Type) + "'");
  if (NeedsRange && !O->get("range") && !A.Range && !isFloatDType(A.Type))
    err(A.Path, "generator '" + *Kind +
                    "' draws from 'range': give "
                    "\"range\": [lo, hi]");
  A.Gen = std::move(G);
}

} // namespace specparse

} // namespace detail
} // namespace astra
