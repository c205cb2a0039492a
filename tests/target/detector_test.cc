#include "error_matchers.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace tilec::target {
namespace {

std::optional<Target> detect_nothing() {
  return std::nullopt;
}
std::optional<Target> detect_metal() {
  return Target::parse("plain_gpu_test");
}

TEST(TargetDetectors, AskedInOrderUntilOneAnswers) {
  TargetDetectorRegistry registry;
  std::vector<std::string> asked;
  registry.add("first", [&]() -> std::optional<Target> {
    asked.push_back("first");
    return std::nullopt;
  });
  registry.add("second", [&]() -> std::optional<Target> {
    asked.push_back("second");
    return Target::parse("wave_test -mcpu=gfx942");
  });
  registry.add("third", [&]() -> std::optional<Target> {
    asked.push_back("third");
    return Target::parse("c");
  });
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(registry.detect(), Target::parse("wave_test -mcpu=gfx942"));
  EXPECT_EQ(asked, (std::vector<std::string>{"first", "second"}));
}

TEST(TargetDetectors, ThrowingDetectorIsRecordedAndDetectionFallsThrough) {
  TargetDetectorRegistry registry;
  registry.add("broken", []() -> std::optional<Target> { throw std::runtime_error("boom"); });
  registry.add("plain_gpu_test", detect_metal);
  EXPECT_EQ(registry.detect(), Target::parse("plain_gpu_test"));
  auto reports = registry.probe_all();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_TRUE(reports[0].failed);
  EXPECT_EQ(reports[0].reason, "failed: boom");
  EXPECT_FALSE(reports[1].failed);
  EXPECT_EQ(reports[1].target, Target::parse("plain_gpu_test"));
}

TEST(TargetDetectors, WhenNoneAnswersTheErrorListsEveryDetectorAndReason) {
  TargetDetectorRegistry registry;
  registry.add("silent", detect_nothing);
  registry.add_explained("explained", [] { return Detection{std::nullopt, "no widget attached"}; });
  registry.add("thrower", []() -> std::optional<Target> { throw TargetError("driver too old"); });
  EXPECT_TARGET_ERROR(registry.detect(), "no target detector found a target",
                      "silent: detected no target", "explained: no widget attached",
                      "thrower: failed: driver too old", "TILEC_TARGET");
}

TEST(TargetDetectors, EmptyRegistrySaysSo) {
  TargetDetectorRegistry registry;
  EXPECT_TARGET_ERROR(registry.detect(), "no target detectors are registered");
}

TEST(TargetDetectors, DuplicateNamesNeedOverrideWhichKeepsThePosition) {
  TargetDetectorRegistry registry;
  registry.add("a", detect_nothing);
  registry.add("b", detect_metal);
  registry.add("a", detect_nothing);  // the same function pointer: identical, accepted
  EXPECT_TARGET_ERROR(registry.add("a", detect_metal), "'a' is already registered", "a, b",
                      "override=true");
  EXPECT_TARGET_ERROR(registry.add("a", [] { return detect_nothing(); }), "already registered");
  EXPECT_EQ(registry.detect(), Target::parse("plain_gpu_test"));  // the failed adds left no trace
  registry.add(
      "a", [] { return std::optional<Target>(Target::parse("c")); }, /*override=*/true);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(registry.detect(), Target::parse("c"));
  EXPECT_TRUE(registry.remove("a"));
  EXPECT_FALSE(registry.remove("a"));
  EXPECT_EQ(registry.names(), std::vector<std::string>{"b"});
}

TEST(TargetDetectors, InvalidRegistrationsAreRejected) {
  TargetDetectorRegistry registry;
  EXPECT_TARGET_ERROR(registry.add("", detect_nothing), "empty name");
  EXPECT_TARGET_ERROR(registry.add("x", TargetDetectorFunc{}), "function is empty");
  EXPECT_TARGET_ERROR(registry.add_explained("x", ExplainedTargetDetectorFunc{}),
                      "function is empty");
  EXPECT_TRUE(registry.names().empty());
}

TEST(TargetDetectors, HigherPriorityIsAskedFirstWhateverTheRegistrationOrder) {
  TargetDetectorRegistry registry;
  std::vector<std::string> asked;
  auto answer = [&](std::string name, std::optional<Target> target) {
    return [&asked, name, target]() -> std::optional<Target> {
      asked.push_back(name);
      return target;
    };
  };
  // The host first, as a module registered before an accelerator's module would.
  registry.add("host", answer("host", Target::parse("c")), false, kHostDetectorPriority);
  registry.add("late_host", answer("late_host", Target::parse("c")));  // default: host priority
  registry.add("gpu", answer("gpu", std::nullopt), false, kAcceleratorDetectorPriority);
  registry.add("npu", answer("npu", Target::parse("plain_gpu_test")), false,
               kAcceleratorDetectorPriority);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"gpu", "npu", "host", "late_host"}));
  EXPECT_EQ(registry.detect(), Target::parse("plain_gpu_test"));
  EXPECT_EQ(asked, (std::vector<std::string>{"gpu", "npu"}));
  // An override that changes the priority moves the detector to its new place.
  registry.add("host", answer("host", Target::parse("c")), /*override=*/true, 200);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"host", "gpu", "npu", "late_host"}));
}

TEST(TargetDetectors, SameFunctionUnderAnotherPriorityIsNotTheSameRegistration) {
  TargetDetectorRegistry registry;
  EXPECT_TRUE(registry.add("a", detect_metal, false, kAcceleratorDetectorPriority));
  EXPECT_FALSE(registry.add("a", detect_metal, false, kAcceleratorDetectorPriority));
  EXPECT_TARGET_ERROR(registry.add("a", detect_metal), "'a' is already registered");
}

TEST(TargetDetectors, TheProcessWideRegistryStartsEmptyAndSaysWhereDetectorsComeFrom) {
  // Backend modules register the detectors of the kinds they own (tests/cpu, tests/cuda).
  EXPECT_TRUE(list_target_detectors().empty());
  EXPECT_TARGET_ERROR(auto_detect_target(), "no target detectors are registered",
                      "tilec::initialize()");
}

TEST(TargetDetectors, GlobalRegistrationThroughTheFreeFunctions) {
  register_target_detector("detector_test_global", detect_nothing);
  register_target_detector("detector_test_device", detect_nothing, false,
                           kAcceleratorDetectorPriority);
  std::vector<std::string> names = list_target_detectors();
  EXPECT_EQ(names.front(), "detector_test_device");
  EXPECT_EQ(names.back(), "detector_test_global");
  EXPECT_TARGET_ERROR(register_target_detector("detector_test_global", detect_metal),
                      "already registered");
  register_explained_target_detector(
      "detector_test_global",
      [] {
        return Detection{std::nullopt, "explained"};
      },
      true);
  auto reports = probe_target_detectors();
  EXPECT_EQ(reports.back().reason, "explained");
  EXPECT_TRUE(unregister_target_detector("detector_test_global"));
  EXPECT_TRUE(unregister_target_detector("detector_test_device"));
  EXPECT_EQ(list_target_detectors().size(), names.size() - 2);
}

TEST(TargetDetectors, ConcurrentRegistrationAndDetection) {
  TargetDetectorRegistry registry;
  registry.add("base", detect_metal);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        std::string name = "t" + std::to_string(t) + "_" + std::to_string(i % 4);
        registry.add(name, detect_nothing, /*override=*/true);
        if (registry.detect() != Target::parse("plain_gpu_test")) ++failures;
        registry.remove(name);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(registry.names(), std::vector<std::string>{"base"});
}

}  // namespace
}  // namespace tilec::target
