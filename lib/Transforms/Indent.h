//===- Indent.h - Generated code in the file's own layout -------*- C++ -*-===//
//
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_TRANSFORMS_INDENT_H
#define ASTRA_LIB_TRANSFORMS_INDENT_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace astra {

class RewriteContext;

/// How a file indents: one level (two, three or four spaces, or a tab), and
/// whether an opening brace of a block goes on a line of its own.
struct IndentStyle {
  std::string Unit = "  ";
  bool BraceOnOwnLine = false;
  /// `#pragma` lines start at column 0 (as the file's own do); else they
  /// are indented like the statement they precede.
  bool PragmaAtColumnZero = false;
  /// Generated `if`/`for` headers longer than this are broken (80, or the
  /// file's longest line of code when it has longer ones).
  unsigned ColumnLimit = 80;
};

/// Reads the style of \p Code from its indented lines: the most common step
/// between a line and the more indented line after it, tabs when most
/// indented lines start with one.
IndentStyle detectIndentStyle(llvm::StringRef Code);

/// Lays out generated code \p Text in \p Style: every line after the first
/// is indented by block depth from \p BaseIndent (the indentation of the
/// line the text starts on), a single statement under `if`/`for`/`else`
/// one level deeper, a continuation line two levels deeper unless it was
/// aligned in the text (then its offset from its statement is kept).
/// Copied source lines are laid out the same way, so code written in one
/// consistent style keeps its relative layout. The first line is left as it
/// is: it continues the line the edit starts on.
std::string layoutBlock(llvm::StringRef Text, llvm::StringRef BaseIndent,
                        const IndentStyle &Style);

/// layoutBlock for a block that replaces code starting at file offset
/// \p Offset of the main file.
/// The spaces and tabs that start the line holding offset \p Offset.
std::string getLineIndent(llvm::StringRef Buf, unsigned Offset);

/// The offset in \p Buf of the start of the line holding \p Offset.
unsigned getLineStart(llvm::StringRef Buf, unsigned Offset);

std::string layoutBlockAt(const RewriteContext &RC, unsigned Offset,
                          llvm::StringRef Text);

} // namespace astra

#endif // ASTRA_LIB_TRANSFORMS_INDENT_H
