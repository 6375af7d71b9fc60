//===- Spec.cpp - Launch spec types, names and JSON positions -------------===//
#include "SpecInternal.h"
#include "astra/Support/Output.h"
#include "astra/Support/TorchFlags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

StringRef roleName(ArgRole R) {
  switch (R) {
  case ArgRole::In:
    return "in";
  case ArgRole::Out:
    return "out";
  case ArgRole::InOut:
    return "inout";
  }
  llvm_unreachable("unknown role");
}

static const std::pair<Dist, const char *> DistNames[] = {
    {Dist::Normal, "normal"}, {Dist::Uniform, "uniform"},
    {Dist::Positive, "positive"}, {Dist::Heavy, "heavy"},
    {Dist::Small, "small"},   {Dist::Large, "large"},
};

StringRef distName(Dist D) {
  for (const auto &P : DistNames)
    if (P.first == D)
      return P.second;
  llvm_unreachable("unknown dist");
}

std::optional<Dist> parseDist(StringRef Name) {
  for (const auto &P : DistNames)
    if (Name == P.second)
      return P.first;
  return std::nullopt;
}

StringRef genKindName(GenKind K) {
  switch (K) {
  case GenKind::CsrIndptr:
    return "csr_indptr";
  case GenKind::CsrIndices:
    return "csr_indices";
  case GenKind::DistinctPerRow:
    return "distinct_per_row";
  case GenKind::Sorted:
    return "sorted";
  case GenKind::Permutation:
    return "permutation";
  case GenKind::Iota:
    return "iota";
  case GenKind::Constant:
    return "constant";
  }
  llvm_unreachable("unknown gen kind");
}

Tolerance defaultTolerance(DType T) {
  switch (T) {
  case DType::F32:
    return {1e-5, 1e-6};
  case DType::F64:
    return {1e-12, 1e-14};
  case DType::F16:
    return {1e-3, 1e-5};
  case DType::BF16:
    return {8e-3, 1e-5};
  case DType::FP8E4M3:
    return {0.125, 1e-3};
  case DType::FP8E5M2:
    return {0.25, 1e-3};
  default:
    return {0, 0};
  }
}

Tolerance KernelSpec::toleranceFor(DType OutType) const {
  Tolerance T = defaultTolerance(OutType);
  if (Rtol)
    T.Rtol = *Rtol;
  if (Atol)
    T.Atol = *Atol;
  return T;
}

Tolerance KernelSpec::toleranceFor(const ArgSpec &A) const {
  // The kernel-level tolerance is about float rounding: integer outputs stay
  // bit-equal unless they give their own atol.
  Tolerance T =
      isFloatDType(A.Type) ? toleranceFor(A.Type) : defaultTolerance(A.Type);
  if (A.Rtol)
    T.Rtol = *A.Rtol;
  if (A.Atol)
    T.Atol = *A.Atol;
  return T;
}

StringRef KernelSpec::baseName() const {
  return StringRef(Kernel).split('<').first.trim();
}

std::string detail::withoutSpaces(StringRef S) {
  std::string Out;
  for (char C : S)
    if (!isSpace(C))
      Out += C;
  return withCanonicalTorchTypes(Out);
}

const KernelSpec *LaunchSpecFile::find(StringRef Name) const {
  std::string Want = detail::withoutSpaces(Name);
  for (const KernelSpec &K : Kernels)
    if (detail::withoutSpaces(K.Kernel) == Want)
      return &K;
  return nullptr;
}

Error LaunchSpecFile::error(StringRef Path, const Twine &Msg) const {
  DiagLoc Loc = Locator.locate(Path);
  if (Loc.File.empty())
    Loc.File = FileName;
  if (Path.empty())
    return makeInputError(Loc, Msg);
  return makeInputError(Loc, Path + ": " + Msg);
}

//===-- Positions ---------------------------------------------------------===//

namespace {
/// A scanner over valid JSON text that records where each value (and each
/// member key) starts, by field path.
class PositionScanner {
public:
  PositionScanner(StringRef Text, StringMap<std::pair<unsigned, unsigned>> &V,
                  StringMap<std::pair<unsigned, unsigned>> &K)
      : Text(Text), Values(V), Keys(K) {}

  void run() { value(""); }

private:
  StringRef Text;
  size_t Pos = 0;
  unsigned Line = 1;
  size_t LineStart = 0;
  StringMap<std::pair<unsigned, unsigned>> &Values, &Keys;

  std::pair<unsigned, unsigned> here() const {
    return {Line, unsigned(Pos - LineStart + 1)};
  }
  void advance() {
    if (Text[Pos] == '\n') {
      ++Line;
      LineStart = Pos + 1;
    }
    ++Pos;
  }
  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      advance();
  }
  std::string string() {
    std::string S;
    advance(); // opening quote
    while (Pos < Text.size() && Text[Pos] != '"') {
      if (Text[Pos] == '\\') {
        advance();
        if (Pos >= Text.size())
          break;
      }
      S += Text[Pos];
      advance();
    }
    if (Pos < Text.size())
      advance(); // closing quote
    return S;
  }
  static std::string member(StringRef Path, StringRef Key) {
    return Path.empty() ? Key.str() : (Path + "." + Key).str();
  }

  void value(const std::string &Path) {
    skipSpace();
    if (Pos >= Text.size())
      return;
    Values.try_emplace(Path, here());
    char C = Text[Pos];
    if (C == '{') {
      advance();
      while (true) {
        skipSpace();
        if (Pos >= Text.size() || Text[Pos] == '}')
          break;
        if (Text[Pos] == ',') {
          advance();
          continue;
        }
        auto KeyPos = here();
        std::string Key = string();
        std::string Child = member(Path, Key);
        Keys.try_emplace(Child, KeyPos);
        skipSpace();
        if (Pos < Text.size() && Text[Pos] == ':')
          advance();
        value(Child);
      }
      if (Pos < Text.size())
        advance();
    } else if (C == '[') {
      advance();
      unsigned Index = 0;
      while (true) {
        skipSpace();
        if (Pos >= Text.size() || Text[Pos] == ']')
          break;
        if (Text[Pos] == ',') {
          advance();
          continue;
        }
        value(Path + "[" + std::to_string(Index++) + "]");
      }
      if (Pos < Text.size())
        advance();
    } else if (C == '"') {
      string();
    } else {
      while (Pos < Text.size() && !isSpace(Text[Pos]) &&
             !StringRef(",]}").contains(Text[Pos]))
        advance();
    }
  }
};
} // namespace

void SpecLocator::index(StringRef JSON) {
  StringMap<std::pair<unsigned, unsigned>> V, K;
  PositionScanner(JSON, V, K).run();
  for (auto &E : V)
    Values[E.getKey()] = {E.getValue().first, E.getValue().second};
  for (auto &E : K)
    Keys[E.getKey()] = {E.getValue().first, E.getValue().second};
}

DiagLoc SpecLocator::find(const StringMap<Pos> &M, StringRef Path) const {
  DiagLoc Loc;
  Loc.File = FileName;
  while (true) {
    auto It = M.find(Path);
    if (It != M.end()) {
      Loc.Line = It->getValue().Line;
      Loc.Col = It->getValue().Col;
      return Loc;
    }
    // Strip the last component: ".name" or "[i]".
    size_t Cut = Path.find_last_of(".[");
    if (Cut == StringRef::npos || Path.empty()) {
      if (!Path.empty()) {
        Path = "";
        continue;
      }
      return Loc;
    }
    Path = Path.take_front(Cut);
  }
}

DiagLoc SpecLocator::locate(StringRef Path) const { return find(Values, Path); }

DiagLoc SpecLocator::locateKey(StringRef Path) const {
  auto It = Keys.find(Path);
  if (It == Keys.end())
    return locate(Path);
  DiagLoc Loc;
  Loc.File = FileName;
  Loc.Line = It->getValue().Line;
  Loc.Col = It->getValue().Col;
  return Loc;
}

namespace detail {

void forEachExpr(const KernelSpec &K,
                 function_ref<void(const SizeExpr &, StringRef)> Fn) {
  auto Call = [&](const SizeExpr &E, StringRef Path) {
    if (!E.empty())
      Fn(E, Path);
  };
  for (size_t I = 0; I < K.Grid.size(); ++I)
    Call(K.Grid[I], element(member(K.Path, "grid"), I));
  for (size_t I = 0; I < K.Block.size(); ++I)
    Call(K.Block[I], element(member(K.Path, "block"), I));
  Call(K.SharedBytes, member(K.Path, "shared_bytes"));
  Call(K.Bytes, member(K.Path, "bytes"));
  for (const VarDomain &D : K.Vars) {
    Call(D.Min, member(D.Path, "min"));
    Call(D.Max, member(D.Path, "max"));
    Call(D.MultipleOf, member(D.Path, "multiple_of"));
    Call(D.Divides, member(D.Path, "divides"));
  }
  for (const ArgSpec &A : K.Args) {
    for (const FieldSpec &F : A.Fields)
      if (!F.Value.IsFloat)
        Call(F.Value.Int, member(F.Path, "value"));
    if (A.IsScalar) {
      if (!A.Value.IsFloat && !A.IsStruct)
        Call(A.Value.Int, member(A.Path, "value"));
      continue;
    }
    Call(A.Count, member(A.Path, "count"));
    if (A.Range) {
      Call(A.Range->first, element(member(A.Path, "range"), 0));
      Call(A.Range->second, element(member(A.Path, "range"), 1));
    }
    if (A.Gen) {
      std::string G = member(A.Path, "gen");
      Call(A.Gen->Rows, member(G, "rows"));
      Call(A.Gen->MinDegree, member(G, "min_degree"));
      Call(A.Gen->MaxDegree, member(G, "max_degree"));
      Call(A.Gen->Row, member(G, "row"));
      if (!A.Gen->Value.IsFloat)
        Call(A.Gen->Value.Int, member(G, "value"));
    }
  }
}
} // namespace detail

Expected<LaunchSpecFile> parseSpecFile(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parseSpec((*Buf)->getBuffer(), Path);
}

} // namespace astra
