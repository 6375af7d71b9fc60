//===- PtxStats.cpp - Resource usage of PTX kernels via ptxas -------------===//
#include "astra/Codegen/PtxStats.h"
#include "astra/Support/Error.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include <optional>

using namespace llvm;

namespace astra {

/// The number right before \p Unit in \p Line ("21 registers" -> 21).
static std::optional<unsigned> numberBefore(StringRef Line, StringRef Unit) {
  size_t Pos = Line.find(Unit);
  if (Pos == StringRef::npos)
    return std::nullopt;
  StringRef Head = Line.take_front(Pos).rtrim();
  size_t Start = Head.find_last_not_of("0123456789");
  StringRef Digits = Start == StringRef::npos ? Head : Head.drop_front(Start + 1);
  unsigned V;
  if (Digits.getAsInteger(10, V))
    return std::nullopt;
  return V;
}

std::vector<KernelResources> parsePtxasReport(StringRef Report) {
  std::vector<KernelResources> Out;
  SmallVector<StringRef, 32> Lines;
  Report.split(Lines, '\n');
  for (StringRef Line : Lines) {
    StringRef Name;
    if (Line.contains("Compiling entry function '")) {
      Name = Line.split("entry function '").second.split('\'').first;
      Out.push_back(KernelResources{Name.str()});
      continue;
    }
    if (Out.empty())
      continue;
    KernelResources &K = Out.back();
    if (Line.contains("stack frame")) {
      K.StackFrameBytes = numberBefore(Line, "bytes stack frame").value_or(0);
      K.SpillStoreBytes = numberBefore(Line, "bytes spill stores").value_or(0);
      K.SpillLoadBytes = numberBefore(Line, "bytes spill loads").value_or(0);
    } else if (Line.contains("Used ") && Line.contains("registers")) {
      K.Registers = numberBefore(Line, "registers").value_or(0);
      K.Barriers = numberBefore(Line, "barriers").value_or(0);
      K.SharedBytes = numberBefore(Line, "bytes smem").value_or(0);
      K.ConstantBytes = numberBefore(Line, "bytes cmem[0]").value_or(0);
    }
  }
  return Out;
}

Expected<std::vector<KernelResources>>
runPtxas(StringRef Ptxas, StringRef Arch, StringRef Ptx) {
  SmallString<128> PtxPath, LogPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("astra", "ptx", PtxPath))
    return makeInternalError("cannot create a temporary file: " + EC.message());
  FileRemover RemovePtx(PtxPath);
  if (std::error_code EC =
          sys::fs::createTemporaryFile("astra-ptxas", "log", LogPath))
    return makeInternalError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveLog(LogPath);
  {
    std::error_code EC;
    raw_fd_ostream OS(PtxPath, EC);
    if (EC)
      return makeInternalError("cannot write " + PtxPath + ": " + EC.message());
    OS << Ptx;
  }
  std::string ArchArg = ("-arch=" + Arch).str();
  SmallVector<StringRef, 8> Args = {Ptxas, ArchArg, "-v", PtxPath,
                                    "-o",  "/dev/null"};
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(LogPath),
                                          StringRef(LogPath)};
  std::string ErrMsg;
  int RC = sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Redirects,
                               /*SecondsToWait=*/120, 0, &ErrMsg);
  auto Log = MemoryBuffer::getFile(LogPath);
  StringRef Text = Log ? (*Log)->getBuffer() : StringRef();
  if (RC != 0)
    return makeInputError("ptxas failed" +
                          (ErrMsg.empty() ? "" : " (" + ErrMsg + ")") + ":\n" +
                          Text.rtrim());
  return parsePtxasReport(Text);
}

void printResources(raw_ostream &OS,
                    const std::vector<KernelResources> &Kernels) {
  OS << format("%-48s %5s %6s %7s %7s %7s\n", "kernel", "regs", "stack",
               "spill-st", "spill-ld", "smem");
  for (const KernelResources &K : Kernels) {
    std::string Name = demangle(K.Name);
    if (Name.size() > 48)
      Name = Name.substr(0, 45) + "...";
    OS << format("%-48s %5u %6u %7u %7u %7u\n", Name.c_str(), K.Registers,
                 K.StackFrameBytes, K.SpillStoreBytes, K.SpillLoadBytes,
                 K.SharedBytes);
  }
}

} // namespace astra
