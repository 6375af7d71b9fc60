//===- LoopForm.h - The shape of a loop header ------------------*- C++ -*-===//
//
// The one classification of loops that the kernel model and the rewrites
// share: the induction variable, its start, bound and step, how the step is
// written, which thread/block index spreads the iterations over the threads
// (and in which dimension), and the trip count when it is a constant. Each
// rewrite then states which forms it accepts in terms of these fields, so a
// `threadIdx.y` loop is the same loop to the model and to every rewrite.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_LOOPFORM_H
#define ASTRA_FRONTEND_LOOPFORM_H

#include "astra/Frontend/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include <optional>

namespace astra {

struct VarUses;

/// How the induction variable is updated.
enum class LoopUpdate {
  None,      ///< no update of the induction variable was recognised
  Increment, ///< `++i`, `i++`, `--i`, `i--`
  AddAssign, ///< `i += s`, `i -= s`
  Assign,    ///< `i = i + s`, `i = s + i`, `i = i - s`
  Geometric, ///< `i *= k`, `i /= k`, `i <<= k`, `i >>= k`, `i = i * k`, ...
};

/// How a loop's iterations are spread over the threads (its start and step;
/// the dimension is LoopForm::Dim). Every form but None partitions [start, n)
/// over the threads that share the loop.
enum class LoopPartition {
  None,       ///< none of the forms below
  Sequential, ///< start 0, step 1: every thread runs the whole range
  Block,      ///< start threadIdx.d, step blockDim.d
  Grid,       ///< start blockIdx.d * blockDim.d + threadIdx.d,
              ///< step blockDim.d * gridDim.d
};

/// The header of a for, while or do loop as far as it is recognised; fields
/// that were not found are null / None.
struct LoopForm {
  /// The induction variable: declared or assigned by a for loop's init, or
  /// compared by the condition (while and do loops).
  const clang::VarDecl *IV = nullptr;
  /// The for loop's init declares exactly IV (`for (int i = ...; ...)`).
  bool DeclaresIV = false;
  /// The initial value (the declaration's initialiser or the assigned value).
  const clang::Expr *Init = nullptr;
  /// The condition as `IV Cmp Bound`: `n > i` gives BO_LT with BoundOnLeft.
  const clang::Expr *Bound = nullptr;
  clang::BinaryOperatorKind Cmp = clang::BO_Comma; ///< BO_Comma: none
  bool BoundOnLeft = false;

  LoopUpdate Update = LoopUpdate::None;
  /// The additive step as written (`s` of `i += s`, `i -= s`, `i = i + s`);
  /// null for `++i` / `--i`. For a geometric update: the operand `k`.
  const clang::Expr *Step = nullptr;
  /// The step subtracts (`--i`, `i -= s`, `i = i - s`).
  bool StepNegated = false;
  /// For LoopUpdate::Geometric: BO_Mul, BO_Div, BO_Shl or BO_Shr.
  clang::BinaryOperatorKind GeometricOp = clang::BO_Comma;
  /// The signed additive step, or the geometric operand, when constant.
  std::optional<int64_t> ConstStep;

  /// The condition and the update use built-in operators (not overloaded
  /// operator calls, as in template code with dependent operands).
  bool BuiltinOps = true;
  /// Every reference to IV in the condition and the update is the variable
  /// itself (through parentheses and implicit casts, no explicit cast).
  bool BareIV = true;

  /// How the induction variable moves, from the step alone (its dimension is
  /// Dim): blockDim.d, blockDim.d * gridDim.d, or anything else.
  LoopClass Class = LoopClass::Plain;
  /// How the iterations are spread over the threads, from start and step.
  LoopPartition Partition = LoopPartition::None;
  /// x, y or z for a block- or grid-stride step; 0 otherwise.
  char Dim = 0;

  /// Iterations when start, bound and step are integer constants.
  std::optional<int64_t> TripCount;

  /// An additive update by a positive step: `++i`, `i++`, `i += s`,
  /// `i = i + s` (the step's value itself may be unknown).
  bool stepsUp() const {
    return (Update == LoopUpdate::Increment ||
            Update == LoopUpdate::AddAssign || Update == LoopUpdate::Assign) &&
           !StepNegated;
  }
};

/// Classifies the header of \p Loop (a ForStmt, WhileStmt or DoStmt; for
/// while and do loops the update is the body's first statement that updates
/// the compared variable). \p Writes (of the enclosing function's body, may
/// be null) lets locals that never change stand for their initialisers when
/// the partition and class are matched: `int stride = blockDim.x * gridDim.x`.
LoopForm analyzeLoopForm(clang::ASTContext &Ctx, const clang::Stmt *Loop,
                         const VarUses *Writes);

/// Iterations of `for (iv = Init; iv Cmp Bound; iv += Step)`, or none.
std::optional<int64_t> computeTripCount(int64_t Init, int64_t Bound,
                                        int64_t Step, llvm::StringRef Cmp);

/// Iterations of `for (iv = Init; iv Cmp Bound; iv = iv Op K)` for a
/// geometric update (Op is BO_Mul, BO_Div, BO_Shl or BO_Shr), found by
/// stepping through it; none when it does not end within a few thousand.
std::optional<int64_t> simulateTripCount(int64_t Init, int64_t Bound,
                                         clang::BinaryOperatorKind Op,
                                         int64_t K, llvm::StringRef Cmp);

} // namespace astra

#endif // ASTRA_FRONTEND_LOOPFORM_H
