// Built-in modules and plugin shared libraries found on TILEC_PLUGIN_PATH.
#include "tilec/backend/module_loader.h"
#include "test_manifests.h"

#include <cstdlib>

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
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
  }
  unsetenv("TILEC_TEST_FLAKY_FAIL");
  load_module("tilec_test.flaky_plugin");
  EXPECT_EQ(get_global_func("flaky.answer")({}).as<int64_t>(), 42);
  EXPECT_TRUE(is_registered("flaky_backend"));
  EXPECT_EQ(resolve_host_codegen(Target::parse("flaky_host")).name, "flaky_host_codegen");
}

}  // namespace
}  // namespace tilec::backend
