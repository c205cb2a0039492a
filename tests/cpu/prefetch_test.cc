// cpu/prefetch.h: T.Pipelined loops get a prefetch of the next iteration's global tiles
// (guarded to the tensor and to iterations that have a next one), other loops none.
// tests/engine/cpu_prefetch_test.cc checks what the codegens print; results are covered
// by the end-to-end tests of every pipelined example.
#include "tilec/cpu/prefetch.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;

constexpr const char* kPipelined = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((100, 64), "float32"), B: T.Tensor((64, 72), "float32"), C: T.Tensor((100, 72), "float32")):
    with T.Kernel(T.ceildiv(72, 32), T.ceildiv(100, 32), threads=64) as (bx, by):
        A_shared = T.alloc_shared((32, 16), "float32")
        B_shared = T.alloc_shared((16, 32), "float32")
        C_local = T.alloc_fragment((32, 32), "float32")
        T.clear(C_local)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[by * 32, k * 16], A_shared)
            T.copy(B[k * 16, bx * 32], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for k in T.serial(4):
            T.copy(A[by * 32, k * 16], A_shared)
        T.copy(C_local, C[by * 32, bx * 32])
)";

int count_prefetches(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Stmt*, const Expr* e) {
    if (e && as_prefetch(*e)) ++n;
  });
  return n;
}

TEST(CpuPrefetch, PipelinedLoopsPrefetchTheNextIterationsTiles) {
  IRModule mod = parse_kernel_source(kPipelined);
  Stmt body = prefetch_pipelined_copies(mod.functions()[0]->body);
  // One prefetch statement per copy from a global tensor in the pipelined loop; the
  // serial loop's copy gets none.
  EXPECT_EQ(count_prefetches(body), 2);
  const ForNode* pipelined = nullptr;
  post_order_visit(body, [&](const Stmt* s, const Expr*) {
    if (auto* f = s ? s->as<ForNode>() : nullptr; f && f->num_stages > 0) pipelined = f;
  });
  ASSERT_NE(pipelined, nullptr);
  auto* first = pipelined->body.as<SeqNode>()->stmts.front().as<IfNode>();
  ASSERT_NE(first, nullptr);  // if (k + 1 < 4): the prefetches
  EXPECT_EQ(count_prefetches(first->then_case), 2);
  // A row of 16 floats is one line (plus its last element's); rows are guarded.
  int guards = 0;
  post_order_visit(first->then_case, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kIf) ++guards;
  });
  EXPECT_EQ(guards, 2);
}

}  // namespace
}  // namespace tilec::cpu
