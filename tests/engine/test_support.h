// Helpers shared by the end-to-end tests: per-test temporary directories and
// environment, and running a compiled kernel against the reference interpreter
// on identical random inputs.
#pragma once

#include "build_paths.h"
#include "tilec/interp/interpreter.h"
#include "tilec/tilec.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace tilec::testing {

inline std::filesystem::path test_temp_dir(std::string_view tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name =
      fmt::format("{}-{}-{}-{}", tag, info->test_suite_name(), info->name(), getpid());
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  auto dir = std::filesystem::path(TILEC_BINARY_DIR) / "test-tmp" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Sets (or with nullopt unsets) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) saved_ = old;
    if (value) {
      setenv(name_.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_.c_str(), saved_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// Every test gets its own empty kernel cache.
class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_dir_ = test_temp_dir("cache");
    cache_env_.emplace("TILEC_CACHE_DIR", cache_dir_.string());
    disable_env_.emplace("TILEC_DISABLE_CACHE", std::nullopt);
  }
  void TearDown() override {
    disable_env_.reset();
    cache_env_.reset();
    std::filesystem::remove_all(cache_dir_);
  }

  std::filesystem::path cache_dir_;
  std::optional<ScopedEnv> cache_env_;
  std::optional<ScopedEnv> disable_env_;
};

struct CheckResult {
  bool ok = true;
  double max_abs_err = 0;
  std::string detail;
};

// Runs `function` of `kernel` and the interpreter on copies of the same random
// inputs (symbolic dims and scalars from `values`) and compares every tensor.
inline CheckResult run_and_compare(const Kernel& kernel, const ir::PrimFunc& func,
                                   const std::map<std::string, int64_t>& values = {},
                                   uint64_t seed = 7) {
  ir::RandomArgs inputs = ir::make_random_args(func, values, seed);
  std::vector<ir::HostTensor> expected = inputs.tensors;
  std::vector<ir::ArgValue> expected_args;
  size_t next = 0;
  for (const auto& arg : inputs.args) {
    if (std::holds_alternative<ir::TensorView>(arg)) {
      expected_args.push_back(expected[next++].view());
    } else {
      expected_args.push_back(arg);
    }
  }
  kernel.call(func->name, std::vector<KernelArg>(inputs.args.begin(), inputs.args.end()));
  ir::interpret(func, expected_args);
  CheckResult result;
  for (size_t i = 0; i < expected.size(); ++i) {
    ir::CompareResult compared = ir::compare_tensors(inputs.tensors[i].view(), expected[i].view());
    result.max_abs_err = std::max(result.max_abs_err, compared.max_abs_err);
    if (!compared.ok && result.ok) {
      result.ok = false;
      result.detail = fmt::format("tensor {} of {}: {}", i, func->name, compared.first_mismatch);
    }
  }
  return result;
}

}  // namespace tilec::testing
