//===- DeviceFunctions.h - Device functions the kernels reach ---*- C++ -*-===//
//
// The call graph below the kernels of the main file: every device function
// of the user's code (the main file and project headers, not system headers)
// that a kernel reaches, directly, through other device functions, or
// through a template argument that names a function (`act_and_mul<silu>`
// calls `silu` through a function-pointer parameter; `apply<Silu>` calls
// `Silu::operator()`). Rewrites that edit device code (fast-math) visit these
// functions and select them with `function=NAME`.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_FRONTEND_DEVICEFUNCTIONS_H
#define ASTRA_FRONTEND_DEVICEFUNCTIONS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include <string>
#include <vector>

namespace astra {

/// A device function (not a kernel) that kernels of the main file reach.
struct DeviceFunction {
  /// The definition; for a function template or a member of a class
  /// template, the pattern (the body as written, which an edit changes).
  /// Without a body (TemplateArgument only): the declaration.
  const clang::FunctionDecl *Fn = nullptr;
  /// The name `function=` selects it by (getFunctionSelector()).
  std::string Name;
  /// Source names of the kernels that reach it, in the order found.
  std::vector<std::string> Kernels;
  /// The same, as listings show them: a kernel's source name when its body
  /// reaches the function whatever its template arguments, else the
  /// instantiations that do (`act_and_mul<silu>`).
  std::vector<std::string> ReachedFrom;
  /// Reached only as a template argument (`ACT_FN` of `act_and_mul<silu>`),
  /// not called by name: the first such parameter, for messages.
  std::string TemplateParam;
  bool InMainFile = false;
  /// Declared but defined nowhere in the translation unit (only recorded
  /// when named by a template argument).
  bool HasBody = true;

  /// Whether \p Kernel (a source name) reaches it, and no other kernel.
  bool isOnlyReachedFrom(llvm::StringRef Kernel) const {
    return Kernels.size() == 1 && Kernels.front() == Kernel;
  }
};

/// The device functions the kernels of the main file reach, in the order
/// found (kernels in source order, each depth first).
std::vector<DeviceFunction> findDeviceFunctions(clang::ASTContext &Ctx);
/// The same for the one kernel \p Kernel (a pattern, as findKernels() gives).
std::vector<DeviceFunction>
findDeviceFunctions(const clang::FunctionDecl *Kernel);

/// The name `function=` selects \p FD by: its source name, or `Class::name`
/// for a member function (`Silu::operator()`).
std::string getFunctionSelector(const clang::FunctionDecl *FD);

/// The source name of a kernel instantiation with its template arguments as
/// written or printed, `act_and_mul<silu>` (the kernel model's
/// InstantiationInfo::Name).
std::string getInstantiationName(const clang::FunctionDecl *Spec);

} // namespace astra

#endif // ASTRA_FRONTEND_DEVICEFUNCTIONS_H
