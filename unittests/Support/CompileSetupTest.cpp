//===- CompileSetupTest.cpp - What the device-side compile reads ----------===//
#include "astra/Support/CompileSetup.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace astra;

namespace {

/// The argument after \p Flag in \p Args, or "" when \p Flag is absent.
std::string after(const std::vector<std::string> &Args, StringRef Flag) {
  auto It = find(Args, Flag);
  return It == Args.end() || It + 1 == Args.end() ? "" : *(It + 1);
}

TEST(CompileSetupTest, ReadsWhatNvccReads) {
  SmallString<128> Root;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("astra-setup", Root));
  std::string Cuda = (Root + "/cuda").str(), Compat = (Root + "/compat").str();
  ASSERT_FALSE(sys::fs::create_directories(Cuda + "/include/cccl"));
  ASSERT_FALSE(sys::fs::create_directories(Compat + "/openmp"));
  int FD;
  ASSERT_FALSE(sys::fs::openFileForWrite(Compat + "/astra_nvcc_compat.h", FD));
  sys::Process::SafelyCloseFileDescriptor(FD);

  CompileSetup S;
  S.CudaPath = Cuda;
  S.CompatDir = Compat;
  S.ExtraArgs = {"-isystem", "/mine"};
  std::vector<std::string> A = S.buildDriverArgs("k.cu");
  // The user's system directories come first, then the toolkit's cccl.
  EXPECT_LT(find(A, "/mine"), find(A, Cuda + "/include/cccl"));
  EXPECT_EQ(after(A, "-include"), Compat + "/astra_nvcc_compat.h");
  EXPECT_EQ(after(A, "-idirafter"), "");
  EXPECT_EQ(A.back(), "k.cu");

  S.ExtraArgs = {"-fopenmp"};
  EXPECT_EQ(after(S.buildDriverArgs("k.cu"), "-idirafter"), Compat + "/openmp");

  // Without the toolkit nothing of nvcc's is added.
  S.CudaPath.clear();
  A = S.buildDriverArgs("k.cu");
  EXPECT_EQ(after(A, "-include"), "");
  EXPECT_EQ(find(A, "-isystem"), A.end());
  sys::fs::remove_directories(Root);
}

} // namespace
