//===- VectorizeLoadsPairsEmit.cpp - Source text of the pairs form --------===//
//
// For the rotary loop of kernels/rotary_embedding.cu the vector loop's body
// becomes (i is the pack's first index; VecW = 16 / sizeof(T_))
//
//   int h = i / half;                       // once per pack
//   int j = i % half;
//   T_* head = query + token * query_stride + h * head_size;
//   VecT_ cos_rowVec;  ...  VecT_ queryVec0, queryVec1;
//   cos_rowVec.u = *reinterpret_cast<const uint4 *>(&cos_row[j]);
//   queryVec0.u = *reinterpret_cast<const uint4 *>(&head[j]);
//   queryVec1.u = *reinterpret_cast<const uint4 *>(&head[half + j]);
//   #pragma unroll
//   for (int lane = 0; lane < VecW; ++lane) {
//     float c = static_cast<float>(cos_rowVec.v[lane]);
//     float s = static_cast<float>(sin_rowVec.v[lane]);
//     {                                      // rotate_pair, inlined
//       float c_ = c;
//       float s_ = s;
//       float a = static_cast<float>(queryVec0.v[lane]);
//       ...
//       queryVec1.v[lane] = static_cast<T_>(b * c_ + a * s_);
//     }
//   }
//   *reinterpret_cast<uint4 *>(&head[j]) = queryVec0.u;  (and queryVec1)
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsPairs.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace astra {
namespace vectorize {

namespace {
using EditMap = std::map<unsigned, std::pair<unsigned, std::string>>;

/// The edits that make a statement run for one lane: accesses that are
/// lanes of a vector access read their union lane; in the kernel's body
/// the index and values declared once per pack add the lane; in an inlined
/// function the parameters take their new names and the template type
/// parameters the types they stand for.
struct LaneEdits : RecursiveASTVisitor<LaneEdits> {
  PairsAnalyzer &P;
  EditMap &Edits;
  const InlinedCall *In;
  DenseMap<const VarDecl *, unsigned> &ParamUses;
  LaneEdits(PairsAnalyzer &P, EditMap &Edits, const InlinedCall *In,
            DenseMap<const VarDecl *, unsigned> &ParamUses)
      : P(P), Edits(Edits), In(In), ParamUses(ParamUses) {}

  bool put(SourceRange R, std::string Text) {
    SourceLocation B = R.getBegin(), E = R.getEnd();
    if (B.isMacroID() || E.isMacroID())
      return P.refuse(B, "a statement of the body is written in a macro");
    unsigned Off = P.SM.getFileOffset(B);
    unsigned End = P.SM.getFileOffset(
        Lexer::getLocForEndOfToken(E, 0, P.SM, P.Ctx.getLangOpts()));
    Edits[Off] = {End - Off, std::move(Text)};
    return true;
  }
  bool TraverseStmt(Stmt *S) {
    if (const auto *E = dyn_cast_or_null<Expr>(S)) {
      auto It = P.AccessOf.find(E);
      if (It != P.AccessOf.end()) {
        const VecGroup &G = P.Plan.Groups[P.Accesses[It->second].Group];
        return put(E->getSourceRange(), G.Var + ".v[" + P.Plan.NameLane + "]");
      }
    }
    return RecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return true;
    if (In) {
      auto It = P.ParamIndex.find(VD);
      if (It != P.ParamIndex.end() &&
          In->Callee->getParamDecl(It->second) == VD) {
        ++ParamUses[VD];
        return put(DR->getSourceRange(), In->ParamNames[It->second]);
      }
      return true;
    }
    if (VD == P.IV || (P.isHoistedVar(VD) && P.Forms.lookup(VD) == Lane::Aff))
      return put(DR->getSourceRange(),
                 "(" + VD->getNameAsString() + " + " + P.Plan.NameLane + ")");
    return true;
  }
  bool VisitTemplateTypeParmTypeLoc(TemplateTypeParmTypeLoc TL) {
    if (!In)
      return true;
    auto It = In->TypeArgs.find(TL.getDecl());
    return It == In->TypeArgs.end() || put(TL.getSourceRange(), It->second);
  }
};

/// File offsets [Begin, End) of \p S with its `;`.
std::pair<unsigned, unsigned> getSpan(const PairsAnalyzer &P, const Stmt *S) {
  SourceLocation B = P.SM.getFileLoc(S->getBeginLoc());
  SourceLocation E = Lexer::getLocForEndOfToken(P.SM.getFileLoc(S->getEndLoc()),
                                                0, P.SM, P.Ctx.getLangOpts());
  unsigned Begin = P.SM.getFileOffset(B), End = P.SM.getFileOffset(E);
  StringRef Buf = P.SM.getBufferData(P.SM.getMainFileID());
  if (!isa<DeclStmt>(S)) {
    size_t Next = Buf.find_first_not_of(" \t\r\n", End);
    if (Next != StringRef::npos && Buf[Next] == ';')
      End = Next + 1;
  }
  return {Begin, End};
}

std::pair<unsigned, unsigned> getRange(const PairsAnalyzer &P, SourceRange R) {
  unsigned B = P.SM.getFileOffset(P.SM.getFileLoc(R.getBegin()));
  unsigned E = P.SM.getFileOffset(Lexer::getLocForEndOfToken(
      P.SM.getFileLoc(R.getEnd()), 0, P.SM, P.Ctx.getLangOpts()));
  return {B, E};
}
} // namespace

std::string PairsAnalyzer::emit() {
  EditMap Edits;
  DenseMap<const VarDecl *, unsigned> ParamUses;
  LaneEdits Kernel(*this, Edits, nullptr, ParamUses);
  for (const Stmt *S : Body) {
    if (Hoisted.count(S))
      continue;
    auto It = CallOf.find(S);
    if (It == CallOf.end()) {
      Kernel.TraverseStmt(const_cast<Stmt *>(S));
      continue;
    }
    const InlinedCall &C = Calls[It->second];
    for (const Expr *A : C.Call->arguments())
      Kernel.TraverseStmt(const_cast<Expr *>(A));
    LaneEdits Callee(*this, Edits, &C, ParamUses);
    for (const ParmVarDecl *PD : C.Callee->parameters())
      Callee.TraverseTypeLoc(PD->getTypeSourceInfo()->getTypeLoc());
    Callee.TraverseStmt(C.Callee->getBody());
  }
  if (!Reason.empty())
    return "";

  auto Render = [&](std::pair<unsigned, unsigned> R) {
    return StringRef(renderText(R.first, R.second, Edits)).trim().str();
  };
  std::string S;
  raw_string_ostream OS(S);
  for (const Stmt *St : Body)
    if (Hoisted.count(St))
      OS << StringRef(renderText(getSpan(*this, St).first,
                                 getSpan(*this, St).second, {}))
                .trim()
         << "\n";
  for (const VecGroup &G : Plan.Groups)
    OS << getUnionName(G) << " " << G.Var << ";\n";
  for (size_t I = 0; I < Plan.Groups.size(); ++I) {
    const VecGroup &G = Plan.Groups[I];
    if (!G.Load)
      continue;
    std::string Ptr = "reinterpret_cast<const " + getVectorType(Plan, G) +
                      " *>(" + GroupAddr[I] + ")";
    OS << G.Var << ".u = " << (G.UseLdg ? "__ldg(" + Ptr + ")" : "*" + Ptr)
       << ";\n";
  }
  const std::string &L = Plan.NameLane;
  OS << "#pragma unroll\n";
  OS << "for (int " << L << " = 0; " << L << " < " << Plan.NameW << "; ++" << L
     << ") {\n";
  for (const Stmt *St : Body) {
    if (Hoisted.count(St) || isa<NullStmt>(St))
      continue;
    auto It = CallOf.find(St);
    if (It == CallOf.end()) {
      OS << Render(getSpan(*this, St)) << "\n";
      continue;
    }
    const InlinedCall &C = Calls[It->second];
    OS << "{\n";
    for (unsigned I = 0; I < C.Callee->getNumParams(); ++I) {
      const ParmVarDecl *PD = C.Callee->getParamDecl(I);
      if (!ParamUses.lookup(PD))
        continue;
      OS << Render(getRange(
                *this, PD->getTypeSourceInfo()->getTypeLoc().getSourceRange()))
         << " " << C.ParamNames[I] << " = "
         << Render(getRange(*this, C.Call->getArg(I)->getSourceRange()))
         << ";\n";
    }
    for (const Stmt *CS : cast<CompoundStmt>(C.Callee->getBody())->body())
      if (!isa<NullStmt>(CS))
        OS << Render(getSpan(*this, CS)) << "\n";
    OS << "}\n";
  }
  OS << "}\n";
  for (size_t I = 0; I < Plan.Groups.size(); ++I) {
    const VecGroup &G = Plan.Groups[I];
    if (G.Store)
      OS << "*reinterpret_cast<" << getVectorType(Plan, G) << " *>("
         << GroupAddr[I] << ") = " << G.Var << ".u;\n";
  }
  return S;
}

} // namespace vectorize
} // namespace astra
