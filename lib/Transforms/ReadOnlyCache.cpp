//===- ReadOnlyCache.cpp - __ldg loads through read-only pointers ---------===//
//
// read-only-cache[:assume-noalias=1]: for each pointer parameter of a kernel
// that is only read, loads `p[i]` / `*p` become `__ldg(&p_ro[i])` through a
// local `const T *__restrict__ p_ro = p;`. The signature is not changed, so
// the mangled name and the host launchers stay as they are.
//
// Legality. The pointer must never be stored through, reassigned, passed to a
// function that may write through it, or cast to another pointer type (copies
// into local pointers are followed). The read-only (non-coherent) cache is
// only correct when nothing the kernel writes overlaps the buffer, and that is
// a run-time fact; a pointer-range guard would need buffer sizes the kernel
// does not know, and an equality check is not enough. So the rewrite requires
// one of: the parameter is declared __restrict__ (the author promises no
// overlap), no pointer parameter is written at all and every store goes to
// local or shared memory (the device functions it calls included, and no
// atomic or store through another pointer: ReadOnlyCacheWrites.cpp), or the
// caller passes assume-noalias=1 (the launch
// spec's "noalias"). `const` alone does not rule out aliasing. The harness
// verifies the outputs on the device in any case.
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "FreshName.h"
#include "ReadOnlyCacheUses.h"
#include "ReadOnlyCacheWrites.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "llvm/ADT/SmallSet.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class ReadOnlyCache : public Rewrite {
public:
  StringRef getName() const override { return "read-only-cache"; }
  StringRef getDescription() const override {
    return "loads through read-only pointer parameters -> __ldg through a "
           "local const __restrict__ alias (signature unchanged)";
  }
  std::vector<ParamDesc> getParams() const override {
    return {getNoAliasParam()};
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// The element types that have an __ldg overload in this translation unit
/// (float, int, vector types; __half and __nv_bfloat16 once their headers
/// are included).
SmallPtrSet<const Type *, 32> getLdgTypes(ASTContext &Ctx) {
  SmallPtrSet<const Type *, 32> Types;
  auto Found = Ctx.getTranslationUnitDecl()->lookup(
      DeclarationName(&Ctx.Idents.get("__ldg")));
  for (const NamedDecl *D : Found)
    if (const FunctionDecl *FD = D->getAsFunction())
      if (FD->getNumParams() == 1 &&
          FD->getParamDecl(0)->getType()->isPointerType())
        Types.insert(Ctx.getCanonicalType(FD->getParamDecl(0)
                                              ->getType()
                                              ->getPointeeType()
                                              .getUnqualifiedType())
                         .getTypePtr());
  return Types;
}

/// Why the element type of parameter \p Index has no __ldg, or empty.
std::string checkElementType(ASTContext &Ctx, const FunctionDecl *Kernel,
                             unsigned Index,
                             const SmallPtrSet<const Type *, 32> &Ldg) {
  std::vector<const FunctionDecl *> Fns = {Kernel};
  QualType Pointee = Kernel->getParamDecl(Index)->getType()->getPointeeType();
  if (Pointee->isDependentType()) {
    Fns = getInstantiations(Kernel);
    if (Fns.empty())
      return "the element type '" + Pointee.getAsString() +
             "' depends on a template parameter and the file instantiates no "
             "specialisation to check";
  }
  for (const FunctionDecl *F : Fns) {
    QualType T = F->getParamDecl(Index)->getType()->getPointeeType();
    if (!Ldg.count(Ctx.getCanonicalType(T.getUnqualifiedType()).getTypePtr()))
      return "no __ldg overload for element type '" +
             T.getUnqualifiedType().getAsString() + "'" +
             (F != Kernel ? " (in " + F->getNameAsString() + "<...>)" : "");
  }
  return "";
}

} // namespace

/// Declares the restrict alias at the start of \p Body and turns the loads
/// into __ldg through it.
static void editLoads(const RewriteContext &RC, EditBatch &Edits,
                      const CompoundStmt *Body, StringRef Decl, StringRef Alias,
                      ArrayRef<const DeclRefExpr *> Renames,
                      ArrayRef<const Expr *> Loads) {
  insertAtBodyStart(RC, Edits, Body, Decl);
  for (const DeclRefExpr *R : Renames)
    Edits.replace(R->getSourceRange(), Alias);
  for (const Expr *L : Loads) {
    if (const auto *UO = dyn_cast<UnaryOperator>(L)) {
      const Expr *Sub = stripParens(UO->getSubExpr());
      Edits.replace(Edits.beginOf(UO->getOperatorLoc()),
                    Edits.beginOf(Sub->getSourceRange()), "__ldg(");
      Edits.replace(Edits.endOf(Sub->getSourceRange()),
                    Edits.endOf(UO->getSourceRange()), ")");
    } else {
      Edits.insert(Edits.beginOf(L->getSourceRange()), "__ldg(&");
      Edits.insert(Edits.endOf(L->getSourceRange()), ")");
    }
  }
}

Expected<std::vector<Rewrite::PlannedSite>>
ReadOnlyCache::plan(RewriteContext &RC, const RewriteParams &P) const {
  Expected<int64_t> NoAlias = P.getInt("assume-noalias", 0);
  if (!NoAlias)
    return NoAlias.takeError();
  ASTContext &Ctx = RC.getASTContext();
  SmallPtrSet<const Type *, 32> Ldg = getLdgTypes(Ctx);
  std::vector<PlannedSite> Sites;
  PrintingPolicy Policy(Ctx.getLangOpts());

  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    StringSet<> Taken; // alias names are local to the kernel
    // Uses of every pointer parameter first: aliasing needs all of them.
    KernelPointerWrites KW(RC, K);
    for (auto &[I, U] : KW.Params) {
      const ParmVarDecl *PVD = K->getParamDecl(I);
      StringRef Name = PVD->getName();
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.Loc = RC.getDiagLoc(PVD->getLocation());
      Site.Selected = isSelected(P, Kernel, "");
      auto Refuse = [&](const Twine &Why) {
        Site.Detail = ("'" + Name + "': " + Why).str();
        Sites.push_back({Site, nullptr});
      };
      if (!U.Blocker.empty()) {
        Refuse("not read-only: " + U.Blocker);
        continue;
      }
      std::string TypeWhy = checkElementType(Ctx, K, I, Ldg);
      if (!TypeWhy.empty()) {
        Refuse(TypeWhy);
        continue;
      }
      bool Restrict = PVD->getType().isRestrictQualified();
      std::string AliasWhy = KW.whyMayAlias(RC, PVD, *NoAlias);
      if (!AliasWhy.empty()) {
        Refuse(AliasWhy);
        continue;
      }
      // Loads written inside macro expansions stay as they are.
      std::vector<const Expr *> Loads;
      std::string MacroWhy;
      for (const Expr *L : U.Loads) {
        std::string Why = getMacroReason(RC, L->getSourceRange());
        (Why.empty() ? Loads.push_back(L) : (void)(MacroWhy = Why));
      }
      if (Loads.empty()) {
        Refuse(U.Loads.empty() ? "no load through it in the kernel body"
                               : "every load is " + MacroWhy);
        continue;
      }
      std::string Alias = makeFreshName(Ctx, (Name + "_ro").str(), Taken);
      std::string ElemType =
          PVD->getType()->getPointeeType().getUnqualifiedType().getAsString(
              Policy);
      Site.Applicable = true;
      Site.Detail = ("'" + Name + "': " + Twine(Loads.size()) +
                     " load(s) -> __ldg through 'const " + ElemType +
                     " *__restrict__ " + Alias + "'" +
                     (Restrict   ? ""
                      : *NoAlias ? " (assume-noalias=1)"
                                 : " (no pointer parameter is written)") +
                     (U.Loads.size() != Loads.size()
                          ? "; loads " + MacroWhy + " unchanged"
                          : ""))
                        .str();
      bool Assumed = *NoAlias && KW.needsNoAlias(PVD);
      if (Assumed)
        Site.Assumes =
            "'" + Name.str() + "' overlaps no buffer the kernel writes";
      std::string Decl = "const " + ElemType + " *__restrict__ " + Alias +
                         " = " + Name.str() + ";";
      std::vector<const DeclRefExpr *> Renames;
      SmallPtrSet<const DeclRefExpr *, 8> Renamed;
      for (const DeclRefExpr *R : U.Renames)
        if (getMacroReason(RC, R->getSourceRange()).empty() &&
            Renamed.insert(R).second)
          Renames.push_back(R);
      Sites.push_back(
          {Site, [&RC, K, Decl, Alias, Renames, Loads](EditBatch &Edits) {
             editLoads(RC, Edits, cast<CompoundStmt>(K->getBody()), Decl, Alias,
                       Renames, Loads);
           }});
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createReadOnlyCache() {
  return std::make_unique<ReadOnlyCache>();
}

} // namespace astra
