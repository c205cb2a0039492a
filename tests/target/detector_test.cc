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
  return Target::parse("metal");
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
    return Target::parse("hip -mcpu=gfx942");
  });
  registry.add("third", [&]() -> std::optional<Target> {
    asked.push_back("third");
    return Target::parse("c");
  });
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(registry.detect(), Target::parse("hip -mcpu=gfx942"));
  EXPECT_EQ(asked, (std::vector<std::string>{"first", "second"}));
}

TEST(TargetDetectors, ThrowingDetectorIsRecordedAndDetectionFallsThrough) {
  TargetDetectorRegistry registry;
  registry.add("broken", []() -> std::optional<Target> { throw std::runtime_error("boom"); });
  registry.add("metal", detect_metal);
  EXPECT_EQ(registry.detect(), Target::parse("metal"));
  auto reports = registry.probe_all();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_TRUE(reports[0].failed);
  EXPECT_EQ(reports[0].reason, "failed: boom");
  EXPECT_FALSE(reports[1].failed);
  EXPECT_EQ(reports[1].target, Target::parse("metal"));
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
  EXPECT_EQ(registry.detect(), Target::parse("metal"));  // the failed adds left no trace
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

TEST(TargetDetectors, BuiltinsAreCudaThenCpu) {
  std::vector<std::string> names = list_target_detectors();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "cuda");
  EXPECT_EQ(names[1], "cpu");
}

TEST(TargetDetectors, BuiltinCudaAnswersAnArchOrSaysWhyNot) {
  auto reports = probe_target_detectors();
  ASSERT_GE(reports.size(), 2u);
  const DetectorReport& cuda = reports[0];
  EXPECT_FALSE(cuda.failed) << cuda.reason;
  if (cuda.target) {
    EXPECT_EQ(cuda.target->kind(), "cuda");
    EXPECT_EQ(cuda.target->get_string("arch").rfind("sm_", 0), 0u);
  } else {
    EXPECT_FALSE(cuda.reason.empty());
  }
  const DetectorReport& cpu = reports[1];
  ASSERT_TRUE(cpu.target.has_value()) << cpu.reason;
  EXPECT_EQ(cpu.target->kind(), llvm_enabled() ? "llvm" : "c");
}

TEST(TargetDetectors, CpuDetectorAnswersLlvmWithTheHostCpuOnceLlvmIsEnabled) {
  ASSERT_FALSE(llvm_enabled());
  EXPECT_TARGET_ERROR(llvm_host_cpu(), "not enabled");
  enable_llvm_host_cpu([] { return std::string("znver4"); });
  EXPECT_TRUE(llvm_enabled());
  EXPECT_EQ(llvm_host_cpu(), "znver4");
  auto reports = probe_target_detectors();
  auto cpu = std::find_if(reports.begin(), reports.end(),
                          [](const DetectorReport& r) { return r.name == "cpu"; });
  ASSERT_NE(cpu, reports.end());
  EXPECT_EQ(cpu->target, Target::parse("llvm -mcpu=znver4"));
  enable_llvm_host_cpu({});
  EXPECT_FALSE(llvm_enabled());
}

TEST(TargetDetectors, GlobalRegistrationThroughTheFreeFunctions) {
  register_target_detector("detector_test_global", detect_nothing);
  std::vector<std::string> names = list_target_detectors();
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
  EXPECT_EQ(list_target_detectors().size(), names.size() - 1);
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
        if (registry.detect() != Target::parse("metal")) ++failures;
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
