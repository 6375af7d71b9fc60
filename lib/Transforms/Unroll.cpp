//===- Unroll.cpp - Loop unrolling ----------------------------------------===//
//
// unroll[:factor=N,mode=pragma|manual]
//   pragma (default): `#pragma unroll N` on the line before the loop; any
//     loop kind. N=1 turns unrolling off.
//   manual: a canonical `for (T i = a; i < n; i += s) body` (also `<=`, `++i`,
//     `i++`) becomes
//       { T i = a; const T i_step = s;
//         for (; i + (N-1)*i_step < n; i += N*i_step) { body(i) ...
//                                                       body(i+(N-1)*i_step) }
//         for (; i < n; i += s) body }       // remainder
//     Legal when n and s do not change in the loop (no memory reads, no
//     calls but pure math), the body does not assign i or take its address,
//     declares nothing __shared__ or static (one variable per copy would
//     split it), and has no break/continue of this loop and no goto; the
//     comparison must not change i's value (`int i < unsigned n` converts i
//     to unsigned: refused). An unsigned i (unsigned int or wider) gets a
//     guard that cannot wrap: `i < n && (n - i - 1) / (N-1) >= s` (`<=`:
//     `i <= n && (n - i) / (N-1) >= s`), or with a literal step, `i < n && n -
//     i > (N-1)*s`. A narrow i (short, char) computes the guard in int, and the
//     copies read `(T)(i + K*s)`. A signed i of int or wider keeps
//     `i + (N-1)*s < n`, which assumes that sum does not overflow T (the
//     original needs only i + s not to).
// Both refuse loops that already carry an unroll pragma and loops inside
// macro expansions.
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "RegisterArrayLoop.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "UnrollManual.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

using unroll::ManualUnroller;

class Unroll : public Rewrite {
public:
  StringRef getName() const override { return "unroll"; }
  StringRef getDescription() const override {
    return "#pragma unroll N, or a manual unroll with a remainder loop";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Factor{"factor",
                     RewriteParamKind::Int,
                     "4",
                     {"2", "4", "8"},
                     "unroll factor (pragma: 1-1024, manual: 2-64); by "
                     "default 4, or all iterations of a loop that indexes "
                     "a local array with its variable"};
    Factor.Min = 1;
    Factor.Max = 1024;
    ParamDesc Mode{"mode",
                   RewriteParamKind::Enum,
                   "pragma",
                   {"pragma", "manual"},
                   "pragma: '#pragma unroll N'; manual: copies of the body "
                   "and a remainder loop"};
    Mode.Choices = {"pragma", "manual"};
    return {Mode, Factor};
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// The `#pragma unroll`-style hint already on \p Loop, or null.
const LoopHintAttr *getUnrollHint(ASTContext &Ctx, const Stmt *Loop) {
  DynTypedNodeList Ps = Ctx.getParents(*Loop);
  const auto *AS = Ps.size() == 1 ? Ps[0].get<AttributedStmt>() : nullptr;
  if (!AS)
    return nullptr;
  for (const Attr *A : AS->getAttrs())
    if (const auto *H = dyn_cast<LoopHintAttr>(A))
      if (H->getOption() == LoopHintAttr::Unroll ||
          H->getOption() == LoopHintAttr::UnrollCount)
        return H;
  return nullptr;
}
} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
Unroll::plan(RewriteContext &RC, const RewriteParams &P) const {
  bool Manual = P.getString("mode", "pragma") == "manual";
  Expected<int64_t> Factor = P.getInt("factor", 4);
  if (!Factor)
    return Factor.takeError();
  if (Manual && (*Factor < 2 || *Factor > 64))
    return makeInputError("rewrite 'unroll': parameter 'factor' must be "
                          "between 2 and 64 with mode=manual, got '" +
                          Twine(*Factor) + "'");
  std::optional<int64_t> Given;
  if (P.Values.count("factor"))
    Given = *Factor;
  ASTContext &Ctx = RC.getASTContext();
  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    DenseMap<const Stmt *, std::string> LoopIds = getLoopIds(K);
    SmallPtrSet<const Stmt *, 4> Rewritten; // manual: whole loops replaced
    auto Taken = std::make_shared<StringSet<>>();
    for (const Stmt *Loop : collectLoops(K->getBody())) {
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.LoopId = LoopIds.lookup(Loop);
      Site.Loc = RC.getDiagLoc(Loop->getBeginLoc());
      Site.Selected = isSelected(P, Kernel, Site.LoopId);
      auto Record = [&](bool Applicable, const Twine &Detail) {
        Site.Applicable = Applicable;
        Site.Detail = Detail.str();
        Sites.push_back({Site, nullptr});
        return Applicable && Site.Selected;
      };
      if (const LoopHintAttr *H = getUnrollHint(Ctx, Loop)) {
        std::string Hint = "#pragma unroll";
        if (H->getOption() == LoopHintAttr::UnrollCount && H->getValue())
          Hint += " " + RC.getText(H->getValue()->getSourceRange()).str();
        Record(false, "the loop already has '" + Hint + "'");
        continue;
      }
      std::string Macro = getMacroReason(
          RC, SourceRange(Loop->getBeginLoc(), Loop->getBeginLoc()));
      if (!Macro.empty()) {
        Record(false, "the loop is " + Macro);
        continue;
      }
      std::optional<RegisterArrayLoop> RA = findRegisterArrayLoop(Ctx, Loop);
      UnrollFactor FC = chooseUnrollFactor(RA ? &*RA : nullptr, Given, Manual);
      std::string Why = FC.Why.empty() ? FC.Risk : FC.Why;
      Why = Why.empty() ? "" : " (" + Why + ")";
      Site.Warning = FC.Risk;
      if (!Manual) {
        EditBatch Probe(RC);
        if (!insertLineBefore(RC, Probe, Loop, "")) {
          Record(false, "the loop does not start its own line");
          continue;
        }
        std::string Pragma = "#pragma unroll";
        if (FC.Factor)
          Pragma += " " + std::to_string(FC.Factor);
        Record(true, Pragma + Why);
        Sites.back().Edit = [&RC, Loop, Pragma](EditBatch &Edits) {
          insertLineBefore(RC, Edits, Loop, Pragma);
        };
        continue;
      }
      const auto *F = dyn_cast<ForStmt>(Loop);
      if (!F) {
        Record(false, "manual unrolling needs a for loop (this is a " +
                          std::string(Loop->getStmtClassName()) + ")");
        continue;
      }
      std::vector<const Stmt *> Outer = getEnclosingLoops(Ctx, Loop, LoopIds);
      auto It = llvm::find_if(
          Outer, [&](const Stmt *O) { return Rewritten.count(O); });
      auto U = std::make_shared<ManualUnroller>(RC, K, F);
      std::string Blocker = U->check();
      if (!Blocker.empty()) {
        Record(false, Blocker);
        continue;
      }
      if (It != Outer.end() && Site.Selected) {
        Record(false, "inside " + LoopIds.lookup(*It) +
                          ", which is unrolled in the same run (select one "
                          "loop with loop=)");
        continue;
      }
      if (!Record(true, "manual unroll by " + std::to_string(FC.Factor) +
                            " with a remainder loop" + Why))
        continue;
      Rewritten.insert(F);
      int64_t N = FC.Factor;
      Sites.back().Edit = [&RC, F, U, N, Taken](EditBatch &Edits) {
        Edits.replaceBlock(Edits.beginOf(F->getSourceRange()), U->getBodyEnd(),
                      U->build(N, *Taken));
      };
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createUnroll() { return std::make_unique<Unroll>(); }

} // namespace astra
