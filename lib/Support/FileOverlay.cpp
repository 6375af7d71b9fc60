//===- FileOverlay.cpp - Process-wide in-memory versions of files ---------===//
#include "astra/Support/FileOverlay.h"
#include <map>
#include <mutex>

namespace astra {

namespace {
struct Overlay {
  std::mutex Lock;
  std::map<std::string, std::string> Files;
  unsigned Generation = 0;
};

Overlay &getOverlay() {
  static Overlay O;
  return O;
}
} // namespace

void setOverlayFile(llvm::StringRef AbsPath, std::string Contents) {
  Overlay &O = getOverlay();
  std::lock_guard<std::mutex> Guard(O.Lock);
  O.Files[AbsPath.str()] = std::move(Contents);
  ++O.Generation;
}

unsigned getOverlayGeneration() {
  Overlay &O = getOverlay();
  std::lock_guard<std::mutex> Guard(O.Lock);
  return O.Generation;
}

std::vector<std::pair<std::string, std::string>> getOverlayFiles() {
  Overlay &O = getOverlay();
  std::lock_guard<std::mutex> Guard(O.Lock);
  return {O.Files.begin(), O.Files.end()};
}

} // namespace astra
