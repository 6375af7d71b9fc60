//===- CompileDatabaseTest.cpp - Flags kept from compile_commands.json ----===//
#include "astra/Frontend/CompileDatabase.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

std::vector<std::string> filter(std::vector<std::string> Cmd,
                                llvm::StringRef Dir = "/b") {
  return filterParseFlags(Cmd, "/s/k.cu", Dir);
}

TEST(CompileDatabaseTest, KeepsIncludesAndMacros) {
  EXPECT_EQ(filter({"clang++", "-I/inc", "-I", "/inc2", "-isystem", "/sys",
                    "-DA=1", "-D", "B", "-UC", "-iquote", "/q",
                    "-idirafter", "/after", "/s/k.cu"}),
            (std::vector<std::string>{"-I/inc", "-I/inc2", "-isystem", "/sys",
                                      "-DA=1", "-DB", "-UC", "-iquote", "/q",
                                      "-idirafter", "/after"}));
}

TEST(CompileDatabaseTest, RelativePathsAgainstDirectory) {
  EXPECT_EQ(filter({"nvcc", "-I../src/include", "-isystem", "third_party",
                    "-include", "pch.h", "--cuda-path=cuda"},
                   "/proj/build"),
            (std::vector<std::string>{
                "-I/proj/src/include", "-isystem", "/proj/build/third_party",
                "-include", "/proj/build/pch.h",
                "--cuda-path=/proj/build/cuda"}));
}

TEST(CompileDatabaseTest, NvccSpellings) {
  EXPECT_EQ(filter({"nvcc", "--include-path=/i", "--define-macro", "X=2",
                    "--pre-include=/p.h", "--std", "c++20"}),
            (std::vector<std::string>{"-I/i", "-DX=2", "-include", "/p.h",
                                      "-std=c++20"}));
}

TEST(CompileDatabaseTest, DropsOutputsArchitecturesAndNvccOptions) {
  EXPECT_EQ(
      filter({"/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler",
              "--expt-relaxed-constexpr",
              "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
              "-gencode", "arch=compute_90,code=sm_90", "-arch", "sm_80",
              "--cuda-gpu-arch=sm_80", "--offload-arch=sm_90",
              "-Xcompiler=-fPIC", "-Xcompiler", "-Wall", "-O3", "-g",
              "-Wno-deprecated", "-fPIC", "-x", "cu", "-c", "/s/k.cu", "-o",
              "k.o", "-MD", "-MT", "k.o", "-MF", "k.d", "-std=c++17"}),
      (std::vector<std::string>{"-std=c++17"}));
}

TEST(CompileDatabaseTest, DropsOtherSourcesButNotSysroot) {
  EXPECT_EQ(filter({"clang++", "other.cu", "-isysroot", "/sdk", "-I/i"}),
            (std::vector<std::string>{"-I/i"}));
}

TEST(CompileDatabaseTest, OpenMPFromAnySpelling) {
  std::vector<std::string> Omp = {"-fopenmp"};
  EXPECT_EQ(filter({"nvcc", "-Xcompiler", "-fopenmp,-Wall"}), Omp);
  EXPECT_EQ(filter({"nvcc", "-Xcompiler=-O3,-fopenmp"}), Omp);
  EXPECT_EQ(filter({"nvcc", "--compiler-options", "'-fopenmp -fPIC'"}), Omp);
  EXPECT_EQ(filter({"clang++", "-fopenmp=libomp", "-I/i"}),
            (std::vector<std::string>{"-I/i", "-fopenmp"}));
  EXPECT_EQ(filter({"nvcc", "-Xcompiler", "-fopenmp-simd", "-DX=-fopenmp"}),
            (std::vector<std::string>{"-DX=-fopenmp"}));
}

} // namespace
std::vector<std::string> nvcc(std::vector<std::string> Cmd,
                              llvm::StringRef Dir = "/b") {
  return filterNvccFlags(Cmd, "/s/k.cu", Dir);
}

// --backend=nvcc: the build's own nvcc flags, less what the backend sets.
TEST(CompileDatabaseTest, NvccKeepsCodegenFlags) {
  EXPECT_EQ(
      nvcc({"/usr/local/cuda/bin/nvcc",
            "-DNDEBUG",
            "-Iinc",
            "-O3",
            "--use_fast_math",
            "-Xptxas",
            "-v",
            "-maxrregcount=64",
            "-gencode",
            "arch=compute_90a,code=sm_90a",
            "-gencode=arch=compute_80,code=sm_80",
            "-arch",
            "sm_90",
            "-x",
            "cu",
            "-c",
            "/s/k.cu",
            "-o",
            "k.o",
            "-MD",
            "-MT",
            "k.o",
            "-MF",
            "k.d",
            "-std=c++17",
            "--expt-relaxed-constexpr",
            "-isystem=third",
            "-Xcompiler=-fPIC",
            "-rdc",
            "true"},
           "/proj/build"),
      (std::vector<std::string>{
          "-DNDEBUG", "-I/proj/build/inc", "-O3", "--use_fast_math", "-Xptxas",
          "-v", "-maxrregcount=64", "-std=c++17", "--expt-relaxed-constexpr",
          "-isystem=/proj/build/third", "-Xcompiler=-fPIC", "-rdc", "true"}));
}

TEST(CompileDatabaseTest, NvccDropsPhasesAndOutputs) {
  EXPECT_EQ(nvcc({"nvcc-13", "-dc", "k.cu", "--output-file=k.o",
                  "--gpu-architecture=sm_90a", "-ptx", "-cubin",
                  "--generate-code=arch=compute_90,code=sm_90", "-include",
                  "pre.h", "-Xcompiler", "-Wall"}),
            (std::vector<std::string>{"-include", "/b/pre.h", "-Xcompiler",
                                      "-Wall"}));
}

TEST(CompileDatabaseTest, NvccFromAnotherCompilersCommand) {
  // clang++ compiling CUDA: its parse flags, in nvcc's spelling.
  EXPECT_EQ(
      nvcc({"clang++", "-x", "cuda", "-O2", "-Iinc", "-iquote", "q", "-fopenmp",
            "--cuda-path=/cuda", "-DX", "-c", "/s/k.cu"}),
      (std::vector<std::string>{"-O3", "-I/b/inc", "-Xcompiler=-iquote,/b/q",
                                "-DX", "-Xcompiler=-fopenmp"}));
}
