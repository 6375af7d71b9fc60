//===- EditBatch.h - Nested edits as one batch ------------------*- C++ -*-===//
//
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_EDITBATCH_H
#define ASTRA_LIB_TRANSFORMS_EDITBATCH_H

#include "astra/Transforms/Rewrite.h"

namespace astra {

/// Collects source edits that may nest (`__fdividef(a, b)` around an edited
/// `a`) and commits them to the context as non-overlapping replacements.
/// Insertions at one offset keep the order they were added in and come
/// before a replacement that starts there.
class EditBatch {
public:
  explicit EditBatch(RewriteContext &RC) : RC(RC) {}
  /// File offsets of the written range \p R (~0u when not editable).
  unsigned beginOf(clang::SourceRange R) const;
  unsigned endOf(clang::SourceRange R) const;

  void replace(unsigned Begin, unsigned End, llvm::StringRef Text);
  void insert(unsigned Offset, llvm::StringRef Text) {
    replace(Offset, Offset, Text);
  }
  void replace(clang::SourceRange R, llvm::StringRef Text) {
    replace(beginOf(R), endOf(R), Text);
  }
  /// Replaces with generated code of several lines, laid out in the file's
  /// own indentation and brace style from the line \p Begin lies on.
  void replaceBlock(unsigned Begin, unsigned End, llvm::StringRef Text);
  void replaceBlock(clang::SourceRange R, llvm::StringRef Text) {
    replaceBlock(beginOf(R), endOf(R), Text);
  }
  /// Adds every edit to the RewriteContext. Fails on overlapping edits or
  /// edits outside the main file.
  llvm::Error commit();

private:
  struct Edit {
    unsigned Begin, End;
    std::string Text;
    unsigned Seq;
  };
  clang::CharSourceRange getFileRange(clang::SourceRange R) const;
  RewriteContext &RC;
  std::vector<Edit> Edits;
  bool Invalid = false;
};

/// Adds the statement \p Text as the first line of \p Body, on a line of its
/// own (so the lines around it, the function signature included, keep their
/// formatting).
void insertAtBodyStart(const RewriteContext &RC, EditBatch &Edits,
                       const clang::CompoundStmt *Body, llvm::StringRef Text);

/// Inserts the statement \p Text on its own line before \p S, indented like
/// it. Fails when \p S does not start its line.
bool insertLineBefore(const RewriteContext &RC, EditBatch &Edits,
                      const clang::Stmt *S, llvm::StringRef Text);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_EDITBATCH_H
