//===- CompileDatabase.cpp - Project flags from compile_commands.json -----===//
#include "astra/Frontend/CompileDatabase.h"
#include "astra/Support/Error.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace astra {

namespace {
/// How a kept flag is spelled for Clang, and whether its value is a path.
struct FlagKind {
  const char *Clang;
  bool Path;
};
} // namespace

/// Flags kept with a value, by every spelling (GCC/Clang and nvcc).
static std::optional<FlagKind> getValueFlag(StringRef Name) {
  return StringSwitch<std::optional<FlagKind>>(Name)
      .Cases("-I", "--include-path", FlagKind{"-I", true})
      .Cases("-isystem", "--system-include", FlagKind{"-isystem", true})
      .Case("-iquote", FlagKind{"-iquote", true})
      .Case("-idirafter", FlagKind{"-idirafter", true})
      .Cases("-D", "--define-macro", FlagKind{"-D", false})
      .Cases("-U", "--undefine-macro", FlagKind{"-U", false})
      .Cases("-include", "--pre-include", FlagKind{"-include", true})
      .Case("-imacros", FlagKind{"-imacros", true})
      .Cases("-std", "--std", FlagKind{"-std=", false})
      .Case("--cuda-path", FlagKind{"--cuda-path=", true})
      .Default(std::nullopt);
}

/// Flags dropped together with a separate value.
static bool dropsNextArg(StringRef A) {
  return StringSwitch<bool>(A)
      .Cases("-o", "-x", "-MF", "-MT", "-MQ", "-arch", "-gencode", true)
      .Cases("--output-file", "--generate-code", "--gpu-architecture", true)
      .Cases("-Xcompiler", "--compiler-options", "-Xlinker", "-Xptxas", true)
      .Cases("-ccbin", "--compiler-bindir", "-Xclang", "-Xcuda-ptxas", true)
      .Cases("--offload-arch", "--cuda-gpu-arch", "-target", "--threads",
             true)
      .Default(false);
}

static std::string absolute(StringRef Path, StringRef Directory) {
  if (Path.empty() || sys::path::is_absolute(Path) || Directory.empty())
    return Path.str();
  SmallString<256> P(Directory);
  sys::path::append(P, Path);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

static bool isSource(StringRef A) {
  StringRef Ext = sys::path::extension(A);
  return StringSwitch<bool>(Ext)
      .Cases(".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".C", true)
      .Default(false);
}

/// True when a host-compiler option list (-Xcompiler's value: comma or space
/// separated) or a single flag asks for OpenMP.
static bool asksForOpenMP(StringRef Value) {
  SmallVector<StringRef, 8> Parts;
  Value.split(Parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    SmallVector<StringRef, 4> Words;
    P.split(Words, ' ', -1, false);
    for (StringRef W : Words) {
      W = W.trim().trim("\"'");
      if (W == "-fopenmp" || W.starts_with("-fopenmp="))
        return true;
    }
  }
  return false;
}

static bool isHostCompilerOption(StringRef A) {
  return A == "-Xcompiler" || A == "--compiler-options";
}

std::vector<std::string> filterParseFlags(ArrayRef<std::string> CommandLine,
                                          StringRef File,
                                          StringRef Directory) {
  std::vector<std::string> Out;
  auto Keep = [&](const FlagKind &K, StringRef Value) {
    std::string V = K.Path ? absolute(Value, Directory) : Value.str();
    StringRef Clang = K.Clang;
    if (Clang.ends_with("=") || Clang == "-I" || Clang == "-D" ||
        Clang == "-U") {
      Out.push_back((Clang + V).str());
    } else {
      Out.push_back(Clang.str());
      Out.push_back(V);
    }
  };
  // OpenMP: the host code may include <omp.h> (CompileSetup supplies one).
  bool OpenMP = false;
  for (size_t I = 1; I < CommandLine.size(); ++I) {
    StringRef A = CommandLine[I];
    if (A == File || (!A.starts_with("-") && isSource(A)))
      continue;
    auto [Opt, OptValue] = A.split('=');
    if (asksForOpenMP(A) ||
        (isHostCompilerOption(A) && I + 1 < CommandLine.size() &&
         asksForOpenMP(CommandLine[I + 1])) ||
        (isHostCompilerOption(Opt) && asksForOpenMP(OptValue)))
      OpenMP = true;
    if (dropsNextArg(A)) {
      ++I;
      continue;
    }
    // -I dir, -D X, -isystem dir, -include file, --pre-include file.
    if (std::optional<FlagKind> K = getValueFlag(A)) {
      if (I + 1 < CommandLine.size())
        Keep(*K, CommandLine[++I]);
      continue;
    }
    // -Idir, -DX=1, -UX, -isystemdir.
    bool Joined = false;
    for (StringRef Prefix : {"-I", "-D", "-U", "-isystem", "-iquote",
                             "-idirafter"})
      if (A.size() > Prefix.size() && A.starts_with(Prefix) &&
          !A.starts_with("-isysroot")) {
        Keep(*getValueFlag(Prefix), A.drop_front(Prefix.size()));
        Joined = true;
        break;
      }
    if (Joined)
      continue;
    // --flag=value and -std=c++17.
    if (A.starts_with("-") && A.contains('=')) {
      auto [Name, Value] = A.split('=');
      if (std::optional<FlagKind> K = getValueFlag(Name))
        Keep(*K, Value);
    }
  }
  if (OpenMP)
    Out.push_back("-fopenmp");
  return Out;
}

/// nvcc options the backend sets itself, dropped with their value (separate
/// or after '='): outputs, dependency files, language, target architectures.
static bool isNvccValueOptionToDrop(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases({"-o", "--output-file", "-odir", "--output-directory"}, true)
      .Cases({"-MF", "--dependency-output", "-MT", "--dependency-target-name"},
             true)
      .Cases({"-MQ", "-x", "--x", "-keep-dir", "--keep-dir"}, true)
      .Cases({"-arch", "--gpu-architecture", "-gencode", "--generate-code"},
             true)
      .Cases({"-code", "--gpu-code", "--cuda-gpu-arch", "--offload-arch"}, true)
      .Default(false);
}

/// nvcc phase and dependency options the backend replaces (-ptx, -cubin).
static bool isNvccPhaseOption(StringRef A) {
  return StringSwitch<bool>(A)
      .Cases({"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w"},
             true)
      .Cases({"-dlink", "--device-link", "-link", "--link", "-lib", "--lib"},
             true)
      .Cases({"-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin"},
             true)
      .Cases({"-E", "--preprocess", "-M", "-MM", "-MD", "-MMD", "-MP"}, true)
      .Cases({"--generate-dependencies", "--generate-nonsystem-dependencies"},
             true)
      .Cases({"--generate-dependencies-with-compile",
              "--generate-nonsystem-dependencies-with-compile"},
             true)
      .Cases({"-run", "--run", "-keep", "--keep", "-optix-ir", "--optix-ir"},
             true)
      .Default(false);
}

/// nvcc options whose value is a path (made absolute), by spelling.
static bool isNvccPathOption(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases({"-I", "--include-path", "-isystem", "--system-include"}, true)
      .Cases({"-include", "--pre-include", "-L", "--library-path"}, true)
      .Default(false);
}

/// nvcc options that take a separate value which must not be read as a
/// source file or an option of its own.
static bool takesNvccValue(StringRef A) {
  return isNvccPathOption(A) ||
         StringSwitch<bool>(A)
             .Cases({"-D", "--define-macro", "-U", "--undefine-macro"}, true)
             .Cases({"-Xcompiler", "--compiler-options", "-Xptxas",
                     "--ptxas-options"},
                    true)
             .Cases({"-Xlinker", "--linker-options", "-Xnvlink",
                     "--nvlink-options"},
                    true)
             .Cases({"-ccbin", "--compiler-bindir", "-std", "--std"}, true)
             .Cases({"-maxrregcount", "--maxrregcount", "-rdc",
                     "--relocatable-device-code"},
                    true)
             .Cases({"-t", "--threads", "-l", "--library"}, true)
             .Default(false);
}

/// Parse flags (filterParseFlags) spelled for nvcc: what nvcc has no option
/// for goes to the host compiler, which preprocesses nvcc's device pass too.
static std::vector<std::string> parseFlagsForNvcc(ArrayRef<std::string> Flags) {
  std::vector<std::string> Out = {"-O3"};
  for (size_t I = 0; I < Flags.size(); ++I) {
    StringRef A = Flags[I];
    if (A.starts_with("--cuda-path="))
      continue;
    if (A == "-fopenmp") {
      Out.push_back("-Xcompiler=-fopenmp");
    } else if ((A == "-iquote" || A == "-idirafter" || A == "-imacros") &&
               I + 1 < Flags.size()) {
      Out.push_back(("-Xcompiler=" + A + "," + Flags[++I]).str());
    } else {
      Out.push_back(A.str());
    }
  }
  return Out;
}

std::vector<std::string> filterNvccFlags(ArrayRef<std::string> CommandLine,
                                         StringRef File, StringRef Directory) {
  if (CommandLine.empty() ||
      !sys::path::stem(CommandLine.front()).starts_with("nvcc"))
    return parseFlagsForNvcc(filterParseFlags(CommandLine, File, Directory));
  std::vector<std::string> Out;
  for (size_t I = 1; I < CommandLine.size(); ++I) {
    StringRef A = CommandLine[I];
    auto [Name, Value] = A.split('=');
    bool Joined = A.contains('=');
    if (A == File || (!A.starts_with("-") && isSource(A)) ||
        isNvccPhaseOption(A))
      continue;
    if (isNvccValueOptionToDrop(Name)) {
      if (!Joined)
        ++I;
      continue;
    }
    if (isNvccPathOption(Name)) {
      if (Joined) {
        Out.push_back((Name + "=" + absolute(Value, Directory)).str());
      } else if (I + 1 < CommandLine.size()) {
        Out.push_back(A.str());
        Out.push_back(absolute(CommandLine[++I], Directory));
      }
      continue;
    }
    // -Idir and -isystemdir (nvcc accepts the joined spelling of both).
    if (A.size() > 2 && A.starts_with("-I")) {
      Out.push_back("-I" + absolute(A.drop_front(2), Directory));
      continue;
    }
    Out.push_back(A.str());
    if (!Joined && takesNvccValue(A) && I + 1 < CommandLine.size())
      Out.push_back(CommandLine[++I]);
  }
  return Out;
}

Expected<ProjectCommand> loadCompileCommand(StringRef BuildDir,
                                            StringRef File) {
  SmallString<256> DbPath(BuildDir);
  sys::path::append(DbPath, "compile_commands.json");
  std::string Err;
  std::unique_ptr<clang::tooling::JSONCompilationDatabase> Db =
      clang::tooling::JSONCompilationDatabase::loadFromFile(
          DbPath, Err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Db) {
    StringRef Msg = Err;
    Msg.consume_front("Error while opening JSON database: ");
    return makeInputError(DiagLoc{DbPath.str().str()},
                          "cannot load compilation database: " + Msg);
  }
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  std::vector<clang::tooling::CompileCommand> Cmds =
      Db->getCompileCommands(Abs);
  if (Cmds.empty()) {
    SmallString<256> Real;
    if (!sys::fs::real_path(File, Real))
      Cmds = Db->getCompileCommands(Real);
  }
  if (Cmds.empty())
    return makeInputError(DiagLoc{DbPath.str().str()},
                          "no compile command for '" + File + "'");
  clang::tooling::CompileCommand &C = Cmds.front();
  return ProjectCommand{std::move(C.CommandLine), std::move(C.Filename),
                        std::move(C.Directory)};
}

} // namespace astra
