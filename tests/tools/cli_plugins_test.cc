// Plugins that load themselves: `tilec` with TILEC_PLUGIN_PATH naming a directory
// holding a good plugin and a broken one (tests/tools/plugins). The good one's
// backend is listed with its path and usable from every command; the broken one is
// listed with its cause and leaves no trace in any registry.
#include "../cli_support.h"
#include "build_paths.h"
#include "tilec/engine/initialize.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

namespace tilec {
namespace {

using testing::example;
using testing::tilec_cli;

class CliPlugins : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TILEC_PLUGIN_PATH", TILEC_CLI_PLUGIN_DIR, 1); }
  void TearDown() override { unsetenv("TILEC_PLUGIN_PATH"); }
};

nlohmann::json parse_json(const exec::ProcessResult& result) {
  auto start = result.output.find('{');
  EXPECT_NE(start, std::string::npos) << result.output;
  return nlohmann::json::parse(result.output.substr(start == std::string::npos ? 0 : start));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(CliPlugins, BackendsListsTheGoodPluginWithItsPathAndTheBrokenOneWithItsCause) {
  auto text = tilec_cli({"backends"});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const std::string plugin_dir = TILEC_CLI_PLUGIN_DIR;
  EXPECT_TRUE(contains(text.output, "tilec_plugin_cli_good  loaded from " + plugin_dir +
                                        "/libtilec_plugin_cli_good.so"))
      << text.output;
  EXPECT_TRUE(contains(text.output, "tilec_plugin_cli_broken  FAILED (" + plugin_dir +
                                        "/libtilec_plugin_cli_broken.so)"))
      << text.output;
  EXPECT_TRUE(contains(text.output, "cli_broken cannot find its device library")) << text.output;
  EXPECT_TRUE(contains(text.output, "cli_good  (target kinds: cligood)")) << text.output;

  auto json = parse_json(tilec_cli({"backends", "--json"}));
  std::map<std::string, nlohmann::json> plugins;
  for (const auto& plugin : json.at("plugins")) plugins[plugin.at("import_path")] = plugin;
  ASSERT_EQ(plugins.size(), 2u) << json.dump(2);
  const auto& good = plugins.at("tilec_plugin_cli_good");
  EXPECT_EQ(good.at("status"), "loaded");
  EXPECT_EQ(good.at("path"), plugin_dir + "/libtilec_plugin_cli_good.so");
  const auto& broken = plugins.at("tilec_plugin_cli_broken");
  EXPECT_EQ(broken.at("status"), "failed");
  EXPECT_TRUE(contains(broken.at("error"), "nothing it registered was kept")) << broken.dump();
  std::vector<std::string> names;
  for (const auto& backend : json.at("backends")) names.push_back(backend.at("name"));
  // The built-in backends first (each module "tilec.<name>" registers backend <name>).
  std::vector<std::string> expected;
  for (const auto& module : tilec::builtin_modules())
    expected.push_back(module.import_path.substr(std::string("tilec.").size()));
  expected.push_back("cli_good");
  EXPECT_EQ(names, expected);
  // Both backends declare the standard `c` host codegen: one shared entry.
  EXPECT_EQ(json.at("host_codegens").at("c"), (std::vector<std::string>{"c"})) << json.dump(2);
}

TEST_F(CliPlugins, TheBrokenPluginLeavesNoKindOrNormalizerBehind) {
  auto targets = parse_json(tilec_cli({"targets", "--json"}));
  std::vector<std::string> kinds;
  for (const auto& kind : targets.at("kinds")) kinds.push_back(kind.at("name"));
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "cligood"), kinds.end());
  EXPECT_EQ(std::find(kinds.begin(), kinds.end(), "clibroken"), kinds.end());
  // cli_good's kind without a backend is named apart, not listed as supported.
  EXPECT_EQ(std::find(kinds.begin(), kinds.end(), "cliorphan"), kinds.end());
  EXPECT_EQ(targets.at("unowned_kinds"), (std::vector<std::string>{"cliorphan"}));
  auto text = tilec_cli({"targets"});
  EXPECT_TRUE(contains(text.output, "no backend owns (not supported")) << text.output;
  EXPECT_TRUE(contains(text.output, "cliorphan")) << text.output;
  auto normalizers = targets.at("normalizers").get<std::vector<std::string>>();
  EXPECT_EQ(std::find(normalizers.begin(), normalizers.end(), "cli_broken_normalizer"),
            normalizers.end());
  auto resolve = tilec_cli({"resolve", "--target", "clibroken"});
  EXPECT_EQ(resolve.exit_code, 2);
  EXPECT_TRUE(contains(resolve.output, "unknown target kind 'clibroken'")) << resolve.output;
}

TEST_F(CliPlugins, ThePluginBackendResolvesCompilesAndRuns) {
  auto resolve = parse_json(tilec_cli({"resolve", "--target", "cligood -variant=fast", "--json"}));
  EXPECT_EQ(resolve.at("backend"), "cli_good");
  EXPECT_EQ(resolve.at("execution_backend"), "native");
  EXPECT_EQ(resolve.at("target"), "cligood -variant=fast -keys=cligood,cpu");
  auto device =
      tilec_cli({"compile", example("vector_add.py"), "--target", "cligood", "--emit", "device"});
  ASSERT_EQ(device.exit_code, 0) << device.output;
  EXPECT_TRUE(contains(device.output, "static")) << device.output;
  auto run = tilec_cli({"run", example("gemm.py"), "--target", "cligood", "--check"});
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Not only `tilec backends`: run and compile say once that a plugin failed, naming it and
// its cause, and still work with the built-in backends.
TEST_F(CliPlugins, RunAndCompileWarnOnceAboutTheBrokenPlugin) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"run", example("vector_add.py"), "--target", "c"},
        std::vector<std::string>{"compile", example("vector_add.py"), "--target", "c", "--emit",
                                 "device"}}) {
    auto result = tilec_cli(args);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(count(result.output, "tilec: warning:"), 1u) << result.output;
    EXPECT_EQ(count(result.output, "failed to load"), 1u) << result.output;
    EXPECT_TRUE(contains(result.output, "tilec_plugin_cli_broken")) << result.output;
    EXPECT_TRUE(contains(result.output, "cli_broken cannot find its device library"))
        << result.output;
    EXPECT_TRUE(contains(result.output, "tilec backends")) << result.output;
  }
}

TEST(CliPluginErrors, NoPluginWarningWithoutAPluginPath) {
  unsetenv("TILEC_PLUGIN_PATH");
  auto result = tilec_cli({"run", example("vector_add.py"), "--target", "c"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_FALSE(contains(result.output, "warning")) << result.output;
}

TEST(CliPluginErrors, AnUnknownKindSaysHowBackendsAreAdded) {
  unsetenv("TILEC_PLUGIN_PATH");
  auto result = tilec_cli({"resolve", "--target", "acme"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.output, "unknown target kind 'acme'")) << result.output;
  EXPECT_TRUE(contains(result.output, "TILEC_PLUGIN_PATH")) << result.output;
  EXPECT_TRUE(contains(result.output, "libtilec_plugin_<name>.so")) << result.output;
  auto listing = tilec_cli({"backends"});
  EXPECT_TRUE(contains(listing.output, "Plugin modules (TILEC_PLUGIN_PATH: none)"))
      << listing.output;
}

}  // namespace
}  // namespace tilec
