#include "error_matchers.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

namespace tilec::target {
namespace {

std::optional<Target> leave_alone(const Target&) {
  return std::nullopt;
}

// Gives CUDA targets without an arch a default one.
std::optional<Target> default_cuda_arch(const Target& target) {
  if (target.kind() != "gpu_test" || target.attr("arch")) return std::nullopt;
  auto attrs = target.attrs();
  attrs["arch"] = std::string("sm_80");
  Target result = Target::make("gpu_test", attrs, target.keys());
  return target.host() ? result.with_host(*target.host()) : result;
}

TEST(TargetNormalizers, AppliedInOrderEachSeeingThePreviousResult) {
  TargetNormalizerRegistry registry;
  registry.add("cuda_arch", default_cuda_arch);
  registry.add("tag_sm80", [](const Target& target) -> std::optional<Target> {
    if (target.get_string("arch") != "sm_80") return std::nullopt;
    return Target::make("gpu_test", target.attrs(), {{"gpu_test", "gpu", "ampere"}});
  });
  registry.add("identity", leave_alone);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"cuda_arch", "tag_sm80", "identity"}));
  EXPECT_EQ(registry.normalize(Target::parse("gpu_test")),
            Target::parse("gpu_test -arch=sm_80 -keys=gpu_test,gpu,ampere"));
  EXPECT_EQ(registry.normalize(Target::parse("c")), Target::parse("c"));
}

TEST(TargetNormalizers, HostsAreNormalizedToo) {
  TargetNormalizerRegistry registry;
  registry.add("c_to_llvm", [](const Target& target) -> std::optional<Target> {
    if (target.kind() != "c") return std::nullopt;
    return Target::parse("llvm");
  });
  Target normalized = registry.normalize(Target::parse("gpu_test -host=c"));
  EXPECT_EQ(normalized, Target::parse("gpu_test -host=llvm"));
}

TEST(TargetNormalizers, FailureNamesTheNormalizerAndTarget) {
  TargetNormalizerRegistry registry;
  registry.add("strict", [](const Target&) -> std::optional<Target> {
    throw std::runtime_error("arch required");
  });
  EXPECT_TARGET_ERROR(
      registry.normalize(Target::parse("gpu_test")),
      "target normalizer 'strict' failed on 'gpu_test -keys=gpu_test,gpu': arch required");
}

TEST(TargetNormalizers, DuplicatesNeedOverride) {
  TargetNormalizerRegistry registry;
  registry.add("n", leave_alone);
  registry.add("n", leave_alone);  // identical
  EXPECT_TARGET_ERROR(registry.add("n", default_cuda_arch), "'n' is already registered",
                      "override=true");
  EXPECT_EQ(registry.normalize(Target::parse("gpu_test")), Target::parse("gpu_test"));
  registry.add("n", default_cuda_arch, /*override=*/true);
  EXPECT_EQ(registry.normalize(Target::parse("gpu_test")), Target::parse("gpu_test -arch=sm_80"));
  EXPECT_TARGET_ERROR(registry.add("", leave_alone), "empty name");
  EXPECT_TARGET_ERROR(registry.add("m", TargetNormalizerFunc{}), "function is empty");
  EXPECT_TRUE(registry.remove("n"));
  EXPECT_TRUE(registry.names().empty());
}

TEST(TargetNormalizers, GlobalRegistryIsUsedByDetermineTarget) {
  register_target_normalizer("normalizer_test_cuda_arch", default_cuda_arch);
  EXPECT_EQ(list_target_normalizers().back(), "normalizer_test_cuda_arch");
  EXPECT_EQ(determine_target("gpu_test"), Target::parse("gpu_test -arch=sm_80"));
  EXPECT_EQ(normalize_target(Target::parse("gpu_test -arch=sm_90")),
            Target::parse("gpu_test -arch=sm_90"));
  EXPECT_TRUE(unregister_target_normalizer("normalizer_test_cuda_arch"));
  EXPECT_EQ(determine_target("gpu_test"), Target::parse("gpu_test"));
}

}  // namespace
}  // namespace tilec::target
