//===- Rewrite.h - The rewrite interface ------------------------*- C++ -*-===//
//
// A rewrite is one entry of the catalogue (design section 4): a name,
// parameters, a matcher over the AST, legality conditions and source edits.
// Each rewrite lives in its own file under lib/Transforms and is listed
// in Registry.cpp.
//
// A rewrite visits every place it could apply ("site"). For each site it
// records whether it applies and, if not, why; for a selected, legal site it
// plans source edits, which edit() makes and analyze() does not. A rewrite
// never silently does nothing: the pipeline turns "no site applied" into an
// error that lists every refused site and reason.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_TRANSFORMS_REWRITE_H
#define ASTRA_TRANSFORMS_REWRITE_H

#include "astra/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace astra {

struct IndentStyle;

/// Parameters of one application, parsed from
/// `--apply=<name>[:key=value,...]`. `kernel`, `loop` and `function` are
/// common to all rewrites and select where it applies; the others are the
/// rewrite's own. `kernel=K` selects K's body and the device functions that
/// only K reaches; `function=F` the body of the device function (or kernel)
/// F alone, whoever calls it. `function=` goes with neither of the others.
struct RewriteParams {
  std::string Name;
  std::string Kernel;   ///< restrict to this kernel (source name), or empty
  std::string Loop;     ///< restrict to this loop id (`k:L0`), or empty
  std::string Function; ///< restrict to this function's body, or empty
  llvm::StringMap<std::string> Values;

  /// Parses `name[:k=v,...]`. Errors name the offending part.
  static llvm::Expected<RewriteParams> parse(llvm::StringRef Text);
  /// Integer parameter with a default; errors name the key and value.
  llvm::Expected<int64_t> getInt(llvm::StringRef Key, int64_t Default) const;
  std::string getString(llvm::StringRef Key, llvm::StringRef Default) const;
};

/// The type of a rewrite's own parameter.
enum class RewriteParamKind {
  Int,    ///< a decimal integer in [Min, Max], or one of Choices when given
  Bool,   ///< 0 or 1
  Enum,   ///< one of Choices
  Subset, ///< `all`, or a '+'-separated subset of Choices (`exp+div`)
  Name,   ///< an identifier (a kernel parameter), or empty for the default
};

/// One declared parameter of a rewrite: its type, what it may be set to, and
/// the values a search tries.
struct ParamDesc {
  std::string Key;
  RewriteParamKind Kind = RewriteParamKind::Int;
  std::string Default;
  /// Values the search agent enumerates, in the order it tries them. Every
  /// one is valid.
  std::vector<std::string> Values;
  std::string Help;
  int64_t Min = 0, Max = 0;         ///< Int without Choices: allowed range
  std::vector<std::string> Choices; ///< Int, Enum, Subset: allowed values

  /// Fails, naming the allowed values, unless \p Value is one.
  llvm::Error check(llvm::StringRef Rewrite, llvm::StringRef Value) const;
  /// `int 1..1024`, `enum pragma|manual`, ... for --help and listings.
  std::string describeType() const;
};

/// Name of a kind as listings print it: int, bool, enum, subset.
llvm::StringRef getParamKindName(RewriteParamKind K);

/// A place a rewrite looked at.
struct RewriteSite {
  /// The kernel whose body holds the site; empty for a site in a device
  /// function (then Function is set).
  std::string Kernel;
  std::string LoopId; ///< empty when the site is not a loop
  /// The device function whose body holds the site (its `function=` name),
  /// or empty for a site in a kernel body.
  std::string Function;
  /// For a site in a device function: the kernels that reach it, by source
  /// name, or by instantiation (`act_and_mul<silu>`) when only some
  /// instantiations reach it (through a template argument).
  std::vector<std::string> ReachedFrom;
  DiagLoc Loc;
  bool Applicable = false;
  bool Selected = true; ///< matched the kernel/loop filter
  std::string Detail;   ///< what it did / would do, or why it cannot apply
  /// Applying it may change floating-point results in the last bits
  /// (reassociated reductions, fast intrinsics).
  bool ChangesRounding = false;
  /// Of those: it regroups floating-point arithmetic (a vectorized or
  /// warp-shuffled sum adds in another order), so results may differ in the
  /// last bits from run to run of the two versions.
  bool Reassociates = false;
  /// What it takes for granted that the code does not show (an assume-*
  /// parameter), for the agent to match against the spec; empty if nothing.
  std::string Assumes;
  /// A one-element-per-thread site whose index is the block's threads alone
  /// (vectorize-loads at `i = threadIdx.x`): its any-grid form lets a launch
  /// divide the block only, never the grid (which indexes other things).
  bool BlockSplitOnly = false;
  /// For that form: the dimensions its stride reads (`gridDim.y *
  /// blockDim.x`: 'y' and 'x'; GridDim 0 in the any-block form): which
  /// extents a launch may divide (grid-y-div, block-x-div). 0 when none.
  char GridDim = 0, BlockDim = 0;
  /// A block-stride loop whose any-grid form lets a launch divide the block
  /// (vectorize-loads at `loop=`, BlockSplitOnly): the loop's bound as
  /// written (`feat_dim`), so that the search divides the block only where
  /// it covers the loop in fewer than one pack per thread. Empty otherwise.
  std::string Extent;
  /// A risk of applying it that the user should see (a factor that may put
  /// an array in local memory); printed as a warning by --apply. Empty if
  /// none.
  std::string Warning;
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

  /// The indentation unit and brace style of the main file, read from it
  /// once (lib/Transforms/Indent.h lays out generated code with it).
  const IndentStyle &getIndentStyle() const;

private:
  clang::ASTContext &Ctx;
  std::string FileName;
  clang::tooling::Replacements Edits;
  mutable std::shared_ptr<const IndentStyle> Style;
};

class EditBatch;

/// A rewrite of the catalogue. Analysis and editing are separate calls over
/// one plan: plan() visits every site and records, for each applicable one,
/// the edits that realise it without making them; analyze() returns the
/// sites, edit() makes the edits of the selected applicable sites.
///
/// Refusals come back one way: a bad parameter or an internal failure is an
/// Error; a site where the rewrite cannot apply is a RewriteSite with
/// Applicable false and the reason in Detail.
class Rewrite {
public:
  virtual ~Rewrite();
  virtual llvm::StringRef getName() const = 0;
  /// One line for --help and --list-rewrites.
  virtual llvm::StringRef getDescription() const = 0;
  virtual std::vector<ParamDesc> getParams() const { return {}; }
  /// Whether it also takes the spec's tunable launch variables as
  /// parameters (`launch:B=512`): an identifier set to a positive integer.
  virtual bool takesLaunchVariables() const { return false; }
  /// Whether it changes the kernel's launch (the contract the plan and the
  /// report carry): an applicable site may then leave the file as it is.
  virtual bool changesLaunch() const { return false; }
  /// Whether the search's enumeration lists its sites (--list-options): not
  /// for a rewrite that pays only with another step, which the search
  /// proposes together with it (keep-original).
  virtual bool isEnumerated() const { return true; }

  /// The smallest selection the search applies it to: one loop (`loop=`,
  /// for rewrites of a loop) or one kernel (`kernel=`, for rewrites of
  /// expressions or parameters spread over a kernel).
  enum class Scope { Loop, Kernel };
  virtual Scope getScope() const { return Scope::Kernel; }
  /// Whether it has sites in device functions (RewriteSite::Function), which
  /// a search also selects one by one (`function=`).
  virtual bool reachesDeviceFunctions() const { return false; }

  /// Fails when \p P names a parameter this rewrite does not declare or
  /// gives one a value outside its allowed values.
  llvm::Error checkParams(const RewriteParams &P) const;

  /// Every site the rewrite looked at, with whether it applies there under
  /// \p P. Edits nothing.
  llvm::Expected<std::vector<RewriteSite>>
  analyze(RewriteContext &RC, const RewriteParams &P) const;
  /// Adds to \p RC the edits of every applicable site that \p P selects;
  /// returns every site as analyze() does.
  llvm::Expected<std::vector<RewriteSite>> edit(RewriteContext &RC,
                                                const RewriteParams &P) const;

protected:
  /// A site, and for an applicable selected one the edits that realise it.
  struct PlannedSite {
    RewriteSite Site;
    std::function<void(EditBatch &)> Edit; ///< empty: nothing to edit
  };
  /// Visits every site under \p P (already checked by checkParams()).
  virtual llvm::Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const = 0;
};

/// All rewrites of the catalogue, in a stable order.
const std::vector<std::unique_ptr<Rewrite>> &getRewrites();
/// The rewrite named \p Name, or null.
Rewrite *findRewrite(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_TRANSFORMS_REWRITE_H
