// BackendModule's methods and BackendContext (seed page 1).
#include "test_manifests.h"

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tilec::testing::attr_string;
using tilec::testing::backend_error_of;
using tilec::testing::make_manifest;
using tilec::testing::sample_module;

TEST(BackendModuleTest, MatchesByKindThenPredicate) {
  auto module = make_manifest("m_matches", "mdev");
  EXPECT_TRUE(module.matches(Target::parse("mdev")));
  EXPECT_FALSE(module.matches(Target::parse("c")));
  module.supports_target = [](const Target& t) { return t.get_string("variant") == "big"; };
  EXPECT_TRUE(module.matches(Target::parse("mdev -variant=big")));
  EXPECT_FALSE(module.matches(Target::parse("mdev -variant=small")));
}

TEST(BackendModuleTest, LowerRunsTheKindsPipeline) {
  auto module = make_manifest("m_lower", "mdev");
  EXPECT_EQ(module.get_pipeline(Target::parse("mdev")).name(), "m_lower_pipeline");
  auto lowered = module.lower(sample_module(), Target::parse("mdev"));
  EXPECT_EQ(attr_string(lowered, "lowered_by"), "m_lower");
  EXPECT_THAT(backend_error_of([&] { module.get_pipeline(Target::parse("c")); }),
              HasSubstr("backend 'm_lower' does not own target kind 'c'"));
}

TEST(BackendModuleTest, CodegenDeviceHonoursCompileDevice) {
  auto module = make_manifest("m_device", "mdev");
  auto target = Target::parse("mdev -variant=a");
  EXPECT_EQ(module.get_device_codegen(target).name, "m_device_device");
  auto compiled = module.codegen_device(sample_module(), target, true);
  EXPECT_EQ(compiled.format, "testbin");
  EXPECT_THAT(compiled.source, HasSubstr("compiled by m_device for mdev -variant=a"));
  EXPECT_EQ(module.codegen_device(sample_module(), target, false).format, "testsrc");
}

TEST(BackendModuleTest, DeviceCodegenReportsAnUnsupportedMode) {
  DeviceCodegen source_only{"src_only", {}, [](const ir::IRModule&, const Target&) {
                              return tilec::testing::artifact("s", "x");
                            }};
  std::string message =
      backend_error_of([&] { source_only.codegen(sample_module(), Target::parse("c"), true); });
  EXPECT_THAT(message, HasSubstr("device codegen 'src_only' cannot compile device code"));
  EXPECT_THAT(message, HasSubstr("compile_device = false"));
  DeviceCodegen compile_only{"bin_only", source_only.build_without_compile, {}};
  EXPECT_THAT(
      backend_error_of([&] { compile_only.codegen(sample_module(), Target::parse("c"), false); }),
      HasSubstr("cannot emit device source without compiling"));
}

TEST(BackendModuleTest, HostCodegenPrefersItsOwnThenTheRegistry) {
  auto module = make_manifest("m_host", "mdev");
  EXPECT_EQ(module.get_host_codegen(Target::parse("c")).name, "m_host_host");
  auto code = module.codegen_host(sample_module(), Target::parse("c"));
  EXPECT_THAT(code.source, HasSubstr("host code by m_host for c"));
  tilec::testing::ensure_plugin_kind("mhost");
  register_host_codegen("mhost", {"registry_mhost",
                                  [](const ir::IRModule&, const Target&) {
                                    return tilec::testing::artifact("c", "from registry");
                                  },
                                  std::nullopt});
  EXPECT_EQ(module.get_host_codegen(Target::parse("mhost")).name, "registry_mhost");
  tilec::testing::ensure_plugin_kind("mhost_none");
  EXPECT_THAT(backend_error_of([&] { module.get_host_codegen(Target::parse("mhost_none")); }),
              HasSubstr("backend 'm_host' has no host codegen for 'mhost_none"));
}

TEST(BackendModuleTest, PreprocessHostCodegenAppliesRegisteredHooks) {
  auto module = make_manifest("m_hooks", "mhookdev");
  module.host_codegen_hooks["mhookdev"] = {
      {"tag_host",
       [](const ir::IRModule& mod, const Target& host, const Target* target) {
         return mod.with_attr("hooked", host.kind() + "<-" + target->kind());
       },
       std::nullopt}};
  auto registered = register_backend(module);
  auto out = registered->preprocess_host_codegen(sample_module(), Target::parse("c"),
                                                 Target::parse("mhookdev"));
  EXPECT_EQ(attr_string(out, "hooked"), "c<-mhookdev");
}

TEST(BackendModuleTest, AllowedExecutionBackendsFiltersByTargetAndAvailability) {
  auto module = make_manifest("m_allowed", "mdev");
  module.execution_backends = {{"missing_here", [] { return false; }, std::nullopt, true, true},
                               {"big_only",
                                {},
                                [](const Target& t) { return t.get_string("variant") == "big"; },
                                true,
                                true},
                               {"everywhere", {}, std::nullopt, true, false}};
  EXPECT_THAT(module.allowed_execution_backends(Target::parse("mdev")),
              ElementsAre("missing_here", "everywhere"));
  EXPECT_THAT(module.allowed_execution_backends(Target::parse("mdev"), false),
              ElementsAre("everywhere"));
  EXPECT_THAT(module.allowed_execution_backends(Target::parse("mdev -variant=big"), false),
              ElementsAre("big_only", "everywhere"));
}

TEST(BackendModuleTest, ResolveExecutionBackendAutoPicksFirstAvailable) {
  auto module = make_manifest("m_auto", "mdev");
  module.execution_backends.insert(module.execution_backends.begin(),
                                   {"absent", [] { return false; }, std::nullopt, true, true});
  EXPECT_EQ(module.resolve_execution_backend("auto", Target::parse("mdev")).name, "fast");
  for (auto& spec : module.execution_backends) spec.is_available = [] { return false; };
  module.execution_backends.back().supports_target = [](const Target&) { return false; };
  std::string message =
      backend_error_of([&] { module.resolve_execution_backend("auto", Target::parse("mdev")); });
  EXPECT_THAT(message, HasSubstr("no execution backend of backend 'm_auto'"));
  EXPECT_THAT(message, HasSubstr("absent (not available on this machine)"));
  EXPECT_THAT(message, HasSubstr("source_only (does not support this target)"));
}

TEST(BackendModuleTest, ResolveExecutionBackendByName) {
  auto module = make_manifest("m_named", "mdev");
  module.execution_backends.push_back({"offline", [] { return false; }, std::nullopt, true, true});
  EXPECT_EQ(module.resolve_execution_backend("source_only", Target::parse("mdev")).name,
            "source_only");
  std::string unknown =
      backend_error_of([&] { module.resolve_execution_backend("fsat", Target::parse("mdev")); });
  EXPECT_THAT(unknown, HasSubstr("unknown execution backend 'fsat' (did you mean 'fast'?)"));
  EXPECT_THAT(unknown, HasSubstr("allowed: fast, source_only, offline"));
  EXPECT_THAT(unknown, HasSubstr("\"auto\""));
  std::string unavailable =
      backend_error_of([&] { module.resolve_execution_backend("offline", Target::parse("mdev")); });
  EXPECT_THAT(unavailable, HasSubstr("'offline' of backend 'm_named'"));
  EXPECT_THAT(unavailable,
              HasSubstr("not available on this machine; available: fast, source_only"));
}

TEST(BackendContextTest, ForwardsEveryStageToItsModule) {
  auto module = std::make_shared<const BackendModule>(make_manifest("ctx_forward", "cdev"));
  BackendContext context(module, Target::parse("cdev -variant=v1"), Target::parse("c"),
                         module->execution_backends[1]);
  EXPECT_EQ(context.name(), "ctx_forward");
  EXPECT_EQ(attr_string(context.lower(sample_module()), "lowered_by"), "ctx_forward");
  // source_only does not compile device code, so the default is source.
  EXPECT_EQ(context.codegen_device(sample_module()).format, "testsrc");
  EXPECT_EQ(context.codegen_device(sample_module(), true).format, "testbin");
  EXPECT_THAT(context.codegen_host(sample_module()).source, HasSubstr("host code by ctx_forward"));
  EXPECT_EQ(attr_string(context.preprocess_host_codegen(sample_module()), "lowered_by"), "(unset)");
}

TEST(BackendContextTest, ValidatesOnConstruction) {
  auto module = std::make_shared<const BackendModule>(make_manifest("ctx_checks", "cdev"));
  auto spec = module->execution_backends[0];
  EXPECT_THAT(backend_error_of([&] {
                BackendContext(nullptr, Target::parse("cdev"), Target::parse("c"), spec);
              }),
              HasSubstr("module is null"));
  EXPECT_THAT(backend_error_of(
                  [&] { BackendContext(module, Target::parse("c"), Target::parse("c"), spec); }),
              HasSubstr("does not own target 'c"));
  ExecutionBackendSpec foreign{"elsewhere", {}, std::nullopt, false, false};
  EXPECT_THAT(
      backend_error_of(
          [&] { BackendContext(module, Target::parse("cdev"), Target::parse("c"), foreign); }),
      HasSubstr(
          "'elsewhere' is not declared by backend 'ctx_checks' (declared: fast, source_only)"));
  ExecutionBackendSpec picky{"fast", {}, [](const Target&) { return false; }, true, true};
  EXPECT_THAT(backend_error_of([&] {
                BackendContext(module, Target::parse("cdev"), Target::parse("c"), picky);
              }),
              HasSubstr("does not support target 'cdev"));
  tilec::testing::ensure_plugin_kind("ctx_nohost");
  EXPECT_THAT(backend_error_of([&] {
                BackendContext(module, Target::parse("cdev"), Target::parse("ctx_nohost"), spec);
              }),
              HasSubstr("execution backend 'fast' needs host code"));
  BackendModule bad = *module;
  bad.pipelines.clear();
  EXPECT_THROW(BackendContext(std::make_shared<const BackendModule>(bad), Target::parse("cdev"),
                              Target::parse("c"), spec),
               BackendError);
}

TEST(BackendContextTest, KeepsItsOwnCopyOfAnUnregisteredModule) {
  auto mine = std::make_shared<BackendModule>(make_manifest("ctx_own_copy", "cdev"));
  BackendContext context(mine, Target::parse("cdev"), Target::parse("c"),
                         mine->execution_backends[0]);
  mine->name = "renamed";
  mine->target_kinds = {"c"};
  EXPECT_EQ(context.name(), "ctx_own_copy");
  EXPECT_EQ(context.module().target_kinds, std::vector<std::string>{"cdev"});
  EXPECT_NE(context.module_ptr().get(), mine.get());
}

TEST(BackendContextTest, StoresTheTargetWithoutItsHost) {
  auto module = std::make_shared<const BackendModule>(make_manifest("ctx_host", "cdev"));
  auto with_host = Target::parse("cdev").with_host(Target::parse("c"));
  BackendContext context(module, with_host, Target::parse("c"), module->execution_backends[0]);
  EXPECT_EQ(context.target(), Target::parse("cdev"));
  EXPECT_EQ(context.target_host(), Target::parse("c"));
}

}  // namespace
}  // namespace tilec::backend
