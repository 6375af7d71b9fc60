//===- FastMath.cpp - Fast CUDA math intrinsics ---------------------------===//
//
// fast-math[:ops=exp+div+...]: in the device code of kernels (their bodies and
// the main-file __device__ functions they call) replaces float math with the
// CUDA fast intrinsics:
//   expf -> __expf, exp10f -> __exp10f, logf/log2f/log10f -> __logf/...,
//   sinf/cosf/tanf/sincosf -> __sinf/..., powf -> __powf,
//   1/sqrtf(x) -> rsqrtf(x), 1/x -> __frcp_rn(x), x/y -> __fdividef(x, y).
// Only functions with a real intrinsic are rewritten. Accuracy is judged by the
// harness against the original, so every float site is legal; double-precision
// sites, template-dependent overloads, __host__ __device__ functions (host
// code must not change) and code inside macro expansions are refused.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

struct Intrinsic {
  std::string Op;   ///< the ops= key that enables it
  std::string Name; ///< the intrinsic
};

/// Library function name (float or overloaded flavour) -> intrinsic.
const StringMap<Intrinsic> &getIntrinsics() {
  static const StringMap<Intrinsic> Map = [] {
    StringMap<Intrinsic> M;
    for (StringRef Op :
         {"exp", "exp10", "log", "log2", "log10", "sin", "cos", "tan",
          "sincos", "pow"}) {
      Intrinsic I{Op.str(), ("__" + Op + "f").str()};
      M[Op] = I;
      M[(Op + "f").str()] = I;
    }
    return M;
  }();
  return Map;
}

const char *const AllOps = "exp+exp10+log+log2+log10+sin+cos+tan+sincos+pow+"
                           "div+rcp+rsqrt";

class FastMath : public Rewrite {
public:
  StringRef getName() const override { return "fast-math"; }
  StringRef getDescription() const override {
    return "float math in device code -> CUDA fast intrinsics (__expf, "
           "__fdividef, rsqrtf, __frcp_rn, __sinf, __logf, __powf, ...)";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Ops{"ops",
                  RewriteParamKind::Subset,
                  "all",
                  {"all"},
                  std::string("'+'-separated subset of ") + AllOps};
    SmallVector<StringRef, 16> Parts;
    StringRef(AllOps).split(Parts, '+');
    for (StringRef Op : Parts)
      Ops.Choices.push_back(Op.str());
    return {Ops};
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// A kernel or a main-file device function it calls, with what selects it.
struct DeviceCode {
  const FunctionDecl *Fn;
  bool IsKernel;
  std::vector<std::string> Kernels; ///< kernels that reach it, in order
  bool isReachedFrom(StringRef K) const { return is_contained(Kernels, K); }
};

/// Kernels, then the __device__ functions with a body in the main file that
/// they call, directly or not.
std::vector<DeviceCode> collectDeviceCode(ASTContext &Ctx) {
  std::vector<DeviceCode> Code;
  DenseMap<const FunctionDecl *, size_t> Index;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    Index[K] = Code.size();
    Code.push_back({K, true, {}});
    Code.back().Kernels.push_back(K->getNameAsString());
  }
  const SourceManager &SM = Ctx.getSourceManager();
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const FunctionDecl *> Callees;
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *FD = C->getDirectCallee())
        Callees.push_back(FD);
      return true;
    }
  };
  for (size_t I = 0; I < Code.size(); ++I) {
    Finder F;
    F.TraverseStmt(Code[I].Fn->getBody());
    for (const FunctionDecl *FD : F.Callees) {
      if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
        FD = Pattern;
      const FunctionDecl *Def = FD->getDefinition();
      if (!Def || !Def->hasAttr<CUDADeviceAttr>() ||
          Def->hasAttr<CUDAGlobalAttr>() ||
          !SM.isWrittenInMainFile(SM.getExpansionLoc(Def->getLocation())))
        continue;
      auto [It, New] = Index.try_emplace(Def, Code.size());
      if (New)
        Code.push_back({Def, false, {}});
      std::vector<std::string> Callers = Code[I].Kernels;
      for (const std::string &K : Callers)
        if (!Code[It->second].isReachedFrom(K))
          Code[It->second].Kernels.push_back(K);
    }
  }
  return Code;
}

bool isOne(const Expr *E) {
  E = stripParens(E);
  if (const auto *F = dyn_cast<FloatingLiteral>(E))
    return F->getValue().isExactlyValue(1.0);
  if (const auto *I = dyn_cast<IntegerLiteral>(E))
    return I->getValue() == 1;
  return false;
}

enum class Precision { Float, Double, Dependent, Other };

Precision getPrecision(QualType T) {
  if (T.isNull() || T->isDependentType())
    return Precision::Dependent;
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return Precision::Float;
  if (T->isSpecificBuiltinType(BuiltinType::Double) ||
      T->isSpecificBuiltinType(BuiltinType::LongDouble))
    return Precision::Double;
  return Precision::Other;
}

/// Edits the division \p BO (operands \p L and \p R) into the call that
/// \p Op names: rsqrt (\p Sqrt is the `sqrtf` call), rcp or div.
void rewriteDivision(const RewriteContext &RC, EditBatch &Edits,
                     const BinaryOperator *BO, const Expr *L, const Expr *R,
                     const CallExpr *Sqrt, StringRef Op);

/// Visits one function body and records the sites.
class SiteVisitor : public RecursiveASTVisitor<SiteVisitor> {
public:
  using PlannedSite = std::pair<RewriteSite, std::function<void(EditBatch &)>>;
  SiteVisitor(RewriteContext &RC, const RewriteParams &P,
              const StringSet<> &Ops, const DeviceCode &DC,
              std::vector<PlannedSite> &Sites)
      : RC(RC), Ctx(RC.getASTContext()), P(P), Ops(Ops), DC(DC), Sites(Sites) {
    if (DC.IsKernel)
      LoopIds = getLoopIds(DC.Fn);
  }

  bool VisitCallExpr(CallExpr *C);
  bool VisitBinaryOperator(BinaryOperator *BO);

private:
  /// Records a site; returns where to put the edit of an applicable one,
  /// else null.
  std::function<void(EditBatch &)> *addSite(const Stmt *S, bool Applicable,
                                            const Twine &Detail);
  /// The reason the site cannot be edited (macro, host code), or empty.
  std::string getBlocker(std::initializer_list<const Expr *> Parts);

  RewriteContext &RC;
  ASTContext &Ctx;
  const RewriteParams &P;
  const StringSet<> &Ops;
  const DeviceCode &DC;
  std::vector<PlannedSite> &Sites;
  DenseMap<const Stmt *, std::string> LoopIds;
};

std::function<void(EditBatch &)> *
SiteVisitor::addSite(const Stmt *S, bool Applicable, const Twine &Detail) {
  RewriteSite Site;
  Site.Loc = RC.getDiagLoc(S->getBeginLoc());
  Site.Applicable = Applicable;
  Site.ChangesRounding = Applicable;
  std::string Where;
  if (DC.IsKernel) {
    Site.Kernel = DC.Fn->getNameAsString();
    std::vector<const Stmt *> Loops = getEnclosingLoops(Ctx, S, LoopIds);
    if (!Loops.empty())
      Site.LoopId = LoopIds.lookup(Loops.front());
    Site.Selected = P.Kernel.empty() || P.Kernel == Site.Kernel;
    if (!P.Loop.empty())
      Site.Selected &= any_of(
          Loops, [&](const Stmt *L) { return LoopIds.lookup(L) == P.Loop; });
  } else {
    Site.Kernel = DC.Fn->getNameAsString();
    Where = " (in device function '" + Site.Kernel + "', called from " +
            join(DC.Kernels, ", ") + ")";
    Site.Selected =
        P.Loop.empty() && (P.Kernel.empty() || DC.isReachedFrom(P.Kernel));
  }
  Site.Detail = Detail.str() + Where;
  Sites.emplace_back(std::move(Site), nullptr);
  return Applicable ? &Sites.back().second : nullptr;
}

std::string SiteVisitor::getBlocker(std::initializer_list<const Expr *> Parts) {
  if (DC.Fn->hasAttr<CUDAHostAttr>())
    return "'" + DC.Fn->getNameAsString() +
           "' is also compiled for the host (__host__ __device__), and host "
           "code must not change";
  for (const Expr *E : Parts) {
    std::string Why = getMacroReason(RC, E->getSourceRange());
    if (!Why.empty())
      return Why;
  }
  return "";
}

bool SiteVisitor::VisitCallExpr(CallExpr *C) {
  const Expr *Callee = C->getCallee()->IgnoreImplicit();
  StringRef Name;
  Precision Prec = Precision::Dependent;
  if (const FunctionDecl *FD = C->getDirectCallee()) {
    if (!isLibraryFunction(FD) || FD->getNumParams() == 0)
      return true;
    Name = FD->getName();
    Prec = getPrecision(FD->getParamDecl(0)->getType());
  } else if (const auto *U = dyn_cast<UnresolvedLookupExpr>(Callee)) {
    // A call with template-dependent arguments. The 'f' flavours are not
    // overloaded, so they stay float whatever the template argument is.
    if (!U->getName().isIdentifier())
      return true;
    Name = U->getName().getAsIdentifierInfo()->getName();
    if (Name.ends_with("f") && all_of(U->decls(), [](const NamedDecl *D) {
          return isLibraryFunction(D->getAsFunction());
        }))
      Prec = Precision::Float;
  } else {
    return true;
  }
  auto It = getIntrinsics().find(Name);
  if (It == getIntrinsics().end() || !Ops.count(It->second.Op))
    return true;
  StringRef Intr = It->second.Name;
  if (Prec == Precision::Double)
    return addSite(C, false,
                   "double-precision '" + Name + "': " + Intr +
                       " is float-only, fast-math does not change doubles"),
           true;
  if (Prec != Precision::Float)
    return addSite(C, false,
                   "the overload of '" + Name +
                       "' depends on a template parameter"),
           true;
  std::string Blocker = getBlocker({C, Callee});
  if (!Blocker.empty())
    return addSite(C, false, Blocker), true;
  *addSite(C, true, "'" + Name + "' -> '" + Intr + "'") =
      [Callee, Intr](EditBatch &Edits) {
        Edits.replace(Callee->getSourceRange(), Intr);
      };
  return true;
}

bool SiteVisitor::VisitBinaryOperator(BinaryOperator *BO) {
  if (BO->getOpcode() != BO_Div)
    return true;
  const Expr *L = stripParens(BO->getLHS()), *R = stripParens(BO->getRHS());
  // Which rewrite this division gets, most specific first.
  const CallExpr *Sqrt = nullptr;
  if (isOne(L))
    if (const auto *C = dyn_cast<CallExpr>(R))
      if (const FunctionDecl *FD = C->getDirectCallee())
        if (isLibraryFunction(FD) && C->getNumArgs() == 1 &&
            (FD->getName() == "sqrtf" || FD->getName() == "sqrt"))
          Sqrt = C;
  StringRef Op = Sqrt && Ops.count("rsqrt") ? "rsqrt"
                 : isOne(L) && Ops.count("rcp") ? "rcp"
                 : Ops.count("div")              ? "div"
                                                 : "";
  if (Op.empty())
    return true;
  switch (getPrecision(BO->getType())) {
  case Precision::Float:
    break;
  case Precision::Double:
    addSite(BO, false,
            "double-precision division: fast-math intrinsics are float-only");
    return true;
  case Precision::Dependent:
    addSite(BO, false,
            "division whose type depends on a template parameter");
    return true;
  case Precision::Other:
    return true; // integer division: not a floating-point site
  }
  if (Op == "rsqrt" && getPrecision(Sqrt->getArg(0)->getType()) !=
                           Precision::Float) {
    addSite(BO, false, "'1/sqrt' of a double: rsqrtf would lose precision");
    return true;
  }
  if (BO->isEvaluatable(Ctx)) {
    addSite(BO, false, "constant division, folded at compile time");
    return true;
  }
  std::string Blocker = getBlocker({BO, L, R});
  if (Blocker.empty() && Sqrt)
    Blocker = getBlocker({Sqrt->getArg(0)});
  if (!Blocker.empty()) {
    addSite(BO, false, Blocker);
    return true;
  }
  StringRef What = Op == "rsqrt" ? "1/sqrtf(x) -> rsqrtf(x)"
                   : Op == "rcp" ? "1/x -> __frcp_rn(x)"
                                 : "x/y -> __fdividef(x, y)";
  *addSite(BO, true, What) = [&RC = RC, BO, L, R, Sqrt,
                              Op = Op.str()](EditBatch &Edits) {
    rewriteDivision(RC, Edits, BO, L, R, Sqrt, Op);
  };
  return true;
}

void rewriteDivision(const RewriteContext &RC, EditBatch &Edits,
                     const BinaryOperator *BO, const Expr *L, const Expr *R,
                     const CallExpr *Sqrt, StringRef Op) {
  // The result is a call: parentheses written around the division go.
  const Expr *Outer = getWithParens(RC, BO);
  unsigned Begin = Edits.beginOf(Outer->getSourceRange());
  unsigned End = Edits.endOf(Outer->getSourceRange());
  if (Op == "rsqrt") {
    const Expr *A = stripParens(Sqrt->getArg(0));
    Edits.replace(Begin, Edits.beginOf(A->getSourceRange()), "rsqrtf(");
    Edits.replace(Edits.endOf(A->getSourceRange()), End, ")");
  } else if (Op == "rcp") {
    Edits.replace(Begin, Edits.beginOf(R->getSourceRange()), "__frcp_rn(");
    Edits.replace(Edits.endOf(R->getSourceRange()), End, ")");
  } else {
    Edits.replace(Begin, Edits.beginOf(L->getSourceRange()), "__fdividef(");
    Edits.replace(Edits.endOf(L->getSourceRange()),
                  Edits.beginOf(R->getSourceRange()), ", ");
    Edits.replace(Edits.endOf(R->getSourceRange()), End, ")");
  }
}

StringSet<> parseOps(const RewriteParams &P) {
  std::string Text = P.getString("ops", "all");
  if (Text == "all")
    Text = AllOps;
  StringSet<> Ops;
  SmallVector<StringRef, 16> Parts;
  StringRef(Text).split(Parts, '+');
  for (StringRef Op : Parts)
    Ops.insert(Op.trim());
  return Ops;
}

Expected<std::vector<Rewrite::PlannedSite>>
FastMath::plan(RewriteContext &RC, const RewriteParams &P) const {
  StringSet<> Ops = parseOps(P);
  std::vector<SiteVisitor::PlannedSite> Found;
  for (const DeviceCode &DC : collectDeviceCode(RC.getASTContext())) {
    SiteVisitor V(RC, P, Ops, DC, Found);
    V.TraverseStmt(DC.Fn->getBody());
  }
  std::vector<PlannedSite> Sites;
  for (auto &[Site, Edit] : Found)
    Sites.push_back({std::move(Site), std::move(Edit)});
  return std::move(Sites);
}

} // namespace

std::unique_ptr<Rewrite> createFastMath() {
  return std::make_unique<FastMath>();
}

} // namespace astra
