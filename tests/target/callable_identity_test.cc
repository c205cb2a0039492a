// Callable identity (target/callable_identity.h): the same callable is the same object
// (copies of one SharedFunction, one plain function, one external object), never merely
// the same lambda type; the detector and normalizer registries follow it.
#include "tilec/target/callable_identity.h"
#include "error_matchers.h"
#include "tilec/target/detector_registry.h"
#include "tilec/target/normalizer_registry.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec::target {
namespace {

using Answer = SharedFunction<std::string()>;

// A factory: every call makes a new closure of the same lambda expression.
Answer answering(const std::string& text) {
  return [text] { return text; };
}

std::string plain_answer() {
  return "plain";
}

std::optional<Target> detect_c() {
  return Target::parse("c");
}

TEST(CallableIdentity, CopiesAreTheSameCallableAndClosuresOfOneFactoryAreNot) {
  Answer first = answering("v1");
  Answer copy = first;
  EXPECT_TRUE(first.same_as(copy));
  EXPECT_EQ(first.identity(), copy.identity());
  EXPECT_EQ(first.use_count(), 2);
  // The same lambda type with equal captures: still two objects.
  Answer again = answering("v1");
  EXPECT_FALSE(first.same_as(again));
  EXPECT_NE(first.identity(), again.identity());
  EXPECT_FALSE(first.same_as(answering("v2")));
  EXPECT_EQ(first(), "v1");
  EXPECT_EQ(answering("v2")(), "v2");
}

TEST(CallableIdentity, APlainFunctionIsOneObjectHoweverItIsWrapped) {
  Answer by_name = plain_answer;
  Answer by_pointer = &plain_answer;
  Answer through_std_function = std::function<std::string()>(&plain_answer);
  EXPECT_TRUE(by_name.same_as(by_pointer));
  EXPECT_TRUE(by_name.same_as(through_std_function));
  EXPECT_EQ(by_name.identity(), by_pointer.identity());
  // A lambda calling it is another object.
  EXPECT_FALSE(by_name.same_as(Answer([] { return plain_answer(); })));
  EXPECT_EQ(*by_pointer.target<std::string (*)()>(), &plain_answer);
}

TEST(CallableIdentity, EmptyCallablesAreTheSameOnlyAsEachOther) {
  Answer empty, null = nullptr, from_empty = std::function<std::string()>();
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_FALSE(static_cast<bool>(from_empty));
  EXPECT_TRUE(empty.same_as(null));
  EXPECT_TRUE(empty.same_as(from_empty));
  EXPECT_FALSE(empty.same_as(answering("x")));
  EXPECT_EQ(empty.identity(), nullptr);
  EXPECT_THROW(empty(), std::bad_function_call);
  std::optional<Answer> absent;
  EXPECT_TRUE(detail::same_callable(absent, std::optional<Answer>()));
  EXPECT_FALSE(detail::same_callable(absent, std::optional<Answer>(answering("x"))));
}

TEST(CallableIdentity, CallablesMadeForOneExternalObjectAreTheSame) {
  int python_object = 0;  // stands for the Python callable a binding wraps
  Answer one([] { return std::string("a"); }, &python_object);
  Answer two([] { return std::string("b"); }, &python_object);
  int other_object = 0;
  Answer three([] { return std::string("a"); }, &other_object);
  EXPECT_TRUE(one.same_as(two));
  EXPECT_EQ(one.identity(), &python_object);
  EXPECT_FALSE(one.same_as(three));
}

TEST(CallableIdentity, DetectorsRegisteredAgainAreTheSameOnlyForTheSameObject) {
  TargetDetectorRegistry registry;
  auto made = [](const std::string& text) -> TargetDetectorFunc {
    return [text] { return std::optional<Target>(Target::parse(text)); };
  };
  TargetDetectorFunc first = made("c");
  EXPECT_TRUE(registry.add("d", first));
  EXPECT_FALSE(registry.add("d", first));  // a copy of the registered object: a no-op
  EXPECT_TARGET_ERROR(registry.add("d", made("c")), "'d' is already registered", "override=true");
  EXPECT_EQ(registry.detect(), Target::parse("c"));  // the refused one left no trace
  registry.add("d", made("plain_gpu_test"), /*override=*/true);
  EXPECT_EQ(registry.detect(), Target::parse("plain_gpu_test"));
  // override always replaces, even with the registered object.
  registry.add("d", first, /*override=*/true);
  EXPECT_EQ(registry.detect(), Target::parse("c"));
  EXPECT_FALSE(registry.add("d", detect_c, /*override=*/true));
  EXPECT_FALSE(registry.add("d", detect_c));  // the same plain function: a no-op
}

TEST(CallableIdentity, NormalizersRegisteredAgainAreTheSameOnlyForTheSameObject) {
  TargetNormalizerRegistry registry;
  auto tagging = [](const std::string& arch) -> TargetNormalizerFunc {
    return [arch](const Target& target) -> std::optional<Target> {
      if (target.kind() != "gpu_test") return std::nullopt;
      auto attrs = target.attrs();
      attrs["arch"] = arch;
      return Target::make("gpu_test", attrs, target.keys());
    };
  };
  TargetNormalizerFunc sm80 = tagging("sm_80");
  registry.add("arch", sm80);
  registry.add("arch", sm80);  // the same object: a no-op
  EXPECT_TARGET_ERROR(registry.add("arch", tagging("sm_80")), "'arch' is already registered");
  EXPECT_EQ(registry.normalize(Target::parse("gpu_test")).get_string("arch"), "sm_80");
  registry.add("arch", tagging("sm_90"), /*override=*/true);
  EXPECT_EQ(registry.normalize(Target::parse("gpu_test")).get_string("arch"), "sm_90");
  EXPECT_EQ(registry.names(), std::vector<std::string>{"arch"});
}

}  // namespace
}  // namespace tilec::target
