// What a newcomer meets first: `tilec --version`, `tilec` alone (the help, exit 0)
// and a mistyped subcommand (named, with the nearest one and the full list; exit 2).
#include "../cli_support.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec {
namespace {

using testing::tilec_cli;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliGreeting, VersionPrintsTheProjectVersion) {
  auto result = tilec_cli({"--version"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "tilec " TILEC_PROJECT_VERSION "\n");
}

TEST(CliGreeting, NoArgumentsPrintsTheHelpWithEverySubcommand) {
  auto result = tilec_cli({});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "tilec: a compiler for tile-level kernels")) << result.output;
  for (const char* command : {"backends", "bench", "check", "compile", "fmt", "interp", "resolve",
                              "run", "targets", "trace", "tune"}) {
    EXPECT_TRUE(contains(result.output, command)) << command << "\n" << result.output;
  }
  EXPECT_TRUE(contains(result.output, "--version")) << result.output;
}

TEST(CliGreeting, AnUnknownSubcommandIsNamedWithTheNearestAndTheList) {
  auto result = tilec_cli({"complie", "kernel.py"});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(contains(result.output, "unknown command 'complie' (did you mean 'compile'?)"))
      << result.output;
  EXPECT_TRUE(contains(result.output,
                       "commands: backends, bench, check, compile, fmt, interp, resolve, run, "
                       "targets, trace, tune"))
      << result.output;
  auto far = tilec_cli({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2) << far.output;
  EXPECT_TRUE(contains(far.output, "unknown command 'frobnicate'; commands:")) << far.output;
}

}  // namespace
}  // namespace tilec
