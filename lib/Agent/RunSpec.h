//===- RunSpec.h - What the spec says about a kernel's launches -*- C++ -*-===//
//
// Private to lib/Agent: the facts runAgent derives from a kernel's launch
// spec for the search (RunSpec.cpp): threads per shape, pack widths, the
// fold and coarsen steps the spec allows, the instantiation and block a plan
// runs with.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_LIB_AGENT_RUNSPEC_H
#define ASTRA_LIB_AGENT_RUNSPEC_H

#include "astra/Frontend/KernelModel.h"
#include "astra/Harness/Spec.h"
#include "astra/Transforms/Pipeline.h"
#include <string>
#include <vector>

namespace astra {

/// Per spec shape of \p K (Shape::str()), the threads of its launch in all.
std::vector<std::pair<std::string, uint64_t>> shapeThreads(const KernelSpec &K);

/// The instantiation that a candidate of \p Steps runs as (the spec's kernel
/// unless a launch step sets `template-arg=`).
std::string kernelAfter(const KernelSpec &K,
                        const std::vector<std::string> &Steps);

/// Elements of \p K's narrowest buffer (of an output, with \p Outputs) per
/// 16-byte pack (0 when none).
unsigned packWidth(const KernelSpec &K, bool Outputs = false);

/// fold-blocks steps with the bound the spec gives (see RunSpec.cpp).
std::vector<std::string> foldSteps(const KernelSpec &K, const KernelInfo &KI);

/// coarsen steps for \p K that apply to \p Code (see RunSpec.cpp).
std::vector<std::string> coarsenSteps(const CompileSetup &Setup,
                                      llvm::StringRef FileName,
                                      llvm::StringRef Code, const KernelSpec &K,
                                      llvm::StringRef Source);

/// The threads per block of \p K's last shape under the launch of \p Steps,
/// all of them or (\p XOnly) the block's x extent.
uint64_t blockThreadsAfter(const KernelSpec &K, llvm::StringRef Source,
                           const std::vector<std::string> &Steps,
                           bool XOnly = false);

} // namespace astra

#endif // ASTRA_LIB_AGENT_RUNSPEC_H
