//===- VectorizeLoadsPlan.h - Analysis and code of vectorize-loads -*- C++ -*-//
//
// Private to lib/Transforms. The analysis (VectorizeLoadsAnalysis.cpp) turns a
// `for` loop of a kernel into a VecLoopPlan or a refusal with a reason; the
// generator (VectorizeLoadsCodegen.cpp) turns a plan into source text. The plan
// holds only source text and plain facts, so the generator is pure string
// logic and is unit-tested without an AST.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_VECTORIZELOADSPLAN_H
#define ASTRA_LIB_TRANSFORMS_VECTORIZELOADSPLAN_H

#include "astra/Frontend/LoopForm.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace astra {

/// The accesses `p[base + i]` of one pointer at one base offset.
struct VecGroup {
  std::string Ptr;        ///< pointer as written (a parameter or local)
  std::string Base;       ///< additive base offset as written; empty for 0
  std::string ElemType;   ///< element type as written (`__half`, `T`, ...)
  unsigned ElemBytes = 0; ///< 0 when the type is a template parameter
  bool IsFloat = false;   ///< element type is `float` (use float4/float2)
  bool Load = false;      ///< loaded before the lanes run
  bool Store = false;     ///< stored after the lanes ran
  bool UseLdg = false;    ///< load through __ldg (the data is read-only)
  std::string Var;        ///< name of its local union variable
};

/// One text replacement inside the loop body, offsets relative to the body.
struct BodyEdit {
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
};

struct VecLoopPlan {
  /// How the loop's iterations are spread over threads: Sequential, Block
  /// or Grid (the rewrite only accepts loops whose iteration sets, over all
  /// threads, partition [0, n); each thread then takes vector chunks with
  /// the same start and step).
  LoopPartition Partition = LoopPartition::Sequential;
  char PartitionDim = 0; ///< the dimension of a Block or Grid partition
  std::string IVType; ///< type of the induction variable as written
  std::string IVName;
  std::string Start, End, Step;    ///< loop bounds as written
  /// One element per thread: the dimensions Step strides over
  /// (`gridDim.y * blockDim.x`: 'y', 'x'; StrideGridDim 0 at a per-block
  /// index).
  char StrideGridDim = 0, StrideBlockDim = 0;
  std::string LoopText;            ///< the whole original loop
  std::string LoopIndent;          ///< the indentation of its first line
  std::string BodyText;            ///< the body's statements (braces removed)
  std::vector<BodyEdit> BodyEdits; ///< accesses -> union lanes
  std::vector<VecGroup> Groups;
  std::vector<std::string> UnitStrides; ///< runtime strides that must be 1
  /// Template parameter type when the element type is dependent (all groups
  /// then share it); empty otherwise.
  std::string DependentElem;
  /// With DependentElem, the widest fixed element type's bytes when the
  /// plain form also accesses fixed-type pointers (a `T *` input and an
  /// fp8 output): the step is WidthBytes / max(sizeof(T), this) elements,
  /// and every group's access is that many of its elements, through a pack
  /// type of that size (`U::Pack`, a struct aligned to it). 0 otherwise.
  unsigned MixedFixedBytes = 0;
  unsigned WidthBytes = 16; ///< 16 or 8
  /// A floating-point reduction whose steps the threads take in a new order
  /// (results may differ in the last bits).
  bool RegroupsFloatReduction = false;
  /// Local names chosen not to clash with identifiers of the kernel.
  std::string NameW, NameEnd, NameIdx, NameBase, NameLane;

  // The widened form (VectorizeLoadsWiden.cpp): a body with sequential inner
  // loops, index arithmetic (`i / d`, `i % d`) or atomics. Groups then only
  // feed the guard (Base: the part of the index known before the loop) and
  // the union types.
  /// The body of the vector loop, generated whole; empty in the plain form.
  std::string WidenedBody;
  /// Run-time values that must be multiples of the vector width.
  std::vector<std::string> DivisibleBy;
  /// Run-time values that must not be zero: the distances between the
  /// packs of one stored buffer (the pairs form, VectorizeLoadsPairs.cpp).
  std::vector<std::string> NonZero;
  /// Device functions the vector loop inlines (the pairs form).
  std::vector<std::string> Inlined;
  /// The body uses 16- or 8-byte float atomics (red.global.add.v4/v2.f32).
  bool VectorAtomics = false;
  /// Pointers stored at several offsets `base + d + i` whose distance d is
  /// the loop's extent, so their ranges are disjoint: `out (feat_dim apart)`.
  std::vector<std::string> ApartByExtent;
  /// Run-time conditions `d >= n` that keep such ranges disjoint when the
  /// distance is another value.
  std::vector<std::string> ApartGuards;
  /// Run-time conditions on the block under which the combination of the
  /// threads' partial values after the loop covers every thread
  /// (PerThreadValues.h).
  std::vector<std::string> BlockGuards;

  // The one-element-per-thread form (VectorizeLoadsThread.cpp).
  bool PerThread = false;
  /// The index is `threadIdx.d` alone: the threads of one block share the
  /// elements (a block-stride loop over packs), not those of the grid.
  bool PerBlock = false;
  /// Statements follow the bound check's block: an exit condition must skip
  /// the vector code, not return.
  bool HasTrailing = false;
  /// Exit conditions besides the index bound, in the original's sense (the
  /// thread returns when one holds); they do not depend on the index.
  std::vector<std::string> OtherExits;
  /// The kernel's statements from the bound check to the end: the
  /// per-element body, and the text the fallback keeps.
  std::string RegionText;
  std::string NameStride, NameLimit;
  /// The any-grid form (`any-grid=1`): every element below the bound for
  /// any grid, the fallback a grid-stride loop over the original too, so
  /// that `launch:grid-x-div` may shrink the grid. With a per-block index it
  /// is the any-block form: block-stride, for any block, so that
  /// `launch:block-x-div` may shrink the block (never the grid, which
  /// indexes other things). At a block-stride loop (`loop=`), which covers
  /// every element for any block already, it is the loop form marked as the
  /// any-block form, with packs only where the block does not cover the loop
  /// in one step (VectorizeLoadsCodegen.cpp, generateVectorLoop).
  bool AnyGrid = false;
  /// For a per-block index: why the statements around the region may act
  /// differently with a smaller block (VectorizeLoadsAnyBlock.cpp); empty
  /// when they do not. The any-block form needs it empty.
  std::string AnyBlockWhy;
  /// Why the region cannot run more than once per thread (a return, a
  /// barrier); empty when it can. The any-grid form needs it empty.
  std::string RegionOnce;
};

/// The comment that opens vectorize-loads' any-grid form: what the launch
/// rewrite looks for before it shrinks a kernel's grid.
constexpr const char *AnyGridMarker =
    "astra-opt vectorize-loads: any grid (every element below the bound, "
    "grid-stride)";
/// The comment that opens the any-block form (a per-block index): the
/// launch rewrite may shrink such a kernel's block, not its grid.
constexpr const char *AnyBlockMarker =
    "astra-opt vectorize-loads: any block (every element below the bound, "
    "block-stride; the grid stays)";

/// Analyses \p Loop of \p Kernel for a vectorization with \p WidthBytes-wide
/// accesses. On success fills \p Plan (all but the local names) and returns
/// an empty string; otherwise returns the reason and sets \p Where to the
/// offending place (the loop when nothing more precise is known).
std::string analyzeVectorLoop(clang::ASTContext &Ctx,
                              const clang::FunctionDecl *Kernel,
                              const clang::Stmt *Loop, unsigned WidthBytes,
                              VecLoopPlan &Plan, clang::SourceLocation &Where);

/// The one-element-per-thread form of \p K (VectorizeLoadsThread.cpp).
/// Returns false when the kernel has no global thread index `i =
/// blockIdx * blockDim + threadIdx` (no site). Otherwise sets \p Why to
/// empty and fills \p Plan and the file range [EditBegin, EditEnd) to
/// replace (bound check to the end of the body), or sets \p Why and
/// \p Where to the reason it does not apply.
bool analyzePerThread(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                      unsigned WidthBytes, VecLoopPlan &Plan,
                      clang::SourceLocation &Where, std::string &Why,
                      unsigned &EditBegin, unsigned &EditEnd);

/// Elements per thread and iteration, or 0 when the plan is generic over a
/// template parameter (computed in the generated code).
unsigned getVectorWidth(const VecLoopPlan &Plan);

/// The replacement text of the loop: guard, vector loop, scalar tail, and the
/// original loop as the fallback.
std::string generateVectorLoop(const VecLoopPlan &Plan);

/// The replacement of a one-element-per-thread kernel's bound check and
/// body: guard, a grid-stride loop over packs, the scalar tail, and the
/// original as the fallback.
std::string generatePerThread(const VecLoopPlan &Plan);

/// The vector width as C++ text usable before `VecW` is declared: `4`, or
/// `(16 / sizeof(T))` for a template element type.
std::string getWidthText(const VecLoopPlan &Plan);
/// The same for prose (the site's detail, the output's comment): without
/// the outer parentheses of a plain template width.
std::string describeWidth(const VecLoopPlan &Plan);
/// Why the alignment guard of \p Plan can never hold (two offsets of one
/// pointer a constant distance apart that is not a multiple of the access
/// size, such as `a[i]` and `a[i + 1]` with 16-byte accesses); empty when
/// it can.
std::string findImpossibleGuard(const VecLoopPlan &Plan);
/// The vector type that moves one access of \p G (float4, uint2, ...).
std::string getVectorType(const VecLoopPlan &Plan, const VecGroup &G);
/// The local union type that views one access of \p G as its elements.
std::string getUnionName(const VecGroup &G);

/// Fills the element facts of \p G (ElemType, ElemBytes, IsFloat; the
/// plan's DependentElem) for the pointer \p Ptr. Empty on success, else the
/// reason.
std::string describeElement(clang::ASTContext &Ctx, const clang::VarDecl *Ptr,
                            VecLoopPlan &Plan, VecGroup &G);
/// Picks the plan's local names (and each group's variable) so that no
/// identifier of \p K is reused; returns every name now taken.
llvm::StringSet<> chooseNames(clang::ASTContext &Ctx,
                              const clang::FunctionDecl *K, VecLoopPlan &Plan);
/// \p Name, or \p Name with '_' appended until \p Used lacks it; taken.
std::string pickName(llvm::StringSet<> &Used, std::string Name);

/// Refuses plans whose groups mix element kinds or whose elements fill a
/// whole access. With \p AllowMixed (the plain form only), template-typed
/// and fixed-type groups may mix: sets Plan.MixedFixedBytes.
std::string checkElementWidths(VecLoopPlan &Plan, bool AllowMixed = false);

} // namespace astra

#endif
