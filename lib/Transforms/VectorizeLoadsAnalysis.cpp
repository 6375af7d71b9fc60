//===- VectorizeLoadsAnalysis.cpp - Is a loop vectorizable, and how -------===//
//
// Checks the loop header (induction variable, bounds, how iterations are
// spread over threads) and the body (accesses, reductions, control flow), and
// builds the VecLoopPlan. Every refusal names the place and the reason.
//
//===----------------------------------------------------------------------===//
#include "Indent.h"
#include "PerThreadValues.h"
#include "VectorizeLoadsBody.h"
#include "VectorizeLoadsMemory.h"
#include "VectorizeLoadsPairs.h"
#include "VectorizeLoadsPlan.h"
#include "VectorizeLoadsUtil.h"
#include "VectorizeLoadsWiden.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace astra {
using namespace vectorize;

namespace {
class LoopAnalyzer {
public:
  LoopAnalyzer(ASTContext &Ctx, const FunctionDecl *K, const ForStmt *Loop,
               VecLoopPlan &Plan)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), K(K), Loop(Loop), Plan(Plan) {
    KernelWrites.collect(K->getBody());
  }

  /// Empty on success, else the reason (and Where).
  std::string run(SourceLocation &Where);

private:
  std::string getText(SourceRange R) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM,
                                Ctx.getLangOpts())
        .str();
  }
  std::string checkHeader(SourceLocation &Where);
  std::string checkPartition(const LoopForm &F);
  std::string checkValuesLeft();
  std::string checkInvariant(const Expr *E, StringRef What,
                             const BodyFacts &Facts, SourceLocation &Where);
  std::string buildGroups(const BodyFacts &Facts, SourceLocation &Where);
  std::string extractText(const BodyFacts &Facts, SourceLocation &Where);
  /// Fills the plan's loop and body text.
  std::string extractLoopText(SourceLocation &Where);

  ASTContext &Ctx;
  const SourceManager &SM;
  const FunctionDecl *K;
  const ForStmt *Loop;
  VecLoopPlan &Plan;
  VarUses KernelWrites;
  const VarDecl *IV = nullptr;
  const Expr *StartE = nullptr, *EndE = nullptr, *StepE = nullptr;
  unsigned PartitionDeps = 0; ///< DepBits the guard must not depend on
  unsigned BodyOffset = 0;    ///< file offset of Plan.BodyText
};
} // namespace

std::string LoopAnalyzer::checkHeader(SourceLocation &Where) {
  LoopForm F = analyzeLoopForm(Ctx, Loop, &KernelWrites);
  if (!F.DeclaresIV)
    return "the loop does not declare its induction variable "
           "(expected `for (int i = start; i < n; i += step)`)";
  IV = F.IV;
  if (!IV->getInit() || !IV->getType()->isIntegerType())
    return "the induction variable is not an initialized integer";
  StartE = IV->getInit();
  Plan.IVName = IV->getNameAsString();
  if (IV->getType()->getContainedAutoType())
    Plan.IVType = IV->getType().getAsString(Ctx.getPrintingPolicy());
  else
    Plan.IVType =
        getText(IV->getTypeSourceInfo()->getTypeLoc().getSourceRange());

  if (F.Cmp != BO_LT || !F.BuiltinOps)
    return "the loop condition is not `" + Plan.IVName + " < n`";
  EndE = F.Bound;
  if (!F.stepsUp() || F.Update == LoopUpdate::Geometric)
    return "the loop increment is not `" + Plan.IVName + " += step` or `++" +
           Plan.IVName + "`";
  StepE = F.Step;
  Plan.Step = StepE ? getText(StepE->getSourceRange()) : "1";
  Plan.Start = getText(StartE->getSourceRange());
  Plan.End = getText(EndE->getSourceRange());
  for (const Expr *E : {StartE, EndE, StepE})
    if (E && (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())) {
      Where = E->getBeginLoc();
      return "the loop bounds come from a macro expansion";
    }
  if (mentions(EndE, IV) || (StepE && mentions(StepE, IV)))
    return "the loop bound or step depends on the induction variable";
  return checkPartition(F);
}

/// Takes how the iterations are spread over the threads from the loop's
/// form; only such loops are rewritten, because the vector loop gives every
/// thread the vector chunks with its original start and step.
std::string LoopAnalyzer::checkPartition(const LoopForm &F) {
  Plan.Partition = F.Partition;
  Plan.PartitionDim = F.Dim;
  switch (F.Partition) {
  case LoopPartition::Sequential:
    return "";
  case LoopPartition::Block:
    PartitionDeps = depBit(DepTid, F.Dim);
    return "";
  case LoopPartition::Grid:
    PartitionDeps = depBit(DepTid, F.Dim) | depBit(DepBid, F.Dim);
    return "";
  case LoopPartition::None:
    break;
  }
  return "the loop's start and step are not a recognised thread "
         "partition of [0, n) (0 and 1, threadIdx and blockDim, or the "
         "global thread index and blockDim * gridDim)";
}

std::string LoopAnalyzer::checkInvariant(const Expr *E, StringRef What,
                                         const BodyFacts &Facts,
                                         SourceLocation &Where) {
  SmallPtrSet<const VarDecl *, 8> Vars;
  collectVars(E, Vars);
  for (const VarDecl *VD : Vars) {
    if (VD == IV)
      continue; // the index term itself; checked by the caller
    if (Facts.DeclaredInBody.count(VD) || Facts.WrittenInBody.count(VD)) {
      Where = E->getBeginLoc();
      return (What + " uses '" + VD->getName() +
              "', which the loop body declares or modifies")
          .str();
    }
  }
  DependenceInfo Deps(KernelWrites);
  unsigned Bits = Deps.get(E);
  if (Bits & (PartitionDeps | DepUnknown)) {
    Where = E->getBeginLoc();
    return (What + " '" + getText(E->getSourceRange()) +
            "' may differ between the threads that share the loop, so the "
            "run-time check would not be uniform")
        .str();
  }
  return "";
}

std::string describeElement(ASTContext &Ctx, const VarDecl *Ptr,
                            VecLoopPlan &Plan, VecGroup &G) {
  QualType Elem = Ptr->getType()->getPointeeType().getUnqualifiedType();
  G.ElemType = Elem.getAsString(Ctx.getPrintingPolicy());
  if (Elem->isDependentType()) {
    if (!Plan.DependentElem.empty() && Plan.DependentElem != G.ElemType)
      return "the vectorized pointers have different template element "
             "types ('" +
             Plan.DependentElem + "' and '" + G.ElemType + "')";
    Plan.DependentElem = G.ElemType;
    return "";
  }
  if (Elem->isIncompleteType() || !Elem.isTriviallyCopyableType(Ctx))
    return "element type '" + G.ElemType + "' of '" + G.Ptr +
           "' is not trivially copyable";
  uint64_t Bytes = Ctx.getTypeSizeInChars(Elem).getQuantity();
  if (!isPowerOf2_64(Bytes) || Bytes > Plan.WidthBytes)
    return "element type '" + G.ElemType + "' of '" + G.Ptr + "' is " +
           std::to_string(Bytes) + " bytes; it does not divide a " +
           std::to_string(Plan.WidthBytes) + "-byte access";
  G.ElemBytes = Bytes;
  G.IsFloat = Elem->isSpecificBuiltinType(BuiltinType::Float);
  return "";
}

std::string checkElementWidths(VecLoopPlan &Plan, bool AllowMixed) {
  unsigned MaxBytes = 0;
  for (const VecGroup &G : Plan.Groups)
    MaxBytes = std::max(MaxBytes, G.ElemBytes);
  Plan.MixedFixedBytes = 0;
  if (!Plan.DependentElem.empty() && MaxBytes) {
    if (!AllowMixed)
      return "the loop mixes template-typed pointers with fixed-type ones; "
             "their vector widths would differ";
    if (Plan.WidthBytes / MaxBytes < 2)
      return "a fixed element type is " + std::to_string(MaxBytes) +
             " bytes; a " + std::to_string(Plan.WidthBytes) +
             "-byte access holds only one";
    // One step: WidthBytes / max(sizeof(T), MaxBytes) elements of each
    // pointer; the packs are structs of that many elements' bytes (no
    // __ldg overload takes them).
    Plan.MixedFixedBytes = MaxBytes;
    for (VecGroup &G : Plan.Groups)
      G.UseLdg = false;
    return "";
  }
  if (MaxBytes && Plan.WidthBytes / MaxBytes < 2)
    return "the elements are already " + std::to_string(MaxBytes) +
           " bytes wide; a " + std::to_string(Plan.WidthBytes) +
           "-byte access holds only one";
  return "";
}

std::string LoopAnalyzer::buildGroups(const BodyFacts &Facts,
                                      SourceLocation &Where) {
  if (Facts.Groups.empty())
    return "the loop has no global access `p[base + " + Plan.IVName +
           "]` to vectorize";
  for (const BodyGroup &BG : Facts.Groups) {
    VecGroup G;
    G.Ptr = BG.Ptr->getNameAsString();
    G.Base = BG.Base;
    G.Load = BG.NeedsLoad;
    G.Store = BG.Stored;
    QualType PtrTy = BG.Ptr->getType();
    // A `const T *__restrict__` parameter is read-only for the whole kernel:
    // say so with __ldg, since the guard's pointer-to-integer cast hides it
    // from the compiler's own inference of ld.global.nc.
    G.UseLdg = !BG.Stored &&
               (BG.AllLdg ||
                (isa<ParmVarDecl>(BG.Ptr) && PtrTy.isRestrictQualified() &&
                 PtrTy->getPointeeType().isConstQualified()));
    Where = BG.FirstAccess->getBeginLoc();
    if (std::string Why = describeElement(Ctx, BG.Ptr, Plan, G); !Why.empty())
      return Why;
    if (std::string Why = checkInvariant(BG.PtrRef, "pointer", Facts, Where);
        !Why.empty())
      return Why;
    for (const Expr *T : BG.BaseTerms)
      if (std::string Why = checkInvariant(T, "base offset", Facts, Where);
          !Why.empty())
        return Why;
    Plan.Groups.push_back(std::move(G));
  }
  Where = Loop->getBeginLoc();
  if (std::string Why = checkElementWidths(Plan, /*AllowMixed=*/true);
      !Why.empty())
    return Why;
  for (const Expr *S : Facts.UnitStrides) {
    if (std::string Why = checkInvariant(S, "stride", Facts, Where);
        !Why.empty())
      return Why;
    std::string Text = getText(S->getSourceRange());
    if (!is_contained(Plan.UnitStrides, Text))
      Plan.UnitStrides.push_back(Text);
  }
  return "";
}

std::string LoopAnalyzer::extractLoopText(SourceLocation &Where) {
  const LangOptions &LO = Ctx.getLangOpts();
  const Stmt *Body = Loop->getBody();
  SourceLocation BodyBegin, BodyEnd; // [begin, end) of the body's statements
  SourceLocation LoopEnd;
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    BodyBegin = CS->getLBracLoc().getLocWithOffset(1);
    BodyEnd = CS->getRBracLoc();
    LoopEnd = CS->getRBracLoc().getLocWithOffset(1);
  } else {
    BodyBegin = Body->getBeginLoc();
    BodyEnd = Lexer::getLocForEndOfToken(Body->getEndLoc(), 0, SM, LO);
    SourceLocation Semi = Lexer::findLocationAfterToken(
        Body->getEndLoc(), tok::semi, SM, LO, false);
    if (Semi.isValid())
      BodyEnd = Semi;
    LoopEnd = BodyEnd;
  }
  SourceLocation LoopBegin = Loop->getBeginLoc();
  for (SourceLocation L : {BodyBegin, BodyEnd, LoopBegin, LoopEnd})
    if (L.isInvalid() || L.isMacroID() || !SM.isWrittenInMainFile(L)) {
      Where = LoopBegin;
      return "the loop is written in a macro or outside the input file";
    }
  unsigned B = SM.getFileOffset(BodyBegin), E = SM.getFileOffset(BodyEnd);
  StringRef Buf = SM.getBufferData(SM.getFileID(LoopBegin));
  Plan.BodyText = Buf.slice(B, E).trim("\n").str();
  BodyOffset = B + Buf.slice(B, E).find_first_not_of('\n');
  Plan.LoopText =
      Buf.slice(SM.getFileOffset(LoopBegin), SM.getFileOffset(LoopEnd)).str();
  Plan.LoopIndent = getLineIndent(Buf, SM.getFileOffset(LoopBegin));
  return "";
}

std::string LoopAnalyzer::extractText(const BodyFacts &Facts,
                                      SourceLocation &Where) {
  if (std::string Why = extractLoopText(Where); !Why.empty())
    return Why;
  const LangOptions &LO = Ctx.getLangOpts();
  for (const BodyAccess &A : Facts.Accesses) {
    SourceLocation AB = A.E->getBeginLoc(), AE = A.E->getEndLoc();
    if (AB.isMacroID() || AE.isMacroID()) {
      Where = AB;
      return "the access '" + getText(A.E->getSourceRange()) +
             "' is written in a macro expansion";
    }
    unsigned Off = SM.getFileOffset(AB);
    unsigned End = SM.getFileOffset(Lexer::getLocForEndOfToken(AE, 0, SM, LO));
    BodyEdit Edit;
    Edit.Offset = Off - BodyOffset;
    Edit.Length = End - Off;
    Edit.Text = Plan.Groups[A.Group].Var + ".v[" + Plan.NameLane + "]";
    Plan.BodyEdits.push_back(std::move(Edit));
  }
  return "";
}

std::string pickName(StringSet<> &Used, std::string Name) {
  while (Used.count(Name))
    Name += "_";
  Used.insert(Name);
  return Name;
}

StringSet<> chooseNames(ASTContext &Ctx, const FunctionDecl *K,
                        VecLoopPlan &Plan) {
  StringSet<> Used = collectIdentifiers(Ctx, K);
  Plan.NameW = pickName(Used, "VecW");
  Plan.NameEnd = pickName(Used, "vecEnd");
  Plan.NameIdx = pickName(Used, "vecIdx");
  Plan.NameBase = pickName(Used, "vecBase");
  Plan.NameLane = pickName(Used, "lane");
  if (Plan.PerThread) {
    Plan.NameStride = pickName(Used, "vecStride");
    Plan.NameLimit = pickName(Used, "vecLimit");
  }
  StringMap<unsigned> PerPtr;
  for (const VecGroup &G : Plan.Groups)
    ++PerPtr[G.Ptr];
  StringMap<unsigned> Seen;
  for (VecGroup &G : Plan.Groups) {
    std::string Name = G.Ptr + "Vec";
    if (PerPtr[G.Ptr] > 1)
      Name += std::to_string(Seen[G.Ptr]++);
    G.Var = pickName(Used, Name);
  }
  return Used;
}

/// The values each thread's iterations leave (`sum += ...`) change with the
/// packs: only a combination over the block may read them
/// (PerThreadValues.cpp), which the guard keeps to the blocks it covers.
std::string LoopAnalyzer::checkValuesLeft() {
  BodyFacts Left;
  VarUses Writes;
  Writes.collect(Loop->getBody());
  struct Decls : RecursiveASTVisitor<Decls> {
    SmallPtrSetImpl<const VarDecl *> *Out;
    bool VisitVarDecl(VarDecl *V) {
      Out->insert(V);
      return true;
    }
  } D;
  D.Out = &Left.DeclaredInBody;
  D.TraverseStmt(const_cast<Stmt *>(Loop->getBody()));
  for (const VarDecl *V : Writes.Modified)
    if (V != IV)
      Left.WrittenInBody.insert(V);
  return checkPerThreadValues(Ctx, K, {Loop}, {&Left}, Plan.PartitionDim,
                              Plan.Partition == LoopPartition::Grid,
                              Plan.BlockGuards);
}

std::string LoopAnalyzer::run(SourceLocation &Where) {
  Where = Loop->getBeginLoc();
  if (std::string Why = checkHeader(Where); !Why.empty())
    return Why;
  if (PartitionDeps) {
    if (std::string Why =
            vectorize::whyNotReassignable(K, Loop, IV, PartitionDeps, Where);
        !Why.empty())
      return Why;
    if (std::string Why = checkValuesLeft(); !Why.empty())
      return Why;
    if (std::string Why = vectorize::findUnfencedClash(K, Loop, Where);
        !Why.empty())
      return Why;
  }
  BodyFacts Facts;
  std::string Why = analyzeBody(Ctx, Loop, IV, Facts, Where);
  if (Why.empty())
    for (const Expr *E : {EndE, StepE})
      if (E)
        if (std::string W = checkInvariant(E, "the loop bound", Facts, Where);
            !W.empty())
          return W;
  if (Why.empty())
    Why = buildGroups(Facts, Where);
  if (Why.empty()) {
    // The plain form packs only the accesses indexed by the loop variable
    // itself; loads through index arithmetic (`idx / d`, `idx % d` of a
    // flattened token x feature loop) stay one per lane. The widened form
    // packs those too: take it when it packs more accesses.
    VecLoopPlan Header = Plan;
    Header.Groups.clear();
    Header.UnitStrides.clear();
    Header.DependentElem.clear();
    SourceLocation WideWhere = Loop->getBeginLoc();
    if (widenRegion(Ctx, K, IV, PartitionDeps, {Loop->getBody()}, Header,
                    WideWhere)
            .empty() &&
        Header.Groups.size() > Plan.Groups.size()) {
      Plan = std::move(Header);
      return extractLoopText(Where);
    }
  }
  if (!Why.empty()) {
    // The plain form refused the body: try the widened one (inner loops,
    // index arithmetic, atomics).
    SourceLocation WideWhere = Loop->getBeginLoc();
    VecLoopPlan Header = Plan;
    Header.Groups.clear();
    Header.UnitStrides.clear();
    Header.DependentElem.clear();
    std::string WhyWide = widenRegion(Ctx, K, IV, PartitionDeps,
                                      {Loop->getBody()}, Header, WideWhere);
    if (WhyWide.empty()) {
      Plan = std::move(Header);
      return extractLoopText(Where);
    }
    // A buffer stored at two offsets (rotary pairs): the pairs form.
    VecLoopPlan Pairs = Plan;
    Pairs.Groups.clear();
    Pairs.UnitStrides.clear();
    Pairs.DependentElem.clear();
    SourceLocation PairsWhere = Loop->getBeginLoc();
    bool PairsShape = false;
    std::string WhyPairs = widenPairs(Ctx, K, Loop, IV, PartitionDeps, Pairs,
                                      PairsWhere, PairsShape);
    if (WhyPairs.empty())
      WhyPairs = findImpossibleGuard(Pairs);
    if (WhyPairs.empty()) {
      Plan = std::move(Pairs);
      return extractLoopText(Where);
    }
    if (PairsShape)
      return Why + "; widened: " + WhyWide + "; pairs: " + WhyPairs;
    return Why + "; widened: " + WhyWide;
  }
  // A sequential loop's lanes run in the original order; a thread-partitioned
  // loop hands each thread other elements, so its partial sums change.
  Plan.RegroupsFloatReduction =
      Facts.FloatReduction && Plan.Partition != LoopPartition::Sequential;
  chooseNames(Ctx, K, Plan);
  return extractText(Facts, Where);
}

std::string analyzeVectorLoop(ASTContext &Ctx, const FunctionDecl *Kernel,
                              const Stmt *Loop, unsigned WidthBytes,
                              VecLoopPlan &Plan, SourceLocation &Where) {
  Where = Loop->getBeginLoc();
  const auto *For = dyn_cast<ForStmt>(Loop);
  if (!For)
    return "not a `for` loop";
  for (const DynTypedNode &P : Ctx.getParents(*Loop))
    if (P.get<AttributedStmt>())
      return "the loop carries a #pragma or attribute";
  Plan = VecLoopPlan();
  Plan.WidthBytes = WidthBytes;
  LoopAnalyzer A(Ctx, Kernel, For, Plan);
  return A.run(Where);
}

} // namespace astra
