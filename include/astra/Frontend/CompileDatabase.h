//===- CompileDatabase.h - Project flags from compile_commands.json -*- C++
//-*-===//
//
// `astra-opt -p <build dir>` parses a file with the include paths and macros
// its project compiles it with. The file's entry in
// <build dir>/compile_commands.json (written by CMake, Bear, ...) is read and
// only the flags that change how the file parses are kept: the rest
// (outputs, target architectures, optimisation, nvcc-only options) belongs
// to the original compiler, not to astra-opt's device-side parse.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_COMPILEDATABASE_H
#define ASTRA_FRONTEND_COMPILEDATABASE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace astra {

/// Keeps the parse-relevant flags of one compile command (\p CommandLine,
/// compiler first) for \p File, run in \p Directory: -I, -isystem, -iquote,
/// -idirafter, -D, -U, -include, -imacros, -std=, --cuda-path= and their nvcc
/// spellings (--include-path, --define-macro, --pre-include, ...), with
/// relative paths made absolute against \p Directory. Everything else is
/// dropped: the compiler, the sources, -o/-c/-M*, -x, -O, -g, -W, -f,
/// -arch/-gencode/--cuda-gpu-arch/--offload-arch, -Xcompiler and other nvcc
/// options. One exception: -fopenmp, given directly or to the host compiler
/// (-Xcompiler -fopenmp,...), is kept as -fopenmp so that <omp.h> is found.
std::vector<std::string>
filterParseFlags(llvm::ArrayRef<std::string> CommandLine, llvm::StringRef File,
                 llvm::StringRef Directory);

/// The flags nvcc compiles \p File with (--backend=nvcc): when the command's
/// compiler is nvcc, all of its options but the sources, the outputs (-o,
/// -odir, -M* dependency files), the phase options (-c, -dc, -ptx, -cubin,
/// -E, ...), the language (-x) and the target architectures (-arch,
/// -gencode, -code), which the backend chooses for the GPU at hand; paths
/// made absolute against \p Directory. Another compiler's command (clang++,
/// g++) gives its parse flags (filterParseFlags) in nvcc's spelling.
std::vector<std::string>
filterNvccFlags(llvm::ArrayRef<std::string> CommandLine, llvm::StringRef File,
                llvm::StringRef Directory);

/// One file's entry of a compilation database.
struct ProjectCommand {
  std::vector<std::string> CommandLine; ///< the compiler first
  std::string File, Directory;
};

/// Reads \p BuildDir/compile_commands.json and returns \p File's entry.
/// Fails (bad input) when the database is missing or unreadable or has no
/// entry for the file.
llvm::Expected<ProjectCommand> loadCompileCommand(llvm::StringRef BuildDir,
                                                  llvm::StringRef File);

} // namespace astra

#endif // ASTRA_FRONTEND_COMPILEDATABASE_H
