// Many threads registering backends, resolving contexts, calling global
// functions and lazily loading modules and a plugin at once. Run under
// ThreadSanitizer by scripts/test_tsan.sh (gtest filter ConcurrencyTest.*).
#include "test_manifests.h"
#include "tilec/backend/module_loader.h"

#include <atomic>
#include <cstdlib>
#include <thread>

namespace tilec::backend {
namespace {

using target::Target;

constexpr int kThreads = 8;
constexpr int kRounds = 20;

TEST(ConcurrencyTest, RegisterResolveAndLoadFromManyThreads) {
  setenv("TILEC_PLUGIN_PATH", TILEC_TEST_PLUGIN_DIR, 1);  // before any thread reads it
  tilec::testing::ensure_plugin_kind("conc_dev");
  tilec::testing::ensure_plugin_kind("conc_host");
  static std::atomic<int> module_runs{0};
  register_builtin_module("test.concurrent_module", [] {
    ++module_runs;
    register_host_codegen("conc_host", {"conc_codegen",
                                        [](const ir::IRModule&, const Target&) {
                                          return tilec::testing::artifact("c", "conc");
                                        },
                                        std::nullopt});
  });
  register_lazy_host_codegen("conc_host", "test.concurrent_module");
  register_global_func("conc.shared", [](const ValueList& args) { return args.at(0); });

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      try {
        std::string variant = "v" + std::to_string(t);
        auto module =
            tilec::testing::make_manifest("conc_backend_" + std::to_string(t), "conc_dev");
        module.supports_target = [variant](const Target& target) {
          return target.get_string("variant") == variant;
        };
        auto registered = register_backend(module);
        if (register_backend(module) != registered) ++failures;  // identical re-registration
        for (int round = 0; round < kRounds; ++round) {
          auto context = create_backend_context("conc_dev -variant=" + variant);
          if (context.name() != registered->name) ++failures;
          if (resolve_host_codegen(Target::parse("conc_host")).name != "conc_codegen") ++failures;
          if (get_global_func("conc.shared")({Value(int64_t{round})}).as<int64_t>() != round) {
            ++failures;
          }
          register_global_func("conc.thread_" + std::to_string(t) + "_" + std::to_string(round),
                               [](const ValueList&) { return Value(); });
          load_module("tilec_test.good_plugin");
          list_backends();
          list_host_codegens();
        }
      } catch (const std::exception& error) {
        ADD_FAILURE() << "thread " << t << ": " << error.what();
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(module_runs, 1);  // loaded once although every thread asked at once
  EXPECT_TRUE(is_module_loaded("tilec_test.good_plugin"));
  EXPECT_EQ(get_backend("plugin_backend")->name, "plugin_backend");
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(get_backend("conc_backend_" + std::to_string(t))->name,
              "conc_backend_" + std::to_string(t));
  }
}

TEST(ConcurrencyTest, FailingPluginLoadsRaceWithoutLeavingComponents) {
  setenv("TILEC_PLUGIN_PATH", TILEC_TEST_PLUGIN_DIR, 1);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&errors] {
      for (int round = 0; round < 5; ++round) {
        try {
          load_module("tilec_test.wrong_abi_plugin");
        } catch (const BackendError&) {
          ++errors;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(errors, kThreads * 5);  // every attempt retried and failed cleanly
  EXPECT_FALSE(is_module_loaded("tilec_test.wrong_abi_plugin"));
}

}  // namespace
}  // namespace tilec::backend
