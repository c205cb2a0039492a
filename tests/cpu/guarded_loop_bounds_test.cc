// cpu/guarded_loop_bounds.h: a vectorized loop whose body is one linear guard gets the
// guard as its bounds (the C codegen prints it so); every other loop is left alone. The
// folded loops run against the interpreter for lengths around the block's edges.
#include "tilec/cpu/guarded_loop_bounds.h"

#include "run_on_cpu.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/visitor.h"

#include "ir_support.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;

struct GuardedLoop {
  Var i = make_var("i");
  Var x = make_var("x");
  Var n = make_var("n");
  Buffer out = make_buffer("out", {make_int(1024)}, DataType::Float32());

  Stmt body() { return store(out, {i}, make_float(1.0)); }
  Stmt loop(Expr cond, Stmt else_case = {}, ForKind kind = ForKind::kVectorized) {
    return for_loop(i, make_int(0), make_int(64), if_then_else(cond, body(), else_case), kind);
  }
};

int count_ifs(const Stmt& s) {
  return test::count_kind(s, StmtKind::kIf);
}

TEST(CpuGuardedLoopBounds, LinearGuardsBecomeTheLoopsBounds) {
  GuardedLoop g;
  // x + i < n, i - 3 >= 0 and n - i > 0 (coefficient -1), with an invariant n > 5.
  Expr cond = logical_and(logical_and(g.x + g.i < g.n, g.i - make_int(3) >= make_int(0)),
                          logical_and(g.n - g.i > make_int(0), g.n > make_int(5)));
  std::optional<Stmt> folded = fold_guard_into_loop_bounds(*g.loop(cond).as<ForNode>());
  ASSERT_TRUE(folded.has_value());
  // The invariant conjunct is the one `if` left, around the loop; the loop's body is the
  // guard's then-branch, its bounds constants or named lets in front of it.
  const auto* outer = folded->as<IfNode>();
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(count_ifs(*folded), 1);
  const ForNode* loop = nullptr;
  post_order_visit(*folded, [&](const Stmt* s, const Expr*) {
    if (auto* f = s ? s->as<ForNode>() : nullptr) loop = f;
  });
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->body.kind(), StmtKind::kStore);
  EXPECT_EQ(loop->var.get(), g.i.get());
  EXPECT_EQ(loop->for_kind, ForKind::kVectorized);
  EXPECT_TRUE(is_const_int(loop->begin, 3));    // max(0, 3), folded
  EXPECT_NE(loop->end.as<VarNode>(), nullptr);  // min(64, n - x, n), clamped, named
}

TEST(CpuGuardedLoopBounds, OtherLoopsAndGuardsAreLeftAlone) {
  GuardedLoop g;
  Expr linear = g.x + g.i < g.n;
  EXPECT_TRUE(fold_guard_into_loop_bounds(*g.loop(linear).as<ForNode>()));
  // An else branch, a serial loop, ==/!=, a coefficient of 2, a division of the variable.
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(linear, g.body()).as<ForNode>()));
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(linear, {}, ForKind::kSerial).as<ForNode>()));
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(ne(g.i, g.n)).as<ForNode>()));
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(g.i * make_int(2) < g.n).as<ForNode>()));
  EXPECT_FALSE(
      fold_guard_into_loop_bounds(*g.loop(floordiv(g.i, make_int(2)) < g.n).as<ForNode>()));
  // Bounds are evaluated before the loop, once: a load (which the guard may protect) or a
  // division by a variable (which might be zero) must not be moved there.
  Buffer len = make_buffer("len", {make_int(4)}, DataType::Int32());
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(g.i < load(len, {make_int(0)})).as<ForNode>()));
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(g.i < floordiv(g.n, g.x)).as<ForNode>()));
  EXPECT_FALSE(fold_guard_into_loop_bounds(
      *g.loop(logical_and(g.i < g.n, g.x < load(len, {make_int(1)}))).as<ForNode>()));
  // Nothing about the variable: nothing to fold.
  EXPECT_FALSE(fold_guard_into_loop_bounds(*g.loop(g.x < g.n).as<ForNode>()));
}

constexpr const char* kGuards = R"(
import tilelang.language as T
N = T.symbolic("N")
@T.prim_func
def guards(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
           C: T.Tensor((N,), "float32"), D: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            idx = bx * 64 + i
            if idx < N and idx >= 3:
                B[idx] = A[idx] * 2.0
        for i in T.Parallel(64):
            if N - (bx * 64 + i) > 0 and N > 5:
                C[bx * 64 + i] = A[bx * 64 + i] + 1.0
        for i in T.Parallel(64):
            if bx * 64 + i <= N - 1 and 70 < bx * 64 + i + 1:
                D[bx * 64 + i] = A[bx * 64 + i] - 1.0
)";

TEST(CpuGuardedLoopBounds, FoldedLoopsMatchTheInterpreter) {
  IRModule mod = parse_kernel_source(kGuards);
  for (int64_t n : {1, 3, 4, 5, 6, 63, 64, 65, 70, 71, 127, 200}) {
    SCOPED_TRACE(n);
    testing::CpuRunResult r = testing::run_and_compare(mod, "guards", {{"N", n}}, 7);
    EXPECT_TRUE(r.ok) << r.report;
    // Every guard was folded: the one `if` left in the device code is the invariant N > 5.
    size_t ifs = 0;
    for (size_t at = r.device_source.find("if ("); at != std::string::npos;
         at = r.device_source.find("if (", at + 1))
      ++ifs;
    EXPECT_EQ(ifs, 1u) << r.device_source;
  }
}

}  // namespace
}  // namespace tilec::cpu
