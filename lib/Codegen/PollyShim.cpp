//===- PollyShim.cpp - Link without Polly ---------------------------------===//
//
// Debian's LLVM is configured with Polly as a built-in extension, so Clang's
// backend and LLVM's LTO call getPollyPluginInfo() to register its passes.
// astra-opt never runs Polly; this registration hook registers nothing, which
// keeps ~10 MB of Polly and ISL out of the static binary.
//
//===----------------------------------------------------------------------===//
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "polly-disabled", "0",
          [](llvm::PassBuilder &) {}};
}
