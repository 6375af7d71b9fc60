//===- TorchFlags.h - What a torch C++/CUDA extension build passes -*- C++
//-*-===//
//
// A torch extension (`torch/extension.h`, built by setup.py's CUDAExtension
// or torch.utils.cpp_extension.load) is compiled with torch's include
// directories and a handful of defines that its headers expect. The include
// directories come from -p (the build's compile_commands.json), --extra-arg,
// or --torch (the Python on the PATH is asked); the defines are supplied here
// when the flags do not set them already (docs/nvcc-compat.md, "torch
// extensions").
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_TORCHFLAGS_H
#define ASTRA_SUPPORT_TORCHFLAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace astra {

/// Asks `python3` on the PATH for `torch.utils.cpp_extension.include_paths()`
/// (and Python's own include directory, which setuptools adds to the build:
/// torch/extension.h includes Python.h) and the C++ and pybind11 ABIs torch
/// was built with. Returns `-isystem <dir>` for each directory,
/// `-D_GLIBCXX_USE_CXX11_ABI=<0|1>` and `-DPYBIND11_*`. An input error (exit 1)
/// when there is no python3 or torch cannot be imported, with Python's reason.
llvm::Expected<std::vector<std::string>> queryTorchFlags();

/// True when an include directory of \p Args (-I, -isystem, -idirafter, joined
/// or separate) holds torch's headers (`torch/extension.h`).
bool hasTorchIncludes(llvm::ArrayRef<std::string> Args);

/// Whether \p FileName (or a header it includes with quotes, beside it)
/// includes torch's headers (`torch/`, `ATen/`, `c10/`): only then do include
/// paths that hold torch bring torch's build defines (a plain CUDA file
/// compiled with torch on the include path keeps its bf16 conversions).
/// True for standard input.
bool fileIncludesTorch(llvm::StringRef FileName);

/// The defines torch.utils.cpp_extension passes to a CUDA extension's
/// compiles, for \p File (TORCH_EXTENSION_NAME is its stem made an
/// identifier), without those \p Args already define or undefine.
std::vector<std::string>
getMissingTorchDefines(llvm::ArrayRef<std::string> Args, llvm::StringRef File);

/// \p Name with torch's element types under their c10 names: `at::Half` and
/// `torch::Half` (aliases) become `c10::Half`, likewise BFloat16,
/// Float8_e4m3fn and Float8_e5m2. A kernel instantiation named in a spec as
/// written in the source (`k<at::Half>`) then matches the one the AST prints
/// (`k<c10::Half>`).
std::string withCanonicalTorchTypes(llvm::StringRef Name);

} // namespace astra

#endif // ASTRA_SUPPORT_TORCHFLAGS_H
