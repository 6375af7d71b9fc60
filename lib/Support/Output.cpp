//===- Output.cpp - Atomic file output ------------------------------------===//
#include "astra/Support/Output.h"
#include "astra/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {

Error writeFileAtomically(StringRef Path, StringRef Contents) {
  if (Path == "-") {
    outs() << Contents;
    outs().flush();
    return Error::success();
  }
  // Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written directly:
  // renaming a temporary file over them would replace the device node.
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) && sys::fs::exists(St) &&
      !sys::fs::is_regular_file(St)) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    if (EC)
      return makeInputError(DiagLoc{Path.str()},
                            "cannot open output file: " + EC.message());
    OS << Contents;
    return Error::success();
  }
  SmallString<256> Model(Path);
  Model += ".tmp-%%%%%%";
  int FD;
  SmallString<256> TempPath;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, TempPath))
    return makeInputError(DiagLoc{Path.str()},
                          "cannot open output file: " + EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      sys::fs::remove(TempPath);
      return makeInputError(DiagLoc{Path.str()}, "cannot write output: " + Msg);
    }
  }
  if (std::error_code EC = sys::fs::rename(TempPath, Path)) {
    sys::fs::remove(TempPath);
    return makeInputError(DiagLoc{Path.str()},
                          "cannot write output: " + EC.message());
  }
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> readInputFile(StringRef Path) {
  auto BufOrErr = Path == "-" ? MemoryBuffer::getSTDIN()
                              : MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!BufOrErr) {
    if (sys::fs::is_directory(Path))
      return makeInputError(DiagLoc{Path.str()}, "is a directory");
    return makeInputError(DiagLoc{Path.str()},
                          "cannot read file: " + BufOrErr.getError().message());
  }
  return std::move(*BufOrErr);
}

} // namespace astra
