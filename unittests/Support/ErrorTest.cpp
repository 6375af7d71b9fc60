#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <sys/stat.h>
#include <thread>

using namespace astra;
using namespace llvm;

TEST(ErrorTest, ClangStyleWithLocation) {
  std::string S;
  raw_string_ostream OS(S);
  int Code = reportError(makeInputError(DiagLoc{"k.cu", 3, 7}, "bad thing"),
                         "astra-opt", OS);
  EXPECT_EQ(Code, 1);
  EXPECT_EQ(S, "k.cu:3:7: error: bad thing\n");
}

TEST(ErrorTest, ToolPrefixWithoutLocation) {
  std::string S;
  raw_string_ostream OS(S);
  int Code = reportError(makeDeviceError("no GPU"), "astra-opt", OS);
  EXPECT_EQ(Code, 2);
  EXPECT_EQ(S, "astra-opt: error: no GPU\n");
}

TEST(ErrorTest, HighestExitCodeWins) {
  std::string S;
  raw_string_ostream OS(S);
  Error E = joinErrors(makeInputError("a"), makeInternalError("b"));
  EXPECT_EQ(reportError(std::move(E), "t", OS), 3);
}

TEST(OutputTest, AtomicWriteReplacesWholeFile) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("astra-out", Dir));
  std::string Path = (Dir + "/f.txt").str();
  ASSERT_FALSE(errorToBool(writeFileAtomically(Path, "first version\n")));
  ASSERT_FALSE(errorToBool(writeFileAtomically(Path, "2\n")));
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  EXPECT_EQ((*Buf)->getBuffer(), "2\n");
  std::error_code EC;
  unsigned Files = 0;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 1u) << "no temporary file may be left behind";
  sys::fs::remove_directories(Dir);
}

TEST(OutputTest, WriteIntoMissingDirectoryFails) {
  Error E = writeFileAtomically("/nonexistent-dir/x/y.txt", "data");
  ASSERT_TRUE(bool(E));
  std::string S;
  raw_string_ostream OS(S);
  EXPECT_EQ(reportError(std::move(E), "t", OS), 1);
  EXPECT_NE(S.find("y.txt: error: cannot open output file"), std::string::npos);
}

TEST(OutputTest, FifoIsWrittenNotReplaced) {
  // A FIFO stands in for /dev/null: renaming a temporary file over a device
  // node would replace it.
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("astra-fifo", Dir));
  std::string Path = (Dir + "/pipe").str();
  ASSERT_EQ(::mkfifo(Path.c_str(), 0600), 0);
  std::string Received;
  std::thread Reader([&] {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false,
                                     /*IsVolatile=*/true);
    if (Buf)
      Received = (*Buf)->getBuffer().str();
  });
  EXPECT_FALSE(errorToBool(writeFileAtomically(Path, "through the pipe")));
  Reader.join();
  EXPECT_EQ(Received, "through the pipe");
  sys::fs::file_status St;
  ASSERT_FALSE(sys::fs::status(Path, St));
  EXPECT_EQ(St.type(), sys::fs::file_type::fifo_file);
  sys::fs::remove_directories(Dir);
}
