//===- ModelBody.h - Analysis of kernel bodies ------------------*- C++ -*-===//
//
// Private to lib/Frontend: the pieces of the KernelModel that come from a
// kernel's body. ModelBody.cpp walks the body; ModelLoops.cpp describes
// loops, ModelAccesses.cpp global accesses and strides, ModelCalls.cpp
// classifies calls.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_FRONTEND_MODELBODY_H
#define ASTRA_LIB_FRONTEND_MODELBODY_H

#include "ModelSource.h"
#include "astra/Frontend/KernelModel.h"
#include "astra/Frontend/VarUses.h"
#include "clang/AST/Decl.h"
#include <optional>

namespace astra {

/// Fills K.Loops, Accesses, MathCalls, SharedArrays, Barriers,
/// WarpIntrinsics, Intrinsics and DeviceCalls from \p FD's body.
void analyzeKernelBody(const ModelSource &Src, const clang::FunctionDecl *FD,
                       KernelInfo &K);

/// Describes loop \p S (Id, ParentId and Depth are left to the caller) from
/// its LoopForm; \p Writes are those of the kernel body. Sets \p IV to its
/// induction variable when one is recognised.
LoopInfo describeLoop(const ModelSource &Src, const clang::Stmt *S,
                      const VarUses &Writes, const clang::VarDecl *&IV);

/// Where a pointer expression comes from.
struct PointerRoot {
  const clang::ParmVarDecl *Param = nullptr;
  std::string Via;    ///< local pointer variable in between, if any
  std::string Offset; ///< offset of Via from Param as written
};

/// The parameter of \p Kernel that \p E derives from (findPointerOrigin,
/// through locals \p Writes, those of the kernel body, never modifies), with
/// its offsets as written. False when it does not lead to a parameter.
bool findPointerRoot(const ModelSource &Src, const clang::FunctionDecl *Kernel,
                     const VarUses &Writes, const clang::Expr *E,
                     PointerRoot &Root);

/// How an index moves with an induction variable: Coef * Runtime per step of
/// the variable (Runtime empty: 1).
struct Stride {
  bool Known = false;
  int64_t Coef = 0;
  std::string Runtime;
};

/// The stride of \p Index in \p IV, the induction variable of \p Loop (which
/// holds the index). Locals that keep their initial value are followed;
/// variables assigned in the loop make the stride unknown.
Stride getStride(const ModelSource &Src, const clang::Expr *Index,
                 const clang::VarDecl *IV, const clang::Stmt *Loop);

enum class CallCategory { None, Math, Barrier, Warp, Intrinsic };

/// The category of a call to \p Name. \p IsUserFunction: the callee is
/// defined in the main file (never an intrinsic then).
CallCategory classifyCall(llvm::StringRef Name, bool IsUserFunction);

} // namespace astra

#endif
