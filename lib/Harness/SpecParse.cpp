//===- SpecParse.cpp - Read a launch spec from JSON -----------------------===//
//
// llvm::json parses the text (no exceptions, LLVM style); SpecParser (its
// parts in SpecParse*.cpp, SpecParser.h) walks the value tree, checks every
// field and collects all errors, each located with SpecLocator (llvm::json
// keeps no positions).
//
//===----------------------------------------------------------------------===//
#include "SpecParser.h"

using namespace llvm;

namespace astra {
namespace detail {
namespace specparse {

void SpecParser::parseTop(const json::Value &Root) {
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
    err("kernels",
        "expected an array of kernel objects, got " + kindName(*List));
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

void SpecParser::err(StringRef Path, const Twine &Msg) {
  Failed = true;
  ++NumErrors;
  addError(Errs, F.error(Path, Msg));
}

void SpecParser::errAt(DiagLoc Loc, const Twine &Msg) {
  Failed = true;
  ++NumErrors;
  addError(Errs, makeInputError(Loc, Msg));
}

std::vector<std::string> SpecParser::keysInOrder(const json::Object &O,
                                                 StringRef Path) {
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

void SpecParser::checkFields(const json::Object &O, StringRef Path,
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

const json::Value *SpecParser::required(const json::Object &O, StringRef Path,
                                        StringRef Key, StringRef What) {
  const json::Value *V = O.get(Key);
  if (!V)
    err(Path, "missing field '" + Key + "' (" + What + ")");
  return V;
}

bool SpecParser::parseExpr(const json::Value &V, StringRef Path,
                           SizeExpr &Out) {
  if (std::optional<int64_t> I = V.getAsInteger()) {
    Out = SizeExpr::constant(*I);
    return true;
  }
  std::optional<StringRef> S = V.getAsString();
  if (!S) {
    err(Path, "expected an integer expression (a string or an integer), "
              "got " +
                  kindName(V));
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

bool SpecParser::parseValue(const json::Value &V, StringRef Path,
                            ScalarValue &Out) {
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
    bool LooksFloat =
        !T.empty() &&
        (T.contains_insensitive("e") || T.contains('.') ||
         T.contains_insensitive("inf") || T.contains_insensitive("nan"));
    if (LooksFloat && !isPlaceholder(T) && !T.getAsDouble(D)) {
      Out.IsFloat = true;
      Out.Float = D;
      return true;
    }
  }
  Out.IsFloat = false;
  return parseExpr(V, Path, Out.Int);
}

void SpecParser::parseDims(const json::Object &O, StringRef Path, StringRef Key,
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
    err(P, "expected 1 to 3 expressions (x, y, z), got " + Twine(A->size()));
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

void SpecParser::parseShapes(const json::Object &O, StringRef Path,
                             KernelSpec &K, bool &Ok) {
  const json::Value *V = required(O, Path, "shapes",
                                  "a list of objects binding shape "
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
              "got " +
                  kindName((*A)[I]));
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

void SpecParser::parseKernel(const json::Object &O, StringRef Path,
                             KernelSpec &K) {
  bool SavedFailed = Failed;
  Failed = false;
  K.Path = Path.str();
  checkFields(O, Path,
              {"kernel", "args", "grid", "block", "shared_bytes", "bytes",
               "shapes", "vars", "tolerance", "noalias", "tunable"});
  bool Ok = true;
  if (const json::Value *V = required(O, Path, "kernel", "the kernel's name")) {
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
  if (const json::Value *V = O.get("tunable"))
    parseTunable(*V, member(Path, "tunable"), K);
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

void SpecParser::parseArg(const json::Value &V, ArgSpec &A) {
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
        err(member(P, Key),
            Key == "count"
                ? "a scalar ('value' given) has no count"
                : Twine("a scalar ('value' given) has no '" + Key + "'"));
    parseValue(*Value, member(P, "value"), A.Value);
    if (A.Value.IsFloat && !isFloatDType(A.Type) && !Failed)
      err(member(P, "value"),
          "float literal given for integer dtype '" + dtypeName(A.Type) + "'");
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

} // namespace specparse

namespace {

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
  specparse::SpecParser(F, Errs).parseTop(*Root);
  return F;
}

} // namespace detail

Expected<LaunchSpecFile> parseSpec(StringRef JSON, StringRef FileName) {
  Error Errs = Error::success();
  bool JsonOk;
  LaunchSpecFile F = detail::parseSpecCollecting(JSON, FileName, Errs, JsonOk);
  if (Errs)
    return std::move(Errs);
  return F;
}

} // namespace astra
