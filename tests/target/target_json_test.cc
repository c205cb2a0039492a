#include "error_matchers.h"
#include "tilec/target/target.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tilec::target {
namespace {

using nlohmann::json;

TEST(TargetJson, ParsesTheIssueExample) {
  Target target = Target::from_json(
      json::parse(R"({"kind": "gpu_test", "arch": "sm_90", "keys": ["gpu_test", "gpu", "cutedsl"],
                      "host": "c"})"));
  EXPECT_EQ(target.kind(), "gpu_test");
  EXPECT_EQ(target.get_string("arch"), "sm_90");
  EXPECT_EQ(target.keys(), (std::vector<std::string>{"gpu_test", "gpu", "cutedsl"}));
  ASSERT_NE(target.host(), nullptr);
  EXPECT_EQ(*target.host(), Target::parse("c"));
  EXPECT_EQ(target, Target::parse("gpu_test -arch=sm_90 -keys=gpu_test,gpu,cutedsl -host=c"));
}

TEST(TargetJson, ParseDispatchesOnBraceAndAcceptsHostObjects) {
  Target target = Target::parse(
      R"(  {"kind": "llvm", "mcpu": "znver4", "mattr": ["+avx2"], "host": {"kind": "c"}})");
  EXPECT_EQ(target.get_string("mcpu"), "znver4");
  EXPECT_EQ(std::get<std::vector<std::string>>(*target.attr("mattr")),
            std::vector<std::string>{"+avx2"});
  EXPECT_EQ(target.host()->kind(), "c");
}

TEST(TargetJson, ToJsonHoldsEveryAttributeAndRoundTrips) {
  Target target = Target::parse(R"(gpu_test -arch=sm_90 -host="llvm -mattr=+avx2,+fma")");
  json object = target.to_json();
  EXPECT_EQ(object["kind"], "gpu_test");
  EXPECT_EQ(object["arch"], "sm_90");
  EXPECT_EQ(object["max_threads_per_block"], 1024);
  EXPECT_EQ(object["keys"], json::array({"gpu_test", "gpu"}));
  EXPECT_EQ(object["host"]["mattr"], json::array({"+avx2", "+fma"}));
  EXPECT_EQ(Target::from_json(object), target);
  EXPECT_EQ(Target::parse(object.dump()), target);
}

TEST(TargetJson, IntegerAttributesAcceptJsonIntegersOnly) {
  EXPECT_EQ(Target::from_json({{"kind", "gpu_test"}, {"max_threads_per_block", 256}})
                .get_int("max_threads_per_block"),
            256);
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "gpu_test"}, {"max_threads_per_block", 1.5}}),
                      "expects an int", "number 1.5");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "gpu_test"}, {"max_threads_per_block", "256"}}),
                      "expects an int", "string");
  EXPECT_TARGET_ERROR(
      Target::from_json({{"kind", "gpu_test"}, {"max_threads_per_block", 18446744073709551615ULL}}),
      "out of the 64-bit integer range");
}

TEST(TargetJsonErrors, WrongTypesNameTheExpectedType) {
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "gpu_test"}, {"arch", 90}}),
                      "'arch' of target kind 'gpu_test' expects a string");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "llvm"}, {"mattr", "+avx2"}}),
                      "expects a string list");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "llvm"}, {"mattr", {1, 2}}}), "array of strings");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "gpu_test"}, {"keys", "gpu_test,gpu"}}),
                      "\"keys\" must be an array of strings");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "gpu_test"}, {"host", 3}}),
                      "\"host\" must be a target string or object");
}

TEST(TargetJsonErrors, KindMissingUnknownOrNotAnObject) {
  EXPECT_TARGET_ERROR(Target::from_json(json::array()), "must be an object");
  EXPECT_TARGET_ERROR(Target::from_json({{"arch", "sm_90"}}), "needs a string \"kind\"",
                      "gpu_test");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", 1}}), "needs a string \"kind\"");
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "vulkan"}}), "unknown target kind 'vulkan'");
}

TEST(TargetJsonErrors, UnknownAttributeAndHostOfHost) {
  EXPECT_TARGET_ERROR(Target::from_json({{"kind", "plain_gpu_test"}, {"arch", "sm_90"}}),
                      "'plain_gpu_test' has no attribute 'arch'", "it is an attribute of gpu_test");
  EXPECT_TARGET_ERROR(
      Target::from_json({{"kind", "gpu_test"}, {"host", {{"kind", "c"}, {"host", "c"}}}}),
      "cannot have a host");
}

TEST(TargetJsonErrors, MalformedJsonText) {
  EXPECT_TARGET_ERROR(Target::parse(R"({"kind": "gpu_test",)"), "malformed target JSON");
  EXPECT_TARGET_ERROR(Target::parse("{"), "malformed target JSON");
}

}  // namespace
}  // namespace tilec::target
