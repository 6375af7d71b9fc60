//===- RewriteUtil.cpp - Helpers shared by the rewrites -------------------===//
#include "RewriteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

using namespace llvm;
using namespace clang;

namespace astra {

Error checkParamKeys(const Rewrite &R, const RewriteParams &P) {
  std::vector<ParamDesc> Known = R.getParams();
  for (const auto &KV : P.Values) {
    if (any_of(Known, [&](const ParamDesc &D) { return D.Key == KV.getKey(); }))
      continue;
    std::vector<std::string> Names;
    for (const ParamDesc &D : Known)
      Names.push_back(D.Key);
    Names.push_back("kernel");
    Names.push_back("loop");
    return makeInputError("rewrite '" + R.getName() + "': unknown parameter '" +
                          KV.getKey() + "'; parameters: " + join(Names, ", "));
  }
  return Error::success();
}

Expected<int64_t> getIntInRange(const RewriteParams &P, StringRef Key,
                                int64_t Default, int64_t Lo, int64_t Hi) {
  Expected<int64_t> V = P.getInt(Key, Default);
  if (V && (*V < Lo || *V > Hi))
    return makeInputError("rewrite '" + P.Name + "': parameter '" + Key +
                          "' must be between " + Twine(Lo) + " and " +
                          Twine(Hi) + ", got " + Twine(*V));
  return V;
}

bool isSelected(const RewriteParams &P, StringRef Kernel, StringRef LoopId) {
  return (P.Kernel.empty() || P.Kernel == Kernel) &&
         (P.Loop.empty() || P.Loop == LoopId);
}

DenseMap<const Stmt *, std::string> getLoopIds(const FunctionDecl *Kernel) {
  DenseMap<const Stmt *, std::string> Ids;
  std::vector<const Stmt *> Loops = collectLoops(Kernel->getBody());
  for (unsigned I = 0; I < Loops.size(); ++I)
    Ids[Loops[I]] = makeLoopId(Kernel->getNameAsString(), I);
  return Ids;
}

static CharSourceRange getEditableRange(const RewriteContext &RC,
                                        SourceRange R) {
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

const Expr *stripParens(const Expr *E) {
  E = E->IgnoreImplicit();
  while (const auto *P = dyn_cast<ParenExpr>(E))
    E = P->getSubExpr()->IgnoreImplicit();
  return E;
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

bool isCudaBuiltinIndex(const Expr *E) {
  const auto *POE = dyn_cast<PseudoObjectExpr>(E->IgnoreParenImpCasts());
  if (!POE)
    return false;
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(POE->getSyntacticForm());
  if (!Prop)
    return false;
  const Expr *B = Prop->getBaseExpr()->IgnoreParens();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(B))
    B = OVE->getSourceExpr()->IgnoreParens();
  const auto *Base = dyn_cast_or_null<DeclRefExpr>(B);
  if (!Base)
    return false;
  StringRef Name = Base->getDecl()->getName();
  return Name == "threadIdx" || Name == "blockIdx" || Name == "blockDim" ||
         Name == "gridDim";
}

//===----------------------------------------------------------------------===//
// EditBatch
//===----------------------------------------------------------------------===//

CharSourceRange EditBatch::getFileRange(SourceRange R) const {
  return getEditableRange(RC, R);
}

unsigned EditBatch::beginOf(SourceRange R) const {
  CharSourceRange FR = getFileRange(R);
  return FR.isValid() ? RC.getSourceManager().getFileOffset(FR.getBegin())
                      : ~0u;
}

unsigned EditBatch::endOf(SourceRange R) const {
  CharSourceRange FR = getFileRange(R);
  return FR.isValid() ? RC.getSourceManager().getFileOffset(FR.getEnd()) : ~0u;
}

void EditBatch::replace(unsigned Begin, unsigned End, StringRef Text) {
  if (Begin == ~0u || End == ~0u || End < Begin) {
    Invalid = true;
    return;
  }
  Edits.push_back(
      {Begin, End, Text.str(), static_cast<unsigned>(Edits.size())});
}

Error EditBatch::commit() {
  if (Invalid)
    return makeInternalError("a rewrite tried to edit code inside a macro "
                             "expansion or outside the input file");
  llvm::stable_sort(Edits, [](const Edit &A, const Edit &B) {
    bool AIns = A.Begin == A.End, BIns = B.Begin == B.End;
    if (A.Begin != B.Begin)
      return A.Begin < B.Begin;
    if (AIns != BIns)
      return AIns;
    return A.Seq < B.Seq;
  });
  const SourceManager &SM = RC.getSourceManager();
  FileID Main = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(Main);
  SourceLocation Start = SM.getLocForStartOfFile(Main);
  for (size_t I = 0; I < Edits.size();) {
    unsigned GroupBegin = Edits[I].Begin, GroupEnd = Edits[I].End;
    std::string Text;
    unsigned Cur = GroupBegin;
    size_t J = I;
    for (; J < Edits.size() && (J == I || Edits[J].Begin <= GroupEnd); ++J) {
      if (Edits[J].Begin < Cur)
        return makeInternalError("a rewrite made overlapping edits");
      Text += Buf.slice(Cur, Edits[J].Begin);
      Text += Edits[J].Text;
      Cur = std::max(Cur, Edits[J].End);
      GroupEnd = std::max(GroupEnd, Edits[J].End);
    }
    if (Error E = RC.replace(
            CharSourceRange::getCharRange(Start.getLocWithOffset(GroupBegin),
                                          Start.getLocWithOffset(GroupEnd)),
            Text))
      return E;
    I = J;
  }
  Edits.clear();
  return Error::success();
}

bool insertLineBefore(const RewriteContext &RC, EditBatch &Edits, const Stmt *S,
                      StringRef Text) {
  // A loop with `#pragma unroll` is an AttributedStmt that starts at the
  // pragma's argument: insert before the pragma line.
  SourceLocation Loc = S->getBeginLoc();
  unsigned Off = Edits.beginOf(SourceRange(Loc, Loc));
  if (Off == ~0u)
    return false;
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  size_t LineStart = Buf.rfind('\n', Off);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  StringRef Before = Buf.slice(LineStart, Off);
  StringRef Indent =
      Before.take_while([](char C) { return C == ' ' || C == '\t'; });
  bool IsPragma =
      isa<AttributedStmt>(S) && Before.trim().starts_with("#pragma");
  if (!Before.trim().empty() && !IsPragma)
    return false;
  Edits.insert(LineStart, (Indent + Text + "\n").str());
  return true;
}

void insertAtBodyStart(const RewriteContext &RC, EditBatch &Edits,
                       const CompoundStmt *Body, StringRef Text) {
  if (!Body->body_empty() &&
      insertLineBefore(RC, Edits, Body->body_front(), Text))
    return;
  Edits.insert(Edits.beginOf(Body->getLBracLoc()) + 1, ("\n" + Text).str());
}

std::string makeFreshName(ASTContext &Ctx, StringRef Base, StringSet<> &Taken) {
  for (unsigned N = 0;; ++N) {
    std::string Name = N ? (Base + Twine(N)).str() : Base.str();
    if (Ctx.Idents.find(Name) == Ctx.Idents.end() && !Taken.count(Name)) {
      Taken.insert(Name);
      return Name;
    }
  }
}

//===----------------------------------------------------------------------===//
// Uses of variables
//===----------------------------------------------------------------------===//

UseKind classifyUse(ASTContext &Ctx, const Expr *E) {
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return UseKind::Escape;
    if (const auto *P = Parents[0].get<ParenExpr>()) {
      Cur = P;
      continue;
    }
    if (const auto *Cast = Parents[0].get<ImplicitCastExpr>()) {
      if (Cast->getCastKind() == CK_LValueToRValue)
        return UseKind::Read;
      if (Cast->getCastKind() == CK_NoOp) {
        Cur = Cast;
        continue;
      }
      return UseKind::Escape;
    }
    // An index is read by value (in template code it has no implicit load).
    if (const auto *Sub = Parents[0].get<ArraySubscriptExpr>())
      return Sub->getIdx() == Cur ? UseKind::Read : UseKind::Escape;
    if (const auto *UO = Parents[0].get<UnaryOperator>())
      return UO->isIncrementDecrementOp() ? UseKind::Write : UseKind::Escape;
    if (const auto *BO = Parents[0].get<BinaryOperator>())
      return BO->isAssignmentOp() && BO->getLHS() == Cur ? UseKind::Write
                                                         : UseKind::Escape;
    return UseKind::Escape;
  }
}

namespace {
class UseCollector : public RecursiveASTVisitor<UseCollector> {
public:
  UseCollector(ASTContext &Ctx, SourceRange Region,
               SmallPtrSetImpl<const VarDecl *> &Changed,
               SmallPtrSetImpl<const VarDecl *> &Escaped)
      : Ctx(Ctx), Region(Region), Changed(Changed), Escaped(Escaped) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || !V->hasLocalStorage())
      return true;
    UseKind K = classifyUse(Ctx, E);
    if (K == UseKind::Escape)
      Escaped.insert(V);
    else if (K == UseKind::Write && inRegion(E->getBeginLoc()))
      Changed.insert(V);
    return true;
  }
  bool inRegion(SourceLocation L) const {
    const SourceManager &SM = Ctx.getSourceManager();
    L = SM.getExpansionLoc(L);
    return !SM.isBeforeInTranslationUnit(
               L, SM.getExpansionLoc(Region.getBegin())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Region.getEnd()),
                                         L);
  }

private:
  ASTContext &Ctx;
  SourceRange Region;
  SmallPtrSetImpl<const VarDecl *> &Changed, &Escaped;
};
} // namespace

ChangedVars::ChangedVars(ASTContext &Ctx, const FunctionDecl *Fn,
                         const Stmt *RegionStmt)
    : SM(Ctx.getSourceManager()), Region(RegionStmt->getSourceRange()) {
  UseCollector C(Ctx, Region, Changed, Escaped);
  C.TraverseStmt(Fn->getBody());
}

bool ChangedVars::isDeclaredInside(const VarDecl *V) const {
  SourceLocation L = SM.getExpansionLoc(V->getLocation());
  return !SM.isBeforeInTranslationUnit(L,
                                       SM.getExpansionLoc(Region.getBegin())) &&
         !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Region.getEnd()), L);
}

//===----------------------------------------------------------------------===//
// Invariance
//===----------------------------------------------------------------------===//

bool isPureMathFunction(StringRef Name) {
  static const StringSet<> Pure = [] {
    StringSet<> S;
    for (StringRef Base :
         {"exp",   "exp2",  "exp10", "expm1", "log",   "log2",  "log10",
          "log1p", "sqrt",  "rsqrt", "cbrt",  "rcbrt", "sin",   "cos",
          "tan",   "sinh",  "cosh",  "tanh",  "asin",  "acos",  "atan",
          "atan2", "pow",   "fabs",  "fmin",  "fmax",  "floor", "ceil",
          "trunc", "round", "rint",  "fma",   "hypot", "erf",   "erfc",
          "sinpi", "cospi"}) {
      S.insert(Base);
      S.insert((Base + "f").str());
    }
    for (StringRef Intrinsic :
         {"__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
          "__cosf", "__tanf", "__powf", "__fdividef", "__frcp_rn", "__fsqrt_rn",
          "__frsqrt_rn", "__saturatef", "min", "max"})
      S.insert(Intrinsic);
    return S;
  }();
  return Pure.count(Name);
}

static std::string print(ASTContext &Ctx, const Stmt *S) {
  std::string Text;
  raw_string_ostream OS(Text);
  S->printPretty(OS, nullptr, PrintingPolicy(Ctx.getLangOpts()));
  return Text;
}

bool isInvariant(ASTContext &Ctx, const Expr *E, const ChangedVars &CV,
                 std::string &Why, bool AllowIntDivision) {
  E = E->IgnoreParens();
  auto Fail = [&](const Twine &Msg) {
    Why = Msg.str();
    return false;
  };
  auto All = [&](std::initializer_list<const Expr *> Subs) {
    for (const Expr *Sub : Subs)
      if (!isInvariant(Ctx, Sub, CV, Why, AllowIntDivision))
        return false;
    return true;
  };
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr>(E) ||
      isCudaBuiltinIndex(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return Fail("'" + D->getName() + "' is not a variable");
    if (V->getType()->isReferenceType())
      return Fail("'" + V->getName() + "' is a reference");
    if (!V->hasLocalStorage())
      return V->getType().isConstQualified() &&
                     !V->getType().isVolatileQualified()
                 ? true
                 : Fail("'" + V->getName() +
                        "' is a non-const global that the loop may change");
    if (CV.isDeclaredInside(V))
      return Fail("'" + V->getName() + "' is declared inside the loop");
    if (CV.mayChange(V))
      return Fail("'" + V->getName() +
                  "' is modified in the loop or has its address taken");
    return true;
  }
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    if (Cast->getCastKind() == CK_UserDefinedConversion ||
        Cast->getCastKind() == CK_ConstructorConversion ||
        (isa<ExplicitCastExpr>(E) && !E->getType()->isArithmeticType()))
      return Fail("'" + print(Ctx, E) + "' is not a plain arithmetic cast");
    return All({Cast->getSubExpr()});
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    switch (UO->getOpcode()) {
    case UO_Plus:
    case UO_Minus:
    case UO_Not:
    case UO_LNot:
      return All({UO->getSubExpr()});
    default:
      return Fail("'" + print(Ctx, E) + "' reads memory or has side effects");
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp() || BO->isCommaOp())
      return Fail("'" + print(Ctx, E) + "' has side effects");
    if ((BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Rem) &&
        !BO->getType()->isRealFloatingType() && !AllowIntDivision)
      return Fail("'" + print(Ctx, E) +
                  "' is an integer division (undefined for a zero divisor, so "
                  "it cannot be evaluated ahead)");
    return All({BO->getLHS(), BO->getRHS()});
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return All({CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr()});
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !isLibraryFunction(FD) || !isPureMathFunction(FD->getName()))
      return Fail("'" + print(Ctx, Call->getCallee()) +
                  "' is not a known side-effect-free math function");
    for (const Expr *Arg : Call->arguments())
      if (!All({Arg}))
        return false;
    return true;
  }
  if (isa<ArraySubscriptExpr, MemberExpr>(E))
    return Fail("'" + print(Ctx, E) + "' reads memory that may change");
  if (E->isTypeDependent() || E->isValueDependent())
    return Fail("'" + print(Ctx, E) + "' depends on a template parameter");
  return Fail("'" + print(Ctx, E) + "' is not analysed");
}

std::vector<const DeclRefExpr *> findRefs(const Stmt *S, const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V = nullptr;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (E->getDecl() == V)
        Refs.push_back(E);
      return true;
    }
  } F;
  F.V = V;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Refs;
}

} // namespace astra
