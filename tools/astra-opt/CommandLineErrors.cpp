//===- CommandLineErrors.cpp - Clang-style command-line errors ------------===//
#include "CommandLineErrors.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

/// The text between the first pair of single quotes after \p Prefix.
static StringRef quoted(StringRef Line, StringRef Prefix) {
  StringRef Rest = Line.substr(Line.find(Prefix) + Prefix.size());
  if (!Rest.consume_front("'"))
    return "";
  return Rest.take_until([](char C) { return C == '\''; });
}

std::string formatCommandLineErrors(StringRef Tool, StringRef ClOutput) {
  std::string Out;
  SmallVector<StringRef, 4> Lines;
  ClOutput.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  StringRef Unknown;
  for (StringRef Line : Lines) {
    Line = Line.trim();
    // llvm::cl prefixes its messages with the program name; lines without it
    // explain the line before.
    std::string Prefix = (Tool + ": ").str();
    bool Main = Line.consume_front(Prefix);
    if (Line.empty())
      continue;
    if (Line.starts_with("Unknown command line argument ")) {
      Unknown = quoted(Line, "Unknown command line argument ");
      Out += Prefix + "error: unknown option '" + Unknown.str() + "'\n";
    } else if (Line.starts_with("Did you mean ")) {
      // llvm::cl always suggests something; only a near miss is worth a note.
      StringRef Guess = quoted(Line, "Did you mean ");
      StringRef A = Unknown.ltrim('-').split('=').first;
      StringRef B = Guess.ltrim('-').split('=').first;
      if (A.edit_distance(B) <= std::max<size_t>(2, A.size() / 3))
        Out += Prefix + "note: did you mean '" + Guess.str() + "'?\n";
    } else {
      std::string M = Line.rtrim("!.").str();
      M[0] = toLower(M[0]);
      Out += Prefix + (Main ? "error: " : "note: ") + M + "\n";
    }
  }
  return Out;
}

} // namespace astra
