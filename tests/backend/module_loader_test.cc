// Built-in modules and plugin shared libraries found on TILEC_PLUGIN_PATH.
#include "tilec/backend/module_loader.h"
#include "test_manifests.h"

#include "tilec/target/detect.h"
#include "tilec/target/target_kind.h"
#include "tilec/transform/pass_context.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using tilec::testing::backend_error_of;
using tilec::testing::has_global_func;

class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TILEC_PLUGIN_PATH", "/nonexistent/tilec-plugins:" TILEC_TEST_PLUGIN_DIR, 1);
  }
};

bool is_registered(const std::string& name) {
  for (const auto& module : list_backends()) {
    if (module->name == name) return true;
  }
  return false;
}

TEST(ModuleLoaderTest, PluginFileNamesFollowTheDocumentedRule) {
  EXPECT_THAT(plugin_file_names("acme.backend"),
              ElementsAre("libacme_backend.so", "acme.backend.so"));
  EXPECT_THAT(plugin_file_names("my-gpu"), ElementsAre("libmy_gpu.so", "my-gpu.so"));
}

TEST(ModuleLoaderTest, SearchPathSkipsEmptyEntries) {
  setenv("TILEC_PLUGIN_PATH", "/a::/b:", 1);
  EXPECT_THAT(plugin_search_path(), ElementsAre("/a", "/b"));
}

TEST(ModuleLoaderTest, BuiltinRunsOnceAndDuplicatesAreRejected) {
  static int runs = 0;
  register_builtin_module("test.once", [] { ++runs; });
  load_module("test.once");
  load_module("test.once");
  EXPECT_EQ(runs, 1);
  EXPECT_THAT(backend_error_of([] { register_builtin_module("test.once", [] {}); }),
              HasSubstr("'test.once' is already registered"));
  auto loaded = list_loaded_modules();
  EXPECT_NE(std::find(loaded.begin(), loaded.end(), "test.once"), loaded.end());
}

TEST(ModuleLoaderTest, InvalidPathsAndCyclesAreReported) {
  EXPECT_THAT(backend_error_of([] { load_module("../evil"); }),
              HasSubstr("invalid import path '../evil'"));
  EXPECT_THAT(backend_error_of([] { load_module(""); }), HasSubstr("empty"));
  register_builtin_module("test.cycle_a", [] { load_module("test.cycle_b"); });
  register_builtin_module("test.cycle_b", [] { load_module("test.cycle_a"); });
  EXPECT_THAT(
      backend_error_of([] { load_module("test.cycle_a"); }),
      HasSubstr(
          "import cycle while loading modules: test.cycle_a -> test.cycle_b -> test.cycle_a"));
}

TEST(ModuleLoaderTest, FailedInnerLoadIsUndoneWithTheOuterModule) {
  static int inner_runs = 0;
  register_builtin_module("test.inner", [] {
    ++inner_runs;
    register_global_func("inner.fn", [](const ValueList&) { return Value(); });
  });
  register_builtin_module("test.outer_failing", [] {
    load_module("test.inner");
    throw std::runtime_error("outer broke");
  });
  EXPECT_THAT(backend_error_of([] { load_module("test.outer_failing"); }),
              HasSubstr("outer broke"));
  EXPECT_FALSE(has_global_func("inner.fn"));
  EXPECT_FALSE(is_module_loaded("test.inner"));
  load_module("test.inner");
  EXPECT_TRUE(has_global_func("inner.fn"));
  EXPECT_EQ(inner_runs, 2);
}

TEST_F(PluginTest, MissingPluginListsTheDirectoriesSearched) {
  std::string message = backend_error_of([] { load_module("acme.backend"); });
  EXPECT_THAT(message, HasSubstr("cannot import 'acme.backend'"));
  EXPECT_THAT(message, HasSubstr("libacme_backend.so, acme.backend.so"));
  EXPECT_THAT(message, HasSubstr("/nonexistent/tilec-plugins, " TILEC_TEST_PLUGIN_DIR));
}

TEST_F(PluginTest, GoodPluginRegistersABackendAndALazyHostCodegen) {
  tilec::testing::ensure_plugin_kind("plugin_host");
  register_lazy_host_codegen("plugin_host", "tilec_test.good_plugin");
  // The first use of the host kind imports the plugin, which registers both.
  auto codegen = resolve_host_codegen(Target::parse("plugin_host"));
  EXPECT_EQ(codegen.name, "plugin_host_codegen");
  EXPECT_TRUE(is_module_loaded("tilec_test.good_plugin"));
  auto context = create_backend_context("plugin_dev -variant=x", std::string("plugin_host"));
  EXPECT_EQ(context.name(), "plugin_backend");
  EXPECT_EQ(context.execution_backend().name, "plugin_exec");
  EXPECT_EQ(context.codegen_device(tilec::testing::sample_module()).format, "plugin_src");
  EXPECT_THAT(context.codegen_host(tilec::testing::sample_module()).source,
              HasSubstr("plugin host code for plugin_host"));
  std::string path = get_global_func("plugin_backend.loaded_from")({}).as<std::string>();
  EXPECT_THAT(path, HasSubstr("libtilec_test_good_plugin.so"));
  EXPECT_NO_THROW(load_module("tilec_test.good_plugin"));  // loaded once, no re-registration error
}

TEST_F(PluginTest, MissingEntryPointIsReported) {
  std::string message = backend_error_of([] { load_module("tilec_test.missing_symbol_plugin"); });
  EXPECT_THAT(message, HasSubstr("libtilec_test_missing_symbol_plugin.so"));
  EXPECT_THAT(message, HasSubstr("does not export tilec_plugin_init"));
  EXPECT_FALSE(is_module_loaded("tilec_test.missing_symbol_plugin"));
}

TEST_F(PluginTest, WrongAbiVersionIsRefusedBeforeInit) {
  std::string message = backend_error_of([] { load_module("tilec_test.wrong_abi_plugin"); });
  EXPECT_THAT(message, HasSubstr("libtilec_test_wrong_abi_plugin.so"));
  EXPECT_THAT(message, HasSubstr("built for plugin ABI version 999 but this tilec uses version 1"));
  EXPECT_FALSE(has_global_func("wrong_abi.ran"));
}

TEST_F(PluginTest, ThrowingInitRegistersNothingAndIsRetried) {
  setenv("TILEC_TEST_FLAKY_FAIL", "1", 1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string message = backend_error_of([] { load_module("tilec_test.flaky_plugin"); });
    EXPECT_THAT(message, HasSubstr("libtilec_test_flaky_plugin.so"));
    EXPECT_THAT(message, HasSubstr("flaky plugin init exploded on purpose"));
    EXPECT_THAT(message, HasSubstr("nothing it registered was kept"));
    EXPECT_FALSE(has_global_func("flaky.answer"));
    EXPECT_FALSE(is_registered("flaky_backend"));
    for (const auto& [kind, names] : list_host_codegens()) EXPECT_NE(kind, "flaky_host");
    EXPECT_FALSE(is_module_loaded("tilec_test.flaky_plugin"));
    // Target kinds, pass-config keys, detectors and normalizers are undone too.
    EXPECT_EQ(target::find_target_kind("flaky_dev"), nullptr);
    EXPECT_EQ(target::find_target_kind("flaky_host"), nullptr);
    for (const auto& key : transform::list_pass_config_keys()) EXPECT_NE(key.name, "flaky.unroll");
    EXPECT_THAT(target::list_target_detectors(), Not(Contains("flaky_detector")));
    EXPECT_THAT(target::list_target_normalizers(), Not(Contains("flaky_normalizer")));
    auto plugins = list_plugin_modules();
    auto flaky = std::find_if(plugins.begin(), plugins.end(), [](const PluginStatus& status) {
      return status.import_path == "tilec_test.flaky_plugin";
    });
    ASSERT_NE(flaky, plugins.end());
    EXPECT_FALSE(flaky->loaded);
    EXPECT_THAT(flaky->library_path, HasSubstr("libtilec_test_flaky_plugin.so"));
    EXPECT_THAT(flaky->error, HasSubstr("flaky plugin init exploded on purpose"));
  }
  unsetenv("TILEC_TEST_FLAKY_FAIL");
  load_module("tilec_test.flaky_plugin");
  EXPECT_EQ(get_global_func("flaky.answer")({}).as<int64_t>(), 42);
  EXPECT_TRUE(is_registered("flaky_backend"));
  EXPECT_EQ(resolve_host_codegen(Target::parse("flaky_host")).name, "flaky_host_codegen");
  EXPECT_NE(target::find_target_kind("flaky_dev"), nullptr);
  EXPECT_THAT(target::list_target_detectors(), Contains("flaky_detector"));
  for (const auto& status : list_plugin_modules()) {
    if (status.import_path == "tilec_test.flaky_plugin") {
      EXPECT_TRUE(status.loaded);
    }
  }
  target::unregister_target_detector("flaky_detector");  // leave detection as it was
}

// Autoloading: only files named libtilec_plugin_<name>.so are plugins; a broken one
// is recorded with its cause and does not stop the others or throw.
TEST_F(PluginTest, AutoloadFollowsTheNamingRuleAndRecordsFailures) {
  auto dir = std::filesystem::path(TILEC_TEST_PLUGIN_DIR).parent_path() / "autoload-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* name : {"libtilec_plugin_not_elf.so", "libtilec_plugin_bad-name.so",
                           "libother.so", "libtilec_plugin_.so", "libtilec_plugin_notes.txt"}) {
    std::ofstream(dir / name) << "not a shared library";
  }
  EXPECT_THAT(discover_plugins(dir.string()), ElementsAre("tilec_plugin_not_elf"));
  EXPECT_TRUE(discover_plugins("/nonexistent/tilec-plugins").empty());
  setenv("TILEC_PLUGIN_PATH", (dir.string() + ":" TILEC_TEST_PLUGIN_DIR).c_str(), 1);
  std::vector<PluginStatus> statuses;
  EXPECT_NO_THROW(statuses = load_plugins_from_search_path());
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].import_path, "tilec_plugin_not_elf");
  EXPECT_FALSE(statuses[0].loaded);
  EXPECT_EQ(statuses[0].library_path, (dir / "libtilec_plugin_not_elf.so").string());
  EXPECT_THAT(statuses[0].error, HasSubstr("cannot load plugin 'tilec_plugin_not_elf'"));
  EXPECT_FALSE(is_module_loaded("tilec_plugin_not_elf"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tilec::backend
