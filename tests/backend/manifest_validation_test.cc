// Every validation rule of BackendModule (the seed's __post_init__).
#include "test_manifests.h"

namespace tilec::backend {
namespace {

using ::testing::HasSubstr;
using tilec::testing::backend_error_of;
using tilec::testing::make_manifest;

void expect_invalid(const BackendModule& module, const std::string& fragment) {
  EXPECT_THAT(backend_error_of([&] { module.validate(); }), HasSubstr(fragment));
  EXPECT_THAT(backend_error_of([&] { register_backend(module); }), HasSubstr(fragment));
}

TEST(ManifestValidationTest, ValidManifestPasses) {
  EXPECT_NO_THROW(make_manifest("valid_backend", "vdev").validate());
}

TEST(ManifestValidationTest, NameMustBeNonEmpty) {
  auto module = make_manifest("x", "vdev");
  module.name = "";
  expect_invalid(module, "the backend name is empty");
}

TEST(ManifestValidationTest, TargetKindsMustBeNonEmptyUniqueAndKnown) {
  auto none = make_manifest("kinds_none", "vdev");
  none.target_kinds.clear();
  expect_invalid(none, "declares no target kinds");
  auto empty = make_manifest("kinds_empty", "vdev");
  empty.target_kinds.push_back("");
  expect_invalid(empty, "has an empty target kind");
  auto twice = make_manifest("kinds_twice", "vdev");
  twice.target_kinds.push_back("vdev");
  expect_invalid(twice, "lists target kind 'vdev' twice");
  auto unknown = make_manifest("kinds_unknown", "vdev");
  unknown.target_kinds = {"gpu_tset"};
  expect_invalid(unknown, "'gpu_tset' is not a registered target kind (did you mean 'gpu_test'?)");
}

TEST(ManifestValidationTest, ExactlyOnePipelinePerOwnedKind) {
  auto missing = make_manifest("pipe_missing", "vdev");
  missing.pipelines.clear();
  expect_invalid(missing, "declares no pipeline for its target kind 'vdev'");
  auto extra = make_manifest("pipe_extra", "vdev");
  extra.pipelines.emplace("gpu_test", transform::PassPipeline("stray", {}));
  expect_invalid(extra, "declares a pipeline for target kind 'gpu_test', which it does not own");
}

TEST(ManifestValidationTest, DeviceCodegenPerOwnedKind) {
  auto missing = make_manifest("dev_missing", "vdev");
  missing.device_codegens.clear();
  expect_invalid(missing, "declares no device codegen for its target kind 'vdev'");
  auto empty = make_manifest("dev_empty", "vdev");
  empty.device_codegens.at("vdev") = DeviceCodegen{"hollow", {}, {}};
  expect_invalid(empty, "device codegen 'hollow' has neither build nor build_without_compile");
}

TEST(ManifestValidationTest, HooksOnlyForOwnedKindsAndNeverEmpty) {
  HostCodegenHook hook{
      "h", [](const ir::IRModule& m, const target::Target&, const target::Target*) { return m; },
      std::nullopt};
  auto foreign = make_manifest("hook_foreign", "vdev");
  foreign.host_codegen_hooks["gpu_test"] = {hook};
  expect_invalid(foreign, "host codegen hooks for target kind 'gpu_test', which it does not own");
  auto empty = make_manifest("hook_empty", "vdev");
  empty.host_codegen_hooks["vdev"] = {};
  expect_invalid(empty, "empty host codegen hook list for 'vdev'");
  auto nameless = make_manifest("hook_nameless", "vdev");
  hook.name = "";
  nameless.host_codegen_hooks["vdev"] = {hook};
  expect_invalid(nameless, "a host codegen hook for 'vdev' has an empty name");
}

TEST(ManifestValidationTest, ExecutionBackendsNonEmptyWithUniqueNames) {
  auto none = make_manifest("exec_none", "vdev");
  none.execution_backends.clear();
  expect_invalid(none, "declares no execution backends");
  auto twice = make_manifest("exec_twice", "vdev");
  twice.execution_backends.push_back(twice.execution_backends.front());
  expect_invalid(twice, "lists execution backend 'fast' twice");
  auto nameless = make_manifest("exec_nameless", "vdev");
  nameless.execution_backends.front().name = "";
  expect_invalid(nameless, "execution backend with an empty name");
}

TEST(ManifestValidationTest, HostCodegenRequiredWhenAnExecutionBackendEnablesIt) {
  auto module = make_manifest("host_required", "vdev");
  module.host_codegens.clear();
  expect_invalid(module, "enables host codegen but the backend declares no host_codegens");
  for (auto& spec : module.execution_backends) spec.enable_host_codegen = false;
  EXPECT_NO_THROW(module.validate());
}

TEST(ManifestValidationTest, CallbacksNeedNamesAndFunctions) {
  auto nameless = make_manifest("cb_nameless", "vdev");
  nameless.callbacks[""] = [](const ValueList&) { return Value(); };
  expect_invalid(nameless, "declares a callback with an empty name");
  auto empty = make_manifest("cb_empty", "vdev");
  empty.callbacks["compile"] = nullptr;
  expect_invalid(empty, "callback 'compile' has no function");
}

TEST(ManifestValidationTest, FailedValidationRegistersNothing) {
  auto module = make_manifest("never_registered", "vdev");
  module.callbacks["ok"] = [](const ValueList&) { return Value(1); };
  module.execution_backends.clear();
  EXPECT_THROW(register_backend(module), BackendError);
  EXPECT_FALSE(tilec::testing::has_global_func("never_registered.ok"));
  EXPECT_THAT(backend_error_of([] { get_backend("never_registered"); }), HasSubstr("no backend"));
}

}  // namespace
}  // namespace tilec::backend
