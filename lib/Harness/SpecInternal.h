//===- SpecInternal.h - Shared between the spec sources ---------*- C++ -*-===//
#ifndef ASTRA_LIB_HARNESS_SPECINTERNAL_H
#define ASTRA_LIB_HARNESS_SPECINTERNAL_H

#include "astra/Harness/Spec.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include <string>

namespace astra {
namespace detail {

/// Field paths: `<Path>.<Key>` (just Key at the top) and `<Path>[<I>]`.
inline std::string member(llvm::StringRef Path, llvm::StringRef Key) {
  return Path.empty() ? Key.str() : (Path + "." + Key).str();
}
inline std::string element(llvm::StringRef Path, size_t I) {
  return (Path + "[" + llvm::Twine(I) + "]").str();
}
/// Kernel names compare without whitespace: "act< __half >" == "act<__half>",
/// and with torch's aliases read as c10 names: "k<at::Half>" == "k<c10::Half>".
std::string withoutSpaces(llvm::StringRef S);

/// Parses \p JSON as far as it can: every error found goes into \p Errs;
/// kernels and arguments with errors are kept with Valid = false. \p JsonOk
/// is false when the text is not JSON at all (nothing else was checked).
LaunchSpecFile parseSpecCollecting(llvm::StringRef JSON,
                                   llvm::StringRef FileName, llvm::Error &Errs,
                                   bool &JsonOk);

/// Evaluates \p K for \p S into \p Out; each problem is reported with the
/// field path it belongs to. Returns false when anything was reported.
/// \p QuietUnbound: skip, without a report, expressions that use a variable
/// the shape does not bind (the parser reported them).
bool resolveReporting(
    const KernelSpec &K, const Shape &S, ResolvedLaunch &Out,
    llvm::function_ref<void(llvm::StringRef Path, const llvm::Twine &Msg)>
        Report,
    bool QuietUnbound = false);

/// Calls \p Fn with every expression of \p K and its field path.
void forEachExpr(
    const KernelSpec &K,
    llvm::function_ref<void(const SizeExpr &E, llvm::StringRef Path)> Fn);

/// Appends \p E to \p Errs.
inline void addError(llvm::Error &Errs, llvm::Error E) {
  Errs = llvm::joinErrors(std::move(Errs), std::move(E));
}

} // namespace detail
} // namespace astra

#endif
