//===- FileOverlay.h - Process-wide in-memory versions of files -*- C++ -*-===//
//
// Files whose contents every device compile of this process reads from
// memory instead of the disk: headers the frontend repaired so that Clang
// accepts what nvcc accepts (Frontend/NvccRepairs.h). The files on disk are
// never changed; every CompilerInstance made by createCudaCompiler sees the
// overlay, so the model, the rewrites and the Clang backend read the same
// repaired headers.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_SUPPORT_FILEOVERLAY_H
#define ASTRA_SUPPORT_FILEOVERLAY_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <utility>
#include <vector>

namespace astra {

/// Makes every later compile read \p Contents for the file at \p AbsPath
/// (absolute, without `.` or `..`), replacing an earlier overlay of it.
void setOverlayFile(llvm::StringRef AbsPath, std::string Contents);

/// Counts the calls of setOverlayFile: a compile that failed before the
/// count changed may succeed after it.
unsigned getOverlayGeneration();

/// The overlaid files, as (absolute path, contents), in path order.
std::vector<std::pair<std::string, std::string>> getOverlayFiles();

} // namespace astra

#endif // ASTRA_SUPPORT_FILEOVERLAY_H
