//===- ListEffects.h - What each option does to the PTX ---------*- C++ -*-===//
//
// --list-options --effects: every option applied alone and compiled; whether
// its PTX differs from the original's and, with ptxas, what it does to each
// kernel's registers, stack (local memory) and spills (issue 15 item 2).
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_TOOLS_LISTEFFECTS_H
#define ASTRA_TOOLS_LISTEFFECTS_H

#include "astra/Codegen/LocalMemory.h"
#include "astra/Support/CompileSetup.h"
#include "astra/Transforms/Enumerate.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace astra {

/// One kernel's resources before and after, where they differ.
struct ResourceChange {
  std::string Kernel; ///< demangled
  unsigned RegistersBefore = 0, RegistersAfter = 0;
  LocalMemoryUse Before, After;
  /// describeLocalMemoryGrowth(Before, After): empty when none grew.
  std::string LocalGrowth;
};

struct OptionEffect {
  bool Compiled = false;   ///< the option applied and compiled
  std::string Error;       ///< else why not
  bool PtxChanged = false; ///< the PTX differs from the original's
  bool Resources = false;  ///< ptxas ran: Changes is meaningful
  std::vector<ResourceChange> Changes;
  /// Some kernel's local memory grew (stack, spills, PTX local accesses).
  bool addsLocalMemory() const;
};

/// The effect of each of \p Options, in order; progress on stderr.
llvm::Expected<std::vector<OptionEffect>>
measureEffects(const CompileSetup &Setup, llvm::StringRef FileName,
               llvm::StringRef Code, const std::vector<RewriteOption> &Options);

/// ` [PTX unchanged]`, ` [PTX changes; k: registers 18 -> 32]`, ...
std::string formatEffectText(const OptionEffect &E);
llvm::json::Value formatEffectJson(const OptionEffect &E);

} // namespace astra

#endif // ASTRA_TOOLS_LISTEFFECTS_H
