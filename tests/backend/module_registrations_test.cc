// Detectors and tile-op implementations a module registers beside its manifest are
// journaled like the manifest: a module init that fails after registering them leaves
// both registries as they were (an overridden implementation is put back); one that
// succeeds keeps them.
#include "tilec/backend/module_registrations.h"

#include "tilec/backend/backend_error.h"
#include "tilec/backend/module_loader.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace tilec::backend {
namespace {

using target::Target;
using transform::TileOpKind;

target::Detection detect_test_device() {
  return {Target::parse("metal"), ""};
}
std::optional<ir::Stmt> lower_nothing(const ir::Stmt&, const Target&) {
  return std::nullopt;
}

bool has_detector(const std::string& name) {
  auto names = target::list_target_detectors();
  return std::find(names.begin(), names.end(), name) != names.end();
}

transform::TileOpImplPtr find_impl(const std::string& name) {
  for (auto& impl : transform::list_tile_op_impls())
    if (impl->name == name) return impl;
  return nullptr;
}

void register_module_contributions() {
  register_module_target_detector("journal_test_device", detect_test_device,
                                  target::kAcceleratorDetectorPriority);
  register_module_tile_op_impl({"journal_test.gemm",
                                TileOpKind::kGemm,
                                {},
                                transform::kBackendTileOpPriority,
                                lower_nothing});
  register_module_tile_op_impl(
      {"generic.fill", TileOpKind::kFill, {}, transform::kGenericTileOpPriority, lower_nothing},
      /*override=*/true);
}

TEST(ModuleRegistrations, AFailingModuleInitUndoesDetectorsAndTileOpImpls) {
  transform::TileOpImplPtr generic_fill = find_impl("generic.fill");
  ASSERT_NE(generic_fill, nullptr);
  register_builtin_module("journal_test.failing", [] {
    register_module_contributions();
    throw std::runtime_error("init failed after registering");
  });
  EXPECT_THROW(load_module("journal_test.failing"), BackendError);
  EXPECT_FALSE(has_detector("journal_test_device"));
  EXPECT_EQ(find_impl("journal_test.gemm"), nullptr);
  EXPECT_EQ(find_impl("generic.fill"), generic_fill);
}

TEST(ModuleRegistrations, ASucceedingModuleInitKeepsThemAndRepeatsAreNoOps) {
  transform::TileOpImplPtr generic_fill = find_impl("generic.fill");
  register_builtin_module("journal_test.succeeding", register_module_contributions);
  load_module("journal_test.succeeding");
  EXPECT_TRUE(has_detector("journal_test_device"));
  EXPECT_EQ(target::list_target_detectors().front(), "journal_test_device");
  EXPECT_NE(find_impl("journal_test.gemm"), nullptr);
  EXPECT_NE(find_impl("generic.fill"), generic_fill);
  // Outside a module init the same registrations are accepted again, unchanged.
  register_module_target_detector("journal_test_device", detect_test_device,
                                  target::kAcceleratorDetectorPriority);
  EXPECT_THROW(register_module_target_detector(
                   "journal_test_device", [] { return target::Detection{}; },
                   target::kAcceleratorDetectorPriority),
               target::TargetError);
  // Clean up for the other tests of this binary.
  EXPECT_TRUE(target::unregister_target_detector("journal_test_device"));
  EXPECT_TRUE(transform::unregister_tile_op_impl("journal_test.gemm"));
  transform::restore_tile_op_impl("generic.fill", generic_fill);
}

}  // namespace
}  // namespace tilec::backend
