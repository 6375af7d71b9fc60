//===- SiteUtil.cpp - Where a rewrite looks, and what it may edit --------===//
#include "SiteUtil.h"
#include "astra/Frontend/DeviceFunctions.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace llvm;
using namespace clang;

namespace astra {

bool isSelected(const RewriteParams &P, StringRef Kernel, StringRef LoopId) {
  return (P.Kernel.empty() || P.Kernel == Kernel) &&
         (P.Function.empty() || P.Function == Kernel) &&
         (P.Loop.empty() || P.Loop == LoopId);
}

void markDeviceFunctionSite(RewriteSite &Site, const DeviceFunction &DF,
                            const RewriteParams &P) {
  Site.Kernel.clear();
  Site.Function = DF.Name;
  Site.ReachedFrom = DF.ReachedFrom;
  Site.Selected = P.Loop.empty() &&
                  (P.Function.empty() || P.Function == DF.Name) &&
                  (P.Kernel.empty() || DF.isOnlyReachedFrom(P.Kernel));
}

std::string getOutsideReason(const RewriteContext &RC,
                             const DeviceFunction &DF) {
  return "'" + DF.Name + "' is defined in '" +
         RC.getDiagLoc(DF.Fn->getLocation()).File +
         "', not in the input file: rewrites edit only the input file";
}

DenseMap<const Stmt *, std::string> getLoopIds(const FunctionDecl *Kernel) {
  DenseMap<const Stmt *, std::string> Ids;
  std::vector<const Stmt *> Loops = collectLoops(Kernel->getBody());
  for (unsigned I = 0; I < Loops.size(); ++I)
    Ids[Loops[I]] = makeLoopId(Kernel->getNameAsString(), I);
  return Ids;
}

CharSourceRange getEditableRange(const RewriteContext &RC, SourceRange R) {
  const SourceManager &SM = RC.getSourceManager();
  CharSourceRange FR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, RC.getASTContext().getLangOpts());
  if (FR.isInvalid() || !SM.isInMainFile(FR.getBegin()))
    return CharSourceRange();
  return FR;
}

std::string getMacroReason(const RewriteContext &RC, SourceRange R) {
  if (getEditableRange(RC, R).isValid())
    return "";
  const SourceManager &SM = RC.getSourceManager();
  for (SourceLocation L : {R.getBegin(), R.getEnd()})
    if (L.isMacroID())
      return ("inside the expansion of macro '" +
              Lexer::getImmediateMacroName(L, SM,
                                           RC.getASTContext().getLangOpts()) +
              "'")
          .str();
  return "not in the input file";
}

std::vector<const Stmt *>
getEnclosingLoops(ASTContext &Ctx, const Stmt *S,
                  const DenseMap<const Stmt *, std::string> &Ids) {
  std::vector<const Stmt *> Loops;
  DynTypedNode Cur = DynTypedNode::create(*S);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      break;
    Cur = Parents[0];
    if (const auto *P = Cur.get<Stmt>())
      if (Ids.count(P))
        Loops.push_back(P);
    if (Cur.get<FunctionDecl>())
      break;
  }
  return Loops;
}

const Expr *getWithParens(const RewriteContext &RC, const Expr *E) {
  ASTContext &Ctx = RC.getASTContext();
  for (DynTypedNodeList Ps = Ctx.getParents(*E);
       Ps.size() == 1 && Ps[0].get<ParenExpr>() &&
       getMacroReason(RC, Ps[0].get<ParenExpr>()->getSourceRange()).empty();
       Ps = Ctx.getParents(*E))
    E = Ps[0].get<ParenExpr>();
  return E;
}

const Stmt *getParentStmt(ASTContext &Ctx, const Stmt *S) {
  DynTypedNodeList Ps = Ctx.getParents(*S);
  while (Ps.size() == 1) {
    if (const auto *P = Ps[0].get<Stmt>())
      return P;
    const auto *V = Ps[0].get<VarDecl>();
    if (!V || isa<ParmVarDecl>(V))
      return nullptr;
    Ps = Ctx.getParents(*V);
  }
  return nullptr;
}

bool runsEveryTime(ASTContext &Ctx, const Stmt *S, const Stmt *Unit) {
  const Stmt *Child = S;
  for (const Stmt *P = getParentStmt(Ctx, S); P && Child != Unit;
       Child = P, P = getParentStmt(Ctx, P)) {
    if (const auto *If = dyn_cast<IfStmt>(P); If && Child == If->getCond())
      continue;
    if (const auto *Sw = dyn_cast<SwitchStmt>(P); Sw && Child == Sw->getCond())
      continue;
    if (const auto *F = dyn_cast<ForStmt>(P);
        F && (Child == F->getInit() || Child == F->getCond()))
      continue;
    if (const auto *Wh = dyn_cast<WhileStmt>(P); Wh && Child == Wh->getCond())
      continue;
    if (const auto *D = dyn_cast<DoStmt>(P); D && Child == D->getBody())
      continue;
    if (isa<IfStmt, ForStmt, WhileStmt, DoStmt, SwitchStmt, SwitchCase,
            CXXForRangeStmt>(P))
      return false;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P))
      if (Child != CO->getCond())
        return false;
    if (const auto *B = dyn_cast<BinaryOperator>(P))
      if (B->isLogicalOp() && Child == B->getRHS())
        return false;
  }
  return true;
}

std::string getStmtText(ASTContext &Ctx, const Stmt *S) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(S->getSourceRange()),
             Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

std::string getLineCol(const RewriteContext &RC, SourceLocation Loc) {
  DiagLoc D = RC.getDiagLoc(Loc);
  return (Twine(D.Line) + ":" + Twine(D.Col)).str();
}

bool isLibraryFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return FD->getBuiltinID() ||
         SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
}

bool isCollectiveCall(StringRef Name) {
  for (StringRef P : {"__syncthreads", "__syncwarp", "__shfl", "__ballot",
                      "__any", "__all", "__uni", "__activemask", "__match",
                      "__reduce", "__barrier", "__threadfence_block",
                      "this_thread_block", "tiled_partition", "this_grid",
                      "coalesced_threads"})
    if (Name.starts_with(P))
      return true;
  return false;
}

bool isElementUse(ASTContext &Ctx, const ArraySubscriptExpr *Sub) {
  const Stmt *Child = Sub;
  DynTypedNodeList Ps = Ctx.getParents(*Child);
  while (Ps.size() == 1 && Ps[0].get<ParenExpr>()) {
    Child = Ps[0].get<ParenExpr>();
    Ps = Ctx.getParents(*Child);
  }
  if (Ps.size() != 1)
    return false;
  if (const auto *IC = Ps[0].get<ImplicitCastExpr>())
    return IC->getCastKind() == CK_LValueToRValue;
  if (const auto *B = Ps[0].get<BinaryOperator>())
    return B->isAssignmentOp() && B->getLHS()->IgnoreParens() == Sub;
  if (const auto *U = Ps[0].get<UnaryOperator>())
    return U->isIncrementDecrementOp();
  return false;
}

bool hasConditionalDirective(const RewriteContext &RC, SourceRange R) {
  const SourceManager &SM = RC.getSourceManager();
  CharSourceRange Range = CharSourceRange::getTokenRange(
      SM.getExpansionLoc(R.getBegin()), SM.getExpansionLoc(R.getEnd()));
  StringRef Text =
      Lexer::getSourceText(Range, SM, RC.getASTContext().getLangOpts());
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.ltrim(" \t\v\f");
    if (!Line.consume_front("#"))
      continue;
    Line = Line.ltrim(" \t\v\f");
    if (Line.starts_with("if") || Line.starts_with("elif") ||
        Line.starts_with("else") || Line.starts_with("endif"))
      return true;
  }
  return false;
}

} // namespace astra
