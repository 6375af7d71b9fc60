//===- ModelLoops.cpp - Describe loops: induction variable, bounds, step --===//
//
// The facts come from LoopForm (shared with the rewrites); this file only
// writes them down as the model's LoopInfo.
//
//===----------------------------------------------------------------------===//
#include "ModelBody.h"
#include "astra/Frontend/LoopForm.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace astra {

/// The model's text for the step: "1" / "-1" for ++ / --, "s" / "-s" for an
/// additive step, "*2", ">>1", "/2" for a geometric one.
static std::string describeStep(const ModelSource &Src, const LoopForm &F) {
  if (F.Update == LoopUpdate::Increment)
    return F.StepNegated ? "-1" : "1";
  if (!F.Step)
    return "";
  std::string Text = Src.getText(F.Step);
  bool Simple = llvm::all_of(Text, [](char C) {
    return isalnum((unsigned char)C) || C == '_' || C == '.';
  });
  std::string Operand = Simple ? Text : "(" + Text + ")";
  if (F.Update == LoopUpdate::Geometric)
    return BinaryOperator::getOpcodeStr(F.GeometricOp).str() + Operand;
  return F.StepNegated ? "-" + Operand : Text;
}

static const Expr *getCondition(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S))
    return F->getCond();
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return W->getCond();
  if (const auto *D = dyn_cast<DoStmt>(S))
    return D->getCond();
  return nullptr;
}

LoopInfo describeLoop(const ModelSource &Src, const Stmt *S,
                      const VarUses &Writes, const VarDecl *&IV) {
  LoopInfo L;
  IV = nullptr;
  L.Loc = Src.getLoc(S->getBeginLoc());
  L.FromMacro = Src.isFromMacro(S->getBeginLoc());
  if (const auto *R = dyn_cast<CXXForRangeStmt>(S)) {
    L.Kind = LoopKind::RangeFor;
    IV = R->getLoopVariable();
    L.InductionVar = IV->getName().str();
    L.Bound = Src.getText(R->getRangeInit());
    return L;
  }
  L.Kind = isa<WhileStmt>(S) ? LoopKind::While
           : isa<DoStmt>(S)  ? LoopKind::Do
                             : LoopKind::For;
  LoopForm F = analyzeLoopForm(Src.getASTContext(), S, &Writes);
  IV = F.IV;
  if (IV)
    L.InductionVar = IV->getName().str();
  if (F.Init)
    L.Init = Src.getText(F.Init);
  if (const Expr *Cond = getCondition(S))
    L.Condition = Src.getText(Cond);
  if (F.Bound) {
    L.Bound = Src.getText(F.Bound);
    L.Compare = BinaryOperator::getOpcodeStr(F.Cmp).str();
  }
  L.Step = describeStep(Src, F);
  L.Class = F.Class;
  if (F.Dim)
    L.Dim = std::string(1, F.Dim);
  L.TripCount = F.TripCount;
  return L;
}

} // namespace astra
