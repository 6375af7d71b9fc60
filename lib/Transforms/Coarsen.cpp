//===- Coarsen.cpp - Several threads of a block reduction in one
//-----------===//
//
// coarsen:kernel=k,factor=C,extent=P
//   A kernel whose block reduces one value per thread with a shared-memory
//   tree (WarpReduceMatch.h), as per-token group quantization does,
//
//     <uniform declarations>          // group, token: no threadIdx.x
//     <phase A>                       // i = ... + threadIdx.x; v = in[i]
//     a[threadIdx.x] = X;             // the leaf
//     __syncthreads();
//     for (s = blockDim.x / 2; s > 0; s >>= 1) { <tree> }
//     <phase B>                       // uses a[0]; out[i] = f(v)
//
//   runs C consecutive threads of the original block in each thread:
//
//     if (blockDim.x * C == P) {
//       T v[C]; ...                   // phase A's and B's locals, one each
//       for (c = 0; c < C; ++c) {     // threadIdx.x -> threadIdx.x * C + c
//         <phase A>; acc = c == 0 ? X : OP(acc, X);
//       }
//       a[threadIdx.x] = acc; __syncthreads(); <tree>
//       for (c = 0; c < C; ++c) { <phase B> }
//     } else { <phase A> <leaf> <tree> <phase B> }   // the original
//
//   The original block of P threads (P: the integer parameter the spec's
//   block is; the agent takes it from there and the site assumes it) runs
//   as P / C threads under `launch:block-x-div=C`; any other launch runs the
//   original code. Each thread then reads C consecutive elements (16 bytes
//   for eight 2-byte values) and the tree is C times shorter; with
//   fold-blocks:exact=1, several such blocks share one (FoldBlocks.cpp). A
//   float sum is regrouped (changes rounding); max and min are exact.
//
//   Refused, with the reason: no tree, or more than one; a leaf and barrier
//   not right before it; a tree whose first stride does not follow
//   blockDim.x; blockDim.x read elsewhere; a 2-D block; other barriers,
//   shared arrays, collectives or inline assembly; the tree's array read
//   other than a[0] after it; a return; a uniform declaration that changes
//   later; a local of phase A or B that is not a scalar or not initialised
//   with `=`; device functions of the file that read threadIdx or blockDim;
//   macros and preprocessor conditionals in the body.
//
//===----------------------------------------------------------------------===//
#include "CoarsenLoads.h"
#include "CoarsenScan.h"
#include "CoarsenStores.h"
#include "Dataflow.h"
#include "EditBatch.h"
#include "FoldBlocks.h"
#include "FreshName.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "WarpReduceMatch.h"
#include "astra/Frontend/ExprMatch.h"
#include "astra/Frontend/Kernels.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class Coarsen : public Rewrite {
public:
  StringRef getName() const override { return "coarsen"; }
  StringRef getDescription() const override {
    return "each thread runs C consecutive threads of a block that reduces "
           "one value per thread with a shared tree (per-group "
           "quantization), guarded on blockDim.x * C == the block's extent; "
           "the original is the fallback (launch:block-x-div=C)";
  }
  std::vector<ParamDesc> getParams() const override {
    // One value enumerated: coarsen applies only with extent=, which the
    // agent takes from the spec with each factor (coarsenProposals).
    ParamDesc Factor{"factor",
                     RewriteParamKind::Enum,
                     "8",
                     {"8"},
                     "threads of the original block per thread"};
    Factor.Choices = {"8", "16", "4", "2"};
    ParamDesc Extent{"extent",
                     RewriteParamKind::Name,
                     "",
                     {""},
                     "the integer parameter that equals the original block's "
                     "threads (the spec's block)"};
    ParamDesc Loads{"loads",
                    RewriteParamKind::Enum,
                    "elements",
                    {"elements", "packs"},
                    "packs: the first per-thread value loaded before the "
                    "leaf is loaded as 4-16-byte packs and read from them "
                    "(CoarsenLoads.h)"};
    Loads.Choices = {"elements", "packs"};
    return {Factor, Extent, Loads};
  }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

Expected<std::vector<Rewrite::PlannedSite>>
Coarsen::plan(RewriteContext &RC, const RewriteParams &P) const {
  int64_t C = 8;
  StringRef(P.getString("factor", "8")).getAsInteger(10, C);
  std::string ExtentName = P.getString("extent", "");
  bool Packs = P.getString("loads", "elements") == "packs";
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = RC.getSourceManager();
  std::vector<PlannedSite> Sites;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Name = K->getNameAsString();
    RewriteSite Site;
    Site.Kernel = Name;
    Site.Selected = isSelected(P, Name, "");
    Site.Loc = RC.getDiagLoc(K->getLocation());
    std::string What = "coarsen of " + Name + " by " + std::to_string(C) + ": ";
    auto Refuse = [&](const Twine &Why, SourceLocation L) {
      Site.Detail = What + Why.str();
      if (L.isValid())
        Site.Detail += " (" + getLineCol(RC, L) + ")";
      Sites.push_back({Site, nullptr});
    };
    const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
    if (!Body) {
      Refuse("no body", SourceLocation());
      continue;
    }
    // The tree, at the top of the body, after its leaf and barrier.
    std::vector<const Stmt *> Top(Body->body_begin(), Body->body_end());
    CoarsenTree Tree;
    SourceLocation TreeLoc;
    if (std::string Why = findCoarsenTree(Ctx, K, Body, Tree, TreeLoc);
        !Why.empty()) {
      Refuse(Why, TreeLoc);
      continue;
    }
    const TreeMatch &M = Tree.M;
    size_t T = Tree.T;
    const VarDecl *A = M.Array;
    const BinaryOperator *Leaf = Tree.Leaf;
    CoarsenScan Scan(SM, A);
    Scan.TraverseStmt(const_cast<CompoundStmt *>(Body));
    checkReach(SM, K, Scan);
    for (const DeclRefExpr *E : Scan.WholeIndex)
      if (isWholeIndexVar(Ctx, E))
        Scan.refuse("it passes " + E->getDecl()->getNameAsString() +
                        " whole, not as its .x (not rewritten)",
                    E->getBeginLoc());
    for (const Expr *E : Scan.BlockDimX)
      if (!inRange(SM, E->getBeginLoc(), M.Loop))
        Scan.refuse("it reads blockDim.x outside the tree (the coarsened "
                    "block is smaller)",
                    E->getBeginLoc());
    for (const CallExpr *B : Scan.Barriers)
      if (B != Top[T - 1] && !inRange(SM, B->getBeginLoc(), M.Loop))
        Scan.refuse("it has a barrier besides the tree's", B->getBeginLoc());
    checkArrayUses(Ctx, K, Scan, Leaf, M.Loop,
                   ArrayRef<const Stmt *>(Top).drop_front(T + 1));
    if (hasConditionalDirective(RC, Body->getSourceRange()))
      Scan.refuse("its body holds a preprocessor conditional",
                  Body->getBeginLoc());
    for (const Stmt *S : Top)
      if (std::string Why = getMacroReason(RC, S->getSourceRange());
          !Why.empty())
        Scan.refuse("a statement is " + Why, S->getBeginLoc());
    if (!Scan.Why.empty()) {
      Refuse(Scan.Why, Scan.WhyLoc);
      continue;
    }
    const ParmVarDecl *Extent = nullptr;
    for (const ParmVarDecl *PV : K->parameters())
      if (PV->getName() == ExtentName)
        Extent = PV;
    ChangedVars CV(Ctx, K, Body);
    if (ExtentName.empty() || !Extent || !Extent->getType()->isIntegerType() ||
        CV.mayChange(Extent)) {
      Refuse("extent=" + ExtentName +
                 " is not an integer parameter that the kernel leaves alone "
                 "(give the one that holds the original block's threads)",
             SourceLocation());
      continue;
    }

    // Phases: the uniform prefix, then per-thread statements.
    size_t U = 0;
    DenseSet<const VarDecl *> None;
    while (U < T - 2 && !reads(Top[U], None))
      ++U;
    std::string Why;
    SourceLocation WhyLoc;
    for (size_t I = 0; I < U && Why.empty(); ++I) {
      if (!isa<DeclStmt>(Top[I])) {
        Why = "a statement before the per-thread work is not a declaration";
        WhyLoc = Top[I]->getBeginLoc();
      }
      for (const VarDecl *V : declaredBy(Top[I]))
        if (CV.mayChange(V) && Why.empty()) {
          Why = "'" + V->getNameAsString() +
                "' is declared before the per-thread work and changed later";
          WhyLoc = V->getLocation();
        }
    }
    // Phase B: leading statements that read no per-thread value stay once.
    DenseSet<const VarDecl *> PerThread;
    for (size_t I = U; I < T - 2; ++I)
      for (const VarDecl *V : declaredBy(Top[I]))
        PerThread.insert(V);
    size_t B = T + 1;
    while (B < Top.size() && isa<DeclStmt>(Top[B]) &&
           !reads(Top[B], PerThread) &&
           llvm::none_of(declaredBy(Top[B]),
                         [&](const VarDecl *V) { return CV.mayChange(V); }))
      ++B;
    for (size_t I = B; I < Top.size(); ++I)
      for (const VarDecl *V : declaredBy(Top[I]))
        PerThread.insert(V);
    for (const VarDecl *V : PerThread)
      if (Why.empty() &&
          (V->isStaticLocal() || V->getType()->isReferenceType() ||
           !V->getType()->isScalarType() ||
           (V->getInit() && V->getInitStyle() != VarDecl::CInit))) {
        Why = "the per-thread local '" + V->getNameAsString() +
              "' is not a scalar initialised with `=` (it becomes an array "
              "of " +
              std::to_string(C) + ")";
        WhyLoc = V->getLocation();
      }
    for (const VarDecl *V : PerThread)
      for (const DeclRefExpr *R : findRefs(Body, V))
        if (R->getBeginLoc().isMacroID() && Why.empty()) {
          Why = "the per-thread local '" + V->getNameAsString() +
                "' is read inside a macro, which the rewrite cannot edit "
                "into its array";
          WhyLoc = SM.getExpansionLoc(R->getBeginLoc());
        }
    std::vector<const Stmt *> Phases(Top.begin() + U, Top.begin() + T - 2);
    Phases.insert(Phases.end(), Top.begin() + T + 1, Top.end());
    // The leaf runs once per copy too (its value may have side effects).
    Phases.push_back(Leaf);
    SourceLocation WriteAt;
    if (const VarDecl *V = findOuterWrite(SM, Phases, WriteAt);
        V && Why.empty()) {
      Why = "it writes '" + V->getNameAsString() +
            "', declared outside the per-thread work (each of the " +
            std::to_string(C) + " threads a thread runs would write it)";
      WhyLoc = WriteAt;
    }
    // Any other change to a variable declared outside the per-thread work
    // (a member of a struct parameter, a call by reference): each copy
    // would make it again.
    for (const Stmt *S : Phases)
      for (const DeclRefExpr *R : findAllRefs(S)) {
        const auto *V = dyn_cast<VarDecl>(R->getDecl());
        if (!V || V == A || PerThread.count(V) || !Why.empty() ||
            llvm::any_of(Phases, [&](const Stmt *P) {
              return inRange(SM, V->getLocation(), P);
            }))
          continue;
        if (CV.mayChange(V)) {
          Why = "'" + V->getNameAsString() +
                "', declared outside the per-thread work, may change in it "
                "(each of the " +
                std::to_string(C) + " threads a thread runs would change it)";
          WhyLoc = R->getBeginLoc();
        }
      }
    if (const Decl *D = findNonVarDecl(Phases); D && Why.empty()) {
      Why = "the per-thread work declares something other than a variable "
            "(a type or an alias), which its copies would lose";
      WhyLoc = D->getLocation();
    }
    // The tree may read per-thread locals only as threadIdx.x.
    DenseSet<const VarDecl *> TidVars;
    for (const VarDecl *V : PerThread)
      if (V->getInit() &&
          getBuiltinVarName(stripIntCasts(V->getInit())) == "threadIdx.x" &&
          !CV.mayChange(V))
        TidVars.insert(V);
    std::vector<std::pair<SourceRange, std::string>> TreeEdits;
    for (const VarDecl *V : PerThread)
      for (const DeclRefExpr *R : findRefs(M.Loop, V)) {
        if (TidVars.count(V))
          TreeEdits.push_back({R->getSourceRange(), "threadIdx.x"});
        else if (Why.empty()) {
          Why = "the tree reads the per-thread local '" + V->getNameAsString() +
                "'";
          WhyLoc = R->getBeginLoc();
        }
      }
    if (!Why.empty()) {
      Refuse(Why, WhyLoc);
      continue;
    }

    // The text.
    StringSet<> Taken; // per kernel: the names are locals of its body
    std::string CVar = makeFreshName(Ctx, "coarsenC", Taken);
    std::string TVar = makeFreshName(Ctx, "coarsenT", Taken);
    std::string Acc = makeFreshName(Ctx, "coarsenAcc", Taken);
    PrintingPolicy PP(Ctx.getLangOpts());
    std::vector<CombinedStore> Stores = findCombinableStores(
        Ctx, Body, ArrayRef<const Stmt *>(Top).drop_front(B), C, Taken);
    std::string Cs = std::to_string(C);
    // Stores whose index rises by one per thread: deferred with no test.
    DenseSet<const VarDecl *> Uniform;
    for (size_t I = 0; I < B; ++I)
      if (I < U || I > T)
        for (const VarDecl *V : declaredBy(Top[I]))
          Uniform.insert(V);
    std::string NotAffine = markRisingStores(
        RC, Stores, AffineScope{CV, Uniform, PerThread}, Scan.ThreadX, C, CVar);
    PackedLoad Load;
    if (Packs) {
      std::string LoadWhy = findPackedLoad(
          RC, Body, ArrayRef<const Stmt *>(Top).slice(U, T - 2 - U),
          AffineScope{CV, Uniform, PerThread}, C, CVar, Taken, Load);
      if (!LoadWhy.empty()) {
        Refuse("loads=packs: " + LoadWhy, SourceLocation());
        continue;
      }
    }
    auto Rewritten = [&](const Stmt *S) {
      TextEdits Edits = copyEdits(SM, S, Scan.ThreadX, PerThread, TVar, CVar);
      editPackedReads(Load, Edits);
      for (const CombinedStore &St : Stores)
        if (inRange(SM, St.Store->getBeginLoc(), S))
          Edits.push_back(
              {St.Store->getSourceRange(),
               recordStore(
                   St, CVar,
                   spliceText(RC, St.Store->getLHS()->getSourceRange(), Edits),
                   spliceText(RC, St.Store->getRHS()->getSourceRange(),
                              Edits))});
      if (!isa<DeclStmt>(S))
        return spliceText(RC, S->getSourceRange(), Edits, stmtEnd(RC, S));
      std::string Out;
      for (const VarDecl *V : declaredBy(S))
        if (const Expr *Init = V->getInit())
          Out += (Out.empty() ? "" : "\n") + V->getNameAsString() + "[" + CVar +
                 "] = " + spliceText(RC, Init->getSourceRange(), Edits) + ";";
      return Out;
    };
    auto Stmts = [&](size_t From, size_t To) {
      std::string Out;
      for (size_t I = From; I < To; ++I)
        if (Top[I] != Load.Load && Top[I] != Load.VDecl)
          Out += Rewritten(Top[I]) + "\n";
      return Out;
    };
    auto Original = [&](size_t From, size_t To) {
      return spliceText(RC, Top[From]->getSourceRange(), {},
                        stmtEnd(RC, Top[To - 1]));
    };
    std::string Loop = "#pragma unroll\nfor (int " + CVar + " = 0; " + CVar +
                       " < " + Cs + "; ++" + CVar + ") {\nconst unsigned int " +
                       TVar + " = threadIdx.x * " + Cs + " + " + CVar + ";\n";
    // A halving tree reduces a whole block only when it has a power of two
    // of threads (with a bounds check too: it skips partners past the block,
    // and which it skips depends on the block): then so has the coarsened
    // one.
    std::string Guard =
        "blockDim.x * " + Cs + " == static_cast<unsigned int>(" + ExtentName +
        ") && (" + ExtentName + " & (" + ExtentName + " - 1)) == 0";
    std::string Out;
    raw_string_ostream OS(Out);
    OS << "// " << getCoarsenMarker(C) << " (threadIdx.x * " << C
       << " + c) when the block is " << ExtentName << " / " << C
       << " threads; any other block runs the original below\n"
       << "if (" << Guard << ") {\n";
    std::vector<const VarDecl *> Arrays(PerThread.begin(), PerThread.end());
    llvm::sort(Arrays, [&](const VarDecl *X, const VarDecl *Y) {
      return SM.isBeforeInTranslationUnit(X->getLocation(), Y->getLocation());
    });
    for (const VarDecl *V : Arrays)
      if (V != Load.V)
        OS << V->getType().getUnqualifiedType().getAsString(PP) << " "
           << V->getNameAsString() << "[" << C << "];\n";
    OS << M.ElemType << " " << Acc << ";\n";
    if (Load.V) {
      size_t At = llvm::find(Top, Load.Load) - Top.begin();
      OS << declarePackedLoad(Load, C) << Loop << Stmts(U, At) << "}\n"
         << writePackedLoad(RC, Load, Scan.ThreadX, PerThread, C, CVar, TVar)
         << Loop << Stmts(At + 1, T - 2);
    } else {
      OS << Loop << Stmts(U, T - 2);
    }
    {
      TextEdits Edits =
          copyEdits(SM, Leaf->getRHS(), Scan.ThreadX, PerThread, TVar, CVar);
      editPackedReads(Load, Edits);
      // Converted as the leaf's store converts it.
      std::string X = "static_cast<" + M.ElemType + ">(" +
                      spliceText(RC, Leaf->getRHS()->getSourceRange(), Edits) +
                      ")";
      std::string Combined = M.Op == TreeOp::Sum
                                 ? Acc + " + " + X
                                 : M.Combine + "(" + Acc + ", " + X + ")";
      OS << Acc << " = " << CVar << " == 0 ? " << X << " : " << Combined
         << ";\n}\n";
    }
    OS << A->getNameAsString() << "[threadIdx.x] = " << Acc << ";\n"
       << "__syncthreads();\n"
       << spliceText(RC, M.Loop->getSourceRange(), TreeEdits) << "\n";
    for (size_t I = T + 1; I < B; ++I)
      OS << RC.getText(Top[I]->getSourceRange()) << "\n";
    if (B < Top.size())
      OS << declareStores(Stores, C) << Loop << Stmts(B, Top.size()) << "}\n"
         << writeStores(Stores, C, CVar);
    OS << "} else {\n" << Original(U, Top.size()) << "\n}";
    Site.Applicable = true;
    Site.ChangesRounding = M.Op == TreeOp::Sum && M.FloatElem;
    Site.Reassociates = Site.ChangesRounding;
    Site.Assumes =
        "the original block has " + ExtentName + " threads (the spec's block)";
    if (!Stores.empty())
      Site.Assumes += "; the pointer parameters it stores through do not "
                      "overlap what it reads";
    Site.Detail =
        What + std::string(getTreeOpName(M.Op)) + " of '" +
        A->getNameAsString() + "': each thread runs threads " +
        "threadIdx.x * " + Cs + " + c, c < " + Cs + " (" +
        std::to_string(PerThread.size() - (Load.V ? 1 : 0)) +
        " per-thread local(s) become arrays); guard: " + Guard +
        (Load.V ? "; '" + Load.V->getNameAsString() + "' loaded as " +
                      std::to_string(Load.Packs) + " pack(s) of " +
                      std::to_string(Load.PackBytes) +
                      " bytes where every guard holds and the elements are "
                      "consecutive and aligned, else one by one, and read "
                      "from them"
                : std::string()) +
        "; fallback: the original; launch:block-x-div=" + Cs +
        (Stores.empty() ? std::string()
                        : "; " + std::to_string(Stores.size()) +
                              " store(s) written as one pack of " +
                              std::to_string(Stores[0].PackBytes) +
                              " bytes where consecutive and aligned" +
                              (NotAffine.empty()
                                   ? " (no test per store: the "
                                     "index rises by one per thread)"
                                   : " (a test per store: " + NotAffine + ")"));
    const Stmt *First = Top[U];
    unsigned RegionEnd = stmtEnd(RC, Top.back());
    Sites.push_back({Site, [First, RegionEnd, Out](EditBatch &Edits) {
                       Edits.replaceBlock(
                           Edits.beginOf(First->getSourceRange()), RegionEnd,
                           Out);
                     }});
  }
  return std::move(Sites);
}

} // namespace

std::unique_ptr<Rewrite> createCoarsen() { return std::make_unique<Coarsen>(); }

} // namespace astra
