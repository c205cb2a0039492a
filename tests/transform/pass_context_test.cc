#include "tilec/transform/pass_context.h"
#include "tilec/target/registration_journal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace tilec::transform {
namespace {

using ::testing::HasSubstr;

TEST(PassConfigKeyJournal, AFailedPluginInitTakesItsKeysWithIt) {
  auto declared = [](const std::string& name) {
    for (const auto& key : list_pass_config_keys()) {
      if (key.name == name) return true;
    }
    return false;
  };
  {
    target::RegistrationTransaction failing_plugin_init;
    register_pass_config_key("journal.undone", PassConfigType::kBool, false, "undone");
    EXPECT_TRUE(declared("journal.undone"));
  }
  EXPECT_FALSE(declared("journal.undone"));
  {
    target::RegistrationTransaction succeeding_plugin_init;
    register_pass_config_key("journal.kept", PassConfigType::kInt, int64_t{2}, "kept");
    succeeding_plugin_init.commit();
  }
  EXPECT_TRUE(declared("journal.kept"));
}

class PassContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_pass_config_key("test.unroll_factor", PassConfigType::kInt, int64_t{4},
                             "how far to unroll inner loops");
    register_pass_config_key("test.scale", PassConfigType::kFloat, 1.5, "a float knob");
    register_pass_config_key("test.verbose", PassConfigType::kBool, false, "print more");
    register_pass_config_key("test.layout", PassConfigType::kString, std::string("row"),
                             "layout name");
  }
};

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const PassError& error) {
    return error.what();
  }
  return "(no PassError)";
}

TEST_F(PassContextTest, DefaultsApplyToUnsetKeys) {
  PassContext context({{"test.unroll_factor", int64_t{8}}});
  EXPECT_EQ(context.get_int("test.unroll_factor"), 8);
  EXPECT_DOUBLE_EQ(context.get_float("test.scale"), 1.5);
  EXPECT_FALSE(context.get_bool("test.verbose"));
  EXPECT_EQ(context.get_string("test.layout"), "row");
  EXPECT_EQ(context.config().size(), 1u);
}

TEST_F(PassContextTest, IntWidensToFloatButNothingElseConverts) {
  PassContext context({{"test.scale", int64_t{3}}});
  EXPECT_DOUBLE_EQ(context.get_float("test.scale"), 3.0);
  std::string message = error_of([] { PassContext({{"test.verbose", std::string("yes")}}); });
  EXPECT_THAT(message, HasSubstr("'test.verbose' expects a bool value, got string \"yes\""));
  EXPECT_THAT(message, HasSubstr("print more"));
}

TEST_F(PassContextTest, UnknownKeyListsDeclaredKeysAndNearestMatch) {
  std::string message = error_of([] { PassContext({{"test.unrol_factor", int64_t{2}}}); });
  EXPECT_THAT(message, HasSubstr("unknown pass config key 'test.unrol_factor'"));
  EXPECT_THAT(message, HasSubstr("did you mean 'test.unroll_factor'?"));
  EXPECT_THAT(message, HasSubstr("test.layout, test.scale"));
  EXPECT_THAT(error_of([] { PassContext().get("test.nope"); }), HasSubstr("declared keys"));
}

TEST_F(PassContextTest, TypedGetterRejectsOtherType) {
  EXPECT_THAT(error_of([] { PassContext().get_int("test.layout"); }),
              HasSubstr("holds a string, not a int"));
}

TEST_F(PassContextTest, RedeclarationMustBeIdentical) {
  EXPECT_NO_THROW(
      register_pass_config_key("test.verbose", PassConfigType::kBool, false, "print more"));
  EXPECT_THAT(error_of([] {
                register_pass_config_key("test.verbose", PassConfigType::kInt, int64_t{0}, "");
              }),
              HasSubstr("already declared as bool"));
  EXPECT_THAT(error_of([] { register_pass_config_key("", PassConfigType::kInt, int64_t{0}, ""); }),
              HasSubstr("empty"));
  EXPECT_THAT(error_of([] {
                register_pass_config_key("test.bad_default", PassConfigType::kInt, true, "");
              }),
              HasSubstr("expects a int value, got bool"));
  auto keys = list_pass_config_keys();
  EXPECT_TRUE(std::none_of(keys.begin(), keys.end(),
                           [](const auto& key) { return key.name == "test.bad_default"; }));
}

TEST_F(PassContextTest, ScopesNestPerThread) {
  EXPECT_TRUE(PassContext::current().config().empty());
  {
    ScopedPassContext outer(PassContext({{"test.unroll_factor", int64_t{2}}}));
    EXPECT_EQ(PassContext::current().get_int("test.unroll_factor"), 2);
    {
      ScopedPassContext inner(PassContext({{"test.unroll_factor", int64_t{16}}}));
      EXPECT_EQ(PassContext::current().get_int("test.unroll_factor"), 16);
      int64_t seen_elsewhere = -1;
      std::thread([&] {
        seen_elsewhere = PassContext::current().get_int("test.unroll_factor");
      }).join();
      EXPECT_EQ(seen_elsewhere, 4);  // another thread sees only its own (empty) scope
    }
    EXPECT_EQ(PassContext::current().get_int("test.unroll_factor"), 2);
  }
  EXPECT_EQ(PassContext::current().get_int("test.unroll_factor"), 4);
}

TEST_F(PassContextTest, NullInstrumentIsRejected) {
  EXPECT_THAT(error_of([] { PassContext({}, {nullptr}); }), HasSubstr("instrument"));
}

}  // namespace
}  // namespace tilec::transform
