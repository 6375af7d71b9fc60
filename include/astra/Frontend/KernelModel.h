//===- KernelModel.h - What the tool knows about each kernel ----*- C++ -*-===//
//
// The KernelModel is the frontend's summary of a CUDA file (design section 3):
// every __global__ function of the main file with its parameters, template
// instantiations (and their mangled names, equal to the `.entry` names in the
// PTX), loops, global loads and stores, math calls, shared memory, barriers
// and warp intrinsics. It holds plain strings and numbers only, so it outlives
// the AST it was built from and can be printed as JSON
// (`astra-opt --print-kernel-model`).
//
// Typical use, e.g. to write or check a launch spec:
//
//   Expected<KernelModel> M = loadKernelModel(Setup, FileName, Code);
//   for (const KernelInfo &K : M->Kernels)
//     for (const InstantiationInfo &I : K.Instantiations)   // templates
//       ... I.Name ("act_and_mul<__half>"), I.Params[i].Dtype (F16) ...
//   const KernelInfo *K = M->findKernel("act_and_mul<__half>");
//
// Source text fields hold the code as written (macros unexpanded where the
// text lies in the main file). Locations are 1-based and use the file name
// the model was built with.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_KERNELMODEL_H
#define ASTRA_FRONTEND_KERNELMODEL_H

#include "astra/Support/CompileSetup.h"
#include "astra/Support/DType.h"
#include "astra/Support/Error.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class QualType;
} // namespace clang

namespace astra {

/// How a kernel parameter is passed.
enum class ParamKind {
  Pointer, ///< T *, const T *__restrict__, ...
  Scalar,  ///< int, float, __half, size_t, ...
  Record,  ///< a struct or class passed by value
  Other,   ///< anything else (dependent, reference, array, ...)
};

/// One kernel parameter.
/// One scalar field of a struct passed by value, flattened: a nested struct
/// or an array gives one entry per scalar inside it ("in.x", "w[2]").
struct RecordFieldInfo {
  std::string Name;
  std::string Type; ///< the field's type, printed
  /// None when the field has no dtype (a pointer, a bit-field, ...).
  std::optional<DType> Dtype;
  /// Bytes from the start of the struct, as Clang lays it out for the
  /// target (ASTRecordLayout).
  uint64_t Offset = 0;
};

struct ParamInfo {
  std::string Name;
  /// The type as written in the declaration, e.g. `const T *__restrict__`.
  std::string Type;
  ParamKind Kind = ParamKind::Other;
  /// Pointers: the pointee type without qualifiers (`T`, `__half`, `float4`).
  /// Scalars: the type itself without qualifiers.
  std::string ElementType;
  /// Pointers: the pointee is const.
  bool ConstPointee = false;
  /// Pointers: declared __restrict__.
  bool Restrict = false;
  /// The dtype of the element type (pointers) or of the value (scalars);
  /// printed in the JSON as its spec spelling ("f16"). None when unknown: a
  /// dependent type (`T` in a template: see the instantiations), a struct,
  /// ...
  std::optional<DType> Dtype;
  /// Structs passed by value (Kind == Record): size and alignment in
  /// bytes, and the scalar fields with their offsets (ASTRecordLayout).
  /// RecordProblem says why the struct cannot be described field by field
  /// (a union, a bit-field, too many fields), empty when it can.
  uint64_t RecordSize = 0, RecordAlign = 0;
  std::vector<RecordFieldInfo> Fields;
  std::string RecordProblem;
  /// Elements of Dtype per ElementType: 1 for scalars, 2 for __half2 or
  /// float2, 4 for float4, ...
  unsigned Lanes = 1;
};

/// A template parameter of a kernel template.
struct TemplateParamInfo {
  std::string Name;
  /// "type", "value" (non-type) or "template".
  std::string Kind;
  /// Non-type parameters: the type, e.g. `int`. Empty otherwise.
  std::string Type;
};

/// One instantiation of a kernel template (explicit or implied by a launch).
struct InstantiationInfo {
  /// Template arguments as written, e.g. {"__half"} or {"float", "4"}.
  std::vector<std::string> TemplateArgs;
  /// `<kernel>< args >`, the name a launch spec uses: `act_and_mul<__half>`.
  std::string Name;
  /// Itanium-mangled device name: the `.entry` name in the PTX.
  std::string MangledName;
  /// The parameters with the template arguments substituted (concrete
  /// ElementType and Dtype).
  std::vector<ParamInfo> Params;
  /// Explicit instantiation (`template __global__ void k<float>(...)`).
  bool Explicit = false;
};

/// How a loop's induction variable moves.
enum class LoopClass {
  GridStride,  ///< i += blockDim.d * gridDim.d (any one dimension d)
  BlockStride, ///< i += blockDim.d
  Plain,       ///< anything else (constant step, unknown step, while loops)
};

/// The statement of a loop; printed as "for", "while", "do", "range-for".
enum class LoopKind { For, While, Do, RangeFor };

/// One loop of a kernel body, numbered as in Kernels.h (collectLoops order).
struct LoopInfo {
  /// `<kernel>:L<n>`.
  std::string Id;
  LoopKind Kind = LoopKind::For;
  DiagLoc Loc;
  /// Induction variable name; empty when none was recognised.
  std::string InductionVar;
  /// Initial value, bound and step as written: for
  /// `for (int i = tid; i < n; i += blockDim.x)`: "tid", "n", "blockDim.x".
  /// Step is "1" for `++i`, "-1" for `--i`, "-k" for `i -= k`.
  std::string Init, Bound, Step;
  /// The comparison of the condition: "<", "<=", ">", ">=", "!=" or empty.
  std::string Compare;
  /// The full condition as written.
  std::string Condition;
  /// Iterations when init, bound and step are integer constants.
  std::optional<int64_t> TripCount;
  /// Id of the enclosing loop, empty for an outermost loop.
  std::string ParentId;
  /// Nesting depth: 0 for an outermost loop.
  unsigned Depth = 0;
  /// The loop statement comes from a macro expansion.
  bool FromMacro = false;
  LoopClass Class = LoopClass::Plain;
  /// The dimension of a block- or grid-stride step ("x", "y" or "z");
  /// empty for a plain loop.
  std::string Dim;
};

enum class AccessKind { Load, Store, LoadStore };

/// A global memory access through a kernel pointer parameter: `p[idx]`,
/// `*(p + idx)`, `*p`, through casts (`reinterpret_cast<const float4 *>(p)[i]`),
/// through local pointers derived from the parameter
/// (`const float *row = x + blockIdx.x * d; ... row[i]`), through the
/// cache-hint intrinsics (`__ldg(&p[i])`, `__stcs(p + i, v)`) and atomics
/// (`atomicAdd(&p[i], v)`).
struct AccessInfo {
  /// The kernel parameter the pointer comes from.
  std::string Pointer;
  /// The local pointer variable the access goes through, if any (`row`).
  std::string Via;
  /// Offset of Via from the parameter as written (`blockIdx.x * d`).
  std::string BaseOffset;
  AccessKind Kind = AccessKind::Load;
  /// The index as written (`i`, `row * d + c`); "0" for `*p`.
  std::string Index;
  /// The whole access expression as written (`x[row * d + c]`).
  std::string Text;
  /// Type of the accessed element, as seen at the access (`float4` through a
  /// cast, `T` in a template).
  std::string ElementType;
  DiagLoc Loc;
  /// Innermost enclosing loop id; empty outside loops.
  std::string LoopId;
  /// The index is `iv + invariant` (stride 1) in the innermost loop's
  /// induction variable.
  bool UnitStride = false;
  /// The index is `iv * S + invariant` with S a run-time value: S as written
  /// (`stride`). A rewrite can version on `S == 1`.
  std::string RuntimeStride;
  /// The index is `iv * k + invariant` with a constant k != 1 (0 when the
  /// index does not depend on the induction variable).
  std::optional<int64_t> ConstStride;
  /// An atomic read-modify-write (atomicAdd(&p[i], v), ...): Kind is
  /// LoadStore and Text the whole call.
  bool Atomic = false;
};

/// A call or operation of interest in a kernel body.
struct CallInfo {
  /// Callee name (`expf`, `__syncthreads`, `__shfl_xor_sync`), or `/` for a
  /// floating-point division.
  std::string Name;
  /// The whole call as written.
  std::string Text;
  /// Result type, e.g. `float`.
  std::string Type;
  DiagLoc Loc;
  /// Innermost enclosing loop id (of the call site in the kernel, for calls
  /// inside helpers); empty outside loops.
  std::string LoopId;
  /// The device helper function the call is in; empty for the kernel body.
  /// Helpers may be defined in project headers: Loc.File says where (and is
  /// printed as "file" in the JSON).
  std::string Function;
};

/// A __shared__ variable used by a kernel.
struct SharedArrayInfo {
  std::string Name;
  /// Element type (`float`), or the variable's type when not an array.
  std::string ElementType;
  /// Array size as written (`256`, `BLOCK * 2`); empty for `extern` arrays.
  std::string Size;
  /// Size in bytes when known.
  std::optional<uint64_t> Bytes;
  /// `extern __shared__ T buf[]`: sized at launch (dynamic shared memory).
  bool Dynamic = false;
  DiagLoc Loc;
};

/// Everything known about one kernel.
struct KernelInfo {
  /// Source name (for a template: the template's name).
  std::string Name;
  /// Enclosing namespaces and classes, e.g. `vllm::` (empty at file scope).
  std::string Qualifier;
  DiagLoc Loc;
  /// Non-template kernels: the mangled device name. Templates: empty (see
  /// Instantiations).
  std::string MangledName;
  std::vector<TemplateParamInfo> TemplateParams;
  std::vector<InstantiationInfo> Instantiations;
  /// Parameters as declared (in a template: with dependent types).
  std::vector<ParamInfo> Params;
  std::vector<LoopInfo> Loops;
  std::vector<AccessInfo> Accesses;
  /// expf, sqrtf, rsqrtf, tanhf, erff, powf, logf, sinf, cosf, ... and
  /// floating-point divisions (Name "/").
  std::vector<CallInfo> MathCalls;
  std::vector<SharedArrayInfo> SharedArrays;
  /// __syncthreads, __syncwarp, ...
  std::vector<CallInfo> Barriers;
  /// __shfl*_sync, __ballot_sync, __any_sync, ...
  std::vector<CallInfo> WarpIntrinsics;
  /// Other CUDA intrinsics already used: __ldg, __expf, __fdividef, ...
  std::vector<CallInfo> Intrinsics;
  /// Device functions of the user's code (the main file and project
  /// headers, not system headers) called (directly or not) by the kernel,
  /// or by its instantiations through template arguments (DeviceFunctions.h;
  /// their calls have no LoopId); their math calls, barriers and intrinsics
  /// are listed above with Function set. Global accesses are tracked in the
  /// kernel body only.
  std::vector<std::string> DeviceCalls;

  bool isTemplate() const { return !TemplateParams.empty(); }
  /// The instantiation named by its arguments, `__half` or `float, 4`
  /// (whitespace is ignored); null when there is none.
  const InstantiationInfo *findInstantiation(llvm::StringRef Args) const;
  const LoopInfo *findLoop(llvm::StringRef Id) const;
};

struct KernelModel {
  std::string File;
  std::vector<KernelInfo> Kernels;

  /// The kernel called \p Name: `silu` or, for a template, `silu<__half>`
  /// (then \p Inst, if given, is set to the instantiation). Null when none.
  const KernelInfo *findKernel(llvm::StringRef Name,
                               const InstantiationInfo **Inst = nullptr) const;
};

/// Builds the model of the kernels in the main file of \p Ctx. \p FileName is
/// the name used in locations.
llvm::Expected<KernelModel> buildKernelModel(clang::ASTContext &Ctx,
                                             llvm::StringRef FileName);

/// Parses \p Code (the contents of \p FileName) and builds its model.
llvm::Expected<KernelModel> loadKernelModel(const CompileSetup &Setup,
                                            llvm::StringRef FileName,
                                            llvm::StringRef Code);

/// The dtype of \p T (see ParamInfo::Dtype), or none; \p Lanes is set to
/// the element count of vector types (float4: 4).
std::optional<DType> getDtype(clang::ASTContext &Ctx, clang::QualType T,
                              unsigned *Lanes = nullptr);

/// Fills \p P's RecordSize, RecordAlign, Fields (or RecordProblem) for the
/// struct type \p T passed by value, from Clang's ASTRecordLayout.
void describeRecordParam(clang::ASTContext &Ctx, clang::QualType T,
                         ParamInfo &P);

llvm::StringRef toString(ParamKind K);
llvm::StringRef toString(LoopClass C);
llvm::StringRef toString(AccessKind K);
llvm::StringRef toString(LoopKind K);

llvm::json::Value toJSON(const ParamInfo &P);
llvm::json::Value toJSON(const LoopInfo &L);
llvm::json::Value toJSON(const AccessInfo &A);
llvm::json::Value toJSON(const CallInfo &C);
llvm::json::Value toJSON(const SharedArrayInfo &S);
llvm::json::Value toJSON(const KernelInfo &K);
llvm::json::Value toJSON(const KernelModel &M);

/// The model as indented JSON text (with a trailing newline).
std::string printKernelModel(const KernelModel &M);

} // namespace astra

#endif // ASTRA_FRONTEND_KERNELMODEL_H
