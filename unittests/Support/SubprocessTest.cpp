//===- SubprocessTest.cpp - Spawn, pipes, time-outs, kill -----------------===//
#include "astra/Support/Subprocess.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <cerrno>
#include <chrono>
#include <csignal>

using namespace astra;
using namespace llvm;

namespace {

Subprocess sh(const std::string &Script, const SpawnOptions &O = {}) {
  Expected<Subprocess> P = Subprocess::spawn({"/bin/sh", "-c", Script}, O);
  EXPECT_TRUE(static_cast<bool>(P)) << toString(P.takeError());
  return std::move(*P);
}

double secondsOf(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
      .count();
}

TEST(SubprocessTest, ExitCode) {
  Subprocess P = sh("exit 3");
  std::optional<ExitStatus> S = P.wait(10);
  ASSERT_TRUE(S.has_value());
  EXPECT_FALSE(S->Signaled);
  EXPECT_EQ(S->Code, 3);
  EXPECT_EQ(S->describe(), "exit code 3");
  EXPECT_FALSE(P.running());
}

TEST(SubprocessTest, Signal) {
  Subprocess P = sh("kill -TERM $$");
  std::optional<ExitStatus> S = P.wait(10);
  ASSERT_TRUE(S.has_value());
  EXPECT_TRUE(S->Signaled);
  EXPECT_EQ(S->Signal, SIGTERM);
  EXPECT_EQ(S->describe().rfind("killed by signal 15", 0), 0u);
}

TEST(SubprocessTest, TimeOutThenKill) {
  auto Start = std::chrono::steady_clock::now();
  Subprocess P = sh("sleep 30");
  EXPECT_FALSE(P.wait(0.2).has_value());
  EXPECT_TRUE(P.running());
  double T = secondsOf(Start);
  EXPECT_GE(T, 0.19);
  EXPECT_LT(T, 5);
  std::optional<ExitStatus> S = P.kill();
  ASSERT_TRUE(S.has_value());
  EXPECT_TRUE(S->Signaled);
  EXPECT_EQ(S->Signal, SIGKILL);
  EXPECT_FALSE(P.kill().has_value());
}

TEST(SubprocessTest, WaitReturnsWhenTheChildEnds) {
  // Not at the end of the time limit: the wait is not a sleep.
  auto Start = std::chrono::steady_clock::now();
  Subprocess P = sh("sleep 0.1");
  ASSERT_TRUE(P.wait(20).has_value());
  EXPECT_LT(secondsOf(Start), 5);
}

TEST(SubprocessTest, PipedLines) {
  SpawnOptions O;
  O.PipeStdout = true;
  Subprocess P = sh("echo one; sleep 0.05; printf 'two\\nthr'; printf 'ee'", O);
  std::vector<std::string> Lines;
  std::optional<ExitStatus> S =
      P.wait(10, [&](StringRef L) { Lines.push_back(L.str()); });
  ASSERT_TRUE(S && S->success());
  EXPECT_EQ(Lines, (std::vector<std::string>{"one", "two", "three"}));
}

TEST(SubprocessTest, Environment) {
  SpawnOptions O;
  O.PipeStdout = true;
  O.Env = {"ASTRA_SUBPROCESS_TEST=7", "HOME=/nowhere"};
  Subprocess P = sh("echo \"$ASTRA_SUBPROCESS_TEST $HOME ${PATH:+path}\"", O);
  std::vector<std::string> Lines;
  ASSERT_TRUE(P.wait(10, [&](StringRef L) { Lines.push_back(L.str()); }));
  // Set, overridden, and inherited.
  EXPECT_EQ(Lines, (std::vector<std::string>{"7 /nowhere path"}));
}

TEST(SubprocessTest, OutputToFile) {
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("astra-subprocess", "log", Path));
  SpawnOptions O;
  O.StdoutFile = O.StderrFile = Path.str().str();
  Subprocess P = sh("echo out; echo err >&2", O);
  ASSERT_TRUE(P.wait(10).has_value());
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(static_cast<bool>(B));
  EXPECT_EQ((*B)->getBuffer(), "out\nerr\n");
  sys::fs::remove(Path);
}

TEST(SubprocessTest, MissingProgramIsAnError) {
  Expected<Subprocess> P = Subprocess::spawn({"/nonexistent/astra-none"});
  ASSERT_FALSE(static_cast<bool>(P));
  std::string Msg = toString(P.takeError());
  EXPECT_NE(Msg.find("cannot run /nonexistent/astra-none"), std::string::npos)
      << Msg;
}

TEST(SubprocessTest, DestructorKills) {
  pid_t Pid;
  {
    Subprocess P = sh("sleep 30");
    Pid = P.pid();
    ASSERT_GT(Pid, 0);
  }
  // Killed and reaped: no such process any more.
  EXPECT_EQ(::kill(Pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

} // namespace
