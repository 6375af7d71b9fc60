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
// Legality. A store hint is `st.global.cs` in an asm with a "memory" clobber
// (nvcc's sm_32_intrinsics and astra_nvcc_compat.h): ordered like the store
// it replaces. A load hint is not: Clang's and nvcc's `__ldcs` are asms that
// read no memory as far as the compiler knows, so it may merge two of them
// or move one across a store, exactly like `__ldg`. So a load is hinted only
// where the kernel writes nothing it may read (read-only-cache's condition):
// its parameter points to const data that nothing casts to non-const, hands
// to asm or passes to a function that writes through it, and it is
// `__restrict__`, or the kernel writes no other buffer, or assume-noalias=1
// (the spec's noalias). The edits keep the order of evaluation (a store
// whose element and value have side effects on each other is left alone),
// stay out of macros and preprocessor conditionals, and take no user
// operator&. Which accesses are worth a hint: CacheHintsScan.cpp. Pack
// accesses that vectorize-loads wrote (`*reinterpret_cast<const float4
// *>(&p[i])`) are hinted like any other, so the rewrite composes after it. Only
// the kernel's own body is edited (not the device functions it calls). In a
// template every instantiation of the file is scanned: an access is hinted when
// it is in all of them.
//
//===----------------------------------------------------------------------===//
#include "CacheHintsScan.h"
#include "Dataflow.h"
#include "EditBatch.h"
#include "ReadOnlyCacheUses.h"
#include "ReadOnlyCacheWrites.h"
#include "Rewrites.h"
#include "SideLoops.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/PointerOrigin.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
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
  std::vector<ParamDesc> getParams() const override {
    return {getNoAliasParam()};
  }

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
  std::set<std::string> Assumes;        ///< what assume-noalias=1 takes
  unsigned Refused = 0;                 ///< accesses not hinted
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
  std::string D = join(Parts, ", ") + " (streaming: evict first from L2)" +
                  (S.Assumes.empty() ? "" : " (assume-noalias=1)");
  if (S.Refused)
    D += "; " + std::to_string(S.Refused) + " other access(es) left as " +
         "they are, the first " + S.FirstWhy;
  return D;
}

/// Why the kernel \p K may write what its parameter \p P points to, through
/// \p P itself; empty when it cannot: the pointee is const and neither \p P
/// nor a pointer derived from it (PointerOrigin) is cast to a pointer to
/// non-const, handed to inline assembly, or passed to a function of the
/// file that writes through it (findWriteThroughParam: after a const_cast too).
/// Casts to integers (an alignment test) and to other const pointers
/// (vectorize-loads' packs) write nothing.
std::string whyMayBeWritten(ASTContext &Ctx, const FunctionDecl *K,
                            const ParmVarDecl *P) {
  QualType Pointee = P->getType()->getPointeeType();
  if (!Pointee.isConstQualified())
    return "points to non-const data: the kernel may write it";
  struct Finder : RecursiveASTVisitor<Finder> {
    ASTContext &Ctx;
    std::string Why;
    Finder(ASTContext &Ctx, const FunctionDecl *K, const ParmVarDecl *P)
        : Ctx(Ctx), K(K), P(P) {}
    const FunctionDecl *K;
    const ParmVarDecl *P;
    /// Whether the pointer \p E points into what P points to.
    bool names(const Expr *E) {
      std::optional<PointerOrigin> O = findPointerOrigin(E, K, nullptr);
      return O && O->Param == P;
    }
    bool VisitExplicitCastExpr(ExplicitCastExpr *C) {
      QualType T = C->getType();
      if (Why.empty() && T->isPointerType() &&
          !T->getPointeeType().isConstQualified() && names(C->getSubExpr()))
        Why = "is cast to a pointer to non-const data";
      return true;
    }
    bool VisitGCCAsmStmt(GCCAsmStmt *A) {
      for (const Expr *E : A->inputs())
        if (Why.empty() && names(E))
          Why = "is handed to inline assembly";
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !Why.empty())
        return true;
      for (unsigned I = 0; I < C->getNumArgs() && I < FD->getNumParams(); ++I)
        if (names(C->getArg(I)) && findWriteThroughParam(Ctx, FD, I))
          Why = "is passed to '" + FD->getNameAsString() +
                "', which may write through it";
      return true;
    }
  } F(Ctx, K, P);
  F.TraverseStmt(K->getBody());
  return F.Why;
}

/// \p Text on one line (blanks and line breaks as one space), shortened.
std::string quoteLine(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    bool Blank = C == ' ' || C == '\t' || C == '\n' || C == '\r';
    if (!Blank)
      Out += C;
    else if (!Out.empty() && Out.back() != ' ')
      Out += ' ';
  }
  if (Out.size() > 80)
    Out = Out.substr(0, 77) + "...";
  return Out;
}

const ParmVarDecl *findParam(const FunctionDecl *K, StringRef Name) {
  for (const ParmVarDecl *P : K->parameters())
    if (P->getName() == Name)
      return P;
  return nullptr;
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
CacheHints::plan(RewriteContext &RC, const RewriteParams &P) const {
  Expected<int64_t> NoAlias = P.getInt("assume-noalias", 0);
  if (!NoAlias)
    return NoAlias.takeError();
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
    // `__ldcs` is an asm that reads no memory as far as the compiler knows:
    // like `__ldg` it may be merged with another load of the same address
    // or moved across a store, so a hinted load must meet no write of the
    // kernel (read-only-cache's condition).
    KernelPointerWrites KW(RC, K);
    StringMap<std::string> MayBeWritten; // whyMayBeWritten, per parameter
    MapVector<std::string, SiteAccesses, StringMap<unsigned>> PerSite;
    for (auto &[Key, Entry] : ByKey) {
      auto &[A, Seen] = Entry;
      SiteAccesses &S = PerSite[A.LoopId];
      if (S.Loc.File.empty())
        S.Loc = RC.getDiagLoc(A.Element->getBeginLoc());
      std::string Why = A.Why;
      if (Why.empty() && Seen != Fns.size())
        Why = "not in every instantiation of the template";
      const ParmVarDecl *PVD = findParam(K, A.Param);
      if (Why.empty() && !A.Store && PVD) {
        auto [Written, New] = MayBeWritten.try_emplace(A.Param);
        if (New)
          Written->second = whyMayBeWritten(Ctx, K, PVD);
        if (!Written->second.empty())
          Why = "'" + A.Param + "' " + Written->second;
        else if (std::string W = KW.whyMayAlias(RC, PVD, *NoAlias); !W.empty())
          Why = "'" + A.Param + "' " + W;
        else if (*NoAlias && KW.needsNoAlias(PVD))
          S.Assumes.insert("'" + A.Param +
                           "' overlaps no buffer the kernel writes");
      }
      if (!Why.empty()) {
        ++S.Refused;
        if (S.FirstWhy.empty())
          S.FirstWhy =
              "'" +
              quoteLine(getStmtText(Ctx, A.Store ? A.Assign : A.Element)) +
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
      Site.Assumes = join(S.Assumes, "; ");
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
