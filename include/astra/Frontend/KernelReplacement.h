//===- KernelReplacement.h - A kernel's source, and checks on new ones -*- C++
//-*-===//
//
// What the LLM agent shows a model of a kernel (its definition and the device
// helpers of the main file it calls), and the checks a replacement the model
// wrote must pass before any compile or GPU time is spent on it: checked on
// the parsed AST, not on the text.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_KERNELREPLACEMENT_H
#define ASTRA_FRONTEND_KERNELREPLACEMENT_H

#include "astra/Support/CompileSetup.h"
#include "llvm/Support/Error.h"
#include <string>

namespace astra {

/// The source of kernel \p Kernel (its source name; a template's whole
/// declaration) preceded by the functions of the main file it calls,
/// directly or not, in source order, each as written.
llvm::Expected<std::string> extractKernelSource(const CompileSetup &Setup,
                                                llvm::StringRef FileName,
                                                llvm::StringRef Code,
                                                llvm::StringRef Kernel);

/// Checks \p NewSource as a replacement for kernel \p Kernel of \p Code:
/// it compiles (the error text holds the compiler's diagnostics for it); it
/// defines the kernel with the same name, template parameters and parameter
/// types; besides it, it adds only device functions and types (no host
/// functions, other kernels, `__device__`/`__constant__` globals, kernel
/// launches, streams or CUDA runtime calls). The error (exit 1) says what is
/// wrong in words a model can act on.
llvm::Error checkReplacement(const CompileSetup &Setup,
                             llvm::StringRef FileName, llvm::StringRef Code,
                             llvm::StringRef Kernel, llvm::StringRef NewSource);

} // namespace astra

#endif // ASTRA_FRONTEND_KERNELREPLACEMENT_H
