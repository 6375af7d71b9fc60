//===- LaunchOverrides.cpp - A candidate's own launch ---------------------===//
//
// A candidate made by the `launch` rewrite runs with another launch than the
// original: tunable variables set to other values (`B=512`), the grid's or
// the block's x extent divided (`grid-x-div=8`), blocks of the grid folded
// into the block's rows (`fold-y=8`, after fold-blocks), all of it only
// where the spec's launch has at least N threads (`min-threads=N`; below,
// the spec's launch, variables unset). The spec is resolved once
// more per shape with the variables set; the buffers and scalar arguments
// must come out identical (both parties run on the same data), only the
// grid, block and dynamic shared memory may differ. docs/harness.md,
// "Launch overrides".
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/PtxScan.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/ErrorText.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

bool LaunchDims::operator==(const LaunchDims &O) const {
  return std::equal(Grid, Grid + 3, O.Grid) &&
         std::equal(Block, Block + 3, O.Block) && SharedBytes == O.SharedBytes;
}

std::string LaunchDims::str() const {
  return formatv("grid ({0}, {1}, {2}) block ({3}, {4}, {5}) shared {6}",
                 Grid[0], Grid[1], Grid[2], Block[0], Block[1], Block[2],
                 SharedBytes)
      .str();
}

uint64_t LaunchDims::threads() const {
  uint64_t N = 1;
  for (int I = 0; I < 3; ++I)
    N *= uint64_t(Grid[I]) * Block[I];
  return N;
}

LaunchDims ResolvedLaunch::dims() const {
  LaunchDims D;
  std::copy(Grid, Grid + 3, D.Grid);
  std::copy(Block, Block + 3, D.Block);
  D.SharedBytes = SharedBytes;
  return D;
}

const TunableVar *KernelSpec::tunableVar(StringRef Name) const {
  for (const TunableVar &T : Tunable)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

std::string LaunchOverrides::str() const {
  std::vector<std::string> Parts;
  for (const auto &[Name, Value] : Vars)
    Parts.push_back(Name + "=" + std::to_string(Value));
  if (GridXDiv != 1)
    Parts.push_back("grid-x-div=" + std::to_string(GridXDiv));
  if (GridYDiv != 1)
    Parts.push_back("grid-y-div=" + std::to_string(GridYDiv));
  if (BlockXDiv != 1)
    Parts.push_back("block-x-div=" + std::to_string(BlockXDiv));
  if (BlockExact)
    Parts.push_back("block-exact=1");
  if (FoldX != 1)
    Parts.push_back("fold-x=" + std::to_string(FoldX));
  if (FoldY != 1)
    Parts.push_back("fold-y=" + std::to_string(FoldY));
  if (FoldExact)
    Parts.push_back("fold-exact=1");
  if (MinThreads)
    Parts.push_back("min-threads=" + std::to_string(MinThreads));
  if (TemplateArg >= 0)
    Parts.push_back("template-arg=" + std::to_string(TemplateArg));
  if (TemplateValue)
    Parts.push_back("template-value=" + std::to_string(TemplateValue));
  if (SmallEntry)
    Parts.push_back("small-entry=1");
  return join(Parts, ",");
}

Error LaunchOverrides::set(StringRef Name, int64_t Value) {
  if (Name == "fold-exact" || Name == "block-exact" || Name == "small-entry") {
    if (Value != 0 && Value != 1)
      return makeInputError("launch override '" + Name + "=" + Twine(Value) +
                            "': 0 or 1");
    (Name == "fold-exact"    ? FoldExact
     : Name == "block-exact" ? BlockExact
                             : SmallEntry) = Value == 1;
    return Error::success();
  }
  if (Name == "template-arg") {
    if (Value < 0 || Value > 63)
      return makeInputError("launch override 'template-arg=" + Twine(Value) +
                            "': the index of a template argument, 0 to 63");
    TemplateArg = Value;
    return Error::success();
  }
  if (Name == "template-value") {
    if (Value < 1)
      return makeInputError("launch override 'template-value=" + Twine(Value) +
                            "': the new instantiation's block size, a "
                            "positive integer");
    TemplateValue = Value;
    return Error::success();
  }
  if (Value < 1)
    return makeInputError("launch override '" + Name + "=" + Twine(Value) +
                          "': the value must be a positive integer");
  if (Name == "grid-x-div") {
    GridXDiv = Value;
    return Error::success();
  }
  if (Name == "block-x-div") {
    BlockXDiv = Value;
    return Error::success();
  }
  if (Name == "grid-y-div") {
    GridYDiv = Value;
    return Error::success();
  }
  if (Name == "min-threads") {
    MinThreads = Value;
    return Error::success();
  }
  if (Name == "fold-x" || Name == "fold-y") {
    if (Value > MaxThreadsPerBlock)
      return makeInputError("launch override '" + Name + "=" + Twine(Value) +
                            "': at most " + Twine(MaxThreadsPerBlock) +
                            " rows per block");
    (Name == "fold-x" ? FoldX : FoldY) = Value;
    return Error::success();
  }
  bool Ident = !Name.empty() && (isAlpha(Name[0]) || Name[0] == '_') &&
               all_of(Name, [](char C) { return isAlnum(C) || C == '_'; });
  if (!Ident)
    return makeInputError("launch override '" + Name +
                          "': expected a tunable variable of the spec, "
                          "grid-x-div, grid-y-div, block-x-div, fold-x, "
                          "fold-y, fold-exact, block-exact, min-threads, "
                          "small-entry, template-arg or template-value");
  for (auto &NV : Vars)
    if (NV.first == Name) {
      NV.second = Value;
      return Error::success();
    }
  Vars.push_back({Name.str(), Value});
  return Error::success();
}

Expected<LaunchOverrides> LaunchOverrides::parse(StringRef Text) {
  LaunchOverrides O;
  SmallVector<StringRef, 4> Parts;
  Text.trim().split(Parts, ',', -1, false);
  for (StringRef Part : Parts) {
    auto [Key, Val] = Part.trim().split('=');
    int64_t V = 0;
    if (Key.trim().empty() || Val.trim().getAsInteger(10, V))
      return makeInputError("launch overrides '" + Text +
                            "': expected "
                            "name=<integer>, got '" +
                            Part.trim() + "'");
    if (Error E = O.set(Key.trim(), V))
      return std::move(E);
  }
  return O;
}

Error resolveCandidateLaunch(const KernelSpec &K, const Shape &S,
                             const LaunchOverrides &O, ResolvedLaunch &L) {
  L.Cand = L.dims();
  L.CandSmall = false;
  if (O.empty())
    return Error::success();
  std::string What = "the candidate's launch (" + O.str() + ")";
  Shape CS = S;
  for (const auto &[Name, Value] : O.Vars) {
    if (!K.tunableVar(Name)) {
      std::vector<std::string> Names;
      for (const TunableVar &T : K.Tunable)
        Names.push_back(T.Name);
      return makeInputError(
          "kernel '" + K.Kernel + "': " + What + " sets '" + Name +
          "', which is not a tunable variable of the spec (tunable: " +
          (Names.empty() ? std::string("none") : join(Names, ", ")) + ")");
    }
    CS.set(Name, Value);
  }
  Expected<ResolvedLaunch> C = resolve(K, CS);
  if (!C)
    return makeInputError(What + " on shape {" + S.str() +
                          "}: " + errorText(C.takeError()));
  for (size_t I = 0; I < K.Args.size(); ++I) {
    const ResolvedArg &A = L.Args[I], &B = C->Args[I];
    if (A.Count == B.Count && A.ParamBytes == B.ParamBytes)
      continue;
    return makeInputError(
        "kernel '" + K.Kernel + "': " + What + " changes argument '" +
        K.Args[I].Name + "' on shape {" + S.str() + "} (" +
        (A.IsScalar ? "its value"
                    : "count " + Twine(A.Count).str() + " -> " +
                          Twine(B.Count).str()) +
        "): a tunable variable may size only the launch (grid, block, "
        "shared_bytes), never a buffer or a scalar argument");
  }
  if ((O.FoldX != 1 && O.GridXDiv != 1) || (O.FoldY != 1 && O.GridYDiv != 1) ||
      (O.FoldX != 1 && O.FoldY != 1))
    return makeInputError(What + ": a fold and a division of the same grid "
                                 "extent, or two folds (one block.y), cannot "
                                 "go together");
  // The bound counts the caller's launch (the spec's, variables unset):
  // below it the launch stays exactly that.
  if (O.MinThreads && L.Cand.threads() < uint64_t(O.MinThreads)) {
    L.CandSmall = O.SmallEntry;
    return Error::success();
  }
  L.Cand = C->dims();
  L.Cand.Grid[0] = uint32_t(divideCeil(L.Cand.Grid[0], uint64_t(O.GridXDiv)));
  L.Cand.Grid[1] = uint32_t(divideCeil(L.Cand.Grid[1], uint64_t(O.GridYDiv)));
  if (!O.BlockExact || L.Cand.Block[0] % uint64_t(O.BlockXDiv) == 0)
    L.Cand.Block[0] =
        uint32_t(divideCeil(L.Cand.Block[0], uint64_t(O.BlockXDiv)));
  for (auto [Dim, K] : {std::pair<int, int64_t>{0, O.FoldX}, {1, O.FoldY}}) {
    if (K == 1 || (O.FoldExact && L.Cand.Grid[Dim] % uint64_t(K)))
      continue; // an exact fold leaves an extent K does not divide
    L.Cand.Grid[Dim] = uint32_t(divideCeil(L.Cand.Grid[Dim], uint64_t(K)));
    uint64_t Rows = uint64_t(L.Cand.Block[1]) * K;
    uint64_t Threads = Rows * L.Cand.Block[0] * L.Cand.Block[2];
    if (Threads > uint64_t(MaxThreadsPerBlock))
      return makeInputError(What + " on shape {" + S.str() + "}: block (" +
                            Twine(L.Cand.Block[0]) + ", " + Twine(Rows) +
                            ", " + Twine(L.Cand.Block[2]) + ") has " +
                            Twine(Threads) + " threads, more than " +
                            Twine(MaxThreadsPerBlock));
    L.Cand.Block[1] = uint32_t(Rows);
  }
  // A new instantiation (template-arg) is written for its block size: the
  // candidate must run exactly that many threads per block, on every shape
  // (generated edge shapes included), or the harness would verify one
  // instantiation while the file launches another.
  uint64_t Threads =
      uint64_t(L.Cand.Block[0]) * L.Cand.Block[1] * L.Cand.Block[2];
  if (O.TemplateValue && Threads != uint64_t(O.TemplateValue))
    return makeInputError(
        "kernel '" + K.Kernel + "': " + What + ": the candidate runs " +
        Twine(Threads) + " threads per block on {" + S.str() +
        "}, but its instantiation's block size "
        "(template-value) is " +
        Twine(O.TemplateValue) + "; set the tunable variable to match");
  return Error::success();
}

Expected<std::string> candidateKernelName(const KernelSpec &K,
                                          const LaunchOverrides &O) {
  if (O.TemplateArg < 0 && !O.TemplateValue)
    return K.Kernel;
  std::string What =
      "kernel '" + K.Kernel + "': the candidate's launch (" + O.str() + ")";
  if (O.TemplateArg < 0 || !O.TemplateValue)
    return makeInputError(What + ": template-arg (which template argument "
                                 "is the block size) and template-value "
                                 "(its new value, the launch step's block=) "
                                 "go together");
  size_t Open = findTemplateArgsOpen(K.Kernel);
  if (Open == StringRef::npos)
    return makeInputError(What + " names template argument " +
                          Twine(O.TemplateArg) +
                          ", but the spec's kernel is not a template "
                          "instantiation (name it as `k<256>`)");
  if (O.MinThreads)
    return makeInputError(
        What + ": another instantiation cannot go with min-threads (below "
               "the bound the spec's instantiation would run, and a "
               "candidate has one entry)");
  StringRef Name = K.Kernel;
  SmallVector<StringRef, 4> Args = templateArgsOf(Name);
  if (size_t(O.TemplateArg) >= Args.size())
    return makeInputError(What + ": '" + K.Kernel + "' has " +
                          Twine(Args.size()) +
                          " template argument(s); template-arg counts from 0");
  int64_t Old = 0;
  if (Args[O.TemplateArg].getAsInteger(10, Old))
    return makeInputError(What + ": template argument " + Twine(O.TemplateArg) +
                          " of '" + K.Kernel + "' is not an integer ('" +
                          Args[O.TemplateArg] + "')");
  std::vector<std::string> New(Args.begin(), Args.end());
  New[O.TemplateArg] = std::to_string(O.TemplateValue);
  return (Name.take_front(Open) + "<" + join(New, ", ") + ">").str();
}

Expected<std::string> smallKernelName(const KernelSpec &K,
                                      const LaunchOverrides &O) {
  if (!O.SmallEntry)
    return std::string();
  std::string What =
      "kernel '" + K.Kernel + "': the candidate's launch (" + O.str() + ")";
  if (!O.MinThreads)
    return makeInputError(What + ": small-entry names the entry that runs "
                                 "below the min-threads bound; give the "
                                 "bound (min-threads=N)");
  if (O.TemplateArg >= 0 || O.TemplateValue)
    return makeInputError(What + ": small-entry cannot go with template-arg");
  StringRef Name = K.Kernel;
  size_t Open = findTemplateArgsOpen(Name);
  StringRef Base = Open == StringRef::npos ? Name : Name.take_front(Open);
  StringRef Args = Open == StringRef::npos ? "" : Name.drop_front(Open);
  return (Base.rtrim() + SmallEntrySuffix + Args).str();
}

} // namespace astra
