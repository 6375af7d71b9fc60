//===- CommandLineErrorsTest.cpp - Clang-style command-line errors --------===//
#include "../../tools/astra-opt/CommandLineErrors.h"
#include "gtest/gtest.h"

using namespace astra;

namespace {

TEST(CommandLineErrorsTest, UnknownOptionWithNearMiss) {
  EXPECT_EQ(formatCommandLineErrors(
                "astra-opt",
                "astra-opt: Unknown command line argument '--emit-ptxx'.  "
                "Try: 'astra-opt --help'\n"
                "astra-opt: Did you mean '--emit-ptx'?\n"),
            "astra-opt: error: unknown option '--emit-ptxx'\n"
            "astra-opt: note: did you mean '--emit-ptx'?\n");
}

TEST(CommandLineErrorsTest, FarSuggestionDropped) {
  EXPECT_EQ(formatCommandLineErrors(
                "astra-opt",
                "astra-opt: Unknown command line argument '--bogus'.  Try: "
                "'astra-opt --help'\nastra-opt: Did you mean '-o'?\n"),
            "astra-opt: error: unknown option '--bogus'\n");
}

TEST(CommandLineErrorsTest, OtherMessages) {
  EXPECT_EQ(formatCommandLineErrors(
                "astra-opt",
                "astra-opt: Too many positional arguments specified!\n"
                "Can specify at most 1 positional arguments: See: astra-opt "
                "--help\n"),
            "astra-opt: error: too many positional arguments specified\n"
            "astra-opt: note: can specify at most 1 positional arguments: "
            "See: astra-opt --help\n");
}

} // namespace
