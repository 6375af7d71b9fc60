//===- Spec.h - Launch specs: data, parsing, resolution ---------*- C++ -*-===//
//
// The launch spec (`<file>.astra.json`, design section 5, docs/spec.md) is a
// kernel's launch contract: its arguments (buffers with element type, size
// and role; scalars with a value), grid, block, dynamic shared memory, the
// problem shapes to run, the output tolerances (per kernel and per output),
// and the fewest bytes the kernel must move.
//
// parseSpec() reads and checks a spec on its own (JSON syntax, fields,
// expressions); checkSpec() checks it against the kernels' signatures and
// every shape; resolve() turns one kernel spec and one shape into concrete
// launch numbers for the harness. Errors are AstraErrors (exit 1) located at
// the JSON line:col of the offending field; all errors found are returned
// together (llvm::joinErrors), not only the first.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_SPEC_H
#define ASTRA_HARNESS_SPEC_H

#include "astra/Harness/Expr.h"
#include "astra/Support/DType.h"
#include "astra/Support/Error.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace astra {

//===-- Spec data
//----------------------------------------------------------===//

enum class ArgRole { In, Out, InOut };
llvm::StringRef roleName(ArgRole R);

/// Input value distributions for float buffers (docs/spec.md, `dist`).
enum class Dist { Normal, Uniform, Positive, Heavy, Small, Large };
llvm::StringRef distName(Dist D);
std::optional<Dist> parseDist(llvm::StringRef Name);

/// A scalar value: an integer expression, or a float literal.
struct ScalarValue {
  bool IsFloat = false;
  double Float = 0; ///< when IsFloat
  SizeExpr Int;     ///< when !IsFloat
};

/// Structured generators (docs/spec.md, `gen`).
enum class GenKind {
  CsrIndptr,      ///< rows+1 non-decreasing offsets from 0
  CsrIndices,     ///< column ids per CSR row, distinct and sorted per row
  DistinctPerRow, ///< groups of `row` distinct values from `range`
  Sorted,         ///< non-decreasing values from `range`
  Permutation,    ///< a permutation of 0..count-1
  Iota,           ///< 0, 1, 2, ...
  Constant,       ///< every element = value
};
llvm::StringRef genKindName(GenKind K);

struct GenSpec {
  GenKind Kind = GenKind::Iota;
  SizeExpr Rows, MinDegree, MaxDegree; ///< csr_indptr
  SizeExpr Row;                        ///< distinct_per_row
  std::string Indptr;                  ///< csr_indices: name of the indptr arg
  ScalarValue Value;                   ///< constant
};

/// One field of a struct passed by value (`"fields"`, docs/spec.md): a
/// scalar at a byte offset in the struct. Nested structs and arrays are
/// flattened (`"in.x"`, `"w[2]"`), as --emit-spec writes them.
struct FieldSpec {
  std::string Name;
  DType Type = DType::F32;
  uint64_t Offset = 0;
  ScalarValue Value;
  std::string Path;  ///< "kernels[0].args[2].fields[1]"
  bool Valid = true; ///< name, dtype and offset parsed
};

struct ArgSpec {
  std::string Name;
  DType Type = DType::F32;
  /// A scalar (`value` given) or a buffer (`count` and `role` given).
  bool IsScalar = false;
  // Buffers.
  SizeExpr Count;
  ArgRole Role = ArgRole::In;
  std::optional<Dist> Distribution;                   ///< `dist`, when given
  std::optional<std::pair<SizeExpr, SizeExpr>> Range; ///< `range` [lo, hi)
  std::optional<GenSpec> Gen;
  /// Inject a few NaN/Inf into this input (`"specials": true`).
  bool Specials = false;
  /// Outputs: this buffer's own `tolerance`, when given (either or both).
  /// It overrides the kernel-level tolerance field by field; on an integer
  /// output only `atol` (a whole number) is allowed.
  std::optional<double> Rtol, Atol;
  // Scalars.
  ScalarValue Value;
  /// A struct passed by value (`"size"` and `"fields"` given; IsScalar is
  /// true as well): its size in bytes and its fields. Bytes no field covers
  /// (padding) are passed as zeros.
  bool IsStruct = false;
  uint64_t StructSize = 0;
  std::vector<FieldSpec> Fields;
  /// Field path for diagnostics, e.g. "kernels[0].args[2]".
  std::string Path;
  /// False when parsing found an error in this argument's name, dtype or
  /// role (checkSpec then skips comparing it with the kernel parameter).
  bool Valid = true;
};

struct Tolerance {
  double Rtol = 0;
  double Atol = 0;
};
/// The default tolerance for outputs of type \p T (design section 6):
/// f32 1e-5/1e-6, f16 1e-3/1e-5, bf16 8e-3/1e-5, fp8 e4m3 0.125/1e-3, e5m2
/// 0.25/1e-3, f64 1e-12/1e-14; integers exact (0/0).
Tolerance defaultTolerance(DType T);

/// The domain of one shape variable (`"vars": {"B": {...}}`, docs/spec.md):
/// whether generated edge shapes may vary it, and the constraints every
/// value must meet, spec shapes and edge shapes alike. The bounds are
/// expressions over the shape (e.g. `"min": "H*D"`); empty when not given.
struct VarDomain {
  std::string Name;
  /// False: edge shapes keep the variable at its base-shape value (a block
  /// or tile size the kernel is written for).
  bool Vary = true;
  SizeExpr Min, Max;   ///< inclusive bounds
  SizeExpr MultipleOf; ///< value % MultipleOf == 0
  SizeExpr Divides;    ///< Divides % value == 0
  bool PowerOfTwo = false;
  /// Field path for diagnostics: "vars.B" or "kernels[0].vars.B".
  std::string Path;
};

/// One constraint of a VarDomain that a shape breaks.
struct DomainViolation {
  std::string Var;   ///< the variable, e.g. "B"
  int64_t Value = 0; ///< its value in the shape
  /// The constraint's field path, e.g. "vars.B.power_of_two".
  std::string Path;
  /// What is required, with the values of other variables:
  /// "B must be a power of two", "gs must divide d (= 4000)".
  std::string Requirement;
};

/// A launch variable the launch rewrite may set (`"tunable": {"B": [128,
/// 256, 512]}`, docs/spec.md): a shape variable with a `vars` entry that is
/// not varied, used only by `grid`, `block` and `shared_bytes`.
struct TunableVar {
  std::string Name;
  std::vector<int64_t> Values; ///< positive, in spec order
  std::string Path;            ///< "tunable.B"
};

struct KernelSpec {
  /// As written in the spec, e.g. "act_and_mul<__half>".
  std::string Kernel;
  std::vector<ArgSpec> Args;
  std::vector<SizeExpr> Grid;  ///< 1 to 3 (x, y, z)
  std::vector<SizeExpr> Block; ///< 1 to 3 (x, y, z)
  SizeExpr SharedBytes;        ///< empty = 0
  std::vector<Shape> Shapes;
  /// `vars`: the domains of the shape variables that have one, in spec
  /// order (a variable without an entry is varied and unconstrained).
  std::vector<VarDomain> Vars;
  std::optional<double> Rtol, Atol; ///< `tolerance`, when given
  /// `bytes`: the fewest bytes the kernel must move (each needed input byte
  /// read once, each output byte written once); empty when not given.
  SizeExpr Bytes;
  bool NoAlias = false;
  /// `tunable`: the launch variables a candidate may set, in spec order.
  std::vector<TunableVar> Tunable;
  /// Field path for diagnostics: "" for a single-kernel file, else
  /// "kernels[<i>]".
  std::string Path;
  /// False when parsing found an error in this kernel's fields (checkSpec
  /// then skips the checks that need them).
  bool Valid = true;

  /// The kernel-level tolerance, completed by the default for \p OutType.
  Tolerance toleranceFor(DType OutType) const;
  /// The tolerance output \p A is compared with, field by field: \p A's own
  /// `tolerance`, else the kernel-level one (float outputs only), else the
  /// default of \p A's dtype. Integer outputs are bit-equal ({0, 0}) unless
  /// \p A gives an `atol`: a difference of at most atol is then accepted.
  Tolerance toleranceFor(const ArgSpec &A) const;
  /// The kernel's base name, without template arguments.
  llvm::StringRef baseName() const;
  /// The tunable variable \p Name, or null.
  const TunableVar *tunableVar(llvm::StringRef Name) const;
  /// The domain of shape variable \p Name, or null (unconstrained).
  const VarDomain *domainOf(llvm::StringRef Name) const;
  /// Every constraint of `vars` that \p S breaks, in spec order (none: \p S
  /// lies in the domain). A bound that cannot be evaluated on \p S counts as
  /// broken, with the evaluation error as the requirement.
  std::vector<DomainViolation> domainViolations(const Shape &S) const;
};

/// Maps field paths ("kernels[0].args[2].dtype") to JSON positions.
class SpecLocator {
public:
  /// Scans \p JSON (already known to be valid JSON).
  void index(llvm::StringRef JSON);
  /// Position of the value at \p Path; falls back to the nearest enclosing
  /// path that has one. Line 0 when unknown.
  DiagLoc locate(llvm::StringRef Path) const;
  /// Position of the key of member \p Path (for unknown fields).
  DiagLoc locateKey(llvm::StringRef Path) const;
  std::string FileName;

private:
  struct Pos {
    unsigned Line, Col;
  };
  llvm::StringMap<Pos> Values, Keys;
  DiagLoc find(const llvm::StringMap<Pos> &M, llvm::StringRef Path) const;
};

struct LaunchSpecFile {
  std::string FileName;
  std::vector<KernelSpec> Kernels;
  SpecLocator Locator;

  /// The kernel named \p Name (exact, whitespace-insensitive), or null.
  const KernelSpec *find(llvm::StringRef Name) const;
  /// An input error at the JSON position of \p Path: "<Path>: <Msg>".
  llvm::Error error(llvm::StringRef Path, const llvm::Twine &Msg) const;
};

/// Parses and checks a spec on its own: JSON syntax (with line:col), unknown
/// and missing fields, field types, dtypes, roles, expressions (syntax, and
/// variables bound by every shape), unfilled `TODO` placeholders.
llvm::Expected<LaunchSpecFile> parseSpec(llvm::StringRef JSON,
                                         llvm::StringRef FileName);
/// Reads \p Path and calls parseSpec.
llvm::Expected<LaunchSpecFile> parseSpecFile(llvm::StringRef Path);

//===-- Resolution
//---------------------------------------------------------===//

struct ResolvedArg {
  bool IsScalar = false;
  DType Type = DType::F32;
  // Buffers.
  uint64_t Count = 0; ///< elements
  uint64_t Bytes = 0; ///< Count * dtypeSize
  // Scalars: the value, and its bytes as the kernel parameter of Type. For
  // a struct: every field's value at its offset, padding zero.
  bool IsFloat = false;
  int64_t IntValue = 0;
  double FloatValue = 0;
  llvm::SmallVector<uint8_t, 8> ParamBytes;
  unsigned ParamSize = 0;
};

/// The launch of one party: grid, block, dynamic shared memory.
struct LaunchDims {
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
  uint32_t SharedBytes = 0;
  bool operator==(const LaunchDims &O) const;
  /// `grid (8, 4, 1) block (256, 1, 1) shared 0`.
  std::string str() const;
  /// Threads in all: grid x block over the three dimensions.
  uint64_t threads() const;
};

struct ResolvedLaunch {
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
  uint32_t SharedBytes = 0;
  /// The candidate's launch: the original's (Grid, Block, SharedBytes)
  /// unless resolveCandidateLaunch() applied launch overrides.
  LaunchDims Cand;
  /// The candidate runs its small entry here (`small-entry=1` and the
  /// spec's launch below `min-threads`), set by resolveCandidateLaunch().
  bool CandSmall = false;
  /// The original's launch as LaunchDims.
  LaunchDims dims() const;
  std::vector<ResolvedArg> Args; ///< parallel to KernelSpec::Args
  /// Every buffer counted whole: `in` and `out` once, `inout` twice (read
  /// and written).
  uint64_t NominalBytes = 0;
  /// The fewest bytes the kernel must move: the spec's `bytes` when given
  /// (1 <= MinBytes <= NominalBytes, checked), else NominalBytes. What
  /// achieved bandwidth is computed from.
  uint64_t MinBytes = 0;
  /// True when MinBytes comes from the spec's `bytes` (a checked lower bound
  /// on the traffic, usable for the physical floor); false when it is only
  /// the nominal count, which overstates the traffic of a kernel that reads
  /// part of a buffer.
  bool MinBytesFromSpec = false;
};

/// Launch limits checked by resolve().
constexpr int64_t MaxThreadsPerBlock = 1024;
constexpr int64_t MaxGridX = 2147483647;
constexpr int64_t MaxGridYZ = 65535;
constexpr int64_t MaxBlockZ = 64;

/// Evaluates every expression of \p K for \p S and checks the launch limits
/// (grid and block sizes >= 1, block <= 1024 threads, grid.y/z <= 65535,
/// counts >= 0, scalar values fitting their dtype, `bytes` from 1 to the
/// nominal byte count).
llvm::Expected<ResolvedLaunch> resolve(const KernelSpec &K, const Shape &S);

/// What a candidate changes in the launch (the `launch` rewrite's contract,
/// docs/harness.md "Launch overrides"): tunable variables set to other
/// values, and the x extent of the grid or of the block divided (rounded
/// up) by a factor. Text form, as in the job and the reports:
/// `B=512,grid-x-div=8` (empty: the spec's launch).
struct LaunchOverrides {
  std::vector<std::pair<std::string, int64_t>> Vars;
  int64_t GridXDiv = 1, BlockXDiv = 1;
  /// `block-exact=1`: the block is divided only at shapes where
  /// `block-x-div` divides it; elsewhere it stays whole (a coarsened kernel
  /// runs its original code under the spec's block, never under a smaller
  /// one).
  bool BlockExact = false;
  /// `grid-y-div=N`: the grid's y extent divided (an any-grid form that
  /// strides over gridDim.y).
  int64_t GridYDiv = 1;
  /// Every change (variables, divisions, folds) applies only where the
  /// spec's launch (variables unset: the caller's) has at least this many
  /// threads in all (`min-threads=N`; 0: everywhere); below, the spec's
  /// launch as it is. A size-dependent launch, as host launchers choose one
  /// by problem size.
  int64_t MinThreads = 0;
  /// `fold-x=K` / `fold-y=K`: the grid's x (or y) extent divided by K
  /// (rounded up) and the block's y extent multiplied by K, so that each
  /// block runs K of the original blocks as its rows (after fold-blocks).
  int64_t FoldX = 1, FoldY = 1;
  /// `fold-exact=1`: a fold applies only at shapes where K divides the
  /// grid's extent; elsewhere that extent stays unfolded (block.y = 1). For a
  /// folded kernel with barriers, whose rows cannot return past a bound.
  bool FoldExact = false;
  /// `template-arg=N,template-value=V`: the candidate is another
  /// instantiation of the spec's kernel template, its template argument N
  /// (0-based, top level) set to V, which must be the candidate's threads
  /// per block on every shape: `k<256>` runs as `k<512>` under a block of
  /// 512 (a kernel template whose block size is its template parameter; the
  /// launch step's `block=` gives V). -1: the spec's instantiation.
  int64_t TemplateArg = -1;
  int64_t TemplateValue = 0;
  /// `small-entry=1` (with min-threads): below the bound the candidate runs
  /// its entry `<kernel>_small` (smallKernelName), a copy of the original
  /// code that the keep-original rewrite kept, instead of the spec's entry:
  /// one kernel per size range, so that the launches below the bound keep the
  /// original's code, registers included.
  bool SmallEntry = false;

  bool empty() const {
    return Vars.empty() && GridXDiv == 1 && BlockXDiv == 1 && GridYDiv == 1 &&
           MinThreads == 0 && FoldX == 1 && FoldY == 1 && !FoldExact &&
           !BlockExact && TemplateArg < 0 && TemplateValue == 0 && !SmallEntry;
  }
  std::string str() const;
  /// Parses str()'s form; errors name the bad part.
  static llvm::Expected<LaunchOverrides> parse(llvm::StringRef Text);
  /// Sets (or replaces) \p Name: a tunable variable, or `grid-x-div` /
  /// `grid-y-div` / `block-x-div` / `min-threads` / `fold-x` / `fold-y` /
  /// `fold-exact` / `block-exact` / `small-entry` (0 or 1) / `template-arg`
  /// (0 or more) / `template-value`.
  /// Other values must be positive.
  llvm::Error set(llvm::StringRef Name, int64_t Value);
  bool operator==(const LaunchOverrides &O) const {
    return Vars == O.Vars && GridXDiv == O.GridXDiv &&
           BlockXDiv == O.BlockXDiv && GridYDiv == O.GridYDiv &&
           MinThreads == O.MinThreads && FoldX == O.FoldX && FoldY == O.FoldY &&
           FoldExact == O.FoldExact && BlockExact == O.BlockExact &&
           TemplateArg == O.TemplateArg && TemplateValue == O.TemplateValue &&
           SmallEntry == O.SmallEntry;
  }
};

/// Resolves \p K on \p S once more with \p O's variables set (each must be
/// tunable), divides the grid's and block's x extents and folds the grid's
/// blocks into the block's rows, all of it only where the spec's launch
/// (variables unset) has at least \p O.MinThreads threads (below, \p L's
/// own launch), and stores the result
/// in \p L.Cand (\p L is resolve(K, S)). Errors: a variable that is not
/// tunable, a launch beyond the limits, and buffers or scalar arguments that
/// differ from \p L's (a tunable variable may size only the launch).
llvm::Error resolveCandidateLaunch(const KernelSpec &K, const Shape &S,
                                   const LaunchOverrides &O, ResolvedLaunch &L);

/// The instantiation the candidate runs: the spec's kernel name, or with
/// `template-arg=N,template-value=V` the same template with its top-level
/// argument N set to V (`k<__half, 256>` -> `k<__half, 512>`). Errors: the
/// spec's kernel is not a template instantiation or has no integer argument
/// N, one of N and V is missing, or the launch is bounded by min-threads
/// (below it the spec's instantiation would run: one candidate entry cannot
/// be both). That V is the candidate's threads per block is checked per
/// shape by resolveCandidateLaunch.
llvm::Expected<std::string> candidateKernelName(const KernelSpec &K,
                                                const LaunchOverrides &O);

/// What keep-original appends to a kernel's name for its copy, the entry a
/// candidate with `small-entry=1` runs below its bound.
inline constexpr llvm::StringLiteral SmallEntrySuffix = "_small";

/// The entry a candidate with `small-entry=1` runs below its min-threads
/// bound: the spec's kernel name with `_small` after its base name
/// (`spmm_csr` -> `spmm_csr_small`, `ns::k<float>` -> `ns::k_small<float>`),
/// the name the keep-original rewrite gives its copy. Empty without
/// small-entry. Errors: small-entry without min-threads, or with
/// template-arg.
llvm::Expected<std::string> smallKernelName(const KernelSpec &K,
                                            const LaunchOverrides &O);

//===-- Checking against the kernels
//---------------------------------------===//

/// What the spec is checked against: a kernel's parameters as the frontend
/// sees them (filled from the Clang AST by the driver).
struct SignatureParam {
  std::string Name;
  std::string TypeSpelling; ///< as written, e.g. "const float *"
  bool IsPointer = false;
  bool PointeeConst = false;
  /// The element type (pointee for pointers), when it maps to a dtype.
  std::optional<DType> Elem;
  /// Elements of Elem per element type: 4 for float4, 2 for __half2.
  unsigned Lanes = 1;
  /// Seen loaded from / stored to in the body (pointers; false if unknown).
  bool Loads = false, Stores = false;
  /// A struct passed by value: its size, alignment and scalar fields as
  /// the target lays them out, or why it cannot be described.
  bool IsRecord = false;
  uint64_t RecordSize = 0, RecordAlign = 0;
  struct Field {
    std::string Name, TypeSpelling;
    std::optional<DType> Elem;
    uint64_t Offset = 0;
  };
  std::vector<Field> Fields;
  std::string RecordProblem;
};

struct KernelSignature {
  /// The name a spec uses: "rmsnorm", or for a template instantiation
  /// "act_and_mul<__half>".
  std::string Name;
  /// For a template instantiation: the template's name ("act_and_mul").
  std::string TemplateName;
  /// Enclosing namespaces and classes ("flashinfer::norm::"; empty at file
  /// scope). A spec may name the kernel with or without it; an instantiation
  /// of a template in a namespace must be named with it, since the harness
  /// names the instantiation from file scope (withInstantiations).
  std::string Qualifier;
  /// The parameters (for a template pattern: as declared, dependent types
  /// without Elem).
  std::vector<SignatureParam> Params;
  /// A kernel template itself (given with its instantiations, or alone when
  /// the file has none): a spec must name an instantiation.
  bool IsTemplatePattern = false;
  /// A loop halves a stride that starts from blockDim (a shared-memory tree
  /// reduction): the kernel needs a power-of-two block size.
  bool HalvesBlockDim = false;
  /// The dynamic shared arrays (`extern __shared__`), when any.
  std::vector<std::string> DynamicShared;
};

/// Checks \p F against \p Kernels (argument names, order, kinds and dtypes,
/// roles on const pointers, kernel names) and resolves every kernel on every
/// shape (launch limits). Returns all errors found.
llvm::Error checkSpec(const LaunchSpecFile &F,
                      llvm::ArrayRef<KernelSignature> Kernels);

/// Parses \p JSON and checks it against \p Kernels, reporting everything
/// found (spec errors and mismatches with the kernels together), sorted by
/// position. What --check-spec runs.
llvm::Error checkSpecText(llvm::StringRef JSON, llvm::StringRef FileName,
                          llvm::ArrayRef<KernelSignature> Kernels);

/// A starting spec for \p Kernels (JSON text): dtypes and roles filled in
/// from the signatures; counts, values, grid, shapes (and shared_bytes for a
/// kernel with dynamic shared memory) left as `TODO` placeholders that
/// --check-spec reports until filled in. The block size is the shape
/// variable `B`, marked not varied (`"vars": {"B": {"vary": false}}`, plus
/// `"power_of_two": true` when HalvesBlockDim): a variable that only sizes
/// the launch is the kernel's contract, not an input to vary.
std::string emitStartingSpec(llvm::ArrayRef<KernelSignature> Kernels);

} // namespace astra

#endif // ASTRA_HARNESS_SPEC_H
