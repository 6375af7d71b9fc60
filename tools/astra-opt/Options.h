//===- Options.h - Command-line options shared by the modes -----*- C++ -*-===//
#ifndef ASTRA_TOOLS_OPTIONS_H
#define ASTRA_TOOLS_OPTIONS_H

#include "astra/Support/CompileSetup.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace astra {

extern llvm::cl::OptionCategory AstraCategory;
extern llvm::cl::opt<std::string> InputFile;
extern llvm::cl::opt<std::string> OutputFile;
extern llvm::cl::opt<std::string> GpuArch;
extern llvm::cl::opt<std::string> CudaPathOpt;
extern llvm::cl::opt<std::string> BuildPath;
extern llvm::cl::list<std::string> ExtraArgs;
/// --spec <file>: the launch spec (--check-spec, --verify).
extern llvm::cl::opt<std::string> SpecFile;
/// --kernel=<name> (repeatable): the spec kernels to verify or optimise.
extern llvm::cl::list<std::string> KernelNames;
/// --report <file>: results as JSON (--verify, --agent-rewrite).
extern llvm::cl::opt<std::string> ReportFile;
/// Harness settings shared by --verify and --agent-rewrite.
extern llvm::cl::opt<unsigned> HarnessTimeout;
extern llvm::cl::opt<bool> NoEdgeShapes;
extern llvm::cl::opt<std::string> HarnessKeep;
/// --in-place: write the result over the input, keeping <file>.orig.
extern llvm::cl::opt<bool> InPlace;

/// The default spec path: `dir/name.astra.json` for `dir/name.cu`.
std::string defaultSpecPath(llvm::StringRef File);

/// Writes \p Code to -o (default stdout), or over the input with
/// --in-place (the original kept as <file>.orig, written first).
llvm::Error writeResult(llvm::StringRef OriginalText, llvm::StringRef Code);

/// The input file as loaded: the name used in diagnostics and its contents
/// (after any --apply rewrites).
struct InputSource {
  std::string FileName;
  std::string Code;
  /// The input as read, before any --apply (stdin is read once).
  std::string Original;
  /// The --apply steps that made Code from Original, in order.
  std::vector<std::string> Applied;
};

/// Builds the compile setup from the options (and compile_commands.json when
/// -p is given).
llvm::Expected<CompileSetup> makeCompileSetup(llvm::StringRef FileName);

} // namespace astra

#endif
