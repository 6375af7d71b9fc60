//===- CoarsenLoads.cpp - One pack for a coarsened thread's loads ---------===//
//
// See CoarsenLoads.h.
//
//===----------------------------------------------------------------------===//
#include "CoarsenLoads.h"
#include "Dataflow.h"
#include "FreshName.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

bool isHalfRecord(QualType T) {
  const auto *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         (RD->getName() == "__half" || RD->getName() == "__nv_bfloat16") &&
         RD->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

/// The element that \p E converts, through parentheses, arithmetic casts and
/// the conversions of __half and __nv_bfloat16 (each takes +0 to +0); null
/// when \p E is anything else.
const ArraySubscriptExpr *getConvertedElement(const Expr *E,
                                              unsigned Depth = 0) {
  if (!E || Depth > 16)
    return nullptr;
  E = E->IgnoreParens();
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    return A;
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    switch (Cast->getCastKind()) {
    case CK_LValueToRValue:
    case CK_NoOp:
    case CK_IntegralCast:
    case CK_FloatingCast:
    case CK_IntegralToFloating:
    case CK_FloatingToIntegral:
      break;
    case CK_UserDefinedConversion:
    case CK_ConstructorConversion:
      if (!isHalfRecord(Cast->getSubExpr()->getType()))
        return nullptr;
      break;
    default:
      return nullptr;
    }
    if (!Cast->getType()->isArithmeticType() && !isHalfRecord(Cast->getType()))
      return nullptr;
    return getConvertedElement(Cast->getSubExpr(), Depth + 1);
  }
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(E)) {
    if (!isa_and_nonnull<CXXConversionDecl>(M->getMethodDecl()) ||
        M->getNumArgs() != 0 ||
        !isHalfRecord(M->getImplicitObjectArgument()->getType()) ||
        !M->getType()->isArithmeticType())
      return nullptr;
    return getConvertedElement(M->getImplicitObjectArgument(), Depth + 1);
  }
  // A copy of the element (a by-value argument of __bfloat162float).
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor || !Ctor->isCopyOrMoveConstructor() || !Ctor->isTrivial() ||
        CE->getNumArgs() != 1 || !isHalfRecord(CE->getType()))
      return nullptr;
    return getConvertedElement(CE->getArg(0), Depth + 1);
  }
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return getConvertedElement(M->getSubExpr(), Depth + 1);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    std::string Name = getCalleeName(Call);
    if ((Name == "__bfloat162float" || Name == "__half2float") &&
        Call->getNumArgs() == 1)
      return getConvertedElement(Call->getArg(0), Depth + 1);
  }
  return nullptr;
}

/// A literal +0 (0, 0u, 0.0f, through casts): the value v keeps where the
/// guard fails.
bool isZeroLiteral(const Expr *E) {
  E = stripCasts(E);
  if (const auto *I = dyn_cast_or_null<IntegerLiteral>(E))
    return I->getValue().isZero();
  if (const auto *F = dyn_cast_or_null<FloatingLiteral>(E))
    return F->getValue().isPosZero();
  return false;
}

/// The three forms of the header: v, the guard (may be null), the
/// converting expression and the type it is converted from before v's (the
/// conditional's). Empty V when \p S is none of them.
struct Shape {
  const VarDecl *V = nullptr;
  const Expr *Guard = nullptr, *Conv = nullptr;
  QualType ConvType;
};

Shape matchShape(const Stmt *S) {
  Shape Sh;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable() ||
        If->isConsteval() || If->isConstexpr())
      return Sh;
    const Stmt *Then = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Then)) {
      if (CS->size() != 1)
        return Sh;
      Then = CS->body_front();
    }
    const auto *Assign = dyn_cast<BinaryOperator>(Then);
    if (!Assign || Assign->getOpcode() != BO_Assign)
      return Sh;
    const auto *Ref = dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParens());
    Sh.V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    Sh.Guard = If->getCond();
    Sh.Conv = Assign->getRHS();
    Sh.ConvType = Sh.V ? Sh.V->getType() : QualType();
    return Sh;
  }
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS || !DS->isSingleDecl())
    return Sh;
  const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!V || !V->getInit() || V->getInitStyle() != VarDecl::CInit)
    return Sh;
  const Expr *Init = V->getInit()->IgnoreImpCasts()->IgnoreParens();
  if (const auto *CO = dyn_cast<ConditionalOperator>(Init)) {
    if (!isZeroLiteral(CO->getFalseExpr()))
      return Sh;
    Sh.Guard = CO->getCond();
    Sh.Conv = CO->getTrueExpr();
    Sh.ConvType = CO->getType();
  } else {
    Sh.Conv = V->getInit();
    Sh.ConvType = V->getType();
  }
  Sh.V = V;
  return Sh;
}

/// Whether evaluating \p E again changes nothing: no assignment, increment
/// or volatile read (HasSideEffects' definite effects) and no call but the
/// built-in variables' and pure math functions.
bool isPure(ASTContext &Ctx, const Stmt *S) {
  if (!S)
    return true;
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
      return false;
    if (isa<PseudoObjectExpr>(E))
      return !getBuiltinVarName(E).empty();
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (!isPureMathFunction(getCalleeName(Call)))
        return false;
  }
  for (const Stmt *Child : S->children())
    if (!isPure(Ctx, Child))
      return false;
  return true;
}

bool readsVar(const Stmt *S, const VarDecl *V) {
  return S && !findRefs(S, V).empty();
}

} // namespace

std::string findPackedLoad(RewriteContext &RC, const Stmt *Body,
                           ArrayRef<const Stmt *> PhaseA,
                           const AffineScope &Scope, int64_t C, StringRef CVar,
                           StringSet<> &Taken, PackedLoad &L) {
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = RC.getSourceManager();
  size_t At = 0;
  Shape Sh;
  for (; At < PhaseA.size(); ++At) {
    Sh = matchShape(PhaseA[At]);
    if (Sh.V && getConvertedElement(Sh.Conv))
      break;
  }
  if (At == PhaseA.size())
    return "no per-thread value loaded before the leaf as `if (g) v = "
           "f(p[i]);`, `T v = g ? f(p[i]) : 0;` or `T v = f(p[i]);` (f: "
           "casts, __bfloat162float, __half2float)";
  const VarDecl *V = Sh.V;
  std::string VN = "'" + V->getNameAsString() + "'";
  QualType VT = V->getType();
  if (!VT->isArithmeticType() || VT.isVolatileQualified() ||
      V->isStaticLocal() || VT->isReferenceType())
    return VN + " is not a non-volatile arithmetic local";
  // v's declaration: the load itself, or an earlier statement of the
  // per-thread work that declares only v, with a literal zero.
  const Stmt *VDecl = nullptr;
  for (size_t I = 0; I <= At; ++I)
    if (llvm::is_contained(declaredBy(PhaseA[I]), V))
      VDecl = PhaseA[I];
  if (!VDecl)
    return VN + " is not declared in the per-thread work";
  if (VDecl != PhaseA[At] && (!cast<DeclStmt>(VDecl)->isSingleDecl() ||
                              !V->getInit() || !isZeroLiteral(V->getInit())))
    return VN + " is not declared alone with a literal zero before `if (" +
           RC.getText(Sh.Guard->getSourceRange()).str() + ")` loads it";
  const ArraySubscriptExpr *Elem = getConvertedElement(Sh.Conv);
  const auto *P = dyn_cast_or_null<ParmVarDecl>(
      getReferencedVar(Elem->getBase()->IgnoreParenImpCasts()));
  if (!P || !P->getType()->isPointerType() || Scope.CV.mayChange(P))
    return "the load's pointer is not a parameter that the kernel leaves "
           "alone";
  QualType E = P->getType()->getPointeeType();
  if (E->isDependentType() || !E.isConstQualified() ||
      E.isVolatileQualified() ||
      !((E->isArithmeticType() && !E->isBooleanType()) || isHalfRecord(E)) ||
      !E.isTriviallyCopyableType(Ctx))
    return "the load's element type `" + E.getAsString() +
           "` is not a const arithmetic type, __half or __nv_bfloat16";
  if (const auto *RD = E->getAsCXXRecordDecl();
      RD && !RD->hasTrivialDefaultConstructor())
    return "the load's element type `" + E.getAsString() +
           "` has a default constructor of its own (a union cannot hold it)";
  if (Sh.Guard && (!isPure(Ctx, Sh.Guard) || readsVar(Sh.Guard, V)))
    return "the load's guard `" + RC.getText(Sh.Guard->getSourceRange()).str() +
           "` may have side effects (a call other than a math function, an "
           "assignment) or reads " +
           VN;
  if (!isPure(Ctx, Elem->getIdx()) || readsVar(Elem->getIdx(), V))
    return "the load's index may have side effects or reads " + VN;
  std::string Why;
  if (!risesByOnePerThread(Ctx, Elem->getIdx(), Scope, Why))
    return "the load's index does not rise by one per thread (" + Why + ")";
  unsigned Size = Ctx.getTypeSizeInChars(E).getQuantity();
  unsigned Total = Size * C;
  L.PackBytes = Total % 16 == 0  ? 16
                : Total % 8 == 0 ? 8
                : Total % 4 == 0 ? 4
                                 : 0;
  if (!L.PackBytes || L.PackBytes % Size)
    return std::to_string(C) + " elements of " + std::to_string(Size) +
           " bytes fill no whole 4-byte word";
  L.Packs = Total / L.PackBytes;
  L.PackType = L.PackBytes == 16  ? "uint4"
               : L.PackBytes == 8 ? "uint2"
                                  : "unsigned int";
  L.Zero = L.PackBytes == 16  ? "make_uint4(0u, 0u, 0u, 0u)"
           : L.PackBytes == 8 ? "make_uint2(0u, 0u)"
                              : "0u";
  // Every other use of v reads it, after the load.
  for (const DeclRefExpr *R : findRefs(Body, V)) {
    if (inRange(SM, R->getBeginLoc(), PhaseA[At]))
      continue;
    bool Before = llvm::any_of(PhaseA.take_front(At), [&](const Stmt *S) {
      return inRange(SM, R->getBeginLoc(), S);
    });
    DynTypedNodeList Ps = Ctx.getParents(*R);
    const auto *Read = Ps.size() == 1 ? Ps[0].get<ImplicitCastExpr>() : nullptr;
    if (Before || !Read || Read->getCastKind() != CK_LValueToRValue)
      return VN + " is " + (Before ? "used before" : "used other than read") +
             " at " + getLineCol(RC, R->getBeginLoc()) +
             " (only reads after its load can read the pack)";
    L.Reads.insert(R->getBeginLoc().getRawEncoding());
  }
  PrintingPolicy PP(Ctx.getLangOpts());
  L.V = V;
  L.Load = PhaseA[At];
  L.VDecl = VDecl;
  L.Guard = Sh.Guard;
  L.Element = Elem;
  L.ElemType = E.getUnqualifiedType().getAsString(PP);
  std::string Stem = P->getNameAsString();
  L.Pack = makeFreshName(Ctx, Stem + "Pack", Taken);
  L.All = makeFreshName(Ctx, Stem + "All", Taken);
  std::string Conv = spliceText(
      RC, Sh.Conv->getSourceRange(),
      {{Elem->getSourceRange(), L.Pack + ".Elem[" + CVar.str() + "]"}});
  std::string VTs = VT.getUnqualifiedType().getAsString(PP);
  std::string CTs = Sh.ConvType.getUnqualifiedType().getAsString(PP);
  if (!Ctx.hasSameUnqualifiedType(VT, Sh.ConvType))
    Conv = "static_cast<" + CTs + ">(" + Conv + ")";
  L.ReadText = "static_cast<" + VTs + ">(" + Conv + ")";
  return "";
}

void editPackedReads(const PackedLoad &L, TextEdits &Edits) {
  for (auto &[Range, Text] : Edits)
    if (L.Reads.count(Range.getBegin().getRawEncoding()))
      Text = L.ReadText;
}

std::string declarePackedLoad(const PackedLoad &L, int64_t C) {
  return "union {\n" + L.PackType + " Pack[" + std::to_string(L.Packs) +
         "];\n" + L.ElemType + " Elem[" + std::to_string(C) + "];\n} " +
         L.Pack + ";\n";
}

std::string writePackedLoad(RewriteContext &RC, const PackedLoad &L,
                            ArrayRef<const Expr *> ThreadX,
                            const DenseSet<const VarDecl *> &PT, int64_t C,
                            StringRef CVar, StringRef TVar) {
  const SourceManager &SM = RC.getSourceManager();
  std::string Cs = std::to_string(C);
  // `S` as copy K of the original threads computes it.
  auto AtCopy = [&](const Stmt *S, const std::string &K,
                    const std::string &Tid) {
    return spliceText(RC, S->getSourceRange(),
                      copyEdits(SM, S, ThreadX, PT, Tid, K));
  };
  auto Fixed = [&](const Stmt *S, int64_t K) {
    std::string Ks = std::to_string(K);
    return AtCopy(S, Ks, "(threadIdx.x * " + Cs + " + " + Ks + ")");
  };
  std::string First = "&(" + Fixed(L.Element, 0) + ")";
  std::string Loop = "#pragma unroll\nfor (int " + CVar.str() + " = 0; " +
                     CVar.str() + " < " + Cs + "; ++" + CVar.str() +
                     ") {\nconst unsigned int " + TVar.str() +
                     " = threadIdx.x * " + Cs + " + " + CVar.str() + ";\n";
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "// astra-opt coarsen: the loads of '" << L.V->getName() << "', as "
     << L.Packs << " " << L.PackBytes << "-byte pack(s) when "
     << (L.Guard ? "every guard holds, " : "")
     << "the last element follows the first by " << C - 1
     << " and the first is aligned (the index rises by one per thread: then "
        "so do all between), else one by one; '"
     << L.V->getName() << "' is read from them\n";
  if (L.Guard)
    OS << "bool " << L.All << " = true;\n"
       << Loop << L.All << " = " << L.All << " && ("
       << AtCopy(L.Guard, CVar.str(), TVar.str()) << ");\n}\n";
  OS << "if (" << (L.Guard ? L.All + " &&\n" : "") << "&("
     << Fixed(L.Element, C - 1) << ") == " << First << " + " << C - 1
     << " &&\nreinterpret_cast<unsigned long long>(" << First << ") % "
     << L.PackBytes << " == 0) {\n#pragma unroll\nfor (int " << CVar << " = 0; "
     << CVar << " < " << L.Packs << "; ++" << CVar << ")\n  " << L.Pack
     << ".Pack[" << CVar << "] = reinterpret_cast<const " << L.PackType
     << " *>(" << First << ")[" << CVar << "];\n"
     << "} else {\n#pragma unroll\nfor (int " << CVar << " = 0; " << CVar
     << " < " << L.Packs << "; ++" << CVar << ")\n  " << L.Pack << ".Pack["
     << CVar << "] = " << L.Zero << ";\n"
     << Loop;
  std::string Elem = AtCopy(L.Element, CVar.str(), TVar.str());
  if (L.Guard)
    OS << "if (" << AtCopy(L.Guard, CVar.str(), TVar.str()) << ")\n  ";
  OS << L.Pack << ".Elem[" << CVar << "] = " << Elem << ";\n}\n}\n";
  return Out;
}

} // namespace astra
