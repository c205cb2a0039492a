#include "error_matchers.h"
#include "tilec/target/target.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unordered_set>

namespace tilec::target {
namespace {

TEST(TargetText, ParsesKindAttributesAndDefaults) {
  Target cuda = Target::parse("cuda -arch=sm_90 -max_threads_per_block=512");
  EXPECT_EQ(cuda.kind(), "cuda");
  EXPECT_EQ(cuda.get_string("arch"), "sm_90");
  EXPECT_EQ(cuda.get_int("max_threads_per_block"), 512);
  EXPECT_EQ(cuda.get_int("thread_warp_size"), 32);  // schema default
  EXPECT_EQ(cuda.get_int("registers_per_block"), 65536);
  EXPECT_EQ(cuda.keys(), (std::vector<std::string>{"cuda", "gpu"}));
  EXPECT_TRUE(cuda.has_key("gpu"));
  EXPECT_FALSE(cuda.has_key("cpu"));
  EXPECT_EQ(cuda.host(), nullptr);
}

TEST(TargetText, DefaultKeysOfEveryBuiltinKind) {
  EXPECT_EQ(Target::parse("c").keys(), std::vector<std::string>{"cpu"});
  EXPECT_EQ(Target::parse("llvm").keys(), std::vector<std::string>{"cpu"});
  EXPECT_EQ(Target::parse("hip").keys(), (std::vector<std::string>{"rocm", "gpu"}));
  EXPECT_EQ(Target::parse("metal").keys(), (std::vector<std::string>{"metal", "gpu"}));
  EXPECT_EQ(Target::parse("webgpu").keys(), (std::vector<std::string>{"webgpu", "gpu"}));
  EXPECT_EQ(Target::parse("opencl").keys(), (std::vector<std::string>{"opencl", "gpu"}));
}

TEST(TargetText, KeysOptionOverridesDefaults) {
  Target target = Target::parse("cuda -keys=cuda,gpu,cutedsl");
  EXPECT_EQ(target.keys(), (std::vector<std::string>{"cuda", "gpu", "cutedsl"}));
  EXPECT_TRUE(target.has_key("cutedsl"));
}

TEST(TargetText, ReadsEveryAttributeType) {
  Target llvm = Target::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=+avx2,-sse4.1");
  EXPECT_EQ(llvm.get_string("mtriple"), "x86_64-linux-gnu");
  ASSERT_NE(llvm.attr("mattr"), nullptr);
  EXPECT_EQ(std::get<std::vector<std::string>>(*llvm.attr("mattr")),
            (std::vector<std::string>{"+avx2", "-sse4.1"}));
  EXPECT_EQ(Target::parse("cuda -max_threads_per_block=-1").get_int("max_threads_per_block"), -1);
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
  Target target = Target::parse(R"(opencl -device="Intel(R) UHD \"630\" \\ x")");
  EXPECT_EQ(target.get_string("device"), R"(Intel(R) UHD "630" \ x)");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("opencl -device=\"\"").get_string("device", "unset"), "");
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
  EXPECT_EQ(Target::parse("  cuda\t -arch=sm_80 \n"), Target::parse("cuda -arch=sm_80"));
}

TEST(TargetText, CanonicalFormIsSortedOmitsDefaultsAndRoundTrips) {
  Target target = Target::parse("cuda -thread_warp_size=32 -max_threads_per_block=256 -arch=sm_90");
  EXPECT_EQ(target.str(), "cuda -arch=sm_90 -max_threads_per_block=256 -keys=cuda,gpu");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("c").str(), "c -keys=cpu");
}

TEST(TargetText, HostRendersQuotedAndParsesBack) {
  Target target = Target::parse(R"(cuda -arch=sm_90 -host="llvm -mcpu=znver4 -mattr=+avx2")");
  ASSERT_NE(target.host(), nullptr);
  EXPECT_EQ(target.host()->kind(), "llvm");
  EXPECT_EQ(target.host()->get_string("mcpu"), "znver4");
  EXPECT_EQ(target.str(),
            R"(cuda -arch=sm_90 -keys=cuda,gpu -host="llvm -mattr=+avx2 -mcpu=znver4 -keys=cpu")");
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(Target::parse("cuda -host=c").host()->kind(), "c");
}

TEST(TargetText, HostWithQuotedValuesRoundTrips) {
  Target host = Target::parse(R"(c -mcpu="my \"cpu\"")");
  Target target = Target::parse("opencl").with_host(host);
  EXPECT_EQ(Target::parse(target.str()), target);
  EXPECT_EQ(*Target::parse(target.str()).host(), host);
}

TEST(TargetText, WithHostAndWithoutHost) {
  Target device = Target::parse("cuda -arch=sm_80");
  Target with_host = device.with_host(Target::parse("c"));
  EXPECT_NE(with_host, device);
  EXPECT_EQ(with_host.without_host(), device);
  EXPECT_EQ(with_host.host()->kind(), "c");
  EXPECT_EQ(device.host(), nullptr);  // with_host leaves the original untouched
  EXPECT_TARGET_ERROR(device.with_host(with_host), "cannot have one");
  EXPECT_TARGET_ERROR(Target::parse(R"(cuda -host="c -host=c")"), "cannot have a host");
}

TEST(TargetText, EqualityAndHashAgreeOnDefaultsAndDiffer) {
  Target implicit = Target::parse("cuda -arch=sm_90");
  Target spelled = Target::parse("cuda -max_threads_per_block=1024 -arch=sm_90 -keys=cuda,gpu");
  EXPECT_EQ(implicit, spelled);
  EXPECT_EQ(implicit.hash(), spelled.hash());
  std::unordered_set<Target> set{implicit, spelled, Target::parse("cuda -arch=sm_80"),
                                 Target::parse("cuda -arch=sm_90 -keys=cuda"),
                                 implicit.with_host(Target::parse("c"))};
  EXPECT_EQ(set.size(), 4u);
  EXPECT_NE(Target::parse("c"), Target::parse("llvm"));
}

TEST(TargetText, MakeBuildsAndValidatesTypedAttributes) {
  Target made = Target::make("cuda", {{"arch", std::string("sm_90")}}, {{"cuda"}});
  EXPECT_EQ(made, Target::parse("cuda -arch=sm_90 -keys=cuda"));
  EXPECT_TARGET_ERROR(Target::make("cuda", {{"arch", int64_t{90}}}), "'arch'", "expects a string",
                      "an int");
  EXPECT_TARGET_ERROR(Target::make("cuda", {}, std::vector<std::string>{}), "empty key list");
  EXPECT_TARGET_ERROR(Target::make("cuda", {}, {{"gpu", "gpu"}}), "'gpu' is given twice");
  EXPECT_TARGET_ERROR(Target::make("llvm", {{"mattr", std::vector<std::string>{"a,b"}}}),
                      "containing ','");
}

TEST(TargetText, GettersRejectAttributesOfAnotherType) {
  Target target = Target::parse("cuda -arch=sm_90");
  EXPECT_EQ(target.get_string("not_an_attribute", "fallback"), "fallback");
  EXPECT_EQ(target.get_int("not_an_attribute", 7), 7);
  EXPECT_TRUE(target.get_bool("not_an_attribute", true));
  EXPECT_TARGET_ERROR(target.get_int("arch"), "'arch'", "is a string, not an int");
  EXPECT_TARGET_ERROR(target.get_string("thread_warp_size"), "is an int, not a string");
  EXPECT_TARGET_ERROR(target.get_bool("arch"), "not a bool");
}

TEST(TargetTextErrors, EmptyStringListsKinds) {
  EXPECT_TARGET_ERROR(Target::parse(""), "empty target string", "cuda", "opencl");
  EXPECT_TARGET_ERROR(Target::parse(" \t "), "empty target string");
}

TEST(TargetTextErrors, UnknownKindListsKindsAndSuggests) {
  EXPECT_TARGET_ERROR(Target::parse("cudaa -arch=sm_90"), "unknown target kind 'cudaa'",
                      "(did you mean 'cuda'?)", "known kinds: c, cuda, hip,", "llvm, metal, opencl,",
                      "webgpu");
  EXPECT_TARGET_ERROR(Target::parse("auto"), "unknown target kind 'auto'");
}

TEST(TargetTextErrors, UnknownAttributeNamesOwnersAndTheKindsAttributes) {
  EXPECT_TARGET_ERROR(Target::parse("cuda -mcpu=gfx942"),
                      "target kind 'cuda' has no attribute 'mcpu'",
                      "it is an attribute of c, hip, llvm", "arch (string)",
                      "max_threads_per_block (int, default 1024)");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arhc=sm_90"), "no target kind has an attribute",
                      "(did you mean 'arch'?)");
}

TEST(TargetTextErrors, WrongValueTypeSaysTheExpectedType) {
  EXPECT_TARGET_ERROR(Target::parse("cuda -max_threads_per_block=lots"),
                      "'max_threads_per_block' of target kind 'cuda' expects an int", "'lots'");
  EXPECT_TARGET_ERROR(Target::parse("cuda -max_threads_per_block=12x"), "expects an int");
  EXPECT_TARGET_ERROR(Target::parse("cuda -max_threads_per_block=99999999999999999999"),
                      "out of the 64-bit integer range");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch"), "needs a value", "-arch=<string>");
}

TEST(TargetTextErrors, MalformedOptions) {
  EXPECT_TARGET_ERROR(Target::parse("cuda arch=sm_90"), "expected an option like -name=value");
  EXPECT_TARGET_ERROR(Target::parse("cuda -=sm_90"), "is not an option name");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch=sm_90 -arch=sm_80"), "-arch is given twice");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch=\"sm_90"), "no closing '\"'");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch=\"sm\"90"), "without a space");
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch=sm\"90"), "wrap the whole value in double quotes");
  EXPECT_TARGET_ERROR(Target::parse(R"(cuda -arch="sm\n")"), "only \\\" and \\\\ are escapes");
  EXPECT_TARGET_ERROR(Target::parse("cuda -keys"), "-keys needs a value");
  EXPECT_TARGET_ERROR(Target::parse("cuda -keys=cuda,,gpu"), "empty entry");
  EXPECT_TARGET_ERROR(Target::parse("cuda -keys="), "empty key list");
  EXPECT_TARGET_ERROR(Target::parse("cuda -host"), "-host needs a value");
  EXPECT_TARGET_ERROR(Target::parse("cuda -host=nope"), "unknown target kind 'nope'");
}

TEST(TargetTextErrors, MessagesQuoteTheWholeInput) {
  EXPECT_TARGET_ERROR(Target::parse("cuda -arch=sm_90 -bogus=1"),
                      "invalid target 'cuda -arch=sm_90 -bogus=1'");
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
