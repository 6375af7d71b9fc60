//===- HoistInvariant.cpp - Move loop-invariant math out of loops --------===//
//
// hoist-invariant: an expensive pure expression in a loop (a call to exp,
// log, sqrt, pow, sin, ... or a floating-point division) whose operands do not
// change in the loop is computed once, into a `const` local declared on the
// line before the loop, and the loop uses the local. It is hoisted out of the
// outermost enclosing loop it is invariant in (or the loop given by loop=).
//
// Legality: the whole expression must be pure and invariant (see
// isInvariant in Dataflow.h): literals, `threadIdx.x` and friends, const
// globals, and locals or parameters declared outside the loop that the loop
// never assigns, increments or takes the address of (nor anything else in the
// kernel); no memory reads, no integer division (undefined for a zero divisor,
// so it must not run when the loop would not). Floating-point math never
// traps on the GPU, so evaluating it when the loop runs zero times is safe.
// The loop must sit directly in a { } block, starting its own line. A
// kernel that uses goto is refused: a jump into the loop (to a label in its
// body) would skip the hoisted declaration's new value, and a forward jump
// past it would not compile.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringExtras.h"
#include <map>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class HoistInvariant : public Rewrite {
public:
  StringRef getName() const override { return "hoist-invariant"; }
  StringRef getDescription() const override {
    return "loop-invariant expensive math (exp, log, sqrt, division, "
           "reciprocal) -> a const local before the loop";
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// Calls worth a local of their own (cheap ones such as fabsf are not).
bool isExpensiveCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !isLibraryFunction(FD) || !isPureMathFunction(FD->getName()))
    return false;
  StringRef N = FD->getName();
  N.consume_front("__");
  for (StringRef Cheap : {"fabs", "fmin", "fmax", "floor", "ceil", "trunc",
                          "round", "rint", "fma", "min", "max", "saturate"})
    if (N.starts_with(Cheap))
      return false;
  return true;
}

/// Whether \p S holds a goto (computed or not).
bool hasGoto(const Stmt *S) {
  if (!S)
    return false;
  if (isa<GotoStmt, IndirectGotoStmt>(S))
    return true;
  return any_of(S->children(), [](const Stmt *C) { return hasGoto(C); });
}

/// A short name for the local, from what the expression computes.
std::string getBaseName(const Expr *E) {
  if (const auto *C = dyn_cast<CallExpr>(E))
    return (C->getDirectCallee()->getName().ltrim('_') + "_hoisted").str();
  return "quot_hoisted";
}

class Hoister : public RecursiveASTVisitor<Hoister> {
public:
  using PlannedSite = std::pair<RewriteSite, std::function<void(EditBatch &)>>;
  Hoister(RewriteContext &RC, const RewriteParams &P, const FunctionDecl *K,
          std::vector<PlannedSite> &Sites)
      : RC(RC), Ctx(RC.getASTContext()), P(P), K(K),
        Kernel(K->getNameAsString()), Sites(Sites), LoopIds(getLoopIds(K)),
        HasGoto(hasGoto(K->getBody())) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *C) {
    if (isExpensiveCall(C))
      consider(C);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() == BO_Div && BO->getType()->isRealFloatingType())
      consider(BO);
    return true;
  }

private:
  void consider(const Expr *E);
  /// Whether \p E is part of an expression hoisted already.
  bool insideHoisted(const Expr *E) {
    for (DynTypedNodeList Ps = Ctx.getParents(*E); Ps.size() == 1;
         Ps = Ctx.getParents(Ps[0])) {
      const Stmt *S = Ps[0].get<Stmt>();
      if (!S || !isa<Expr>(S))
        return false;
      if (Hoisted.count(S))
        return true;
    }
    return false;
  }
  const ChangedVars &getChanged(const Stmt *Loop) {
    auto &CV = Changed[Loop];
    if (!CV)
      CV = std::make_unique<ChangedVars>(Ctx, K, Loop);
    return *CV;
  }
  /// The statement to insert before: the loop, or its `#pragma` wrapper.
  const Stmt *getPlacement(const Stmt *Loop) {
    const Stmt *S = Loop;
    DynTypedNodeList Ps = Ctx.getParents(*S);
    if (Ps.size() == 1 && Ps[0].get<AttributedStmt>()) {
      S = Ps[0].get<AttributedStmt>();
      Ps = Ctx.getParents(*S);
    }
    return Ps.size() == 1 && Ps[0].get<CompoundStmt>() ? S : nullptr;
  }

  RewriteContext &RC;
  ASTContext &Ctx;
  const RewriteParams &P;
  const FunctionDecl *K;
  std::string Kernel;
  std::vector<PlannedSite> &Sites;
  DenseMap<const Stmt *, std::string> LoopIds;
  DenseMap<const Stmt *, std::unique_ptr<ChangedVars>> Changed;
  SmallPtrSet<const Stmt *, 8> Hoisted;
  /// (loop, expression text) -> local already hoisted there.
  std::map<std::pair<const Stmt *, std::string>, std::string> Locals;
  StringSet<> Taken;
  /// Whether the kernel holds a goto (its jumps are not followed).
  bool HasGoto;
};

void Hoister::consider(const Expr *E) {
  std::vector<const Stmt *> Loops = getEnclosingLoops(Ctx, E, LoopIds);
  if (Loops.empty() || insideHoisted(E))
    return; // not in a loop, or goes with an enclosing hoisted expression
  RewriteSite Site;
  Site.Kernel = Kernel;
  Site.Loc = RC.getDiagLoc(E->getBeginLoc());
  Site.LoopId = LoopIds.lookup(Loops.front());
  auto Record = [&](bool Applicable, const Twine &Detail) {
    Site.Applicable = Applicable;
    Site.Detail = Detail.str();
    Sites.emplace_back(Site, nullptr);
  };
  std::string Why = getMacroReason(RC, E->getSourceRange());
  if (!Why.empty())
    return Record(false, "not hoisted: " + Why);
  if (E->isTypeDependent())
    return Record(false, "not hoisted: its type depends on a template "
                         "parameter");
  std::string Text = RC.getText(E->getSourceRange()).str();
  SmallVector<StringRef, 8> Words;
  SplitString(Text, Words); // the text on one line, for the details
  std::string Shown = join(Words, " ");
  if (HasGoto)
    return Record(false, "'" + Shown +
                             "' is not hoisted: the kernel uses goto, whose "
                             "jumps the check does not follow (one into the "
                             "loop would skip the hoisted value's update)");
  // Outermost enclosing loop it is invariant in and can be placed before.
  const Stmt *Target = nullptr, *Placement = nullptr;
  std::string FirstWhy;
  for (const Stmt *L : Loops) {
    std::string LoopWhy;
    if (!isInvariant(Ctx, E, getChanged(L), LoopWhy)) {
      if (!Target)
        FirstWhy = LoopWhy;
      break;
    }
    if (const Stmt *S = getPlacement(L)) {
      if (getMacroReason(RC, S->getSourceRange()).empty()) {
        Target = L;
        Placement = S;
      }
    } else if (!Target) {
      FirstWhy = "the loop is not directly inside a { } block";
    }
    if (LoopIds.lookup(L) == P.Loop)
      break;
  }
  if (!Target)
    return Record(false, "'" + Shown + "' is not hoisted: " + FirstWhy);
  std::string LoopId = LoopIds.lookup(Target);
  Site.LoopId = LoopId;
  Site.Selected = isSelected(P, Kernel, LoopId);
  auto Found = Locals.find({Target, Text});
  bool Reused = Found != Locals.end();
  if (!Reused) {
    EditBatch Probe(RC);
    if (!insertLineBefore(RC, Probe, Placement, ""))
      return Record(false, "'" + Shown + "' is not hoisted: " + LoopId +
                               " does not start its own line");
  }
  std::string Local =
      Reused ? Found->second : makeFreshName(Ctx, getBaseName(E), Taken);
  Locals[{Target, Text}] = Local;
  Record(true, "'" + Shown + "' -> '" + Local + "', computed before " + LoopId +
                   (Reused ? " (same expression hoisted above)" : ""));
  Hoisted.insert(E);
  std::string Decl;
  if (!Reused)
    Decl = "const " +
           E->getType().getUnqualifiedType().getAsString(
               PrintingPolicy(Ctx.getLangOpts())) +
           " " + Local + " = " + Text + ";";
  Sites.back().second = [&RC = RC, E, Placement, Decl,
                         Local](EditBatch &Edits) {
    if (!Decl.empty())
      insertLineBefore(RC, Edits, Placement, Decl);
    // A name needs no parentheses around it.
    Edits.replace(getWithParens(RC, E)->getSourceRange(), Local);
  };
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
HoistInvariant::plan(RewriteContext &RC, const RewriteParams &P) const {
  std::vector<Hoister::PlannedSite> Found;
  for (const FunctionDecl *K : findKernels(RC.getASTContext())) {
    Hoister H(RC, P, K, Found);
    H.TraverseStmt(K->getBody());
  }
  std::vector<PlannedSite> Sites;
  for (auto &[Site, Edit] : Found)
    Sites.push_back({std::move(Site), std::move(Edit)});
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createHoistInvariant() {
  return std::make_unique<HoistInvariant>();
}

} // namespace astra
