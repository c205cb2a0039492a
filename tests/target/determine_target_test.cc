#include "error_matchers.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

namespace tilec::target {
namespace {

// Sets or clears TILEC_TARGET for one test and restores the previous value after it.
class ScopedTargetEnv {
 public:
  explicit ScopedTargetEnv(const char* value) {
    if (const char* old = std::getenv(kTargetEnvVar)) saved_ = old;
    if (value) {
      setenv(kTargetEnvVar, value, 1);
    } else {
      unsetenv(kTargetEnvVar);
    }
  }
  ~ScopedTargetEnv() {
    if (saved_) {
      setenv(kTargetEnvVar, saved_->c_str(), 1);
    } else {
      unsetenv(kTargetEnvVar);
    }
  }

 private:
  std::optional<std::string> saved_;
};

// The process-wide detectors come from backend modules, which this layer's tests do not
// load: one that answers `c` stands in for them.
class ScopedHostDetector {
 public:
  ScopedHostDetector() {
    register_target_detector("determine_test_host",
                             [] { return std::optional(Target::parse("c")); });
  }
  ~ScopedHostDetector() { unregister_target_detector("determine_test_host"); }
};

TEST(DetermineTarget, ExplicitSpecsAreParsed) {
  EXPECT_EQ(determine_target("gpu_test -arch=sm_90"), Target::parse("gpu_test -arch=sm_90"));
  EXPECT_EQ(determine_target(R"({"kind": "c"})"), Target::parse("c"));
  EXPECT_TARGET_ERROR(determine_target("nope"), "unknown target kind 'nope'");
  EXPECT_TARGET_ERROR(determine_target(""), "empty target string");
}

TEST(DetermineTarget, AutoWithoutScopeOrEnvDetects) {
  ScopedHostDetector detector;
  ScopedTargetEnv env(nullptr);
  EXPECT_EQ(determine_target("auto"), normalize_target(auto_detect_target()));
  EXPECT_EQ(determine_target(), determine_target(" auto "));
}

TEST(DetermineTarget, EnvironmentOverridesDetection) {
  ScopedTargetEnv env("wave_test -mcpu=gfx942");
  EXPECT_EQ(determine_target("auto"), Target::parse("wave_test -mcpu=gfx942"));
  EXPECT_EQ(determine_target("plain_gpu_test"),
            Target::parse("plain_gpu_test"));  // explicit beats env
}

TEST(DetermineTarget, EnvironmentAutoOrEmptyMeansDetect) {
  ScopedHostDetector detector;
  Target detected = normalize_target(auto_detect_target());
  {
    ScopedTargetEnv env("auto");
    EXPECT_EQ(determine_target("auto"), detected);
  }
  ScopedTargetEnv env("");
  EXPECT_EQ(determine_target("auto"), detected);
}

TEST(DetermineTarget, BadEnvironmentValueIsNamed) {
  ScopedTargetEnv env("gpu_test -arch");
  EXPECT_TARGET_ERROR(determine_target("auto"), "$TILEC_TARGET does not hold a usable target",
                      "needs a value", "unset it");
}

TEST(DetermineTarget, ScopedTargetComesFirstAndNests) {
  ScopedTargetEnv env("wave_test");
  EXPECT_FALSE(current_target().has_value());
  {
    ScopedTarget outer(Target::parse("gpu_test -arch=sm_80"));
    EXPECT_EQ(determine_target("auto"), Target::parse("gpu_test -arch=sm_80"));
    {
      ScopedTarget inner("plain_gpu_test");
      EXPECT_EQ(current_target(), Target::parse("plain_gpu_test"));
      EXPECT_EQ(determine_target("auto"), Target::parse("plain_gpu_test"));
    }
    EXPECT_EQ(determine_target("auto"), Target::parse("gpu_test -arch=sm_80"));
  }
  EXPECT_FALSE(current_target().has_value());
  EXPECT_EQ(determine_target("auto"), Target::parse("wave_test"));
}

TEST(DetermineTarget, ScopedTargetIsPerThread) {
  ScopedTarget scope("plain_gpu_test");
  std::optional<Target> seen_elsewhere = Target::parse("c");
  std::thread([&] { seen_elsewhere = current_target(); }).join();
  EXPECT_FALSE(seen_elsewhere.has_value());
  EXPECT_EQ(current_target(), Target::parse("plain_gpu_test"));
}

TEST(DetermineTarget, ScopedTargetRejectsBadSpecs) {
  EXPECT_TARGET_ERROR(ScopedTarget("bogus"), "unknown target kind 'bogus'");
  EXPECT_FALSE(current_target().has_value());
}

}  // namespace
}  // namespace tilec::target
