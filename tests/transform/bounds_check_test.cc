// bounds_check: where the pass puts its checks (before the statement, index loads
// first, under the condition of the side of an if_then_else that reads), what each
// violation carries, the per-block stop, the attribute split_host_device passes on,
// and that simplify removes the checks bounds prove. Off unless the key is set.
#include "tilec/transform/bounds_check.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/bounds_call.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/split_host_device.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

std::vector<BoundsCall> bounds_calls(const Stmt& body) {
  std::vector<BoundsCall> out;
  post_order_visit(body, [&](const Stmt* s, const Expr*) {
    if (!s) return;
    if (auto* e = s->as<EvaluateNode>())
      if (auto call = as_bounds_call(e->value)) out.push_back(*call);
  });
  return out;
}

std::vector<BoundsCall> violations(const Stmt& body) {
  std::vector<BoundsCall> out;
  for (auto& c : bounds_calls(body))
    if (!c.stop) out.push_back(c);
  return out;
}

PrimFunc checked(const char* source) {
  return insert_bounds_checks(parse_kernel_source(source).functions()[0]);
}

TEST(BoundsCheck, IndexLoadIsCheckedBeforeTheLoadItFeedsAndTheStore) {
  PrimFunc f = checked(R"(
import tilelang.language as T
@T.prim_func
def gather(X: T.Tensor((100,), "float32"), I: T.Tensor((8,), "int32"), Y: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=8) as bx:
        for i in T.serial(8):
            Y[i] = X[I[i]]
)");
  EXPECT_TRUE(is_bounds_checked(f));
  auto found = violations(f->body);
  ASSERT_EQ(found.size(), 3u) << print(f);
  EXPECT_EQ(found[0].buffer, "I");
  EXPECT_EQ(found[0].access, BoundsAccess::kLoad);
  EXPECT_EQ(found[1].buffer, "X");
  EXPECT_EQ(found[2].buffer, "Y");
  EXPECT_EQ(found[2].access, BoundsAccess::kStore);
  EXPECT_EQ(found[1].span.line, 7);
  ASSERT_EQ(found[1].shape.size(), 1u);
  EXPECT_TRUE(is_const_int(found[1].shape[0], 100));
  // After simplify only the checks bounds cannot prove stay: X[I[i]] (data) alone.
  auto simplified = violations(simplify(f->body));
  ASSERT_EQ(simplified.size(), 1u) << print(with_body(f, simplify(f->body)));
  EXPECT_EQ(simplified[0].buffer, "X");
}

TEST(BoundsCheck, EveryBlockStartsWithTheStopAfterItsLeadingAllocations) {
  PrimFunc f = checked(R"(
import tilelang.language as T
@T.prim_func
def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        S = T.alloc_shared((64,), "float32")
        for i in T.Parallel(64):
            S[i] = A[i]
        for i in T.Parallel(64):
            B[i] = S[i]
)");
  auto* kernel = f->body.as<KernelNode>();
  ASSERT_NE(kernel, nullptr);
  auto* alloc = kernel->body.as<AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  auto* first = alloc->body.as<SeqNode>();
  ASSERT_NE(first, nullptr);
  auto* stop = first->stmts[0].as<EvaluateNode>();
  ASSERT_NE(stop, nullptr);
  auto call = as_bounds_call(stop->value);
  ASSERT_TRUE(call && call->stop);
  // Shared accesses are checked too (before simplify proves them).
  bool shared = false;
  for (const auto& c : violations(f->body)) shared = shared || c.buffer == "S";
  EXPECT_TRUE(shared);
}

TEST(BoundsCheck, ALoadOnOneSideOfIfThenElseIsCheckedOnlyUnderItsCondition) {
  PrimFunc f = checked(R"(
import tilelang.language as T
@T.prim_func
def pad(A: T.Tensor((10,), "float32"), B: T.Tensor((16,), "float32"), n: T.int32):
    with T.Kernel(1, threads=16) as bx:
        for i in T.serial(16):
            B[i] = T.if_then_else(i < n, A[i], 0.0)
)");
  // The check of A[i] is `if (i < n and not (0 <= i and i < 10))`.
  bool found = false;
  post_order_visit(f->body, [&](const Stmt* s, const Expr*) {
    auto* branch = s ? s->as<IfNode>() : nullptr;
    if (!branch) return;
    auto* then = branch->then_case.as<EvaluateNode>();
    auto call = then ? as_bounds_call(then->value) : std::nullopt;
    if (!call || call->buffer != "A") return;
    auto* conj = branch->cond.as<BinaryNode>();
    ASSERT_NE(conj, nullptr);
    EXPECT_EQ(conj->op, BinaryOp::kAnd);
    auto* guard = conj->a.as<BinaryNode>();
    ASSERT_NE(guard, nullptr);
    EXPECT_EQ(guard->op, BinaryOp::kLT);
    found = true;
  });
  EXPECT_TRUE(found) << print(f);
}

TEST(BoundsCheck, ThePassIsANoOpUnlessTheKeyIsSetAndSplitKeepsTheAttribute) {
  register_bounds_check_config_key();
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def copy1(A: T.Tensor((4,), "float32"), B: T.Tensor((4,), "float32")):
    with T.Kernel(1, threads=4) as bx:
        for i in T.serial(4):
            B[i] = A[i]
)");
  target::Target target = target::Target::parse("c");
  Pass pass = bounds_check_pass();
  PassContext off;
  IRModule same = pass(mod, PassInfo{target, off});
  EXPECT_TRUE(same.functions()[0]->body.same_as(mod.functions()[0]->body));
  EXPECT_FALSE(is_bounds_checked(same.functions()[0]));
  EXPECT_FALSE(bounds_check_enabled(off));

  PassContext on({{kBoundsCheckConfigKey, true}});
  EXPECT_TRUE(bounds_check_enabled(on));
  IRModule with_checks = pass(mod, PassInfo{target, on});
  EXPECT_TRUE(is_bounds_checked(with_checks.functions()[0]));
  auto binder = [](const KernelNode& k) { return DeviceKernelBody{{}, k.body}; };
  IRModule split = split_host_device(with_checks, {1, binder});
  EXPECT_TRUE(is_bounds_checked(split.lookup("copy1")));
  EXPECT_TRUE(is_bounds_checked(split.lookup("copy1_kernel")));
  EXPECT_THROW(PassContext({{kBoundsCheckConfigKey, int64_t{1}}}), PassError);
}

}  // namespace
}  // namespace tilec::transform
