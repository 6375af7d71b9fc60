//===- VectorizeLoadsPairs.cpp - Buffers stored at two offsets ------------===//
//
// The pairs form of vectorize-loads: a loop, spread over the threads as the
// other forms require, whose straight-line body stores one buffer at two
// offsets a loop-invariant distance apart (rotary embeddings, butterflies):
//
//   for (int i = threadIdx.x; i < n; i += blockDim.x) {
//     int h = i / half, j = i % half;                 // once per pack
//     T *v = x + row * stride + h * head_size;        // once per pack
//     float c = cos[j], s = sin[j];                   // 16-byte loads
//     rotate(v, j, half, c, s);  // v[j], v[half + j]: two 16-byte loads and
//   }                            // stores; the call is inlined per lane
//
// Each thread takes W consecutive indices i (a pack) at a time. What makes
// it correct:
//
// - Lane forms as in the widened form: a value is the same for the W
//   elements of a pack (Inv), the pack's first value plus the lane (Aff:
//   the index, `i % d`), or anything else (Var). `i / d` is Inv and `i % d`
//   Aff only when d is a multiple of W (a guard condition). Declarations of
//   Inv and Aff values run once per pack, before the lanes, with the index
//   bound to the pack's first element; the other statements run per lane
//   with the lane's values, each access that is a lane of a vector access
//   reading or writing that lane of a local union.
// - A vector access: `p[e]` with p declared outside the loop (through body
//   pointers and callee parameters: `p + a`), e unit-stride over the lanes
//   (one Aff term), every other term either known before the loop (checked
//   with the pointer's alignment) or a multiple of W at lane 0.
// - A stored buffer (one pointer, followed to where it comes from) is
//   accessed only through vector accesses, all with the same per-pack part:
//   its accesses differ by loop-invariant distances. The alignment guard
//   makes each distance a multiple of W elements; the guard also checks
//   that it is not zero, so the packs of one iteration are disjoint and
//   each element keeps its own order of reads and writes.
// - Assumed, as by the other forms: no element is accessed by two
//   iterations of the loop when one of them writes it (in a loop spread
//   over threads that would be a data race of the original; rotary: the
//   rotated columns of a head lie inside the head), and distinct stored
//   buffers do not overlap the other buffers the body accesses.
// - A called device function (user code, returning void, straight-line
//   body, parameters by value, template type parameters deducible from the
//   arguments) runs per lane as a block: its parameters become locals
//   initialised with the lane's arguments.
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsPairs.h"
#include "SiteUtil.h"
#include "astra/Frontend/ExprMatch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {

/// Checks one statement (or initializer) of the region: what it writes and
/// calls. Collects its subscripts.
struct Checker : RecursiveASTVisitor<Checker> {
  PairsAnalyzer &P;
  const CallExpr *Inlined; ///< the call the form inlines, if any
  bool InCallee;
  Checker(PairsAnalyzer &P, const CallExpr *Inlined, bool InCallee)
      : P(P), Inlined(Inlined), InCallee(InCallee) {}

  bool TraverseLambdaExpr(LambdaExpr *E) {
    return P.refuse(E->getBeginLoc(), "the body contains a lambda");
  }
  bool VisitStmtExpr(StmtExpr *E) {
    return P.refuse(E->getBeginLoc(), "the body contains a statement "
                                      "expression");
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
    P.Subscripts.push_back(A);
    return true;
  }
  bool VisitExpr(Expr *E) {
    BinaryOperatorKind Op;
    const Expr *L, *R;
    if (matchBinary(E, Op, L, R) && BinaryOperator::isAssignmentOp(Op) &&
        !isa<ArraySubscriptExpr>(L->IgnoreParens()))
      return P.refuse(E->getBeginLoc(),
                      "the body assigns '" + P.text(L) +
                          "'; the pairs form takes bodies that declare "
                          "values and store only to `p[...]`");
    UnaryOperatorKind UOp;
    const Expr *Sub;
    if (matchUnary(E, UOp, Sub)) {
      if (UnaryOperator::isIncrementDecrementOp(UOp) &&
          !isa<ArraySubscriptExpr>(Sub->IgnoreParens()))
        return P.refuse(E->getBeginLoc(), "the body modifies '" + P.text(Sub) +
                                              "'; the pairs form takes "
                                              "bodies that declare values "
                                              "and store only to `p[...]`");
      if (UOp == UO_AddrOf)
        return P.refuse(E->getBeginLoc(),
                        "the body takes the address '" + P.text(E) + "'");
    }
    char Dim = 0;
    if (InCallee &&
        (matchBuiltin(E, "threadIdx", Dim) || matchBuiltin(E, "blockIdx", Dim)))
      return P.refuse(E->getBeginLoc(),
                      "the called function uses '" + P.text(E) +
                          "', which differs between the original's threads "
                          "and the pack's");
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (C == Inlined)
      return true;
    std::string Name = getCalleeName(C);
    if (isBarrierOrCollective(Name))
      return P.refuse(C->getBeginLoc(),
                      "the body calls '" + Name +
                          "'; a barrier or warp collective must see every "
                          "thread's original elements");
    if (StringRef(Name).starts_with("atomic"))
      return P.refuse(C->getBeginLoc(), "the body calls '" + Name +
                                            "'; the pairs form takes no "
                                            "atomics");
    const FunctionDecl *FD = C->getDirectCallee();
    bool User = FD ? !isLibraryFunction(FD)
                   : !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(C);
    bool RefParams = FD && any_of(FD->parameters(), [](const ParmVarDecl *PD) {
                       return PD->getType()->isReferenceType();
                     });
    if (User && (RefParams || any_of(C->arguments(), [](const Expr *A) {
                   return A->isTypeDependent() || A->getType()->isPointerType();
                 })))
      return P.refuse(C->getBeginLoc(),
                      "the body calls '" + Name +
                          "' with a pointer or reference inside an "
                          "expression; only a call that is a statement of "
                          "its own can be inlined");
    return true;
  }
};

} // namespace

PairsAnalyzer::PairsAnalyzer(ASTContext &Ctx, const FunctionDecl *K,
                             const ForStmt *Loop, const VarDecl *IV,
                             unsigned PartitionDeps, VecLoopPlan &Plan)
    : LaneAlgebra(Ctx), Ctx(Ctx), SM(Ctx.getSourceManager()), K(K), Loop(Loop),
      IV(IV), PartitionDeps(PartitionDeps), Plan(Plan),
      KernelWrites(K->getBody()), Deps(KernelWrites) {}

bool PairsAnalyzer::checkExpr(const Stmt *S, const CallExpr *Inlined,
                              bool InCallee) {
  Checker C(*this, Inlined, InCallee);
  C.TraverseStmt(const_cast<Stmt *>(S));
  return Reason.empty();
}

std::string PairsAnalyzer::text(const Stmt *S) const {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(S->getSourceRange()), SM,
             Ctx.getLangOpts())
      .str();
}

const Expr *PairsAnalyzer::seeThrough(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    auto It = VD ? ParamArg.find(VD) : ParamArg.end();
    if (It == ParamArg.end())
      return E;
    E = It->second;
  }
  return E;
}

Lane PairsAnalyzer::formOf(const Expr *E) {
  if (!E)
    return Lane::Inv;
  E = E->IgnoreParens();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return Lane::Inv;
    if (VD == IV)
      return Lane::Aff;
    if (auto It = ParamArg.find(VD); It != ParamArg.end())
      return formOf(It->second);
    auto It = Forms.find(VD);
    return It == Forms.end() ? Lane::Inv : It->second;
  }
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr>(E))
    return Lane::Inv;
  if (const auto *C = dyn_cast<CastExpr>(E))
    return formOfCast(C);
  if (isa<ArraySubscriptExpr>(E))
    return Lane::Var;
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (matchBinary(E, Op, L, R)) {
    if (BinaryOperator::isAssignmentOp(Op))
      return Lane::Var;
    return formOfArithmetic(E, Op, L, R);
  }
  UnaryOperatorKind UOp;
  const Expr *Sub;
  if (matchUnary(E, UOp, Sub)) {
    if (UnaryOperator::isIncrementDecrementOp(UOp) || UOp == UO_Deref ||
        UOp == UO_AddrOf)
      return Lane::Var;
    return formOf(Sub) == Lane::Inv ? Lane::Inv : Lane::Var;
  }
  return formOfOther(E);
}

void PairsAnalyzer::requireDivisible(const std::string &D) {
  if (!is_contained(Plan.DivisibleBy, D))
    Plan.DivisibleBy.push_back(D);
}

const Expr *PairsAnalyzer::valueOf(const VarDecl *VD, bool &IsIndex) const {
  IsIndex = VD == IV;
  if (IsIndex || !Forms.count(VD))
    return nullptr;
  return VD->getInit();
}

bool PairsAnalyzer::isIndexCopy(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    const VarDecl *VD = getIndexVar(seeThrough(E));
    if (!VD)
      return false;
    if (VD == IV)
      return true;
    if (!Forms.count(VD) || !VD->getInit())
      return false;
    E = VD->getInit();
  }
  return false;
}

bool PairsAnalyzer::isGuardEvaluable(const Expr *E) const {
  E = seeThrough(E);
  struct Check : RecursiveASTVisitor<Check> {
    const PairsAnalyzer &P;
    bool OK = true;
    explicit Check(const PairsAnalyzer &P) : P(P) {}
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD == P.IV || P.Forms.count(VD) || P.ParamArg.count(VD))
          OK = false;
      return OK;
    }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) { return OK = false; }
    bool VisitCallExpr(CallExpr *) { return OK = false; }
    bool VisitExpr(Expr *E) {
      BinaryOperatorKind Op;
      const Expr *L, *R;
      UnaryOperatorKind UOp;
      const Expr *Sub;
      if ((matchBinary(E, Op, L, R) && BinaryOperator::isAssignmentOp(Op)) ||
          (matchUnary(E, UOp, Sub) &&
           UnaryOperator::isIncrementDecrementOp(UOp)))
        OK = false;
      return OK;
    }
  } C(*this);
  C.TraverseStmt(const_cast<Expr *>(E));
  return C.OK && !(Deps.get(E) & (PartitionDeps | DepUnknown));
}

std::string PairsAnalyzer::kernelText(const Expr *E) {
  std::map<unsigned, std::pair<unsigned, std::string>> Edits;
  struct Subst : RecursiveASTVisitor<Subst> {
    PairsAnalyzer &P;
    std::map<unsigned, std::pair<unsigned, std::string>> &Edits;
    Subst(PairsAnalyzer &P,
          std::map<unsigned, std::pair<unsigned, std::string>> &Edits)
        : P(P), Edits(Edits) {}
    void put(SourceRange R, std::string Text) {
      unsigned B = P.SM.getFileOffset(P.SM.getFileLoc(R.getBegin()));
      unsigned E = P.SM.getFileOffset(Lexer::getLocForEndOfToken(
          P.SM.getFileLoc(R.getEnd()), 0, P.SM, P.Ctx.getLangOpts()));
      Edits[B] = {E - B, std::move(Text)};
    }
    static std::string wrap(std::string S) {
      if (all_of(S, [](char C) { return isAlnum(C) || C == '_'; }))
        return S;
      return "(" + S + ")";
    }
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
      if (!VD)
        return true;
      if (auto It = P.ParamArg.find(VD); It != P.ParamArg.end()) {
        put(DR->getSourceRange(), wrap(P.kernelText(It->second)));
        return true;
      }
      // A body variable not declared before the lanes: its value.
      if (P.Forms.count(VD) && VD->getInit() && !P.isHoistedVar(VD))
        put(DR->getSourceRange(), wrap(P.kernelText(VD->getInit())));
      return true;
    }
    bool VisitTemplateTypeParmTypeLoc(TemplateTypeParmTypeLoc TL) {
      for (const InlinedCall &C : P.Calls)
        if (auto It = C.TypeArgs.find(TL.getDecl()); It != C.TypeArgs.end())
          put(TL.getSourceRange(), It->second);
      return true;
    }
  } S(*this, Edits);
  S.TraverseStmt(const_cast<Expr *>(E));
  SourceRange R = E->getSourceRange();
  unsigned B = SM.getFileOffset(SM.getFileLoc(R.getBegin()));
  unsigned End = SM.getFileOffset(Lexer::getLocForEndOfToken(
      SM.getFileLoc(R.getEnd()), 0, SM, Ctx.getLangOpts()));
  return renderText(B, End, Edits);
}

std::string PairsAnalyzer::renderText(
    unsigned Begin, unsigned End,
    const std::map<unsigned, std::pair<unsigned, std::string>> &Edits) const {
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  std::string Out;
  unsigned Pos = Begin;
  for (auto It = Edits.lower_bound(Begin); It != Edits.end(); ++It) {
    if (It->first >= End)
      break;
    if (It->first < Pos)
      continue; // inside an edit already made
    Out += Buf.slice(Pos, It->first).str();
    Out += It->second.second;
    Pos = It->first + It->second.first;
  }
  if (Pos < End)
    Out += Buf.slice(Pos, End).str();
  return Out;
}

bool PairsAnalyzer::isHoistedVar(const VarDecl *VD) const {
  return HoistedVars.count(VD);
}

bool PairsAnalyzer::declare(const DeclStmt *DS, bool InCallee) {
  bool AllShared = true;
  std::vector<const VarDecl *> Vars;
  for (const Decl *D : DS->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD)
      return refuse(D->getLocation(), "the body declares something other "
                                      "than a variable");
    QualType T = VD->getType();
    if (!VD->getInit() || VD->isStaticLocal() || T->isReferenceType() ||
        T->isArrayType() || (!T->isDependentType() && !T->isScalarType()))
      return refuse(VD->getLocation(),
                    "'" + VD->getName() +
                        "' is not a scalar or pointer with an initializer");
    if (!checkExpr(VD->getInit(), nullptr, InCallee))
      return false;
    Lane F = formOf(VD->getInit());
    if (F == Lane::Aff &&
        (!T->isIntegerType() || T->isDependentType() ||
         Ctx.getTypeSize(T) < Ctx.getTypeSize(VD->getInit()->getType())))
      F = Lane::Var;
    Forms[VD] = F;
    AllShared &= F != Lane::Var;
    Vars.push_back(VD);
  }
  if (InCallee)
    return true;
  if (AllShared) {
    Hoisted.insert(DS);
    for (const VarDecl *VD : Vars)
      HoistedVars.insert(VD);
  } else {
    for (const VarDecl *VD : Vars)
      Forms[VD] = Lane::Var; // declared per lane, all of them
  }
  return true;
}

bool PairsAnalyzer::scanStatement(const Stmt *S, const InlinedCall *In) {
  if (!S || isa<NullStmt>(S))
    return true;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    return declare(DS, In != nullptr);
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return refuse(S->getBeginLoc(),
                  std::string("the body holds a '") + S->getStmtClassName() +
                      "'; the pairs form takes straight-line bodies "
                      "(declarations and expression statements)");
  if (const auto *C = dyn_cast<CallExpr>(E->IgnoreParens());
      C && !In && !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(C)) {
    const FunctionDecl *FD = C->getDirectCallee();
    if ((!FD || !isLibraryFunction(FD)) &&
        any_of(C->arguments(), [](const Expr *A) {
          return A->isTypeDependent() || A->getType()->isPointerType();
        }))
      return inlineCall(S, C);
  }
  return checkExpr(S, nullptr, In != nullptr);
}

std::string PairsAnalyzer::run(SourceLocation &Where) {
  Where = Loop->getBeginLoc();
  const Stmt *B = Loop->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(B))
    Body.assign(CS->body_begin(), CS->body_end());
  else
    Body.push_back(B);
  for (const Stmt *S : Body)
    if (!scanStatement(S, nullptr))
      break;
  if (Reason.empty())
    checkThreadUses();
  if (Reason.empty())
    findAccesses();
  if (Reason.empty())
    checkStoredBuffers();
  if (!Reason.empty()) {
    Where = ReasonLoc;
    return Reason;
  }
  if (std::string Why = buildGroups(); !Why.empty())
    return Why;
  Plan.WidenedBody = emit();
  if (!Reason.empty()) {
    Where = ReasonLoc;
    return Reason;
  }
  return "";
}

} // namespace vectorize

std::string widenPairs(ASTContext &Ctx, const FunctionDecl *K,
                       const ForStmt *Loop, const VarDecl *IV,
                       unsigned PartitionDeps, VecLoopPlan &Plan,
                       SourceLocation &Where, bool &Candidate) {
  vectorize::PairsAnalyzer A(Ctx, K, Loop, IV, PartitionDeps, Plan);
  std::string Why = A.run(Where);
  Candidate = A.Candidate;
  return Why;
}

} // namespace astra
