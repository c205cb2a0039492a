// Registration by identity, as the reference does it: a component registered again is
// "the same" only when it holds the very same callable objects (copies of one
// component, or the same plain function); two closures of one factory are different
// functions even with equal captures, refused under a taken name unless override,
// which always replaces. Every registry that compares callables follows it.
#include "test_manifests.h"
#include "tilec/transform/tile_op_impl.h"

namespace tilec::backend {
namespace {

using target::Target;
using ::testing::HasSubstr;
using tilec::testing::artifact;
using tilec::testing::attr_string;
using tilec::testing::backend_error_of;
using tilec::testing::ensure_plugin_kind;
using tilec::testing::make_manifest;
using tilec::testing::sample_module;

// What a backend author writes: a factory whose lambda captures its second argument.
HostCodegen make_codegen(const std::string& name, const std::string& text) {
  return {name, [text](const ir::IRModule&, const Target&) { return artifact("c", text); },
          std::nullopt};
}

HostCodegenHook make_hook(const std::string& name, const std::string& text) {
  return {name,
          [text](const ir::IRModule& mod, const Target&, const Target*) {
            return mod.with_attr("hook", text);
          },
          std::nullopt};
}

std::string resolved_text(const std::string& kind) {
  return resolve_host_codegen(Target::parse(kind))
      .lower(sample_module(), Target::parse(kind))
      .source;
}

TEST(RegistrationIdentity, AnotherClosureOfOneFactoryIsADifferentHostCodegen) {
  ensure_plugin_kind("id_hc");
  register_host_codegen("id_hc", make_codegen("one", "v1"));
  std::string message =
      backend_error_of([] { register_host_codegen("id_hc", make_codegen("one", "v2")); });
  EXPECT_THAT(message, HasSubstr("host codegen 'one' is already registered for kind 'id_hc' "
                                 "with a different function"));
  EXPECT_THAT(message, HasSubstr("override = true"));
  // Equal captures do not make it the same object.
  EXPECT_THAT(backend_error_of([] { register_host_codegen("id_hc", make_codegen("one", "v1")); }),
              HasSubstr("with a different function"));
  EXPECT_EQ(resolved_text("id_hc"), "v1");  // the refused registrations changed nothing
  register_host_codegen("id_hc", make_codegen("one", "v2"), /*override=*/true);
  EXPECT_EQ(resolved_text("id_hc"), "v2");
  EXPECT_THAT(allowed_host_codegens_for_target(Target::parse("id_hc")),
              ::testing::ElementsAre("one"));
}

TEST(RegistrationIdentity, TheSameHostCodegenObjectAgainIsANoOp) {
  ensure_plugin_kind("id_hc_same");
  HostCodegen codegen = make_codegen("same", "first");
  HostCodegen registered = register_host_codegen("id_hc_same", codegen);
  EXPECT_TRUE(registered.build.same_as(codegen.build));
  HostCodegen copy = codegen;  // copies share the callable
  HostCodegen again = register_host_codegen("id_hc_same", copy);
  EXPECT_TRUE(again.build.same_as(codegen.build));
  EXPECT_TRUE(resolve_host_codegen(Target::parse("id_hc_same")).build.same_as(codegen.build));
  // override always replaces, and then the replacement is the registered object.
  HostCodegen replacement = make_codegen("same", "second");
  register_host_codegen("id_hc_same", replacement, /*override=*/true);
  EXPECT_TRUE(resolve_host_codegen(Target::parse("id_hc_same")).build.same_as(replacement.build));
  EXPECT_EQ(resolved_text("id_hc_same"), "second");
  EXPECT_THAT(backend_error_of([&] { register_host_codegen("id_hc_same", codegen); }),
              HasSubstr("with a different function"));
}

TEST(RegistrationIdentity, AnotherClosureOfOneFactoryIsADifferentHook) {
  ensure_plugin_kind("id_hook");
  HostCodegenHook hook = make_hook("tag", "v1");
  register_host_codegen_hook("id_hook", hook);
  register_host_codegen_hook("id_hook", hook);  // the same object: a no-op
  EXPECT_THAT(
      backend_error_of([] { register_host_codegen_hook("id_hook", make_hook("tag", "v2")); }),
      HasSubstr("host codegen hook 'tag' is already registered for kind 'id_hook' with a "
                "different function"));
  Target device = Target::parse("id_hook");
  EXPECT_EQ(
      attr_string(apply_host_codegen_hooks(sample_module(), Target::parse("c"), &device), "hook"),
      "v1");
  register_host_codegen_hook("id_hook", make_hook("tag", "v2"), /*override=*/true);
  EXPECT_EQ(
      attr_string(apply_host_codegen_hooks(sample_module(), Target::parse("c"), &device), "hook"),
      "v2");
  EXPECT_THAT(
      list_host_codegen_hooks(),
      ::testing::Contains(std::pair<std::string, std::vector<std::string>>("id_hook", {"tag"})));
}

TEST(RegistrationIdentity, AFreshlyMadeManifestIsADifferentDeclaration) {
  BackendModule manifest = make_manifest("id_backend", "id_backend_dev");
  BackendModulePtr registered = register_backend(manifest);
  // The same manifest object again, or a copy: the same declaration.
  EXPECT_EQ(register_backend(manifest), registered);
  BackendModule copy = manifest;
  EXPECT_TRUE(copy.same_declaration(*registered));
  EXPECT_EQ(register_backend(copy), registered);
  // The factory again: the same names and captures, but new closures.
  BackendModule remade = make_manifest("id_backend", "id_backend_dev");
  EXPECT_FALSE(remade.same_declaration(manifest));
  EXPECT_THAT(backend_error_of([&] { register_backend(remade); }),
              HasSubstr("'id_backend' is already registered with a different declaration (the "
                        "same names, but a different function for pass 'mark_lowered' of "
                        "pipeline[id_backend_dev])"));
  EXPECT_EQ(get_backend("id_backend"), registered);
}

TEST(RegistrationIdentity, EveryManifestComponentIsComparedByIdentity) {
  BackendModule base = make_manifest("id_parts", "id_parts_dev");
  auto differs_in = [&](const std::function<void(BackendModule&)>& change) {
    BackendModule other = base;
    change(other);
    return base.difference_from(other);
  };
  EXPECT_EQ(differs_in([](BackendModule&) {}), "");
  EXPECT_THAT(differs_in([](BackendModule& m) {
                auto& codegen = m.device_codegens.at("id_parts_dev");
                codegen.build = [](const ir::IRModule&, const Target&) {
                  return artifact("testbin", "other");
                };
              }),
              HasSubstr("a different function for device codegen 'id_parts_device'"));
  EXPECT_THAT(differs_in([](BackendModule& m) {
                m.execution_backends[1].is_available = [] { return true; };
              }),
              HasSubstr("a different function for execution backend 'source_only'"));
  EXPECT_THAT(differs_in([](BackendModule& m) {
                m.host_codegens.at("c") = make_codegen("id_parts_host", "other");
              }),
              HasSubstr("a different function for host codegen 'id_parts_host' for 'c'"));
  base.callbacks["cb"] = [](const ValueList&) { return Value(1); };
  EXPECT_THAT(differs_in([](BackendModule& m) {
                m.callbacks["cb"] = [](const ValueList&) { return Value(1); };
              }),
              HasSubstr("a different function for callback 'cb'"));
  base.host_codegen_hooks["id_parts_dev"] = {make_hook("h", "x")};
  EXPECT_THAT(differs_in([](BackendModule& m) {
                m.host_codegen_hooks["id_parts_dev"] = {make_hook("h", "x")};
              }),
              HasSubstr("a different function for host codegen hook 'h' for 'id_parts_dev'"));
  base.supports_target = [](const Target&) { return true; };
  EXPECT_THAT(
      differs_in([](BackendModule& m) { m.supports_target = [](const Target&) { return true; }; }),
      HasSubstr("a different function for supports_target"));
  EXPECT_EQ(differs_in([](BackendModule&) {}), "");
}

TEST(RegistrationIdentity, GlobalFunctionsAreTheSameOnlyForTheSameObject) {
  auto returning = [](int64_t n) -> GlobalFunc {
    return [n](const ValueList&) { return Value(n); };
  };
  GlobalFunc one = returning(1);
  register_global_func("id.fn", one);
  register_global_func("id.fn", one);  // the same object: a no-op
  EXPECT_THAT(backend_error_of([&] { register_global_func("id.fn", returning(1)); }),
              HasSubstr("'id.fn' is already registered; pass override = true"));
  EXPECT_EQ(get_global_func("id.fn")({}).as<int64_t>(), 1);
  register_global_func("id.fn", returning(2), /*override=*/true);
  EXPECT_EQ(get_global_func("id.fn")({}).as<int64_t>(), 2);
  EXPECT_TRUE(remove_global_func("id.fn"));
}

TEST(RegistrationIdentity, TileOpImplsAreTheSameOnlyForTheSameObjects) {
  auto declining = [](std::string why) -> transform::TileOpLowerFunc {
    return
        [why](const ir::Stmt&, const Target&) -> std::optional<ir::Stmt> { return std::nullopt; };
  };
  transform::TileOpImpl impl{"id.gemm",
                             transform::TileOpKind::kGemm,
                             {},
                             transform::kBackendTileOpPriority,
                             declining("a")};
  EXPECT_EQ(transform::register_tile_op_impl(impl), nullptr);
  transform::TileOpImplPtr registered = transform::register_tile_op_impl(impl);  // a no-op
  ASSERT_NE(registered, nullptr);
  EXPECT_TRUE(registered->lower.same_as(impl.lower));
  transform::TileOpImpl remade = impl;
  remade.lower = declining("a");
  try {
    transform::register_tile_op_impl(remade);
    ADD_FAILURE() << "a different closure was taken for the same implementation";
  } catch (const ir::IRError& error) {
    EXPECT_THAT(error.what(), HasSubstr("tile-op implementation 'id.gemm' is already registered"));
  }
  transform::register_tile_op_impl(remade, /*override=*/true);
  bool replaced = false;
  for (const auto& listed : transform::list_tile_op_impls())
    if (listed->name == "id.gemm") replaced = listed->lower.same_as(remade.lower);
  EXPECT_TRUE(replaced);
  EXPECT_TRUE(transform::unregister_tile_op_impl("id.gemm"));
}

}  // namespace
}  // namespace tilec::backend
