// A plugin loaded before tilec::initialize() declares the standard `c` host codegen
// (codegen::make_c_host_codegen()) ahead of the built-in cpu backend, which declares
// it too: both backends register, share the one entry, and compile. Its own binary,
// so nothing is registered when the test starts. (The other order, built-ins first,
// is what initialize() does with TILEC_PLUGIN_PATH: cli_plugins_test.cc.)
#include "build_paths.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/engine/compile.h"
#include "tilec/engine/initialize.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace tilec {
namespace {

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& module : backend::list_backends()) names.push_back(module->name);
  return names;
}

TEST(PluginBeforeBuiltins, BothDeclareTheCHostCodegenAndBothCompile) {
  ASSERT_TRUE(backend::list_backends().empty());
  setenv("TILEC_PLUGIN_PATH", TILEC_CLI_PLUGIN_DIR, 1);
  backend::load_module("tilec_plugin_cli_good");
  ASSERT_EQ(backend_names(), std::vector<std::string>{"cli_good"});

  tilec::initialize();  // the built-in backends, then the other plugins
  std::vector<std::string> expected = {"cli_good"};
  for (const auto& module : tilec::builtin_modules())  // "tilec.<name>" registers <name>
    expected.push_back(module.import_path.substr(std::string("tilec.").size()));
  EXPECT_EQ(backend_names(), expected);
  std::vector<std::string> c_codegens;
  for (const auto& [kind, names] : backend::list_host_codegens()) {
    if (kind == "c") c_codegens = names;
  }
  EXPECT_EQ(c_codegens, std::vector<std::string>{"c"});
  for (const auto& plugin : backend::list_plugin_modules()) {
    EXPECT_EQ(plugin.loaded, plugin.import_path == "tilec_plugin_cli_good") << plugin.import_path;
  }

  auto mod = ir::parse_kernel_file(
      (std::filesystem::path(TILEC_SOURCE_DIR) / "examples" / "vector_add.py").string());
  for (const char* target : {"c", "cligood"}) {
    Kernel kernel = compile(mod, target);
    EXPECT_NE(kernel.host_source().find("tilec_abi_version"), std::string::npos) << target;
    EXPECT_FALSE(kernel.library_path().empty()) << target;
  }
}

}  // namespace
}  // namespace tilec
