//===- CoarsenScan.h - What coarsen reads in a kernel -----------*- C++ -*-===//
//
// Private to lib/Transforms (Coarsen.cpp): the built-ins, barriers and uses
// of the tree's array in a kernel's body, and the text helpers that copy its
// statements with edits.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_COARSENSCAN_H
#define ASTRA_LIB_TRANSFORMS_COARSENSCAN_H

#include "WarpReduceMatch.h"
#include "astra/Transforms/Rewrite.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include <string>
#include <vector>

namespace astra {

/// What the kernel's body reads that coarsening must see.
struct CoarsenScan : clang::RecursiveASTVisitor<CoarsenScan> {
  const clang::SourceManager &SM;
  const clang::VarDecl *Array;                ///< the tree's
  std::vector<const clang::Expr *> ThreadX;   ///< threadIdx.x
  std::vector<const clang::Expr *> BlockDimX; ///< blockDim.x
  std::vector<const clang::DeclRefExpr *> ArrayRefs;
  std::vector<const clang::CallExpr *> Barriers;
  /// threadIdx and blockDim as variables (members included: the caller
  /// keeps those isWholeIndexVar finds).
  std::vector<const clang::DeclRefExpr *> WholeIndex;
  std::string Why; ///< the first thing that forbids coarsening
  clang::SourceLocation WhyLoc;
  llvm::DenseSet<unsigned> Seen;

  CoarsenScan(const clang::SourceManager &SM, const clang::VarDecl *Array)
      : SM(SM), Array(Array) {}
  void refuse(const llvm::Twine &W, clang::SourceLocation L);
  void builtin(const clang::Expr *E);
  bool VisitMemberExpr(clang::MemberExpr *E);
  bool VisitMSPropertyRefExpr(clang::MSPropertyRefExpr *E);
  bool VisitCallExpr(clang::CallExpr *C);
  bool VisitVarDecl(clang::VarDecl *V);
  bool VisitDeclRefExpr(clang::DeclRefExpr *E);
  bool VisitReturnStmt(clang::ReturnStmt *R);
  bool VisitAsmStmt(clang::AsmStmt *S);
  bool VisitLabelStmt(clang::LabelStmt *S);
  bool VisitGotoStmt(clang::GotoStmt *S);
  bool VisitIndirectGotoStmt(clang::IndirectGotoStmt *S);
};

/// The one tree reduction of a kernel (WarpReduceMatch.h), at the top of its
/// body right after its leaf `a[threadIdx.x] = X;` and a barrier, its first
/// stride blockDim.x / 2.
struct CoarsenTree {
  TreeMatch M;
  size_t T = 0; ///< the tree's index among the body's statements
  const clang::BinaryOperator *Leaf = nullptr;
};

/// Finds \p K's tree in \p Body; returns why there is none (and where, in
/// \p WhyLoc), or empty.
std::string findCoarsenTree(clang::ASTContext &Ctx,
                            const clang::FunctionDecl *K,
                            const clang::CompoundStmt *Body, CoarsenTree &Out,
                            clang::SourceLocation &WhyLoc);

/// Whether a function reads threadIdx or blockDim.
struct ReadsIndex : clang::RecursiveASTVisitor<ReadsIndex> {
  bool Found = false;
  /// What else in a callee depends on which threads share a warp or a
  /// block, or acts once per thread on shared state (from a review): warp
  /// collectives, barriers, atomics, fences, inline assembly, shared
  /// declarations.
  std::string Other;
  void builtin(const clang::Expr *E);
  bool VisitMemberExpr(clang::MemberExpr *E);
  bool VisitMSPropertyRefExpr(clang::MSPropertyRefExpr *E);
  bool VisitDeclRefExpr(clang::DeclRefExpr *E);
  bool VisitCallExpr(clang::CallExpr *C);
  bool VisitAsmStmt(clang::AsmStmt *S);
  bool VisitVarDecl(clang::VarDecl *V);
};

/// Refuses in \p Scan what kernel \p K runs outside its body that reads
/// threadIdx or blockDim or holds what ReadsIndex::Other names: every device
/// function it reaches (in the file or a header, constructors and
/// destructors included, with their in-class initialisers), the in-class
/// initialisers and default arguments its body evaluates, and calls through
/// a pointer (their callee is not known).
void checkReach(const clang::SourceManager &SM, const clang::FunctionDecl *K,
                CoarsenScan &Scan);

/// Whether \p E names threadIdx or blockDim whole (`f(threadIdx)`), not
/// one of its members.
bool isWholeIndexVar(clang::ASTContext &Ctx, const clang::DeclRefExpr *E);

/// Whether \p L lies in \p S (file locations).
bool inRange(const clang::SourceManager &SM, clang::SourceLocation L,
             const clang::Stmt *S);

/// The variables a statement declares at its own level.
std::vector<const clang::VarDecl *> declaredBy(const clang::Stmt *S);

/// Whether \p S reads threadIdx.x or one of \p Vars.
bool reads(const clang::Stmt *S,
           const llvm::DenseSet<const clang::VarDecl *> &Vars);

/// The first variable that \p Stmts write (assign, increment, take the
/// address of) but do not declare: each of the C threads a thread runs would
/// write it once more. Null when none.
const clang::VarDecl *findOuterWrite(const clang::SourceManager &SM,
                                     llvm::ArrayRef<const clang::Stmt *> Stmts,
                                     clang::SourceLocation &Where);

/// The first declaration in \p Stmts (at their own level) that is not a
/// variable (a typedef, a type, a static_assert): the copies of the
/// statements would lose it. Null when none.
const clang::Decl *findNonVarDecl(llvm::ArrayRef<const clang::Stmt *> Stmts);

/// Refuses in \p Scan a use of the tree's array other than by the leaf
/// \p Leaf, the tree \p Tree and element 0 read or written in \p After
/// (the statements after the tree), and one outside kernel \p K.
void checkArrayUses(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                    CoarsenScan &Scan, const clang::BinaryOperator *Leaf,
                    const clang::ForStmt *Tree,
                    llvm::ArrayRef<const clang::Stmt *> After);

/// Whether the tree loop \p Loop starts from `blockDim.x / 2` or
/// `blockDim.x >> 1` (through casts to integers).
bool isHalfBlock(const clang::ForStmt *Loop);

/// The file offset just past \p S, its `;` included.
unsigned stmtEnd(RewriteContext &RC, const clang::Stmt *S);

/// Edits for spliceText.
using TextEdits = std::vector<std::pair<clang::SourceRange, std::string>>;

/// The edits that make \p S's text one copy's: each read of threadIdx.x
/// among \p ThreadX inside \p S becomes \p ThreadText, each reference to a
/// local of \p PerThread becomes its array's element `[K]`.
TextEdits copyEdits(const clang::SourceManager &SM, const clang::Stmt *S,
                    llvm::ArrayRef<const clang::Expr *> ThreadX,
                    const llvm::DenseSet<const clang::VarDecl *> &PerThread,
                    llvm::StringRef ThreadText, llvm::StringRef K);

/// Text of \p R (to \p End when given) with the edits \p Edits (ranges
/// inside it) applied; an edit nested in another is dropped.
std::string
spliceText(RewriteContext &RC, clang::SourceRange R,
           std::vector<std::pair<clang::SourceRange, std::string>> Edits,
           unsigned End = 0);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_COARSENSCAN_H
