// The host codegen registry (seed page 2), global functions, and lazy loading
// through built-in modules.
#include "test_manifests.h"
#include "tilec/backend/module_loader.h"

#include <atomic>

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tilec::testing::artifact;
using tilec::testing::attr_string;
using tilec::testing::backend_error_of;
using tilec::testing::ensure_plugin_kind;
using tilec::testing::sample_module;

HostCodegen codegen_named(const std::string& name, std::optional<TargetPredicate> predicate = {}) {
  return {name,
          [name](const ir::IRModule&, const Target& host) {
            return artifact("c", name + " for " + host.kind());
          },
          std::move(predicate)};
}

HostCodegenHook hook_appending(const std::string& name,
                               std::optional<TargetPredicate> predicate = {}) {
  return {name,
          [name](const ir::IRModule& mod, const Target&, const Target*) {
            std::string trace = attr_string(mod, "hooks");
            return mod.with_attr("hooks", trace == "(unset)" ? name : trace + "," + name);
          },
          std::move(predicate)};
}

CodeArtifact shared_host_code(const ir::IRModule&, const Target& host) {
  return artifact("c", "shared host code for " + host.kind());
}

CodeArtifact other_host_code(const ir::IRModule&, const Target& host) {
  return artifact("c", "other host code for " + host.kind());
}

auto variant_is(const std::string& value) {
  return TargetPredicate([value](const Target& t) { return t.get_string("variant") == value; });
}

TEST(HostCodegenTest, RegisterResolveFirstMatchInOrder) {
  ensure_plugin_kind("hc_order");
  register_host_codegen("hc_order", codegen_named("special", variant_is("special")));
  register_host_codegen("hc_order", codegen_named("generic"));
  EXPECT_EQ(resolve_host_codegen(Target::parse("hc_order -variant=special")).name, "special");
  EXPECT_EQ(resolve_host_codegen(Target::parse("hc_order")).name, "generic");
  EXPECT_THAT(allowed_host_codegens_for_target(Target::parse("hc_order -variant=special")),
              ElementsAre("special", "generic"));
  EXPECT_THAT(allowed_host_codegens_for_target(Target::parse("hc_order")), ElementsAre("generic"));
  auto code = resolve_host_codegen(Target::parse("hc_order"))
                  .lower(sample_module(), Target::parse("hc_order"));
  EXPECT_EQ(code.source, "generic for hc_order");
}

TEST(HostCodegenTest, DuplicateNameRejectedUnlessOverride) {
  ensure_plugin_kind("hc_dup");
  HostCodegen one = codegen_named("one");
  register_host_codegen("hc_dup", one);
  register_host_codegen("hc_dup", codegen_named("two"));
  register_host_codegen("hc_dup", one);  // the same callable object: a no-op
  EXPECT_THAT(list_host_codegens(),
              ::testing::Contains(
                  std::pair<std::string, std::vector<std::string>>("hc_dup", {"one", "two"})));
  std::string message = backend_error_of([] {
    register_host_codegen("hc_dup", HostCodegen{"one", other_host_code, std::nullopt});
  });
  EXPECT_THAT(message, HasSubstr("host codegen 'one' is already registered for kind 'hc_dup' "
                                 "with a different function"));
  EXPECT_THAT(message, HasSubstr("override = true"));
  HostCodegen replacement = codegen_named("one", variant_is("never"));
  register_host_codegen("hc_dup", replacement, /*override=*/true);
  // Replaced in place: "one" keeps its first position but now rejects the target.
  EXPECT_EQ(resolve_host_codegen(Target::parse("hc_dup")).name, "two");
}

// The standard host codegens are declared by many manifests: the same name with the
// same function is shared, in either registration order, and undoing one
// declarer's registration keeps the entry the other one made.
TEST(HostCodegenTest, ManifestsShareAHostCodegenWithTheSameFunctionInAnyOrder) {
  HostCodegen shared{"shared", shared_host_code, std::nullopt};
  ensure_plugin_kind("hc_share_host");
  auto declaring = [&](const std::string& name, const std::string& kind) {
    auto module = tilec::testing::make_manifest(name, kind);
    module.host_codegens = {{"hc_share_host", shared}};
    return module;
  };
  auto first = register_backend(declaring("share_first", "hc_share_a"));
  auto second = register_backend(declaring("share_second", "hc_share_b"));
  EXPECT_NE(first, second);
  EXPECT_THAT(list_host_codegens(),
              ::testing::Contains(
                  std::pair<std::string, std::vector<std::string>>("hc_share_host", {"shared"})));
  EXPECT_EQ(resolve_host_codegen(Target::parse("hc_share_host"))
                .lower(sample_module(), Target::parse("hc_share_host"))
                .source,
            "shared host code for hc_share_host");
  // A third declarer whose registration fails later (a callback clashes) is undone
  // without taking the shared entry with it.
  register_global_func("share_third.clash", [](const ValueList&) { return Value(); });
  auto third = declaring("share_third", "hc_share_c");
  third.callbacks["clash"] = [](const ValueList&) { return Value(1); };
  EXPECT_THAT(backend_error_of([&] { register_backend(third); }),
              HasSubstr("nothing of it was registered"));
  EXPECT_EQ(resolve_host_codegen(Target::parse("hc_share_host")).name, "shared");
  // The same name with another function is still refused, naming the way out.
  auto impostor = declaring("share_impostor", "hc_share_d");
  impostor.host_codegens = {{"hc_share_host", {"shared", other_host_code, std::nullopt}}};
  EXPECT_THAT(backend_error_of([&] { register_backend(impostor); }),
              HasSubstr("host codegen 'shared' is already registered for kind 'hc_share_host' "
                        "with a different function"));
}

TEST(HostCodegenTest, MalformedRegistrationsAreRejected) {
  EXPECT_THAT(backend_error_of([] { register_host_codegen("", codegen_named("x")); }),
              HasSubstr("kind is empty"));
  EXPECT_THAT(backend_error_of([] { register_host_codegen("c", codegen_named("")); }),
              HasSubstr("empty name"));
  EXPECT_THAT(backend_error_of([] {
                register_host_codegen("c", HostCodegen{"nobuild", {}, {}});
              }),
              HasSubstr("'nobuild' for kind 'c' has no build function"));
  EXPECT_THAT(backend_error_of([] {
                register_host_codegen_hook("c", HostCodegenHook{"noapply", {}, {}});
              }),
              HasSubstr("has no apply function"));
  EXPECT_THAT(backend_error_of([] { register_lazy_host_codegen("c", ""); }),
              HasSubstr("import path"));
}

TEST(HostCodegenTest, ResolveErrorListsWhatIsRegistered) {
  ensure_plugin_kind("hc_missing");
  ensure_plugin_kind("hc_listed");
  register_host_codegen("hc_listed", codegen_named("listed_codegen"));
  std::string message = backend_error_of([] { resolve_host_codegen(Target::parse("hc_missing")); });
  EXPECT_THAT(message, HasSubstr("no host codegen is registered for kind 'hc_missing'"));
  EXPECT_THAT(message, HasSubstr("hc_listed: listed_codegen"));
  register_host_codegen("hc_missing", codegen_named("picky", variant_is("x")));
  EXPECT_THAT(backend_error_of([] { resolve_host_codegen(Target::parse("hc_missing")); }),
              HasSubstr("every host codegen registered for kind 'hc_missing' rejected it"));
}

TEST(HostCodegenHookTest, EveryMatchingHookRunsInRegistrationOrder) {
  ensure_plugin_kind("hk_dev");
  HostCodegenHook first = hook_appending("first");
  register_host_codegen_hook("hk_dev", first);
  register_host_codegen_hook("hk_dev", hook_appending("only_big", variant_is("big")));
  register_host_codegen_hook("hk_dev", hook_appending("last"));
  auto host = Target::parse("c");
  auto big = Target::parse("hk_dev -variant=big");
  auto small = Target::parse("hk_dev");
  EXPECT_EQ(attr_string(apply_host_codegen_hooks(sample_module(), host, &big), "hooks"),
            "first,only_big,last");
  EXPECT_EQ(attr_string(apply_host_codegen_hooks(sample_module(), host, &small), "hooks"),
            "first,last");
  EXPECT_EQ(attr_string(apply_host_codegen_hooks(sample_module(), host, nullptr), "hooks"),
            "(unset)");
  register_host_codegen_hook("hk_dev", first);  // the same callable object: a no-op
  EXPECT_EQ(attr_string(apply_host_codegen_hooks(sample_module(), host, &small), "hooks"),
            "first,last");
  EXPECT_THAT(backend_error_of([] {
                register_host_codegen_hook("hk_dev", {"first",
                                                      [](const ir::IRModule& mod, const Target&,
                                                         const Target*) { return mod; },
                                                      std::nullopt});
              }),
              HasSubstr("host codegen hook 'first' is already registered for kind 'hk_dev'"));
}

TEST(HostCodegenHookTest, FailingHookIsNamed) {
  ensure_plugin_kind("hk_fail");
  register_host_codegen_hook(
      "hk_fail", {"broken_hook",
                  [](const ir::IRModule&, const Target&, const Target*) -> ir::IRModule {
                    throw std::runtime_error("no launch found");
                  },
                  std::nullopt});
  auto target = Target::parse("hk_fail");
  EXPECT_THAT(backend_error_of(
                  [&] { apply_host_codegen_hooks(sample_module(), Target::parse("c"), &target); }),
              HasSubstr("host codegen hook 'broken_hook' for target 'hk_fail"));
}

TEST(GlobalFuncCodegenTest, HostAndDeviceCodegensCallGlobalFunctions) {
  register_global_func("test.emit_host", [](const ValueList& args) {
    return Value(artifact("c", "host " + args.at(1).as<Target>().kind() +
                                   " n=" + std::to_string(args.at(0).as<ir::IRModule>().size())));
  });
  register_global_func("test.emit_wrong", [](const ValueList&) { return Value(7); });
  auto host = global_func_host_codegen("test.emit_host");
  EXPECT_EQ(host(sample_module(), Target::parse("c")).source, "host c n=1");
  auto device = global_func_device_codegen("test.emit_host");
  EXPECT_EQ(device(sample_module(), Target::parse("llvm")).source, "host llvm n=1");
  EXPECT_THAT(backend_error_of([] {
                global_func_host_codegen("test.emit_wrong")(sample_module(), Target::parse("c"));
              }),
              HasSubstr("returned int, expected a CodeArtifact"));
  EXPECT_THAT(backend_error_of([] {
                global_func_device_codegen("test.emit_nothing")(sample_module(),
                                                                Target::parse("c"));
              }),
              HasSubstr("no global function named 'test.emit_nothing'"));
}

TEST(LazyHostCodegenTest, BuiltinModuleLoadsOnFirstUseOfTheKind) {
  ensure_plugin_kind("lazy_host");
  ensure_plugin_kind("lazy_dev");
  static std::atomic<int> runs{0};
  register_builtin_module("test.lazy_components", [] {
    ++runs;
    register_host_codegen("lazy_host", codegen_named("lazy_codegen"));
    register_host_codegen_hook("lazy_dev", hook_appending("lazy_hook"));
  });
  register_lazy_host_codegen("lazy_host", "test.lazy_components");
  register_lazy_host_codegen_hooks("lazy_dev", "test.lazy_components");
  EXPECT_FALSE(is_module_loaded("test.lazy_components"));
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(resolve_host_codegen(Target::parse("lazy_host")).name, "lazy_codegen");
  EXPECT_TRUE(is_module_loaded("test.lazy_components"));
  auto device = Target::parse("lazy_dev");
  EXPECT_EQ(
      attr_string(apply_host_codegen_hooks(sample_module(), Target::parse("c"), &device), "hooks"),
      "lazy_hook");
  EXPECT_THAT(allowed_host_codegens_for_target(Target::parse("lazy_host")),
              ElementsAre("lazy_codegen"));
  EXPECT_EQ(runs, 1);
}

TEST(LazyHostCodegenTest, FailedLazyLoadRegistersNothingAndIsRetried) {
  ensure_plugin_kind("lazy_fail_host");
  static std::atomic<int> attempts{0};
  register_builtin_module("test.lazy_failing", [] {
    ++attempts;
    register_global_func("lazy_failing.leftover", [](const ValueList&) { return Value(); });
    register_host_codegen("lazy_fail_host", codegen_named("half_done"));
    if (attempts < 3) throw std::runtime_error("toolchain missing");
  });
  register_lazy_host_codegen("lazy_fail_host", "test.lazy_failing");
  for (int attempt = 1; attempt <= 2; ++attempt) {
    std::string message =
        backend_error_of([] { resolve_host_codegen(Target::parse("lazy_fail_host")); });
    EXPECT_THAT(message,
                HasSubstr("registered lazily for kind 'lazy_fail_host' from 'test.lazy_failing'"));
    EXPECT_THAT(message, HasSubstr("toolchain missing"));
    EXPECT_FALSE(tilec::testing::has_global_func("lazy_failing.leftover"));
    EXPECT_FALSE(is_module_loaded("test.lazy_failing"));
  }
  EXPECT_EQ(resolve_host_codegen(Target::parse("lazy_fail_host")).name, "half_done");
  EXPECT_EQ(attempts, 3);
}

}  // namespace
}  // namespace tilec::backend
