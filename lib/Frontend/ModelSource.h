//===- ModelSource.h - Source text and locations for the model --*- C++ -*-===//
//
// Private to lib/Frontend: what the KernelModel builders share.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_FRONTEND_MODELSOURCE_H
#define ASTRA_LIB_FRONTEND_MODELSOURCE_H

#include "astra/Frontend/ExprMatch.h"
#include "astra/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace astra {

/// The AST of one file and the name its locations are reported under.
class ModelSource {
public:
  ModelSource(clang::ASTContext &Ctx, llvm::StringRef FileName)
      : Ctx(Ctx), FileName(FileName.str()) {}

  clang::ASTContext &getASTContext() const { return Ctx; }
  const clang::SourceManager &getSourceManager() const {
    return Ctx.getSourceManager();
  }
  clang::PrintingPolicy getPolicy() const;

  /// The text of \p R as written, on one line (runs of whitespace become one
  /// space). Empty when the range cannot be mapped to the file (e.g. it lies
  /// inside a macro definition).
  std::string getText(clang::SourceRange R) const;
  /// The text of \p E as written, or pretty-printed when not in the file.
  std::string getText(const clang::Expr *E) const;
  /// \p T printed (sugar kept: `float4`, `__half`, `T`).
  std::string print(clang::QualType T) const;

  /// Where \p Loc is as the user sees it: where a macro argument is written,
  /// or where the macro is expanded for code from a macro body. The main file
  /// is named with FileName.
  DiagLoc getLoc(clang::SourceLocation Loc) const;
  /// The location lies in a macro expansion.
  bool isFromMacro(clang::SourceLocation Loc) const { return Loc.isMacroID(); }

private:
  clang::ASTContext &Ctx;
  std::string FileName;
};

/// The template arguments of the function template specialization \p Spec,
/// as written (explicit instantiations) or printed.
std::vector<std::string> getTemplateArgs(const ModelSource &Src,
                                         const clang::FunctionDecl *Spec);

/// Loops of a kernel body: statement -> index in collectLoops order.
using LoopIndexMap = llvm::DenseMap<const clang::Stmt *, unsigned>;

} // namespace astra

#endif
