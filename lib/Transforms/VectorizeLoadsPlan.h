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

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <string>
#include <vector>

namespace astra {

/// How the loop's iterations are spread over threads. The rewrite only
/// accepts loops whose iteration sets, over all threads, partition [0, n):
/// each thread then takes vector chunks with the same start and step.
enum class LoopPartition {
  Sequential, ///< for (i = 0; i < n; ++i): every thread runs the whole range
  Block,      ///< for (i = threadIdx.d; i < n; i += blockDim.d)
  Grid,       ///< for (i = blockIdx.d*blockDim.d + threadIdx.d; i < n;
              ///<      i += blockDim.d*gridDim.d)
};

/// The accesses `p[base + i]` of one pointer at one base offset.
struct VecGroup {
  std::string Ptr;      ///< pointer as written (a parameter or local)
  std::string Base;     ///< additive base offset as written; empty for 0
  std::string ElemType; ///< element type as written (`__half`, `T`, ...)
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
  LoopPartition Partition = LoopPartition::Sequential;
  std::string IVType;   ///< type of the induction variable as written
  std::string IVName;
  std::string Start, End, Step; ///< loop bounds as written
  std::string LoopText;         ///< the whole original loop
  std::string BodyText;         ///< the body's statements (braces removed)
  std::vector<BodyEdit> BodyEdits; ///< accesses -> union lanes
  std::vector<VecGroup> Groups;
  std::vector<std::string> UnitStrides; ///< runtime strides that must be 1
  /// Template parameter type when the element type is dependent (all groups
  /// then share it); empty otherwise.
  std::string DependentElem;
  unsigned WidthBytes = 16; ///< 16 or 8
  /// A floating-point reduction whose steps the threads take in a new order
  /// (results may differ in the last bits).
  bool RegroupsFloatReduction = false;
  /// Local names chosen not to clash with identifiers of the kernel.
  std::string NameW, NameEnd, NameIdx, NameBase, NameLane;
};

/// Analyses \p Loop of \p Kernel for a vectorization with \p WidthBytes-wide
/// accesses. On success fills \p Plan (all but the local names) and returns
/// an empty string; otherwise returns the reason and sets \p Where to the
/// offending place (the loop when nothing more precise is known).
std::string analyzeVectorLoop(clang::ASTContext &Ctx,
                              const clang::FunctionDecl *Kernel,
                              const clang::Stmt *Loop, unsigned WidthBytes,
                              VecLoopPlan &Plan, clang::SourceLocation &Where);

/// Elements per thread and iteration, or 0 when the plan is generic over a
/// template parameter (computed in the generated code).
unsigned getVectorWidth(const VecLoopPlan &Plan);

/// The replacement text of the loop: guard, vector loop, scalar tail, and the
/// original loop as the fallback.
std::string generateVectorLoop(const VecLoopPlan &Plan);

} // namespace astra

#endif
