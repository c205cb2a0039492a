#include "error_matchers.h"
#include "tilec/target/target.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unordered_set>

namespace tilec::target {
namespace {

TEST(TargetText, ParsesKindAttributesAndDefaults) {
  Target gpu_test = Target::parse("gpu_test -arch=sm_90 -max_threads_per_block=512");
  EXPECT_EQ(gpu_test.kind(), "gpu_test");
  EXPECT_EQ(gpu_test.get_string("arch"), "sm_90");
  EXPECT_EQ(gpu_test.get_int("max_threads_per_block"), 512);
  EXPECT_EQ(gpu_test.get_int("thread_warp_size"), 32);  // schema default
  EXPECT_EQ(gpu_test.get_int("registers_per_block"), 65536);
  EXPECT_EQ(gpu_test.keys(), (std::vector<std::string>{"gpu_test", "gpu"}));
  EXPECT_TRUE(gpu_test.has_key("gpu"));
  EXPECT_FALSE(gpu_test.has_key("cpu"));
  EXPECT_EQ(gpu_test.host(), nullptr);
}

TEST(TargetText, DefaultKeysOfEveryBuiltinKind) {
  EXPECT_EQ(Target::parse("c").keys(), std::vector<std::string>{"cpu"});
  EXPECT_EQ(Target::parse("llvm").keys(), std::vector<std::string>{"cpu"});
  EXPECT_EQ(Target::parse("wave_test").keys(), (std::vector<std::string>{"wave_test", "gpu"}));
  EXPECT_EQ(Target::parse("plain_gpu_test").keys(),
            (std::vector<std::string>{"plain_gpu_test", "gpu"}));
  EXPECT_EQ(Target::parse("cl_test").keys(), (std::vector<std::string>{"cl_test", "gpu"}));
}

TEST(TargetText, KeysOptionOverridesDefaults) {
  Target target = Target::parse("gpu_test -keys=gpu_test,gpu,cutedsl");
  EXPECT_EQ(target.keys(), (std::vector<std::string>{"gpu_test", "gpu", "cutedsl"}));
  EXPECT_TRUE(target.has_key("cutedsl"));
}

TEST(TargetText, ReadsEveryAttributeType) {
  Target llvm = Target::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=+avx2,-sse4.1");
  EXPECT_EQ(llvm.get_string("mtriple"), "x86_64-linux-gnu");
  ASSERT_NE(llvm.attr("mattr"), nullptr);
  EXPECT_EQ(std::get<std::vector<std::string>>(*llvm.attr("mattr")),
            (std::vector<std::string>{"+avx2", "-sse4.1"}));
  EXPECT_EQ(Target::parse("gpu_test -max_threads_per_block=-1").get_int("max_threads_per_block"),
            -1);
  EXPECT_EQ(llvm.attr("no_such_attribute"), nullptr);
}

TEST(TargetText, BoolAttributesAcceptFlagAndWords) {
  register_target_kind({"text_test_accel",
                        {{"fast_math", AttrType::kBool, false, "allow reassociation"}},
                        {"accel"}});
  EXPECT_TRUE(Target::parse("text_test_accel -fast_math").get_bool("fast_math"));
  EXPECT_TRUE(Target::parse("text_test_accel -fast_math=true").get_bool("fast_math"));
  EXPECT_TRUE(Target::parse("text_test_accel -fast_math=1").get_bool("fast_math"));
  EXPECT_FALSE(Target::parse("text_test_accel -fast_math=0").get_bool("fast_math"));
  EXPECT_FALSE(Target::parse("text_test_accel").get_bool("fast_math"));
  EXPECT_TARGET_ERROR(Target::parse("text_test_accel -fast_math=maybe"), "expects a bool",
                      "'maybe'");
}

TEST(TargetText, QuotedValuesKeepSpacesAndEscapes) {
  Target target = Target::parse(R"(cl_test -device="Intel(R) UHD \"630\" \\ x")");
  EXPECT_EQ(target.get_string("device"), R"(Intel(R) UHD "630" \ x)");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("cl_test -device=\"\"").get_string("device", "unset"), "");
}

TEST(TargetText, TextMustBeUtf8SoThatItsJsonFormExists) {
  // Found by target_string_fuzz: a value with a stray continuation byte parsed, and
  // to_json().dump() then threw. Such text is now rejected up front.
  EXPECT_TARGET_ERROR(Target::parse("c -mcpu=\xbf"), "byte 8 is not UTF-8");
  EXPECT_TARGET_ERROR(Target::parse("c -mcpu=\xc0\xaf"), "not UTF-8");      // overlong '/'
  EXPECT_TARGET_ERROR(Target::parse("c -mcpu=\xed\xa0\x80"), "not UTF-8");  // surrogate
  Target accented = Target::parse("c -mcpu=\"z\xc3\xa9n\"");
  EXPECT_EQ(Target::from_json(nlohmann::json::parse(accented.to_json().dump())), accented);
}

TEST(TargetText, ToleratesSurroundingAndRepeatedWhitespace) {
  EXPECT_EQ(Target::parse("  gpu_test\t -arch=sm_80 \n"), Target::parse("gpu_test -arch=sm_80"));
}

TEST(TargetText, CanonicalFormIsSortedOmitsDefaultsAndRoundTrips) {
  Target target =
      Target::parse("gpu_test -thread_warp_size=32 -max_threads_per_block=256 -arch=sm_90");
  EXPECT_EQ(target.str(), "gpu_test -arch=sm_90 -max_threads_per_block=256 -keys=gpu_test,gpu");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("c").str(), "c -keys=cpu");
}

TEST(TargetText, HostRendersQuotedAndParsesBack) {
  Target target = Target::parse(R"(gpu_test -arch=sm_90 -host="llvm -mcpu=znver4 -mattr=+avx2")");
  ASSERT_NE(target.host(), nullptr);
  EXPECT_EQ(target.host()->kind(), "llvm");
  EXPECT_EQ(target.host()->get_string("mcpu"), "znver4");
  EXPECT_EQ(
      target.str(),
      R"(gpu_test -arch=sm_90 -keys=gpu_test,gpu -host="llvm -mattr=+avx2 -mcpu=znver4 -keys=cpu")");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("gpu_test -host=c").host()->kind(), "c");
}

TEST(TargetText, HostWithQuotedValuesRoundTrips) {
  Target host = Target::parse(R"(c -mcpu="my \"cpu\"")");
  Target target = Target::parse("cl_test").with_host(host);
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(*Target::parse(target.str()).host(), host);
}

TEST(TargetText, WithHostAndWithoutHost) {
  Target device = Target::parse("gpu_test -arch=sm_80");
  Target with_host = device.with_host(Target::parse("c"));
  EXPECT_NE(with_host, device);
  EXPECT_EQ(with_host.without_host(), device);
  EXPECT_EQ(with_host.host()->kind(), "c");
  EXPECT_EQ(device.host(), nullptr);  // with_host leaves the original untouched
  EXPECT_TARGET_ERROR(device.with_host(with_host), "cannot have one");
  EXPECT_TARGET_ERROR(Target::parse(R"(gpu_test -host="c -host=c")"), "cannot have a host");
}

TEST(TargetText, EqualityAndHashAgreeOnDefaultsAndDiffer) {
  Target implicit = Target::parse("gpu_test -arch=sm_90");
  Target spelled =
      Target::parse("gpu_test -max_threads_per_block=1024 -arch=sm_90 -keys=gpu_test,gpu");
  EXPECT_EQ(implicit, spelled);
  EXPECT_EQ(implicit.hash(), spelled.hash());
  std::unordered_set<Target> set{implicit, spelled, Target::parse("gpu_test -arch=sm_80"),
                                 Target::parse("gpu_test -arch=sm_90 -keys=gpu_test"),
                                 implicit.with_host(Target::parse("c"))};
  EXPECT_EQ(set.size(), 4u);
  EXPECT_NE(Target::parse("c"), Target::parse("llvm"));
}

TEST(TargetText, MakeBuildsAndValidatesTypedAttributes) {
  Target made = Target::make("gpu_test", {{"arch", std::string("sm_90")}}, {{"gpu_test"}});
  EXPECT_EQ(made, Target::parse("gpu_test -arch=sm_90 -keys=gpu_test"));
  EXPECT_TARGET_ERROR(Target::make("gpu_test", {{"arch", int64_t{90}}}), "'arch'",
                      "expects a string", "an int");
  EXPECT_TARGET_ERROR(Target::make("gpu_test", {}, std::vector<std::string>{}), "empty key list");
  EXPECT_TARGET_ERROR(Target::make("gpu_test", {}, {{"gpu", "gpu"}}), "'gpu' is given twice");
  EXPECT_TARGET_ERROR(Target::make("llvm", {{"mattr", std::vector<std::string>{"a,b"}}}),
                      "containing ','");
}

TEST(TargetText, GettersRejectAttributesOfAnotherType) {
  Target target = Target::parse("gpu_test -arch=sm_90");
  EXPECT_EQ(target.get_string("not_an_attribute", "fallback"), "fallback");
  EXPECT_EQ(target.get_int("not_an_attribute", 7), 7);
  EXPECT_TRUE(target.get_bool("not_an_attribute", true));
  EXPECT_TARGET_ERROR(target.get_int("arch"), "'arch'", "is a string, not an int");
  EXPECT_TARGET_ERROR(target.get_string("thread_warp_size"), "is an int, not a string");
  EXPECT_TARGET_ERROR(target.get_bool("arch"), "not a bool");
}

TEST(TargetTextErrors, EmptyStringListsKinds) {
  EXPECT_TARGET_ERROR(Target::parse(""), "empty target string", "gpu_test", "cl_test");
  EXPECT_TARGET_ERROR(Target::parse(" \t "), "empty target string");
}

TEST(TargetTextErrors, UnknownKindListsKindsAndSuggests) {
  EXPECT_TARGET_ERROR(Target::parse("gpu_tset -arch=sm_90"), "unknown target kind 'gpu_tset'",
                      "(did you mean 'gpu_test'?)", "known kinds: c, cl_test, gpu_test,",
                      "llvm, plain_gpu_test,", "wave_test");
  EXPECT_TARGET_ERROR(Target::parse("auto"), "unknown target kind 'auto'");
}

TEST(TargetTextErrors, UnknownAttributeNamesOwnersAndTheKindsAttributes) {
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -mcpu=gfx942"),
                      "target kind 'gpu_test' has no attribute 'mcpu'",
                      "it is an attribute of c, llvm, wave_test", "arch (string)",
                      "max_threads_per_block (int, default 1024)");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arhc=sm_90"), "no target kind has an attribute",
                      "(did you mean 'arch'?)");
}

TEST(TargetTextErrors, WrongValueTypeSaysTheExpectedType) {
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -max_threads_per_block=lots"),
                      "'max_threads_per_block' of target kind 'gpu_test' expects an int", "'lots'");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -max_threads_per_block=12x"), "expects an int");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -max_threads_per_block=99999999999999999999"),
                      "out of the 64-bit integer range");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch"), "needs a value", "-arch=<string>");
}

TEST(TargetTextErrors, MalformedOptions) {
  EXPECT_TARGET_ERROR(Target::parse("gpu_test arch=sm_90"), "expected an option like -name=value");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -=sm_90"), "is not an option name");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch=sm_90 -arch=sm_80"), "-arch is given twice");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch=\"sm_90"), "no closing '\"'");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch=\"sm\"90"), "without a space");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch=sm\"90"),
                      "wrap the whole value in double quotes");
  EXPECT_TARGET_ERROR(Target::parse(R"(gpu_test -arch="sm\n")"), "only \\\" and \\\\ are escapes");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -keys"), "-keys needs a value");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -keys=gpu_test,,gpu"), "empty entry");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -keys="), "empty key list");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -host"), "-host needs a value");
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -host=nope"), "unknown target kind 'nope'");
}

TEST(TargetTextErrors, MessagesQuoteTheWholeInput) {
  EXPECT_TARGET_ERROR(Target::parse("gpu_test -arch=sm_90 -bogus=1"),
                      "invalid target 'gpu_test -arch=sm_90 -bogus=1'");
}

TEST(TargetTextErrors, NonPrintableInputIsEscapedInMessages) {
  std::string message = testing::target_error_message([] {
    Target::parse(
        std::string("cu\x01"
                    "da",
                    5));
  });
  EXPECT_THAT(message, ::testing::HasSubstr("cu\\x01da"));
}

}  // namespace
}  // namespace tilec::target
