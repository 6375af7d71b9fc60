//===- FastMath.cpp - Fast CUDA math intrinsics ---------------------------===//
//
// fast-math[:ops=exp+div+...]: in the device code of kernels (their bodies and
// the __device__ functions they reach, called by name or passed as template
// arguments: DeviceFunctions.h) replaces float math with the CUDA fast
// intrinsics:
//   expf -> __expf, exp10f -> __exp10f, logf/log2f/log10f -> __logf/...,
//   sinf/cosf/tanf/sincosf -> __sinf/..., powf -> __powf,
//   1/sqrtf(x) -> rsqrtf(x), 1/x -> __frcp_rn(x), x/y -> __fdividef(x, y).
// Only functions with a real intrinsic are rewritten. Accuracy is judged by the
// harness against the original, so every float site is legal; double-precision
// sites, template-dependent overloads, __host__ __device__ functions (host
// code must not change), functions defined outside the input file and code
// inside macro expansions are refused.
//
//===----------------------------------------------------------------------===//
#include "Dataflow.h"
#include "EditBatch.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/DeviceFunctions.h"
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
    for (StringRef Op : {"exp", "exp10", "log", "log2", "log10", "sin", "cos",
                         "tan", "sincos", "pow"}) {
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
  bool reachesDeviceFunctions() const override { return true; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// A kernel, or a device function kernels reach.
struct DeviceCode {
  const FunctionDecl *Fn;
  const DeviceFunction *Callee = nullptr; ///< null for a kernel
};

/// Kernels, then the device functions they reach (DeviceFunctions.h).
std::vector<DeviceCode>
collectDeviceCode(ASTContext &Ctx, const std::vector<DeviceFunction> &Fns) {
  std::vector<DeviceCode> Code;
  for (const FunctionDecl *K : findKernels(Ctx))
    Code.push_back({K, nullptr});
  for (const DeviceFunction &DF : Fns)
    if (DF.HasBody)
      Code.push_back({DF.Fn, &DF});
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
    if (!DC.Callee)
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
  if (!DC.Callee) {
    Site.Kernel = DC.Fn->getNameAsString();
    std::vector<const Stmt *> Loops = getEnclosingLoops(Ctx, S, LoopIds);
    if (!Loops.empty())
      Site.LoopId = LoopIds.lookup(Loops.front());
    // loop= selects what any enclosing loop holds.
    Site.Selected = (P.Kernel.empty() || P.Kernel == Site.Kernel) &&
                    (P.Function.empty() || P.Function == Site.Kernel) &&
                    (P.Loop.empty() || any_of(Loops, [&](const Stmt *L) {
                       return LoopIds.lookup(L) == P.Loop;
                     }));
  } else {
    markDeviceFunctionSite(Site, *DC.Callee, P);
  }
  Site.Detail = Detail.str();
  Sites.emplace_back(std::move(Site), nullptr);
  return Applicable ? &Sites.back().second : nullptr;
}

std::string SiteVisitor::getBlocker(std::initializer_list<const Expr *> Parts) {
  if (DC.Callee && !DC.Callee->InMainFile)
    return getOutsideReason(RC, *DC.Callee);
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
  StringRef Op = Sqrt && Ops.count("rsqrt")     ? "rsqrt"
                 : isOne(L) && Ops.count("rcp") ? "rcp"
                 : Ops.count("div")             ? "div"
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
    addSite(BO, false, "division whose type depends on a template parameter");
    return true;
  case Precision::Other:
    return true; // integer division: not a floating-point site
  }
  if (Op == "rsqrt" &&
      getPrecision(Sqrt->getArg(0)->getType()) != Precision::Float) {
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
  std::vector<DeviceFunction> Fns = findDeviceFunctions(RC.getASTContext());
  for (const DeviceCode &DC : collectDeviceCode(RC.getASTContext(), Fns)) {
    SiteVisitor V(RC, P, Ops, DC, Found);
    V.TraverseStmt(DC.Fn->getBody());
  }
  // A function passed as a template argument whose body is not in the
  // translation unit: its math cannot be seen, which is worth saying.
  for (const DeviceFunction &DF : Fns) {
    if (DF.HasBody)
      continue;
    RewriteSite Site;
    Site.Loc = RC.getDiagLoc(DF.Fn->getLocation());
    markDeviceFunctionSite(Site, DF, P);
    Site.Detail = "'" + DF.Name + "' is passed as template argument '" +
                  DF.TemplateParam + "' of " + join(DF.ReachedFrom, ", ") +
                  " but not defined in this translation unit: its math "
                  "cannot be seen";
    Found.emplace_back(std::move(Site), nullptr);
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
