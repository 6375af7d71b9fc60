//===- PtxScan.h - What the harness reads from PTX text ---------*- C++ -*-===//
//
// Text scans of a module's PTX, before any GPU work: which `.entry` is the
// spec's kernel, whether it launches device-side work, and which
// module-scope `.global` variables it stores to.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_PTXSCAN_H
#define ASTRA_HARNESS_PTXSCAN_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace astra {

/// The mangled `.entry` name in \p Ptx of the kernel a spec names
/// ("rmsnorm", "act_and_mul<__half>"), matched by demangling.
llvm::Expected<std::string> findPtxEntry(llvm::StringRef Ptx,
                                         llvm::StringRef SpecName);

/// \p S split at the commas outside the brackets \p Opens / \p Closes,
/// each piece trimmed.
llvm::SmallVector<llvm::StringRef, 4>
splitAtTopLevelCommas(llvm::StringRef S, llvm::StringRef Opens,
                      llvm::StringRef Closes);

/// Where the template argument list of \p Name, a kernel as a spec names it,
/// opens: the `<` matching its final `>` (npos: not a template name).
size_t findTemplateArgsOpen(llvm::StringRef Name);

/// The top-level template arguments of \p Name (`k<__half, 256>`: `__half`
/// and `256`), each trimmed; empty when \p Name is not a template name.
llvm::SmallVector<llvm::StringRef, 4> templateArgsOf(llvm::StringRef Name);

/// Device functions \p Ptx declares but does not define whose names show a
/// device-side launch (dynamic parallelism).
std::vector<std::string> findDeviceSideLaunches(llvm::StringRef Ptx);

/// The module-scope `.global` variables of \p Ptx that some instruction
/// stores to (st, atom, red), directly or through a register that holds the
/// variable's address (mov, cvta, add); in order of first store. State that
/// outlives a launch: a kernel that counts its launches in it can behave
/// differently once the timed rounds start.
std::vector<std::string> findGlobalStores(llvm::StringRef Ptx);

} // namespace astra

#endif // ASTRA_HARNESS_PTXSCAN_H
