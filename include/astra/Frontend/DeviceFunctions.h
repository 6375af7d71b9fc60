//===- DeviceFunctions.h - Device functions the kernels reach ---*- C++ -*-===//
//
// The call graph below the kernels of the main file: every device function
// of the user's code (the main file and project headers, not system headers)
// that a kernel reaches, directly, through other device functions, or
// through a template argument that names a function (`act_and_mul<silu>`
// calls `silu` through a function-pointer parameter; `apply<Silu>` calls
// `Silu::operator()`). A function is reached by being called, and also as
// the constructor or destructor of what a body constructs or destroys, or as
// a device lambda written elsewhere (findDeviceReach). Rewrites that edit
// device code (fast-math) visit these functions and select them with
// `function=NAME`; rewrites that must know what a kernel runs (fold-blocks,
// coarsen) scan them.
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
  /// What running it evaluates that is written elsewhere: the in-class
  /// initialisers a constructor's member initialisers use (all there is to
  /// an implicit constructor), the default arguments of its calls. A scan of
  /// the function must traverse these besides Fn (traverseDeviceFunction).
  std::vector<const clang::Expr *> Elsewhere;

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

/// What one kernel reaches.
struct DeviceReach {
  /// As findDeviceFunctions(Kernel) gives them.
  std::vector<DeviceFunction> Functions;
  /// What the kernel's own body (as written or instantiated) evaluates that
  /// is written elsewhere: in-class initialisers of what it initialises,
  /// default arguments of its calls.
  std::vector<const clang::Expr *> Elsewhere;
  /// Calls, in the kernel or a function it reaches, whose callee is not
  /// known: through a function pointer or a pointer to member.
  std::vector<const clang::CallExpr *> IndirectCalls;
};

/// The device functions \p Kernel reaches (a pattern, as findKernels() gives)
/// and what the walk could not follow. Reached are: what it and they call,
/// the constructors of what they construct and the destructors of their
/// locals and temporaries (of user code, not trivial), and lambdas written
/// elsewhere (a lambda written in the kernel or a function recorded is part
/// of that function).
DeviceReach findDeviceReach(const clang::FunctionDecl *Kernel);

/// Traverses with \p V what running \p DF evaluates: its declaration and
/// the expressions written elsewhere.
template <typename VisitorT>
void traverseDeviceFunction(VisitorT &V, const DeviceFunction &DF) {
  V.TraverseDecl(const_cast<clang::FunctionDecl *>(DF.Fn));
  for (const clang::Expr *E : DF.Elsewhere)
    V.TraverseStmt(const_cast<clang::Expr *>(E));
}

/// The name `function=` selects \p FD by: its source name, or `Class::name`
/// for a member function (`Silu::operator()`), `(lambda at L:C)::operator()`
/// for a lambda's.
std::string getFunctionSelector(const clang::FunctionDecl *FD);

/// The source name of a kernel instantiation with its template arguments as
/// written or printed, `act_and_mul<silu>` (the kernel model's
/// InstantiationInfo::Name).
std::string getInstantiationName(const clang::FunctionDecl *Spec);

} // namespace astra

#endif // ASTRA_FRONTEND_DEVICEFUNCTIONS_H
