// The tile-op implementation registry: the generic implementations lower every op for
// every target; a registered implementation is chosen for the targets its predicate
// accepts, by priority; one that declines falls through; an override by name replaces
// (and restore puts back) an implementation; when nothing lowers an op the error names
// the op, the target and every implementation with why it was passed over.
#include "tilec/transform/tile_op_impl.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"

#include <gmock/gmock.h>
#include "ir_support.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;
using target::Target;
using ::testing::HasSubstr;

const char* kFillAndCopy = R"(
import tilelang.language as T
@T.prim_func
def f(A: T.Tensor((4, 4), "float32"), B: T.Tensor((4, 4), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.fill(A, 1.0)
        T.copy(A, B)
)";

std::vector<std::string> names(const std::vector<TileOpImplPtr>& impls) {
  std::vector<std::string> out;
  for (const auto& impl : impls) out.push_back(impl->name);
  return out;
}

int count_evaluates(const IRModule& mod) {
  return test::count_kind(mod.lookup("f")->body, StmtKind::kEvaluate);
}

// A recognisable lowering: the fill becomes `T.evaluate(7)`.
std::optional<Stmt> fill_as_marker(const Stmt&, const Target&) {
  return evaluate(make_int(7));
}
std::optional<Stmt> decline(const Stmt&, const Target&) {
  return std::nullopt;
}
bool metal_only(const Target& t) {
  return t.kind() == "plain_gpu_test";
}
bool never(const Target&) {
  return false;
}

// Registers for one test and puts back what the name held before.
class ScopedImpl {
 public:
  explicit ScopedImpl(TileOpImpl impl, bool override = false) : name_(impl.name) {
    previous_ = register_tile_op_impl(std::move(impl), override);
  }
  ~ScopedImpl() { restore_tile_op_impl(name_, previous_); }

 private:
  std::string name_;
  TileOpImplPtr previous_;
};

TEST(TileOpImpls, GenericImplementationsCoverEveryOpForEveryTarget) {
  EXPECT_EQ(names(list_tile_op_impls()),
            (std::vector<std::string>{"generic.copy", "generic.fill", "generic.gemm",
                                      "generic.reduce", "generic.scheduled_loop"}));
  for (const char* spec : {"c", "plain_gpu_test", "gpu_test -arch=sm_90"}) {
    EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kGemm, Target::parse(spec))),
              std::vector<std::string>{"generic.gemm"});
  }
  EXPECT_STREQ(to_string(TileOpKind::kScheduledLoop), "scheduled_loop");
}

TEST(TileOpImpls, SelectedByTargetAndPriority) {
  IRModule mod = parse_kernel_source(kFillAndCopy);
  ScopedImpl metal(
      {"test.fill_metal", TileOpKind::kFill, metal_only, kBackendTileOpPriority, fill_as_marker});
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kFill, Target::parse("plain_gpu_test"))),
            (std::vector<std::string>{"test.fill_metal", "generic.fill"}));
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kFill, Target::parse("c"))),
            std::vector<std::string>{"generic.fill"});
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("plain_gpu_test"))), 1);
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("c"))), 0);
  // A lower priority than the generic one is only asked after it.
  ScopedImpl low({"test.fill_low", TileOpKind::kFill, {}, -1, fill_as_marker});
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kFill, Target::parse("c"))),
            (std::vector<std::string>{"generic.fill", "test.fill_low"}));
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("c"))), 0);
}

TEST(TileOpImpls, ADecliningImplementationFallsThroughToTheGenericOne) {
  IRModule mod = parse_kernel_source(kFillAndCopy);
  std::string generic = print(lower_tile_ops(mod, Target::parse("c")));
  ScopedImpl declining(
      {"test.copy_declines", TileOpKind::kCopy, {}, kBackendTileOpPriority, decline});
  EXPECT_EQ(print(lower_tile_ops(mod, Target::parse("c"))), generic);
}

TEST(TileOpImpls, OverrideByNameReplacesAndRestorePutsBack) {
  IRModule mod = parse_kernel_source(kFillAndCopy);
  TileOpImpl marker{"generic.fill", TileOpKind::kFill, {}, kGenericTileOpPriority, fill_as_marker};
  try {
    register_tile_op_impl(marker);
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'generic.fill' is already registered"));
    EXPECT_THAT(e.what(), HasSubstr("generic.copy"));
    EXPECT_THAT(e.what(), HasSubstr("override=true"));
  }
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("c"))), 0);  // unchanged
  TileOpImplPtr previous = register_tile_op_impl(marker, /*override=*/true);
  ASSERT_NE(previous, nullptr);
  // The identical registration (same plain functions) is a no-op.
  EXPECT_NE(register_tile_op_impl(marker), nullptr);
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("c"))), 1);
  restore_tile_op_impl("generic.fill", previous);
  EXPECT_EQ(count_evaluates(lower_tile_ops(mod, Target::parse("c"))), 0);
  EXPECT_EQ(names(list_tile_op_impls()).size(), 5u);
}

TEST(TileOpImpls, InvalidRegistrationsAreRejected) {
  EXPECT_THROW(register_tile_op_impl({"", TileOpKind::kGemm, {}, 0, decline}), IRError);
  EXPECT_THROW(register_tile_op_impl({"test.empty", TileOpKind::kGemm, {}, 0, {}}), IRError);
  EXPECT_FALSE(unregister_tile_op_impl("test.empty"));
  EXPECT_EQ(names(list_tile_op_impls()).size(), 5u);
}

TEST(TileOpImpls, WhenNothingLowersAnOpTheErrorNamesOpTargetAndImplementations) {
  IRModule mod = parse_kernel_source(kFillAndCopy);
  ScopedImpl generic({"generic.copy", TileOpKind::kCopy, never, kGenericTileOpPriority, decline},
                     /*override=*/true);
  ScopedImpl declining({"test.copy_declines", TileOpKind::kCopy, {}, 5, decline});
  try {
    lower_tile_ops(mod, Target::parse("plain_gpu_test"));
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("in function 'f'"));
    EXPECT_THAT(message, HasSubstr("no implementation of tile op 'copy'"));
    EXPECT_THAT(message, HasSubstr("`T.copy(A, B)`"));
    EXPECT_THAT(message, HasSubstr("for target 'plain_gpu_test"));
    EXPECT_THAT(message, HasSubstr("test.copy_declines (priority 5): declined this instance"));
    EXPECT_THAT(message, HasSubstr("generic.copy (priority 0): does not accept this target"));
    EXPECT_THAT(message, HasSubstr("register_module_tile_op_impl"));
  }
}

}  // namespace
}  // namespace tilec::transform
