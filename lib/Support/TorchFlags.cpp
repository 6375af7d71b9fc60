//===- TorchFlags.cpp - What a torch extension build passes ---------------===//
#include "astra/Support/TorchFlags.h"
#include "astra/Support/Error.h"
#include "astra/Support/Subprocess.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace astra {

/// Prints one tagged line per fact; the tags keep Python's own output (a
/// warning printed on import) apart from the answer.
static constexpr const char *TorchQuery = R"PY(
import sys, sysconfig
try:
    import torch
    import torch.utils.cpp_extension as ext
except Exception as e:
    sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
    sys.exit(3)
for p in ext.include_paths():
    print("astra-include " + p)
# torch/extension.h includes Python.h; setuptools adds this one to the build.
print("astra-include " + sysconfig.get_paths()["include"])
print("astra-define _GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI))
for n in ("COMPILER_TYPE", "STDLIB", "BUILD_ABI"):
    v = getattr(torch._C, "_PYBIND11_" + n, None)
    if v is not None:
        print('astra-define PYBIND11_%s="%s"' % (n, v))
)PY";

Expected<std::vector<std::string>> queryTorchFlags() {
  ErrorOr<std::string> Python = sys::findProgramByName("python3");
  if (!Python)
    return makeInputError("--torch: no 'python3' on the PATH to ask for "
                          "torch's include paths; give them with -p or "
                          "--extra-arg=-I<dir> instead");
  SmallString<128> ErrFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("astra-torch", "err", ErrFile))
    return makeInternalError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveErr(ErrFile);
  SpawnOptions Opts;
  Opts.PipeStdout = true;
  Opts.StderrFile = ErrFile.str().str();
  Expected<Subprocess> P = Subprocess::spawn({*Python, "-c", TorchQuery}, Opts);
  if (!P)
    return P.takeError();
  std::vector<std::string> Flags;
  std::optional<ExitStatus> S = P->wait(120, [&](StringRef Line) {
    Line = Line.rtrim("\r\n");
    if (Line.consume_front("astra-include "))
      Flags.insert(Flags.end(), {"-isystem", Line.str()});
    else if (Line.consume_front("astra-define "))
      Flags.push_back(("-D" + Line).str());
  });
  if (!S) {
    P->kill();
    return makeInputError("--torch: '" + *Python +
                          "' did not answer within 120 s");
  }
  if (S->Signaled || S->Code != 0) {
    std::string Why;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> B =
            MemoryBuffer::getFile(ErrFile)) {
      SmallVector<StringRef, 16> Lines;
      (*B)->getBuffer().trim().split(Lines, '\n');
      if (!Lines.empty())
        Why = Lines.back().trim().str();
    }
    return makeInputError(
        "--torch: torch is not importable by '" + *Python + "' (" +
        (Why.empty() ? S->describe() : Why) +
        "); install it for that Python, put the right python3 first on the "
        "PATH, or give torch's include paths with -p or --extra-arg=-I<dir>");
  }
  if (none_of(Flags, [](StringRef F) { return F == "-isystem"; }))
    return makeInputError("--torch: '" + *Python +
                          "' gave no include paths for torch");
  return Flags;
}

/// The include directories named in \p Args.
static std::vector<std::string> getIncludeDirs(ArrayRef<std::string> Args) {
  std::vector<std::string> Dirs;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    for (StringRef Flag : {"-isystem", "-idirafter", "-iquote", "-I"}) {
      if (!A.starts_with(Flag))
        continue;
      if (A == Flag && I + 1 < Args.size())
        Dirs.push_back(Args[++I]);
      else if (A.size() > Flag.size())
        Dirs.push_back(A.drop_front(Flag.size()).str());
      break;
    }
  }
  return Dirs;
}

bool hasTorchIncludes(ArrayRef<std::string> Args) {
  // torch/extension.h sits in the include root; torch/all.h also in
  // csrc/api/include, the second directory an extension build names.
  return any_of(getIncludeDirs(Args), [](const std::string &D) {
    for (StringRef H : {"extension.h", "all.h"}) {
      SmallString<256> P(D);
      sys::path::append(P, "torch", H);
      if (sys::fs::exists(P))
        return true;
    }
    return false;
  });
}

/// `#include <torch/...>`, `<ATen/...>`, `<c10/...>` (or quoted) in \p Text;
/// the quoted includes in \p Quoted.
static bool scanIncludes(StringRef Text, std::vector<std::string> *Quoted) {
  bool Torch = false;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.ltrim();
    if (!L.consume_front("#"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("include"))
      continue;
    L = L.ltrim();
    if (L.empty())
      continue;
    char Close = L.front() == '<' ? '>' : L.front() == '"' ? '"' : 0;
    if (!Close)
      continue;
    StringRef Name = L.drop_front().take_until([&](char C) {
      return C == Close;
    });
    if (Name.starts_with("torch/") || Name.starts_with("ATen/") ||
        Name.starts_with("c10/"))
      Torch = true;
    else if (Close == '"' && Quoted)
      Quoted->push_back(Name.str());
  }
  return Torch;
}

bool fileIncludesTorch(StringRef FileName) {
  if (FileName == "-")
    return true; // no file to look at: the include paths decide
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(FileName);
  if (!B)
    return true;
  std::vector<std::string> Quoted;
  if (scanIncludes((*B)->getBuffer(), &Quoted))
    return true;
  // One level of the project's own headers beside the file (an extension's
  // kernels often include torch through a shared header).
  for (const std::string &Q : Quoted) {
    SmallString<256> P(sys::path::parent_path(FileName));
    sys::path::append(P, Q);
    ErrorOr<std::unique_ptr<MemoryBuffer>> H = MemoryBuffer::getFile(P);
    if (H && scanIncludes((*H)->getBuffer(), nullptr))
      return true;
  }
  return false;
}

/// Whether \p Args define or undefine the macro \p Name.
static bool mentionsMacro(ArrayRef<std::string> Args, StringRef Name) {
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    StringRef Macro;
    if ((A == "-D" || A == "-U") && I + 1 < Args.size())
      Macro = Args[++I];
    else if (A.starts_with("-D") || A.starts_with("-U"))
      Macro = A.drop_front(2);
    else
      continue;
    if (Macro.split('=').first == Name)
      return true;
  }
  return false;
}

/// \p Stem as a C identifier (PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)).
static std::string toIdentifier(StringRef Stem) {
  std::string Id;
  for (char C : Stem)
    Id += isAlnum(C) || C == '_' ? C : '_';
  if (Id.empty() || isDigit(Id.front()))
    Id = "ext_" + Id;
  return Id;
}

std::vector<std::string> getMissingTorchDefines(ArrayRef<std::string> Args,
                                                StringRef File) {
  // torch.utils.cpp_extension: BuildExtension adds the first two to every
  // extension, COMMON_NVCC_FLAGS the rest to its nvcc compiles (torch's
  // at::Half brings its own operators; CUDA's would be ambiguous with them).
  std::string Name =
      "TORCH_EXTENSION_NAME=" + toIdentifier(sys::path::stem(File));
  const std::string Defines[] = {
      "TORCH_API_INCLUDE_EXTENSION_H",    Name,
      "__CUDA_NO_HALF_OPERATORS__",       "__CUDA_NO_HALF_CONVERSIONS__",
      "__CUDA_NO_BFLOAT16_CONVERSIONS__", "__CUDA_NO_HALF2_OPERATORS__",
  };
  std::vector<std::string> Out;
  for (StringRef D : Defines)
    if (!mentionsMacro(Args, D.split('=').first))
      Out.push_back(("-D" + D).str());
  return Out;
}

std::string withCanonicalTorchTypes(StringRef Name) {
  std::string Out = Name.str();
  auto IsId = [](char C) { return isAlnum(C) || C == '_'; };
  for (StringRef Ns : {"at::", "torch::"})
    for (StringRef T : {"Half", "BFloat16", "Float8_e4m3fn", "Float8_e5m2"}) {
      std::string From = (Ns + T).str(), To = ("c10::" + T).str();
      for (size_t Pos = Out.find(From); Pos != std::string::npos;
           Pos = Out.find(From, Pos + 1)) {
        size_t End = Pos + From.size();
        bool Whole =
            (Pos == 0 || (!IsId(Out[Pos - 1]) && Out[Pos - 1] != ':')) &&
            (End == Out.size() || !IsId(Out[End]));
        if (Whole)
          Out.replace(Pos, From.size(), To);
      }
    }
  return Out;
}

} // namespace astra
