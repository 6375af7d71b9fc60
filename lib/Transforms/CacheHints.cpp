//===- CacheHints.cpp - Streaming cache hints on data used once -----------===//
//
// cache-hints: loads of data the kernel reads once become `__ldcs(&p[i])`
// (`ld.global.cs`: cache streaming, evict first) and stores of data it writes
// once `__stcs(&p[i], v)` (`st.global.cs`), so that data used once leaves
// L2 first and what is used again stays: the rows of an output that atomics
// update several times while the messages stream past (scatter_add), the row
// a second pass reads again. `loop=` hints the accesses of one loop
// (innermost enclosing loop), `kernel=` every access of the kernel.
//
// A hint changes no value a load or store gives or writes (the same weak
// access, only another cache policy), so the rewrite is correct by
// construction wherever it applies; where it pays is for the harness to
// measure. Which accesses are hinted: CacheHintsScan.cpp. Pack accesses that
// vectorize-loads wrote (`*reinterpret_cast<const float4 *>(&p[i])`) are
// hinted like any other, so the rewrite composes after it. Only the kernel's
// own body is edited (not the device functions it calls). In a template
// every instantiation of the file is scanned: an access is hinted when it is
// in all of them.
//
//===----------------------------------------------------------------------===//
#include "CacheHintsScan.h"
#include "EditBatch.h"
#include "Rewrites.h"
#include "SideLoops.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include <map>
#include <set>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class CacheHints : public Rewrite {
public:
  StringRef getName() const override { return "cache-hints"; }
  StringRef getDescription() const override {
    return "loads and stores of data used once -> __ldcs/__stcs (evict-first "
           "streaming), so that reused data stays in L2";
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// The edits of one hinted access, by its offsets and texts only (the
/// access of one instantiation stands for all).
struct HintEdit {
  bool Store = false;
  bool Deref = false;      ///< `*ptr`, else `p[i]`
  unsigned Begin = 0;      ///< of the element (a load) or the assignment
  unsigned OpEnd = 0;      ///< deref: end of `*`, where the pointer starts
  unsigned ElementEnd = 0; ///< end of the element
  unsigned ValueBegin = 0; ///< stores: where the value starts
  unsigned ValueEnd = 0;   ///< stores: where the value ends
  std::string PointerText; ///< stores: `&p[i]` or the dereferenced pointer
};

/// One loop's (or the kernel body's, LoopId empty) accesses.
struct SiteAccesses {
  std::set<std::string> Loaded, Stored; ///< parameters hinted
  unsigned Loads = 0, Stores = 0;
  std::string FirstWhy;
  std::vector<HintEdit> Edits;
  DiagLoc Loc;
};

HintEdit makeEdit(RewriteContext &RC, const HintAccess &A) {
  EditBatch Probe(RC);
  HintEdit E;
  E.Store = A.Store;
  const auto *UO = dyn_cast<UnaryOperator>(A.Element);
  E.Deref = UO != nullptr;
  E.ElementEnd = Probe.endOf(A.Element->getSourceRange());
  if (E.Deref)
    E.OpEnd = Probe.beginOf(UO->getSubExpr()->getSourceRange());
  if (!A.Store) {
    E.Begin = Probe.beginOf(A.Element->getSourceRange());
    return E;
  }
  E.Begin = Probe.beginOf(A.Assign->getSourceRange());
  E.ValueBegin = Probe.beginOf(A.Value->getSourceRange());
  E.ValueEnd = Probe.endOf(A.Value->getSourceRange());
  E.PointerText = E.Deref
                      ? RC.getText(UO->getSubExpr()->getSourceRange()).str()
                      : ("&" + RC.getText(A.Element->getSourceRange())).str();
  return E;
}

void applyEdit(EditBatch &Edits, const HintEdit &E) {
  if (!E.Store) {
    if (E.Deref)
      Edits.replace(E.Begin, E.OpEnd, "__ldcs(");
    else
      Edits.insert(E.Begin, "__ldcs(&");
    Edits.insert(E.ElementEnd, ")");
    return;
  }
  Edits.replace(E.Begin, E.ValueBegin, "__stcs(" + E.PointerText + ", ");
  Edits.insert(E.ValueEnd, ")");
}

std::string describe(const SiteAccesses &S) {
  auto Names = [](const std::set<std::string> &Ps) {
    std::vector<std::string> Q;
    for (const std::string &P : Ps)
      Q.push_back("'" + P + "'");
    return join(Q, ", ");
  };
  std::vector<std::string> Parts;
  if (S.Loads)
    Parts.push_back(std::to_string(S.Loads) + " load(s) of " + Names(S.Loaded) +
                    " -> __ldcs");
  if (S.Stores)
    Parts.push_back(std::to_string(S.Stores) + " store(s) to " +
                    Names(S.Stored) + " -> __stcs");
  return join(Parts, ", ") + " (streaming: evict first from L2)";
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
CacheHints::plan(RewriteContext &RC, const RewriteParams &P) const {
  ASTContext &Ctx = RC.getASTContext();
  SmallPtrSet<const Type *, 32> LoadTypes = getHintTypes(Ctx, false);
  SmallPtrSet<const Type *, 32> StoreTypes = getHintTypes(Ctx, true);
  StringSet<> SideLoops = findSideLoops(Ctx);
  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    std::vector<const FunctionDecl *> Fns = {K};
    if (K->isTemplated()) {
      Fns = getInstantiations(K);
      if (Fns.empty()) {
        RewriteSite Site;
        Site.Kernel = Kernel;
        Site.Loc = RC.getDiagLoc(K->getLocation());
        Site.Selected = isSelected(P, Kernel, "");
        Site.Detail = "a template the file instantiates nowhere: its element "
                      "types are not known";
        Sites.push_back({Site, nullptr});
        continue;
      }
    }
    // Per access (by offset): hinted in every instantiation so far, and why
    // not where it was not.
    std::map<unsigned, std::pair<HintAccess, unsigned>> ByKey;
    for (const FunctionDecl *F : Fns)
      for (HintAccess &A :
           scanHintAccesses(RC, F, LoadTypes, StoreTypes, SideLoops)) {
        auto [It, New] = ByKey.try_emplace(A.Key, A, 0u);
        ++It->second.second;
        if (!New && It->second.first.Why.empty() && !A.Why.empty())
          It->second.first = A;
      }
    MapVector<std::string, SiteAccesses, StringMap<unsigned>> PerSite;
    for (auto &[Key, Entry] : ByKey) {
      auto &[A, Seen] = Entry;
      SiteAccesses &S = PerSite[A.LoopId];
      if (S.Loc.File.empty())
        S.Loc = RC.getDiagLoc(A.Element->getBeginLoc());
      std::string Why = A.Why;
      if (Why.empty() && Seen != Fns.size())
        Why = "not in every instantiation of the template";
      if (!Why.empty()) {
        if (S.FirstWhy.empty())
          S.FirstWhy = "'" + getStmtText(Ctx, A.Store ? A.Assign : A.Element) +
                       "': " + Why;
        continue;
      }
      (A.Store ? S.Stored : S.Loaded).insert(A.Param);
      ++(A.Store ? S.Stores : S.Loads);
      S.Edits.push_back(makeEdit(RC, A));
    }
    for (auto &[LoopId, S] : PerSite) {
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.LoopId = LoopId;
      Site.Loc = S.Loc;
      Site.Selected = isSelected(P, Kernel, LoopId);
      if (S.Edits.empty()) {
        Site.Detail = "no access to stream: " + S.FirstWhy;
        Sites.push_back({Site, nullptr});
        continue;
      }
      Site.Applicable = true;
      Site.Detail = describe(S);
      // Loads first: a load inside a store's value closes before the store.
      std::vector<HintEdit> Edits = S.Edits;
      llvm::stable_sort(Edits, [](const HintEdit &A, const HintEdit &B) {
        return !A.Store && B.Store;
      });
      Sites.push_back({Site, [Edits](EditBatch &Batch) {
                         for (const HintEdit &E : Edits)
                           applyEdit(Batch, E);
                       }});
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createCacheHints() {
  return std::make_unique<CacheHints>();
}

} // namespace astra
