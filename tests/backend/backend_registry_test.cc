// register_backend / get_backend / list_backends / create_backend_context.
#include "test_manifests.h"
#include "tilec/target/detect.h"

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::HasSubstr;
using tilec::testing::backend_error_of;
using tilec::testing::has_global_func;
using tilec::testing::make_manifest;

bool is_registered(const std::string& name) {
  for (const auto& module : list_backends()) {
    if (module->name == name) return true;
  }
  return false;
}

TEST(BackendRegistryTest, RegisterGetAndList) {
  auto registered = register_backend(make_manifest("reg_basic", "rdev"));
  EXPECT_EQ(get_backend("reg_basic"), registered);
  EXPECT_TRUE(is_registered("reg_basic"));
  auto listing = list_backends();
  listing.clear();  // a copy: clearing it leaves the registry alone
  EXPECT_TRUE(is_registered("reg_basic"));
}

TEST(BackendRegistryTest, IdenticalReRegistrationReturnsTheRegisteredModule) {
  auto manifest = make_manifest("reg_again", "rdev_again");
  auto first = register_backend(manifest);
  EXPECT_EQ(register_backend(first), first);  // the same object
  EXPECT_EQ(register_backend(manifest),
            first);  // equal declaration: a copy of it, holding the same callables
}

TEST(BackendRegistryTest, DifferentDeclarationUnderTakenNameIsRejected) {
  register_backend(make_manifest("reg_conflict", "rdev_conflict"));
  auto other = make_manifest("reg_conflict", "rdev_conflict");
  other.execution_backends.pop_back();
  std::string message = backend_error_of([&] { register_backend(other); });
  EXPECT_THAT(message,
              HasSubstr("'reg_conflict' is already registered with a different declaration"));
  EXPECT_THAT(message, HasSubstr("execution_backend source_only"));
}

// Registration keeps the registry's own const copy: what the caller later does to
// its own (mutable) object reaches neither the registry nor a context.
TEST(BackendRegistryTest, TheCallersObjectNeverReachesTheRegistryOrAContext) {
  auto mine = std::make_shared<BackendModule>(make_manifest("reg_copy", "rdev_copy"));
  auto registered = register_backend(mine);
  EXPECT_NE(registered.get(), mine.get());
  EXPECT_TRUE(is_registered_backend(registered));
  EXPECT_FALSE(is_registered_backend(mine));
  auto context = create_backend_context("rdev_copy");
  mine->name = "hijacked";
  mine->target_kinds.push_back("rdev");
  mine->execution_backends.clear();
  EXPECT_EQ(get_backend("reg_copy")->target_kinds, std::vector<std::string>{"rdev_copy"});
  EXPECT_EQ(context.name(), "reg_copy");
  EXPECT_EQ(context.module().target_kinds, std::vector<std::string>{"rdev_copy"});
  EXPECT_EQ(create_backend_context("rdev_copy").module_ptr(), registered);  // shared, not copied
}

TEST(BackendRegistryTest, SameNamesWithDifferentFunctionsAreADifferentDeclaration) {
  // Each variant changes one function of a copy of the registered manifest (a freshly
  // made manifest would hold new closures everywhere, so its passes differ first).
  auto manifest = make_manifest("reg_functions", "rdev_functions");
  register_backend(manifest);
  auto other_pass = manifest;
  other_pass.pipelines.at("rdev_functions") = transform::PassPipeline(
      "reg_functions_pipeline",
      {{"mark_lowered", [](const ir::IRModule& mod, const transform::PassInfo&) { return mod; }}});
  EXPECT_THAT(backend_error_of([&] { register_backend(other_pass); }),
              HasSubstr("'reg_functions' is already registered with a different declaration (the "
                        "same names, but a different function for pass 'mark_lowered' of "
                        "pipeline[rdev_functions])"));
  auto other_availability = manifest;
  other_availability.execution_backends[0].is_available = [] { return false; };
  EXPECT_THAT(backend_error_of([&] { register_backend(other_availability); }),
              HasSubstr("a different function for execution backend 'fast'"));
  auto other_host = manifest;
  other_host.host_codegens.at("c").build = [](const ir::IRModule&, const Target&) {
    return tilec::testing::artifact("c", "other");
  };
  EXPECT_THAT(backend_error_of([&] { register_backend(other_host); }),
              HasSubstr("a different function for host codegen 'reg_functions_host' for 'c'"));
}

TEST(BackendRegistryTest, AContextCannotBeReassignedAndCopiesAreEqual) {
  static_assert(!std::is_copy_assignable_v<BackendContext>);
  static_assert(!std::is_move_assignable_v<BackendContext>);
  static_assert(std::is_copy_constructible_v<BackendContext>);
  register_backend(make_manifest("reg_ctx_copy", "rdev_ctx_copy"));
  auto context = create_backend_context("rdev_ctx_copy");
  BackendContext copy(context);
  EXPECT_EQ(copy.module_ptr(), context.module_ptr());
  EXPECT_EQ(copy.target(), context.target());
  EXPECT_EQ(copy.execution_backend().name, context.execution_backend().name);
}

TEST(BackendRegistryTest, GetBackendListsRegisteredNames) {
  register_backend(make_manifest("reg_lookup", "rdev_lookup"));
  std::string message = backend_error_of([] { get_backend("reg_lokup"); });
  EXPECT_THAT(message, HasSubstr("no backend named 'reg_lokup' (did you mean 'reg_lookup'?)"));
  EXPECT_THAT(message, HasSubstr("registered backends:"));
}

TEST(BackendRegistryTest, CallbacksBecomeGlobalFunctions) {
  auto module = make_manifest("reg_callbacks", "rdev_cb");
  module.callbacks["compile"] = [](const ValueList& args) {
    return Value("compiled " + args.at(0).as<std::string>());
  };
  register_backend(module);
  auto fn = get_global_func("reg_callbacks.compile");
  EXPECT_EQ(fn({Value("kernel.cu")}).as<std::string>(), "compiled kernel.cu");
}

TEST(BackendRegistryTest, SharedTargetKindRequiresPredicatesEverywhere) {
  auto a = make_manifest("reg_shared_a", "rshared");
  a.supports_target = [](const Target& t) { return t.get_string("variant") == "a"; };
  register_backend(a);
  auto b = make_manifest("reg_shared_b", "rshared");
  std::string message = backend_error_of([&] { register_backend(b); });
  EXPECT_THAT(message, HasSubstr("both own target kind 'rshared'"));
  EXPECT_THAT(message, HasSubstr("'reg_shared_b' has no supports_target"));
  EXPECT_FALSE(is_registered("reg_shared_b"));
  b.supports_target = [](const Target& t) { return t.get_string("variant") == "b"; };
  register_backend(b);
  EXPECT_EQ(create_backend_context("rshared -variant=b").name(), "reg_shared_b");
  EXPECT_EQ(create_backend_context("rshared -variant=a").name(), "reg_shared_a");
}

TEST(BackendRegistryTest, FailureMidwayRollsBackEveryComponent) {
  register_global_func("reg_rollback.clash", [](const ValueList&) { return Value(1); });
  auto module = make_manifest("reg_rollback", "rdev_rollback");
  module.callbacks["alpha"] = [](const ValueList&) { return Value(2); };
  module.callbacks["clash"] = [](const ValueList&) { return Value(3); };
  module.host_codegen_hooks["rdev_rollback"] = {
      {"rollback_hook", [](const ir::IRModule& m, const Target&, const Target*) { return m; },
       std::nullopt}};
  std::string message = backend_error_of([&] { register_backend(module); });
  EXPECT_THAT(message, HasSubstr("'reg_rollback.clash' is already registered"));
  EXPECT_THAT(message, HasSubstr("nothing of it was registered"));
  EXPECT_FALSE(is_registered("reg_rollback"));
  EXPECT_FALSE(has_global_func("reg_rollback.alpha"));
  EXPECT_EQ(get_global_func("reg_rollback.clash")({}).as<int64_t>(), 1);  // untouched
  for (const auto& [kind, names] : list_host_codegens()) {
    for (const auto& name : names) EXPECT_NE(name, "reg_rollback_host");
  }
  for (const auto& [kind, names] : list_host_codegen_hooks()) EXPECT_NE(kind, "rdev_rollback");
  // With the clash gone, the same manifest registers completely.
  ASSERT_TRUE(remove_global_func("reg_rollback.clash"));
  register_backend(module);
  EXPECT_TRUE(has_global_func("reg_rollback.alpha"));
}

TEST(CreateBackendContextTest, ExplicitTargetDefaultHostAndAutoExecution) {
  register_backend(make_manifest("ctx_explicit", "xdev"));
  auto context = create_backend_context("xdev -variant=v2");
  EXPECT_EQ(context.name(), "ctx_explicit");
  EXPECT_EQ(context.target(), Target::parse("xdev -variant=v2"));
  EXPECT_EQ(context.target_host().kind(), target::llvm_enabled() ? "llvm" : "c");
  EXPECT_EQ(context.execution_backend().name, "fast");
}

TEST(CreateBackendContextTest, AutoTargetHonoursTheScopedTarget) {
  register_backend(make_manifest("ctx_scoped", "xdev_scoped"));
  target::ScopedTarget scope("xdev_scoped -variant=from_scope");
  auto context = create_backend_context();
  EXPECT_EQ(context.name(), "ctx_scoped");
  EXPECT_EQ(context.target().get_string("variant"), "from_scope");
}

TEST(CreateBackendContextTest, HostFromTargetOrArgument) {
  register_backend(make_manifest("ctx_hosts", "xdev_hosts"));
  auto own_host = create_backend_context("xdev_hosts -host=\"c -mcpu=native\"");
  EXPECT_EQ(own_host.target_host(), Target::parse("c -mcpu=native"));
  EXPECT_EQ(own_host.target().host(), nullptr);
  auto explicit_host = create_backend_context("xdev_hosts", std::string("c -mcpu=znver4"));
  EXPECT_EQ(explicit_host.target_host().get_string("mcpu"), "znver4");
  auto typed =
      create_backend_context(Target::parse("xdev_hosts"), Target::parse("c"), "source_only");
  EXPECT_EQ(typed.execution_backend().name, "source_only");
  EXPECT_FALSE(typed.execution_backend().enable_device_compile);
}

TEST(CreateBackendContextTest, ExecutionBackendErrorsComeFromTheModule) {
  register_backend(make_manifest("ctx_exec", "xdev_exec"));
  EXPECT_THAT(backend_error_of([] { create_backend_context("xdev_exec", std::nullopt, "nvrtc"); }),
              HasSubstr("unknown execution backend 'nvrtc'"));
}

TEST(CreateBackendContextTest, NoMatchNamesRegisteredBackendsAndKinds) {
  register_backend(make_manifest("ctx_listed", "xdev_listed"));
  tilec::testing::ensure_plugin_kind("xdev_orphan");
  std::string message = backend_error_of([] { create_backend_context("xdev_orphan"); });
  EXPECT_THAT(message, HasSubstr("no backend is registered for target kind 'xdev_orphan'"));
  EXPECT_THAT(message, HasSubstr("ctx_listed (xdev_listed)"));
}

TEST(CreateBackendContextTest, PredicatesRejectingEverythingIsReported) {
  auto module = make_manifest("ctx_picky", "xdev_picky");
  module.supports_target = [](const Target& t) { return t.get_string("variant") == "ok"; };
  register_backend(module);
  EXPECT_THAT(backend_error_of([] { create_backend_context("xdev_picky -variant=no"); }),
              HasSubstr("(ctx_picky) all reject it through supports_target"));
}

TEST(CreateBackendContextTest, AmbiguousMatchNamesAllCandidates) {
  auto always = [](const Target&) { return true; };
  auto a = make_manifest("ctx_amb_a", "xdev_amb");
  a.supports_target = always;
  auto b = make_manifest("ctx_amb_b", "xdev_amb");
  b.supports_target = always;
  register_backend(a);
  register_backend(b);
  EXPECT_THAT(backend_error_of([] { create_backend_context("xdev_amb"); }),
              HasSubstr("matches several backends: ctx_amb_a, ctx_amb_b"));
}

}  // namespace
}  // namespace tilec::backend
