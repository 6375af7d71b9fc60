//===- Rewrite.h - The rewrite interface ------------------------*- C++ -*-===//
//
// A rewrite is one entry of the catalogue (design section 4): a name,
// parameters, a matcher over the AST, legality conditions and source edits.
// Each rewrite lives in its own file under lib/Transforms and registers itself
// in Registry.cpp.
//
// A rewrite visits every place it could apply ("site"). For each site it
// records whether it applies and, if not, why; for a selected, legal site it
// adds source edits. A rewrite never silently does nothing: the pipeline turns
// "no site applied" into an error that lists every refused site and reason.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_TRANSFORMS_REWRITE_H
#define ASTRA_TRANSFORMS_REWRITE_H

#include "astra/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>
#include <vector>

namespace astra {

/// Parameters of one application, parsed from
/// `--apply=<name>[:key=value,...]`. `kernel` and `loop` are common to all
/// rewrites and select where it applies; the others are the rewrite's own.
struct RewriteParams {
  std::string Name;
  std::string Kernel; ///< restrict to this kernel (source name), or empty
  std::string Loop;   ///< restrict to this loop id (`k:L0`), or empty
  llvm::StringMap<std::string> Values;

  /// Parses `name[:k=v,...]`. Errors name the offending part.
  static llvm::Expected<RewriteParams> parse(llvm::StringRef Text);
  /// Integer parameter with a default; errors name the key and value.
  llvm::Expected<int64_t> getInt(llvm::StringRef Key, int64_t Default) const;
  std::string getString(llvm::StringRef Key, llvm::StringRef Default) const;
};

/// One declared parameter of a rewrite (for --help and validation).
struct ParamDesc {
  std::string Key;
  std::string Default;
  std::string Help;
};

/// A place a rewrite looked at.
struct RewriteSite {
  std::string Kernel;
  std::string LoopId; ///< empty when the site is not a loop
  DiagLoc Loc;
  bool Applicable = false;
  bool Selected = true;  ///< matched the kernel/loop filter
  std::string Detail;    ///< what it did / would do, or why it cannot apply
};

/// What a rewrite sees: the parsed file, and where its edits go.
class RewriteContext {
public:
  RewriteContext(clang::ASTContext &Ctx, llvm::StringRef FileName)
      : Ctx(Ctx), FileName(FileName.str()) {}

  clang::ASTContext &getASTContext() const { return Ctx; }
  clang::SourceManager &getSourceManager() const {
    return Ctx.getSourceManager();
  }
  const std::string &getFileName() const { return FileName; }

  /// Source text of a range in the main file, as written (macros unexpanded).
  llvm::StringRef getText(clang::SourceRange R) const;
  /// The location as the user sees it (file name as given, 1-based).
  DiagLoc getDiagLoc(clang::SourceLocation Loc) const;
  /// Leading whitespace of the line holding \p Loc.
  std::string getIndent(clang::SourceLocation Loc) const;

  /// Adds a replacement of the written range \p R with \p Text. Fails when it
  /// overlaps an edit already made or lies outside the main file.
  llvm::Error replace(clang::CharSourceRange R, llvm::StringRef Text);
  llvm::Error insertBefore(clang::SourceLocation Loc, llvm::StringRef Text);

  const clang::tooling::Replacements &getEdits() const { return Edits; }

private:
  clang::ASTContext &Ctx;
  std::string FileName;
  clang::tooling::Replacements Edits;
};

class Rewrite {
public:
  virtual ~Rewrite();
  virtual llvm::StringRef getName() const = 0;
  /// One line for --help and --list-rewrites.
  virtual llvm::StringRef getDescription() const = 0;
  virtual std::vector<ParamDesc> getParams() const { return {}; }

  /// Visits every site, appends it to \p Sites, and for the applicable sites
  /// that \p P selects adds edits to \p Ctx (unless \p DryRun). Returns an
  /// error only for bad parameters or an internal failure.
  virtual llvm::Error run(RewriteContext &Ctx, const RewriteParams &P,
                          bool DryRun, std::vector<RewriteSite> &Sites) = 0;
};

/// All rewrites of the catalogue, in a stable order.
const std::vector<std::unique_ptr<Rewrite>> &getRewrites();
/// The rewrite named \p Name, or null.
Rewrite *findRewrite(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_TRANSFORMS_REWRITE_H
