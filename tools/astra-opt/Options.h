//===- Options.h - Command-line options shared by the modes -----*- C++ -*-===//
#ifndef ASTRA_TOOLS_OPTIONS_H
#define ASTRA_TOOLS_OPTIONS_H

#include "astra/Support/CompileSetup.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <string>

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

/// The input file as loaded: the name used in diagnostics and its contents
/// (after any --apply rewrites).
struct InputSource {
  std::string FileName;
  std::string Code;
};

/// Builds the compile setup from the options (and compile_commands.json when
/// -p is given).
llvm::Expected<CompileSetup> makeCompileSetup(llvm::StringRef FileName);

} // namespace astra

#endif
