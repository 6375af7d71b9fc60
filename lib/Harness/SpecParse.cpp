//===- SpecParse.cpp - Read a launch spec from JSON -----------------------===//
//
// llvm::json parses the text (no exceptions, LLVM style); this file walks the
// value tree, checks every field and collects all errors, each located with
// SpecLocator (llvm::json keeps no positions).
//
//===----------------------------------------------------------------------===//
#include "SpecInternal.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace astra {
namespace detail {

namespace {

StringRef kindName(const json::Value &V) {
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


bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

bool isPlaceholder(StringRef S) {
  return S.trim().starts_with_insensitive("TODO");
}

class SpecParser {
public:
  SpecParser(LaunchSpecFile &F, Error &Errs) : F(F), Errs(Errs) {}

  void parseTop(const json::Value &Root) {
    const json::Object *O = Root.getAsObject();
    if (!O) {
      err("", "expected a kernel object or {\"kernels\": [...]}, got " +
                  kindName(Root));
      return;
    }
    const json::Value *List = O->get("kernels");
    if (!List) {
      KernelSpec K;
      parseKernel(*O, "", K);
      F.Kernels.push_back(std::move(K));
      return;
    }
    checkFields(*O, "", {"kernels"});
    const json::Array *A = List->getAsArray();
    if (!A) {
      err("kernels", "expected an array of kernel objects, got " +
                         kindName(*List));
      return;
    }
    if (A->empty())
      err("kernels", "no kernels");
    for (size_t I = 0; I < A->size(); ++I) {
      std::string P = element("kernels", I);
      const json::Object *KO = (*A)[I].getAsObject();
      if (!KO) {
        err(P, "expected a kernel object, got " + kindName((*A)[I]));
        continue;
      }
      KernelSpec K;
      parseKernel(*KO, P, K);
      F.Kernels.push_back(std::move(K));
    }
  }

private:
  LaunchSpecFile &F;
  Error &Errs;
  bool Failed = false;
  unsigned NumErrors = 0;

  void err(StringRef Path, const Twine &Msg) {
    Failed = true;
    ++NumErrors;
    addError(Errs, F.error(Path, Msg));
  }
  void errAt(DiagLoc Loc, const Twine &Msg) {
    Failed = true;
    ++NumErrors;
    addError(Errs, makeInputError(Loc, Msg));
  }

  /// The keys of \p O in file order.
  std::vector<std::string> keysInOrder(const json::Object &O, StringRef Path) {
    std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Keys;
    for (const auto &KV : O) {
      DiagLoc L = F.Locator.locateKey(member(Path, KV.first));
      Keys.push_back({{L.Line, L.Col}, KV.first.str()});
    }
    llvm::sort(Keys);
    std::vector<std::string> Out;
    for (auto &K : Keys)
      Out.push_back(std::move(K.second));
    return Out;
  }

  /// Reports members of \p O that are not in \p Known. Keys starting with
  /// '_' are comments.
  void checkFields(const json::Object &O, StringRef Path,
                   ArrayRef<StringRef> Known) {
    for (const std::string &Key : keysInOrder(O, Path)) {
      if (StringRef(Key).starts_with("_") || is_contained(Known, Key))
        continue;
      std::string Expected;
      for (StringRef K : Known)
        Expected += (Expected.empty() ? "" : ", ") + K.str();
      std::string P = member(Path, Key);
      Failed = true;
      ++NumErrors;
      addError(Errs, makeInputError(F.Locator.locateKey(P),
                                    P + ": unknown field (expected one of: " +
                                        Expected + ")"));
    }
  }

  const json::Value *required(const json::Object &O, StringRef Path,
                              StringRef Key, StringRef What) {
    const json::Value *V = O.get(Key);
    if (!V)
      err(Path, "missing field '" + Key + "' (" + What + ")");
    return V;
  }

  /// An integer expression: a JSON integer or a string.
  bool parseExpr(const json::Value &V, StringRef Path, SizeExpr &Out) {
    if (std::optional<int64_t> I = V.getAsInteger()) {
      Out = SizeExpr::constant(*I);
      return true;
    }
    std::optional<StringRef> S = V.getAsString();
    if (!S) {
      err(Path, "expected an integer expression (a string or an integer), "
                "got " + kindName(V));
      return false;
    }
    if (isPlaceholder(*S)) {
      err(Path, "placeholder not filled in: '" + *S + "'");
      return false;
    }
    size_t ErrPos = 0;
    Expected<SizeExpr> E = SizeExpr::parse(*S, &ErrPos);
    if (!E) {
      DiagLoc L = F.Locator.locate(Path);
      if (L.Line)
        L.Col += 1 + ErrPos; // past the opening quote
      errAt(L, Path + ": " + toString(E.takeError()));
      return false;
    }
    Out = std::move(*E);
    return true;
  }

  /// A scalar value: an integer expression or a float literal.
  bool parseValue(const json::Value &V, StringRef Path, ScalarValue &Out) {
    if (std::optional<bool> B = V.getAsBoolean()) {
      Out.IsFloat = false;
      Out.Int = SizeExpr::constant(*B ? 1 : 0);
      return true;
    }
    if (V.kind() == json::Value::Number && !V.getAsInteger()) {
      Out.IsFloat = true;
      Out.Float = *V.getAsNumber();
      return true;
    }
    if (std::optional<StringRef> S = V.getAsString()) {
      StringRef T = S->trim();
      double D;
      bool LooksFloat = !T.empty() && (T.contains_insensitive("e") ||
                                       T.contains('.') ||
                                       T.contains_insensitive("inf") ||
                                       T.contains_insensitive("nan"));
      if (LooksFloat && !isPlaceholder(T) && !T.getAsDouble(D)) {
        Out.IsFloat = true;
        Out.Float = D;
        return true;
      }
    }
    Out.IsFloat = false;
    return parseExpr(V, Path, Out.Int);
  }

  /// 1 to 3 expressions (a single expression is accepted as a list of one).
  void parseDims(const json::Object &O, StringRef Path, StringRef Key,
                 std::vector<SizeExpr> &Out, bool &Ok) {
    const json::Value *V =
        required(O, Path, Key, "1 to 3 integer expressions (x, y, z)");
    if (!V) {
      Ok = false;
      return;
    }
    std::string P = member(Path, Key);
    const json::Array *A = V->getAsArray();
    if (!A) {
      SizeExpr E;
      if (!parseExpr(*V, P, E))
        Ok = false;
      else
        Out.push_back(E);
      return;
    }
    if (A->empty() || A->size() > 3) {
      err(P, "expected 1 to 3 expressions (x, y, z), got " +
                 Twine(A->size()));
      Ok = false;
      return;
    }
    for (size_t I = 0; I < A->size(); ++I) {
      SizeExpr E;
      if (!parseExpr((*A)[I], element(P, I), E))
        Ok = false;
      Out.push_back(E);
    }
  }

  void parseShapes(const json::Object &O, StringRef Path, KernelSpec &K,
                   bool &Ok) {
    const json::Value *V =
        required(O, Path, "shapes", "a list of objects binding shape "
                                    "variables to integers");
    if (!V) {
      Ok = false;
      return;
    }
    std::string P = member(Path, "shapes");
    if (std::optional<StringRef> S = V->getAsString(); S && isPlaceholder(*S)) {
      err(P, "placeholder not filled in: '" + *S + "'");
      Ok = false;
      return;
    }
    const json::Array *A = V->getAsArray();
    if (!A) {
      err(P, "expected a list of shape objects, got " + kindName(*V));
      Ok = false;
      return;
    }
    if (A->empty()) {
      err(P, "no shapes: give at least one");
      Ok = false;
    }
    for (size_t I = 0; I < A->size(); ++I) {
      std::string SP = element(P, I);
      const json::Object *SO = (*A)[I].getAsObject();
      if (!SO) {
        err(SP, "expected an object binding shape variables to integers, "
                "got " + kindName((*A)[I]));
        Ok = false;
        continue;
      }
      Shape Sh;
      for (const std::string &Name : keysInOrder(*SO, SP)) {
        std::string VP = member(SP, Name);
        if (StringRef(Name).starts_with("_"))
          continue;
        if (!isIdentifier(Name)) {
          err(VP, "shape variable names are identifiers");
          Ok = false;
          continue;
        }
        std::optional<int64_t> Val = SO->get(Name)->getAsInteger();
        if (!Val) {
          err(VP, "expected an integer, got " + kindName(*SO->get(Name)));
          Ok = false;
          continue;
        }
        Sh.set(Name, *Val);
      }
      K.Shapes.push_back(std::move(Sh));
    }
  }

  /// `{"rtol": r, "atol": a}`, either or both, numbers >= 0.
  bool parseTolerance(const json::Value &V, StringRef P,
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

  /// An output's own tolerance (docs/spec.md, "Tolerance").
  void parseArgTolerance(const json::Value &V, ArgSpec &A) {
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
                                 "') takes a whole number of steps, got " +
                                 Got);
      A.Atol.reset();
    }
  }

  /// A kernel-level tolerance applies to float outputs only.
  void checkKernelTolerance(const KernelSpec &K) {
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

  void parseKernel(const json::Object &O, StringRef Path, KernelSpec &K) {
    bool SavedFailed = Failed;
    Failed = false;
    K.Path = Path.str();
    checkFields(O, Path,
                {"kernel", "args", "grid", "block", "shared_bytes", "bytes",
                 "shapes", "vars", "tolerance", "noalias", "tunable"});
    bool Ok = true;
    if (const json::Value *V =
            required(O, Path, "kernel", "the kernel's name")) {
      std::optional<StringRef> S = V->getAsString();
      if (S && S->contains("TODO"))
        err(member(Path, "kernel"), "placeholder not filled in: '" + *S + "'");
      else if (S && !S->empty())
        K.Kernel = S->trim().str();
      else
        err(member(Path, "kernel"), "expected the kernel's name");
    }
    if (const json::Value *V = required(
            O, Path, "args", "one entry per kernel parameter, in order")) {
      std::string P = member(Path, "args");
      if (const json::Array *A = V->getAsArray()) {
        for (size_t I = 0; I < A->size(); ++I) {
          ArgSpec Arg;
          Arg.Path = element(P, I);
          parseArg((*A)[I], Arg);
          K.Args.push_back(std::move(Arg));
        }
      } else {
        err(P, "expected an array of argument objects, got " + kindName(*V));
      }
    }
    parseDims(O, Path, "grid", K.Grid, Ok);
    parseDims(O, Path, "block", K.Block, Ok);
    if (const json::Value *V = O.get("shared_bytes"))
      parseExpr(*V, member(Path, "shared_bytes"), K.SharedBytes);
    if (const json::Value *V = O.get("bytes"))
      parseExpr(*V, member(Path, "bytes"), K.Bytes);
    unsigned BeforeDomain = NumErrors;
    parseShapes(O, Path, K, Ok);
    if (const json::Value *V = O.get("vars"))
      parseVars(*V, member(Path, "vars"), K);
    bool DomainParsed = NumErrors == BeforeDomain;
    if (const json::Value *V = O.get("tolerance")) {
      if (parseTolerance(*V, member(Path, "tolerance"), K.Rtol, K.Atol))
        checkKernelTolerance(K);
    }
    if (const json::Value *V = O.get("noalias")) {
      if (std::optional<bool> B = V->getAsBoolean())
        K.NoAlias = *B;
      else
        err(member(Path, "noalias"), "expected true or false");
    }
    checkGenReferences(K);
    checkVariables(K);
    // Spec shapes against the domain, once the shapes and `vars` parsed and
    // the bounds use bound variables only (other errors do not hide these).
    if (DomainParsed && domainVariablesBound(K))
      checkShapeDomains(K);
    K.Valid = !Failed;
    Failed = SavedFailed || Failed;
  }

  void parseArg(const json::Value &V, ArgSpec &A) {
    const std::string &P = A.Path;
    bool SavedFailed = Failed;
    Failed = false;
    const json::Object *O = V.getAsObject();
    if (!O) {
      err(P, "expected an argument object, got " + kindName(V));
      A.Valid = false;
      Failed = true;
      return;
    }
    checkFields(*O, P,
                {"name", "dtype", "count", "role", "dist", "range", "gen",
                 "specials", "tolerance", "value", "size", "fields"});
    unsigned Before = NumErrors;
    if (const json::Value *N = required(*O, P, "name", "the parameter name")) {
      if (std::optional<StringRef> S = N->getAsString())
        A.Name = S->str();
      else
        err(member(P, "name"), "expected a string");
    }
    if (O->get("fields") || O->get("size")) {
      parseStructArg(*O, A, Before);
      Failed = SavedFailed || Failed;
      return;
    }
    if (const json::Value *D = required(*O, P, "dtype", "the element type")) {
      std::optional<StringRef> S = D->getAsString();
      std::optional<DType> T = S ? parseDType(*S) : std::nullopt;
      if (T)
        A.Type = *T;
      else if (S && isPlaceholder(*S))
        err(member(P, "dtype"), "placeholder not filled in: '" + *S + "'");
      else
        err(member(P, "dtype"),
            (S ? "unknown dtype '" + *S + "'" : Twine("expected a string")) +
                " (dtypes: " + dtypeNames() + ")");
    }
    // Valid: name, dtype and role (what checkSpec compares with the kernel)
    // parsed; the other fields may still have errors.
    A.Valid = NumErrors == Before;
    const json::Value *Count = O->get("count");
    const json::Value *Value = O->get("value");
    if (Value) {
      A.IsScalar = true;
      for (StringRef Key :
           {"count", "role", "dist", "range", "gen", "specials", "tolerance"})
        if (O->get(Key))
          err(member(P, Key), Key == "count"
                                  ? "a scalar ('value' given) has no count"
                                  : Twine("a scalar ('value' given) has no '" +
                                          Key + "'"));
      parseValue(*Value, member(P, "value"), A.Value);
      if (A.Value.IsFloat && !isFloatDType(A.Type) && !Failed)
        err(member(P, "value"), "float literal given for integer dtype '" +
                                    dtypeName(A.Type) + "'");
    } else {
      if (!Count)
        err(P, "missing field 'count' (number of elements of a buffer) or "
               "'value' (a scalar)");
      else
        parseExpr(*Count, member(P, "count"), A.Count);
      parseBufferFields(*O, A);
    }
    Failed = SavedFailed || Failed;
  }

  /// A struct passed by value: `"size"` and `"fields"`, each field a
  /// scalar with a byte offset (docs/spec.md, "Struct parameters").
  void parseStructArg(const json::Object &O, ArgSpec &A, unsigned Before) {
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

  void parseField(const json::Value &V, const ArgSpec &A, FieldSpec &F) {
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
        err(member(F.Path, "dtype"),
            "placeholder not filled in: '" + *S + "'");
      else
        err(member(F.Path, "dtype"),
            (S ? "unknown dtype '" + *S + "'" : Twine("expected a string")) +
                " (dtypes: " + dtypeNames() + ")");
    }
    if (const json::Value *Off = required(
            *O, F.Path, "offset", "its byte offset in the struct")) {
      std::optional<int64_t> N = Off->getAsInteger();
      if (!N || *N < 0)
        err(member(F.Path, "offset"),
            "expected a byte offset, an integer >= 0");
      else
        F.Offset = uint64_t(*N);
    }
    F.Valid = NumErrors == Before;
    if (F.Valid && A.StructSize &&
        F.Offset + dtypeSize(F.Type) > A.StructSize)
      err(member(F.Path, "offset"),
          "field '" + F.Name + "' (" + dtypeName(F.Type) + ") at offset " +
              Twine(F.Offset) + " ends past the struct's " +
              Twine(A.StructSize) + " bytes");
    if (const json::Value *Val =
            required(*O, F.Path, "value", "an expression or float literal")) {
      parseValue(*Val, member(F.Path, "value"), F.Value);
      if (F.Valid && F.Value.IsFloat && !isFloatDType(F.Type))
        err(member(F.Path, "value"), "float literal given for integer dtype '" +
                                         dtypeName(F.Type) + "'");
    }
  }

  void parseBufferFields(const json::Object &O, ArgSpec &A) {
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

  void parseGen(const json::Value &V, ArgSpec &A) {
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
    static const GenKind Kinds[] = {
        GenKind::CsrIndptr,   GenKind::CsrIndices, GenKind::DistinctPerRow,
        GenKind::Sorted,      GenKind::Permutation, GenKind::Iota,
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
      if (const json::Value *I = O->get("indptr");
          I && I->getAsString())
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
      err(P, "generator '" + *Kind + "' produces integers: dtype must be an "
             "integer type, not '" + dtypeName(A.Type) + "'");
    if (NeedsRange && !O->get("range") && !A.Range &&
        !isFloatDType(A.Type))
      err(A.Path, "generator '" + *Kind + "' draws from 'range': give "
                  "\"range\": [lo, hi]");
    A.Gen = std::move(G);
  }

  /// `"vars": {"<name>": {"vary": b, "min": E, "max": E, "multiple_of": E,
  /// "divides": E, "power_of_two": b}, ...}` (docs/spec.md).
  void parseVars(const json::Value &V, StringRef P, KernelSpec &K) {
    const json::Object *O = V.getAsObject();
    if (!O) {
      err(P, "expected an object mapping shape variables to their domains, "
             "got " +
                 kindName(V));
      return;
    }
    for (const std::string &Name : keysInOrder(*O, P)) {
      if (StringRef(Name).starts_with("_"))
        continue;
      std::string VP = member(P, Name);
      // Without shapes (an error reported already) nothing is known.
      if (!K.Shapes.empty() &&
          none_of(K.Shapes, [&](const Shape &S) { return S.lookup(Name); })) {
        std::string Known;
        for (const auto &NV : K.Shapes[0].vars())
          Known += (Known.empty() ? "" : ", ") + NV.first;
        errAt(F.Locator.locateKey(VP),
              VP + ": '" + Name + "' is not a shape variable (shape " +
                  "variables: " + (Known.empty() ? "none" : Known) + ")");
        continue;
      }
      const json::Object *DO = O->get(Name)->getAsObject();
      if (!DO) {
        err(VP, "expected an object {\"vary\": false, \"min\": ..., "
                "\"max\": ..., \"multiple_of\": ..., \"divides\": ..., "
                "\"power_of_two\": true}, got " +
                    kindName(*O->get(Name)));
        continue;
      }
      K.Vars.push_back(parseVarDomain(*DO, VP, Name));
    }
  }

  VarDomain parseVarDomain(const json::Object &O, StringRef P, StringRef Name) {
    VarDomain D;
    D.Name = Name.str();
    D.Path = P.str();
    checkFields(
        O, P, {"vary", "min", "max", "multiple_of", "divides", "power_of_two"});
    auto Flag = [&](StringRef Key, bool &Out) {
      if (const json::Value *B = O.get(Key)) {
        if (std::optional<bool> Val = B->getAsBoolean())
          Out = *Val;
        else
          err(member(P, Key), "expected true or false");
      }
    };
    Flag("vary", D.Vary);
    Flag("power_of_two", D.PowerOfTwo);
    for (auto [Key, Out] : {std::pair<StringRef, SizeExpr *>{"min", &D.Min},
                            {"max", &D.Max},
                            {"multiple_of", &D.MultipleOf},
                            {"divides", &D.Divides}})
      if (const json::Value *E = O.get(Key))
        parseExpr(*E, member(P, Key), *Out);
    return D;
  }

  /// Every variable of every `vars` bound is bound by every shape.
  static bool domainVariablesBound(const KernelSpec &K) {
    for (const VarDomain &D : K.Vars)
      for (const SizeExpr *E : {&D.Min, &D.Max, &D.MultipleOf, &D.Divides})
        for (const std::string &V : E->variables())
          if (any_of(K.Shapes, [&](const Shape &S) { return !S.lookup(V); }))
            return false;
    return true;
  }

  /// Every spec shape lies in the domain: one report per constraint, for
  /// the first shape that breaks it.
  void checkShapeDomains(const KernelSpec &K) {
    StringSet<> Done;
    for (size_t I = 0; I < K.Shapes.size(); ++I)
      for (const DomainViolation &V : K.domainViolations(K.Shapes[I])) {
        if (!Done.insert(V.Path).second)
          continue;
        err(V.Path, V.Var + " = " + Twine(V.Value) + " in shape " + Twine(I) +
                        " {" + K.Shapes[I].str() + "}: " + V.Requirement);
      }
  }

  /// csr_indices must name a csr_indptr argument of the same kernel.
  void checkGenReferences(const KernelSpec &K) {
    for (const ArgSpec &A : K.Args) {
      if (!A.Gen || A.Gen->Kind != GenKind::CsrIndices)
        continue;
      const ArgSpec *Ptr = nullptr;
      for (const ArgSpec &B : K.Args)
        if (B.Name == A.Gen->Indptr)
          Ptr = &B;
      if (!Ptr || !Ptr->Gen || Ptr->Gen->Kind != GenKind::CsrIndptr)
        err(member(member(A.Path, "gen"), "indptr"),
            "'" + A.Gen->Indptr +
                "' is not an argument with \"gen\": {\"kind\": "
                "\"csr_indptr\"}");
    }
  }

  /// Every variable an expression uses must be bound by every shape.
  void checkVariables(const KernelSpec &K) {
    forEachExpr(K, [&](const SizeExpr &E, StringRef Path) {
      for (const std::string &V : E.variables())
        for (size_t I = 0; I < K.Shapes.size(); ++I)
          if (!K.Shapes[I].lookup(V)) {
            err(Path, "variable '" + V + "' is not bound by shape " +
                          Twine(I) + " {" + K.Shapes[I].str() + "}");
            break;
          }
    });
  }
};

/// Turns llvm::json's "[3:5, byte=40]: msg" into a located error.
Error jsonSyntaxError(Error E, StringRef FileName) {
  std::string Msg = toString(std::move(E));
  SmallVector<StringRef, 4> M;
  DiagLoc Loc;
  Loc.File = FileName.str();
  if (Regex("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$").match(Msg, &M)) {
    M[1].getAsInteger(10, Loc.Line);
    M[2].getAsInteger(10, Loc.Col);
    Msg = M[3].str();
  }
  return makeInputError(Loc, "malformed JSON: " + Msg);
}

} // namespace

LaunchSpecFile parseSpecCollecting(StringRef JSON, StringRef FileName,
                                   Error &Errs, bool &JsonOk) {
  LaunchSpecFile F;
  F.FileName = FileName.str();
  F.Locator.FileName = F.FileName;
  Expected<json::Value> Root = json::parse(JSON);
  if (!Root) {
    JsonOk = false;
    addError(Errs, jsonSyntaxError(Root.takeError(), FileName));
    return F;
  }
  JsonOk = true;
  F.Locator.index(JSON);
  SpecParser(F, Errs).parseTop(*Root);
  return F;
}

} // namespace detail

Expected<LaunchSpecFile> parseSpec(StringRef JSON, StringRef FileName) {
  Error Errs = Error::success();
  bool JsonOk;
  LaunchSpecFile F =
      detail::parseSpecCollecting(JSON, FileName, Errs, JsonOk);
  if (Errs)
    return std::move(Errs);
  return F;
}

} // namespace astra
