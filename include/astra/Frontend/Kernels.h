//===- Kernels.h - Find kernels and loops in the AST ------------*- C++ -*-===//
//
// The stable naming scheme that plans, reports and LLM prompts refer to:
// a kernel is named by its source name (for a template, the primary template's
// name); its loops are numbered in source order (pre-order over the kernel
// body: an outer loop comes before the loops nested in it) and named
// `<kernel>:L<n>`, e.g. `rmsnorm:L1`.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_KERNELS_H
#define ASTRA_FRONTEND_KERNELS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <string>
#include <vector>

namespace astra {

/// The __global__ functions with a body in the main file, in source order. For
/// a function template the templated (pattern) declaration is returned, not
/// its instantiations.
std::vector<const clang::FunctionDecl *> findKernels(clang::ASTContext &Ctx);

/// The loops (for, range-for, while, do) of \p Body in pre-order. Loops that
/// come from a macro expansion are included; lambdas are not entered.
std::vector<const clang::Stmt *> collectLoops(const clang::Stmt *Body);

/// `<kernel>:L<index>`.
std::string makeLoopId(llvm::StringRef Kernel, unsigned Index);

/// The explicit and implicit instantiations of a kernel template, in the order
/// Clang records them; empty for a non-template kernel.
std::vector<const clang::FunctionDecl *>
getInstantiations(const clang::FunctionDecl *Kernel);

} // namespace astra

#endif // ASTRA_FRONTEND_KERNELS_H
