//===- VectorizeLoadsWidenEmit.cpp - Source text of a widened body --------===//
//
// For the GNN aggregation
//
//   for (int f = threadIdx.x; f < F; f += blockDim.x) {
//     float sum = 0.0f;
//     for (int e = begin; e < end; ++e)
//       sum += x[(int64_t)indices[e] * F + f];
//     out[(int64_t)r * F + f] = sum;
//   }
//
// the vector loop's body becomes (f is the pack's first feature)
//
//   float sum[VecW];
//   {
//   #pragma unroll
//     for (int lane = 0; lane < VecW; ++lane) { sum[lane] = 0.0f; }
//   }
//   for (int e = begin; e < end; ++e) {           // shared: one index load
//     VecF32 xVec;
//     xVec.u = *reinterpret_cast<const float4 *>(&x[(int64_t)indices[e] * F +
//     f]);
//   #pragma unroll
//     for (int lane = 0; lane < VecW; ++lane) { sum[lane] += xVec.v[lane]; }
//   }
//   { VecF32 outVec; ...; *reinterpret_cast<float4 *>(&out[...]) = outVec.u; }
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsWidenImpl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {
/// File offsets [Begin, End) of a statement, its `;` included.
struct Span {
  unsigned Begin = 0, End = 0;
  bool Valid = false;
};

Span getSpan(const Widener &W, const Stmt *S, bool WithSemi = true) {
  Span Sp;
  SourceLocation B = S->getBeginLoc(), E = S->getEndLoc();
  if (B.isInvalid() || E.isInvalid() || B.isMacroID() || E.isMacroID() ||
      !W.SM.isWrittenInMainFile(B))
    return Sp;
  SourceLocation EndTok =
      Lexer::getLocForEndOfToken(E, 0, W.SM, W.Ctx.getLangOpts());
  Sp.Begin = W.SM.getFileOffset(B);
  Sp.End = W.SM.getFileOffset(EndTok);
  StringRef Buf = W.SM.getBufferData(W.SM.getFileID(B));
  if (WithSemi && !isa<DeclStmt, CompoundStmt>(S)) {
    size_t Next = Buf.find_first_not_of(" \t\r\n", Sp.End);
    if (Next != StringRef::npos && Buf[Next] == ';')
      Sp.End = Next + 1;
  }
  Sp.Valid = Sp.Begin <= Sp.End;
  return Sp;
}

/// Collects the edits of one per-lane statement.
struct LaneEditor : RecursiveASTVisitor<LaneEditor> {
  Widener &W;
  const Stmt *Unit;
  SourceRange UnitRange;
  explicit LaneEditor(Widener &W, const Stmt *Unit)
      : W(W), Unit(Unit), UnitRange(Unit->getSourceRange()) {}

  bool inUnit(const VarDecl *VD) const {
    SourceLocation L = VD->getLocation();
    return !W.SM.isBeforeInTranslationUnit(L, UnitRange.getBegin()) &&
           !W.SM.isBeforeInTranslationUnit(UnitRange.getEnd(), L);
  }
  bool edit(SourceLocation B, SourceLocation E, std::string Text) {
    if (B.isMacroID() || E.isMacroID())
      return W.refuse(B, "a per-lane statement is written in a macro");
    unsigned Off = W.SM.getFileOffset(B);
    unsigned End = W.SM.getFileOffset(
        Lexer::getLocForEndOfToken(E, 0, W.SM, W.Ctx.getLangOpts()));
    W.Edits[Off] = {End - Off, std::move(Text)};
    return true;
  }
  /// Whether the body variable \p VD is an array of one value per lane.
  bool isLaneArray(const VarDecl *VD) const {
    return W.RegionVars.count(VD) && W.formOfVar(VD) == Lane::Var &&
           !inUnit(VD);
  }
  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    if (const auto *E = dyn_cast<Expr>(S)) {
      auto It = W.PackOf.find(E);
      if (It != W.PackOf.end()) {
        const PackUse &U = W.Packs[It->second];
        if (!U.Atomic)
          return edit(E->getBeginLoc(), E->getEndLoc(),
                      W.Plan.Groups[U.Group].Var + ".v[" + W.Plan.NameLane +
                          "]");
      }
    }
    if (const auto *C = dyn_cast<CallExpr>(S)) {
      auto It = W.AtomicOf.find(C);
      if (It != W.AtomicOf.end()) {
        // atomicAdd(&p[e], v)  ->  pAdd[lane] = (v)
        const Expr *V = C->getArg(1);
        std::string Head =
            W.AtomicVarOf.lookup(It->second) + "[" + W.Plan.NameLane + "] = (";
        unsigned CB = W.SM.getFileOffset(C->getBeginLoc());
        unsigned VB = W.SM.getFileOffset(V->getBeginLoc());
        W.Edits[CB] = {VB - CB, Head};
        if (!TraverseStmt(const_cast<Expr *>(V)))
          return false;
        return true; // the closing parenthesis of the call stays
      }
    }
    return RecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return true;
    std::string Name = VD->getNameAsString();
    if (VD == W.IV ||
        (W.RegionVars.count(VD) && W.formOfVar(VD) == Lane::Aff && !inUnit(VD)))
      return edit(DR->getBeginLoc(), DR->getEndLoc(),
                  "(" + Name + " + " + W.Plan.NameLane + ")");
    if (isLaneArray(VD))
      return edit(DR->getBeginLoc(), DR->getEndLoc(),
                  Name + "[" + W.Plan.NameLane + "]");
    return true;
  }
  void checkWrite(const Expr *Target, const Expr *Write) {
    const VarDecl *VD = getIndexVar(Target);
    if (VD && W.RegionVars.count(VD) && W.formOfVar(VD) != Lane::Var &&
        !inUnit(VD))
      W.refuse(Write->getBeginLoc(),
               "'" + VD->getName() +
                   "' is shared by the lanes of a pack but "
                   "written in a statement that runs once per lane");
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      checkWrite(B->getLHS(), B);
    return W.Reason.empty();
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      checkWrite(U->getSubExpr(), U);
    return W.Reason.empty();
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->getNumArgs() >= 1 &&
        writeOf(C, C->getArg(0)->IgnoreParens()) != WriteKind::None)
      checkWrite(C->getArg(0), C);
    return W.Reason.empty();
  }
};
} // namespace

std::string Widener::prepareUnits(SourceLocation &Where) {
  for (const Stmt *U : Units) {
    if (!getSpan(*this, U).Valid) {
      Where = U->getBeginLoc();
      return "a statement of the body is written in a macro or outside the "
             "input file";
    }
    LaneEditor E(*this, U);
    if (const auto *DS = dyn_cast<DeclStmt>(U)) {
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || VD->getType()->isReferenceType() ||
            !VD->getType()->isScalarType() ||
            (VD->getInit() && VD->getInitStyle() != VarDecl::CInit) ||
            VD->isStaticLocal()) {
          Where = D->getLocation();
          return "'" + (VD ? VD->getNameAsString() : std::string("?")) +
                 "' differs between the elements of a pack and is not a "
                 "plain scalar (`T v = e;`)";
        }
        if (VD->getInit())
          E.TraverseStmt(const_cast<Expr *>(VD->getInit()));
      }
    } else {
      E.TraverseStmt(const_cast<Stmt *>(U));
    }
    if (!Reason.empty()) {
      Where = ReasonLoc;
      return Reason;
    }
  }
  return "";
}

namespace {
class Emitter {
public:
  Emitter(Widener &W) : W(W), OS(Out) {}
  std::string run() {
    emitSeq(W.Region);
    flush();
    return Out;
  }

private:
  std::string render(unsigned Begin, unsigned End) const {
    StringRef Buf = W.SM.getBufferData(W.SM.getMainFileID());
    std::string S;
    unsigned Pos = Begin;
    for (auto It = W.Edits.lower_bound(Begin);
         It != W.Edits.end() && It->first < End; ++It) {
      S += Buf.slice(Pos, It->first).str();
      S += It->second.second;
      Pos = It->first + It->second.first;
    }
    return S + Buf.slice(Pos, End).str();
  }
  std::string render(const Stmt *S) const {
    Span Sp = getSpan(W, S);
    return render(Sp.Begin, Sp.End);
  }
  std::string verbatim(SourceRange R) const { return W.text(R); }

  void emitSeq(ArrayRef<const Stmt *> Seq) {
    for (const Stmt *S : Seq) {
      if (!S || isa<NullStmt>(S))
        continue;
      if (W.Units.count(S)) {
        Pending.push_back(S);
        continue;
      }
      flush();
      if (!W.Structural.count(S)) { // shared: as written
        OS << render(S) << "\n";
        continue;
      }
      if (const auto *F = dyn_cast<ForStmt>(S)) {
        OS << verbatim(SourceRange(F->getBeginLoc(), F->getRParenLoc()))
           << " {\n";
        emitSeq(getSequence(F->getBody()));
      } else if (const auto *Wh = dyn_cast<WhileStmt>(S)) {
        OS << verbatim(SourceRange(Wh->getBeginLoc(), Wh->getRParenLoc()))
           << " {\n";
        emitSeq(getSequence(Wh->getBody()));
      } else if (const auto *If = dyn_cast<IfStmt>(S)) {
        OS << "if (" << verbatim(If->getCond()->getSourceRange()) << ") {\n";
        emitSeq(getSequence(If->getThen()));
        if (If->getElse()) {
          flush();
          OS << "} else {\n";
          emitSeq(getSequence(If->getElse()));
        }
      } else {
        OS << "{\n";
        emitSeq(getSequence(S));
      }
      flush();
      OS << "}\n";
    }
  }

  /// One block for the pending per-lane statements: vector loads, the lane
  /// loop, vector stores and atomics.
  void flush() {
    if (Pending.empty())
      return;
    const VecLoopPlan &P = W.Plan;
    const std::string &L = P.NameLane;
    for (const Stmt *S : Pending)
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls()) {
          const auto *VD = cast<VarDecl>(D);
          OS << VD->getType().getUnqualifiedType().getAsString(
                    W.Ctx.getPrintingPolicy())
             << " " << VD->getName() << "[" << P.NameW << "];\n";
        }
    std::vector<const PackUse *> Uses;
    for (const PackUse &U : W.Packs)
      if (is_contained(Pending, U.Unit))
        Uses.push_back(&U);
    OS << "{\n";
    // One union per group: loaded when a lane reads it.
    std::vector<unsigned> Declared;
    for (const PackUse *U : Uses) {
      if (U->Atomic || is_contained(Declared, U->Group))
        continue;
      Declared.push_back(U->Group);
      const VecGroup &G = P.Groups[U->Group];
      OS << getUnionName(G) << " " << G.Var << ";\n";
      bool Load = any_of(Uses, [&](const PackUse *O) {
        return O->Group == U->Group && O->Read;
      });
      if (!Load)
        continue;
      std::string Ptr = "reinterpret_cast<const " + getVectorType(P, G) +
                        " *>(&" + verbatim(U->Access->getSourceRange()) + ")";
      OS << G.Var << ".u = " << (G.UseLdg ? "__ldg(" + Ptr + ")" : "*" + Ptr)
         << ";\n";
    }
    for (const PackUse *U : Uses)
      if (U->Atomic)
        OS << "float " << W.AtomicVarOf.lookup(U - W.Packs.data()) << "["
           << P.NameW << "];\n";
    OS << "#pragma unroll\n";
    OS << "for (int " << L << " = 0; " << L << " < " << P.NameW << "; ++" << L
       << ") {\n";
    for (const Stmt *S : Pending) {
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls()) {
          const auto *VD = cast<VarDecl>(D);
          if (const Expr *Init = VD->getInit()) {
            Span Sp = getSpan(W, Init, /*WithSemi=*/false);
            OS << VD->getName() << "[" << L
               << "] = " << render(Sp.Begin, Sp.End) << ";\n";
          }
        }
        continue;
      }
      OS << render(S) << "\n";
    }
    OS << "}\n";
    for (unsigned G : Declared)
      if (any_of(Uses, [&](const PackUse *U) {
            return U->Group == G && U->Write && !U->Atomic;
          })) {
        const VecGroup &VG = P.Groups[G];
        const PackUse *U =
            *find_if(Uses, [&](const PackUse *O) { return O->Group == G; });
        OS << "*reinterpret_cast<" << getVectorType(P, VG) << " *>(&"
           << verbatim(U->Access->getSourceRange()) << ") = " << VG.Var
           << ".u;\n";
      }
    for (const PackUse *U : Uses)
      if (U->Atomic)
        emitAtomic(*U);
    OS << "}\n";
    Pending.clear();
  }

  /// One 16- or 8-byte float reduction (sm_90), else one atomic per lane.
  void emitAtomic(const PackUse &U) {
    const VecLoopPlan &P = W.Plan;
    unsigned Width = getVectorWidth(P);
    std::string Vals = W.AtomicVarOf.lookup(&U - W.Packs.data());
    std::string Addr = "&" + verbatim(U.Access->getSourceRange());
    OS << "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n";
    OS << "asm volatile(\"red.global.add.v" << Width << ".f32 [%0], {";
    for (unsigned I = 0; I < Width; ++I)
      OS << (I ? ", " : "") << "%" << I + 1;
    OS << "};\" :: \"l\"(" << Addr << ")";
    for (unsigned I = 0; I < Width; ++I)
      OS << ", \"f\"(" << Vals << "[" << I << "])";
    OS << " : \"memory\");\n#else\n";
    OS << "#pragma unroll\n";
    OS << "for (int " << P.NameLane << " = 0; " << P.NameLane << " < "
       << P.NameW << "; ++" << P.NameLane << ")\n";
    OS << "atomicAdd(" << Addr << " + " << P.NameLane << ", " << Vals << "["
       << P.NameLane << "]);\n";
    OS << "#endif\n";
  }

  Widener &W;
  std::string Out;
  raw_string_ostream OS;
  std::vector<const Stmt *> Pending;
};
} // namespace

std::string Widener::emit() { return Emitter(*this).run(); }

} // namespace vectorize
} // namespace astra
