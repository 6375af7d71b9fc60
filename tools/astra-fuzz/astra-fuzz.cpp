//===- astra-fuzz.cpp - libFuzzer target: frontend and rewrites -----------===//
//
// Each input is parsed as a .cu file through the frontend (the kernel model
// and its JSON), every rewrite option of the catalogue is enumerated on it
// (each option edits once), and a few options are applied as astra-opt
// --apply does, the result parsed again as the next step would. A crash, a
// sanitizer report or an internal error (exit code 3: a bug by definition,
// Error.h) is a finding; bad input must come back as an input error.
// Built by ASTRA_FUZZ=ON (docs/design-notes.md, "Fuzzing").
//
//===----------------------------------------------------------------------===//
#include "astra/Frontend/KernelModel.h"
#include "astra/Support/CompileSetup.h"
#include "astra/Support/Error.h"
#include "astra/Transforms/Enumerate.h"
#include "astra/Transforms/Pipeline.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace llvm;
using namespace astra;

/// The name every input is parsed under (a relative name: nothing is read
/// from disk under it, and `#include "..."` finds nothing beside it).
static constexpr const char *InputName = "fuzz-input.cu";
/// Applying re-parses the file, and the result is parsed again: the first
/// option of each rewrite is applied, at most this many in all (a parse of
/// the CUDA headers costs ~1 s without a reusable preamble).
static constexpr unsigned MaxApplied = 2;

/// The sanitizer's defaults for this binary. The prebuilt LLVM archives are
/// not instrumented, while LLVM's headers inlined into the instrumented code
/// poison the free space of a BumpPtrAllocator (LLVM_ADDRESS_SANITIZER_BUILD):
/// the archives' own inlined allocator code then writes to memory the
/// instrumented code poisoned. User poisoning is off for that reason. Leaks
/// are not findings (Clang keeps some state for the life of the process).
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_leaks=0";
}

static CompileSetup &getSetup() {
  static CompileSetup S = [] {
    CompileSetup S;
    S.CudaPath = findCudaPath();
    S.ResourceDir = findResourceDir();
    S.CompatDir = findCompatDir();
    // Inputs mutated in their bodies share the #include block: parse it once.
    S.ReusePreamble = true;
    return S;
  }();
  return S;
}

/// Bad input is fine; an internal error is a bug: abort so that libFuzzer
/// records the input.
static void check(Error E, StringRef Step) {
  handleAllErrors(
      std::move(E),
      [&](const AstraError &A) {
        if (A.getExitCode() != ExitCode::Internal)
          return;
        errs() << "astra-fuzz: internal error in " << Step << ": "
               << A.getMessage() << "\n";
        std::abort();
      },
      [&](const ErrorInfoBase &B) {
        errs() << "astra-fuzz: error that is not an AstraError in " << Step
               << ": " << B.message() << "\n";
        std::abort();
      });
}

/// Parses \p Code and prints its model as --print-kernel-model does.
static bool model(StringRef Code, StringRef Step) {
  Expected<KernelModel> M = loadKernelModel(getSetup(), InputName, Code);
  if (!M) {
    check(M.takeError(), Step);
    return false;
  }
  std::string Json = printKernelModel(*M);
  (void)Json;
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Code(reinterpret_cast<const char *>(Data), Size);
  if (!model(Code, "the kernel model"))
    return 0;
  Expected<std::vector<RewriteOption>> Options =
      enumerateRewrites(getSetup(), InputName, Code);
  if (!Options) {
    check(Options.takeError(), "enumerateRewrites");
    return 0;
  }
  StringSet<> Tried;
  for (const RewriteOption &O : *Options) {
    if (Tried.size() == MaxApplied || !Tried.insert(O.Params.Name).second)
      continue;
    Expected<ApplyResult> R =
        applyRewrite(getSetup(), InputName, Code, O.Params);
    if (!R) {
      check(R.takeError(), "applyRewrite " + formatRewriteParams(O.Params));
      continue;
    }
    model(R->Code, "the model of " + formatRewriteParams(O.Params));
  }
  return 0;
}
