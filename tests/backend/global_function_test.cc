#include "test_manifests.h"

namespace tilec::backend {
namespace {

using ::testing::HasSubstr;
using tilec::testing::backend_error_of;

TEST(ValueTest, CarriesEveryKindAndNamesTypeMismatches) {
  EXPECT_TRUE(Value().is_none());
  EXPECT_EQ(Value(int64_t{5}).as<int64_t>(), 5);
  EXPECT_DOUBLE_EQ(Value(2.5).as<double>(), 2.5);
  EXPECT_TRUE(Value(true).as<bool>());
  EXPECT_EQ(Value("s").as<std::string>(), "s");
  EXPECT_EQ(Value(Bytes{1, 2}).as<Bytes>(), (Bytes{1, 2}));
  EXPECT_EQ(Value(target::Target::parse("c")).as<target::Target>().kind(), "c");
  EXPECT_EQ(Value(tilec::testing::sample_module()).as<ir::IRModule>().size(), 1u);
  EXPECT_EQ(Value(tilec::testing::artifact("ptx", "x")).as<CodeArtifact>().format, "ptx");
  Value list(ValueList{Value(1), Value("two")});
  EXPECT_EQ(list.as<ValueList>().at(1).as<std::string>(), "two");
  EXPECT_THAT(backend_error_of([] { Value("text").as<int64_t>(); }),
              HasSubstr("expected a value of type int, got string"));
  EXPECT_STREQ(list.type_name(), "list");
}

TEST(GlobalFunctionTest, RegisterOverrideListAndRemove) {
  register_global_func("gf.add", [](const ValueList& args) {
    return Value(args.at(0).as<int64_t>() + args.at(1).as<int64_t>());
  });
  EXPECT_EQ(get_global_func("gf.add")({Value(2), Value(3)}).as<int64_t>(), 5);
  EXPECT_THAT(backend_error_of(
                  [] { register_global_func("gf.add", [](const ValueList&) { return Value(); }); }),
              HasSubstr("'gf.add' is already registered; pass override = true"));
  register_global_func(
      "gf.add", [](const ValueList&) { return Value(0); }, /*override=*/true);
  EXPECT_EQ(get_global_func("gf.add")({}).as<int64_t>(), 0);
  auto names = list_global_funcs();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "gf.add"), names.end());
  EXPECT_THAT(backend_error_of([] { get_global_func("gf.ad"); }),
              HasSubstr("(did you mean 'gf.add'?)"));
  EXPECT_TRUE(remove_global_func("gf.add"));
  EXPECT_FALSE(remove_global_func("gf.add"));
  EXPECT_THAT(
      backend_error_of([] { register_global_func("", [](const ValueList&) { return Value(); }); }),
      HasSubstr("name is empty"));
  EXPECT_THAT(backend_error_of([] { register_global_func("gf.null", nullptr); }),
              HasSubstr("is empty"));
}

}  // namespace
}  // namespace tilec::backend
