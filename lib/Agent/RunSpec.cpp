//===- RunSpec.cpp - What the spec says about a kernel's launches --------===//
//
// The launch facts runAgent gives the search, from a kernel's spec: the
// spec's tunable launches as steps, threads per shape, pack widths, fold and
// coarsen steps, and what a plan's launch steps make of the spec's launch.
//
//===----------------------------------------------------------------------===//
#include "RunSpec.h"
#include "astra/Agent/Plan.h"
#include "astra/Agent/Run.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

/// The threads per block of \p K's launch when it is the same on every
/// spec shape (with \p Var set to \p Value, unless Var is empty).
static std::optional<int64_t> sameThreads(const KernelSpec &K, StringRef Var,
                                          int64_t Value) {
  std::optional<int64_t> Threads;
  for (const Shape &S : K.Shapes) {
    Shape With = S;
    if (!Var.empty())
      With.set(Var, Value);
    Expected<ResolvedLaunch> L = resolve(K, With);
    if (!L) {
      consumeError(L.takeError());
      return std::nullopt;
    }
    int64_t N = int64_t(L->Block[0]) * L->Block[1] * L->Block[2];
    if (Threads && *Threads != N)
      return std::nullopt;
    Threads = N;
  }
  return Threads;
}

/// Per spec shape of \p K, the threads of its launch in all.
std::vector<std::pair<std::string, uint64_t>>
shapeThreads(const KernelSpec &K) {
  std::vector<std::pair<std::string, uint64_t>> Out;
  for (const Shape &S : K.Shapes) {
    Expected<ResolvedLaunch> L = resolve(K, S);
    if (!L) {
      consumeError(L.takeError()); // the harness reports it
      continue;
    }
    Out.push_back({S.str(), L->dims().threads()});
  }
  return Out;
}

/// The one top-level template argument of \p K's name (`k<__half, 256>`)
/// written as the spec's threads per block, if there is exactly one: the
/// argument a kernel template's block size may be (`template-arg=`).
static std::optional<unsigned> blockTemplateArg(const KernelSpec &K) {
  SmallVector<StringRef, 4> Args = templateArgsOf(K.Kernel);
  std::optional<int64_t> Threads = sameThreads(K, "", 0);
  if (Args.empty() || !Threads)
    return std::nullopt;
  std::optional<unsigned> Found;
  for (unsigned I = 0; I < Args.size(); ++I) {
    int64_t V = 0;
    if (Args[I].getAsInteger(10, V) || V != *Threads)
      continue;
    if (Found)
      return std::nullopt; // two candidates: which one is not known
    Found = I;
  }
  return Found;
}

/// The launch steps the spec's `tunable` allows for \p K (source name
/// \p Source): one per variable and value other than the spec's own, with
/// `block=` the threads per block when that is the same on every shape.
/// Where the spec's instantiation writes its block size as a template
/// argument and the launch rewrite accepts that argument on \p Code, each
/// step is a new instantiation instead (`template-arg=`).
std::vector<std::string> tunableLaunchSteps(const CompileSetup &Setup,
                                            StringRef FileName, StringRef Code,
                                            const KernelSpec &K,
                                            StringRef Source) {
  std::vector<std::string> Steps;
  std::optional<unsigned> TArg = blockTemplateArg(K);
  for (const TunableVar &T : K.Tunable)
    for (int64_t V : T.Values) {
      if (all_of(K.Shapes,
                 [&](const Shape &S) { return S.lookup(T.Name) == V; }))
        continue; // the spec's own launch
      std::optional<int64_t> Threads = sameThreads(K, T.Name, V);
      std::string Step = "launch:kernel=" + Source.str() + "," + T.Name + "=" +
                         std::to_string(V);
      if (Threads)
        Step += ",block=" + std::to_string(*Threads);
      if (Threads && TArg) {
        std::string Inst = Step + ",template-arg=" + std::to_string(*TArg);
        Expected<RewriteParams> P = RewriteParams::parse(Inst);
        Expected<ApplyResult> R = P ? applyRewrite(Setup, FileName, Code, *P)
                                    : Expected<ApplyResult>(P.takeError());
        if (R)
          Step = Inst;
        else
          consumeError(R.takeError()); // not a template block: the plain one
      }
      Steps.push_back(Step);
    }
  return Steps;
}

/// The instantiation that a candidate of \p Steps runs as (the spec's kernel
/// unless a launch step sets `template-arg=`).
std::string kernelAfter(const KernelSpec &K,
                        const std::vector<std::string> &Steps) {
  Expected<LaunchOverrides> O = launchOverridesOf(Steps);
  if (!O) {
    consumeError(O.takeError());
    return K.Kernel;
  }
  Expected<std::string> Name = candidateKernelName(K, *O);
  if (!Name) {
    consumeError(Name.takeError());
    return K.Kernel;
  }
  return *Name;
}

/// Elements of \p K's narrowest buffer (of an output, with \p Outputs) per
/// 16-byte pack (0 when none).
unsigned packWidth(const KernelSpec &K, bool Outputs) {
  unsigned Narrowest = 0;
  for (const ArgSpec &A : K.Args)
    if (!A.IsScalar && (!Outputs || A.Role != ArgRole::In) &&
        (!Narrowest || dtypeSize(A.Type) < Narrowest))
      Narrowest = dtypeSize(A.Type);
  return Narrowest && Narrowest <= 16 ? 16 / Narrowest : 0;
}

/// fold-blocks steps for \p K whose bound the spec gives: a grid dimension
/// (x or y) whose extent is a variable that an integer scalar argument
/// takes as its value (`"grid": ["T", "H"]` with `num_heads` = H); for a
/// kernel with barriers or shared memory, an exact fold of any dimension
/// whose extent is a variable. The longest extent at the last shape first.
std::vector<std::string> foldSteps(const KernelSpec &K, const KernelInfo &KI) {
  StringRef Source = KI.Name;
  // Rows that share barriers cannot return past a bound: such a kernel
  // folds exactly, where K divides the extent (fold-blocks:exact=1).
  bool Exact = !KI.Barriers.empty() || !KI.SharedArrays.empty();
  std::vector<std::pair<int64_t, std::string>> Steps;
  for (size_t D = 0; D < K.Grid.size() && D < 2; ++D) {
    std::vector<std::string> Vars = K.Grid[D].variables();
    if (Vars.size() != 1 || K.Grid[D].text() != Vars[0] || K.Shapes.empty())
      continue;
    int64_t Extent = K.Shapes.back().lookup(Vars[0]).value_or(0);
    std::vector<const ArgSpec *> Holders;
    for (const ArgSpec &A : K.Args)
      if (A.IsScalar && !A.IsStruct && !A.Value.IsFloat &&
          A.Value.Int.text() == Vars[0])
        Holders.push_back(&A);
    // Two arguments with the grid's value (num_heads, num_kv_heads = H):
    // which one the kernel means is not known; no fold, unless exact.
    if (Exact)
      Steps.push_back({Extent, "fold-blocks:kernel=" + Source.str() +
                                   ",dim=" + (D ? "y" : "x") + ",exact=1"});
    else if (Holders.size() == 1)
      Steps.push_back({Extent, "fold-blocks:kernel=" + Source.str() +
                                   ",bound=" + Holders[0]->Name +
                                   ",dim=" + (D ? "y" : "x")});
  }
  // The longest extent first: folding it leaves the most blocks.
  llvm::stable_sort(
      Steps, [](const auto &A, const auto &B) { return A.first > B.first; });
  std::vector<std::string> Out;
  for (auto &[Extent, Step] : Steps)
    Out.push_back(std::move(Step));
  return Out;
}

/// coarsen steps for \p K: the spec's block.x is a variable that exactly one
/// integer scalar argument takes as its value (`"block": ["gs"]` with
/// group_size = gs), kept when the rewrite applies to \p Code; then also
/// the same with loads=packs where that applies.
std::vector<std::string> coarsenSteps(const CompileSetup &Setup,
                                      StringRef FileName, StringRef Code,
                                      const KernelSpec &K, StringRef Source) {
  if (K.Block.empty())
    return {};
  std::vector<std::string> Vars = K.Block[0].variables();
  if (Vars.size() != 1 || K.Block[0].text() != Vars[0])
    return {};
  std::vector<const ArgSpec *> Holders;
  for (const ArgSpec &A : K.Args)
    if (A.IsScalar && !A.IsStruct && !A.Value.IsFloat &&
        A.Value.Int.text() == Vars[0])
      Holders.push_back(&A);
  if (Holders.size() != 1)
    return {};
  std::string Step =
      "coarsen:kernel=" + Source.str() + ",extent=" + Holders[0]->Name;
  auto Applies = [&](const std::string &S) {
    Expected<RewriteParams> P = RewriteParams::parse(S);
    if (!P) {
      consumeError(P.takeError());
      return false;
    }
    Expected<ApplyResult> R = applyRewrite(Setup, FileName, Code, *P);
    if (!R) {
      consumeError(R.takeError()); // refused: listed with --list-rewrites
      return false;
    }
    return true;
  };
  if (!Applies(Step))
    return {};
  // The loads as packs (CoarsenLoads.h), after the element loads: kept only
  // when it applies at every factor the search tries (its elements must
  // fill whole words).
  std::string Packs = Step + ",loads=packs";
  if (llvm::all_of(
          ArrayRef<const char *>{"8", "16", "4", "2"},
          [&](const char *F) { return Applies(Packs + ",factor=" + F); }))
    return {Step, Packs};
  return {Step};
}

/// The threads per block of \p K's last shape under the launch of \p Steps,
/// all of them or (\p XOnly) the block's x extent.
uint64_t blockThreadsAfter(const KernelSpec &K, StringRef Source,
                           const std::vector<std::string> &Steps, bool XOnly) {
  if (K.Shapes.empty())
    return 0;
  Expected<LaunchOverrides> O = launchOverridesOf(Steps, Source);
  if (!O) {
    consumeError(O.takeError());
    return 0;
  }
  const Shape &S = K.Shapes.back();
  Expected<ResolvedLaunch> L = resolve(K, S);
  if (!L) {
    consumeError(L.takeError());
    return 0;
  }
  if (Error E = resolveCandidateLaunch(K, S, *O, *L)) {
    consumeError(std::move(E));
    return 0;
  }
  if (XOnly)
    return L->Cand.Block[0];
  return uint64_t(L->Cand.Block[0]) * L->Cand.Block[1] * L->Cand.Block[2];
}

} // namespace astra
