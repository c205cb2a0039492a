// cpu/prefetch.h: T.Pipelined loops get a prefetch of the next iteration's global tiles
// (guarded to the tensor and to iterations that have a next one), other loops none;
// spread_prefetches deals each copy's rows out over the slot loops of the compute after
// them, every row to exactly one slot.
// tests/engine/cpu_prefetch_test.cc checks what the codegens print; results are covered
// by the end-to-end tests of every pipelined example.
#include "tilec/cpu/prefetch.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

#include <gtest/gtest.h>

#include <algorithm>

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
  // Each copy: a loop over its rows, each guarded to the tensor's rows, around a loop
  // over a row's lines (a row of 16 floats is one line, plus its last element's), each
  // guarded to its columns. No div or mod: a line costs an add and a compare.
  int guards = 0, divisions = 0;
  std::vector<int64_t> line_trips;
  post_order_visit(first->then_case, [&](const Stmt* s, const Expr* e) {
    if (s && s->kind() == StmtKind::kIf) ++guards;
    if (auto* f = s ? s->as<ForNode>() : nullptr;
        f && f->body.as<IfNode>() && f->body.as<IfNode>()->then_case.as<EvaluateNode>())
      line_trips.push_back(*as_const_int(f->end));
    if (auto* b = e ? e->as<BinaryNode>() : nullptr;
        b && (b->op == BinaryOp::kFloorDiv || b->op == BinaryOp::kFloorMod))
      ++divisions;
  });
  EXPECT_EQ(guards, 4);
  EXPECT_EQ(line_trips, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(divisions, 0);
}

// The pipelined loop's prefetch block, from prefetch_pipelined_copies on kPipelined.
Stmt prefetch_block() {
  Stmt body = prefetch_pipelined_copies(parse_kernel_source(kPipelined).functions()[0]->body);
  Stmt block;
  post_order_visit(body, [&](const Stmt* s, const Expr*) {
    if (auto* f = s ? s->as<ForNode>() : nullptr; f && f->num_stages > 0)
      block = f->body.as<SeqNode>()->stmts.front();
  });
  return block;
}

TEST(CpuPrefetch, SpreadDealsEveryRowToExactlyOneSlot) {
  Stmt block = prefetch_block();
  ASSERT_TRUE(block);
  // Rows per copy (each with its lines): A 32, B 16.
  auto* guard = block.as<IfNode>();
  ASSERT_NE(guard, nullptr);
  std::vector<int64_t> lines;
  for (const Stmt& s : guard->then_case.as<SeqNode>()->stmts)
    lines.push_back(*as_const_int(s.as<ForNode>()->end));
  EXPECT_EQ(lines, (std::vector<int64_t>{32, 16}));

  // Compute after the block: a light loop, then a 3 x 5 nest (the heaviest statement).
  Buffer out = make_buffer("out", {make_int(1)}, DataType::Float32(), StorageScope::kLocal);
  Var a = make_var("a"), b = make_var("b"), light = make_var("light");
  Stmt work = store(out, {make_int(0)}, make_float(1.0, DataType::Float32()));
  Stmt nest = for_loop(a, make_int(0), make_int(3), for_loop(b, make_int(2), make_int(7), work));
  Stmt spread =
      spread_prefetches(seq({block, for_loop(light, make_int(0), make_int(2), work), nest}));

  auto* top = spread.as<SeqNode>();
  ASSERT_NE(top, nullptr);
  ASSERT_EQ(top->stmts.size(), 2u);               // the block left the top
  EXPECT_EQ(count_prefetches(top->stmts[0]), 0);  // and the light loop got none
  auto* outer = top->stmts[1].as<ForNode>();
  ASSERT_NE(outer, nullptr);
  auto* inner = outer->body.as<ForNode>();
  ASSERT_NE(inner, nullptr);
  auto* slot = inner->body.as<SeqNode>()->stmts.front().as<IfNode>();
  ASSERT_NE(slot, nullptr);  // if (next iteration) { slices }
  const auto& slices = slot->then_case.as<SeqNode>()->stmts;
  ASSERT_EQ(slices.size(), lines.size());
  for (size_t c = 0; c < slices.size(); ++c) {
    std::vector<int> dealt(size_t(lines[c]), 0);
    auto* end_let = slices[c].as<LetNode>();  // pf_end = min(...)
    ASSERT_NE(end_let, nullptr);
    auto* slice = end_let->body.as<ForNode>();
    ASSERT_NE(slice, nullptr);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 2; j < 7; ++j) {
        VarMap at{{outer->var.get(), make_int(i)}, {inner->var.get(), make_int(j)}};
        Expr b0 = transform::simplify(substitute(slice->begin, at));
        Expr e0 = transform::simplify(substitute(end_let->value, at));
        const int64_t *begin = as_const_int(b0), *end = as_const_int(e0);
        ASSERT_TRUE(begin && end) << print(b0) << " " << print(e0);
        for (int64_t l = *begin; l < *end; ++l) ++dealt.at(size_t(l));
      }
    EXPECT_EQ(std::count(dealt.begin(), dealt.end(), 1), lines[c]) << "copy " << c;
  }
}

TEST(CpuPrefetch, SpreadLeavesTheBlockWhereNoSlotLoopFollows) {
  Stmt block = prefetch_block();
  ASSERT_TRUE(block);
  Buffer out = make_buffer("out", {make_int(1)}, DataType::Float32(), StorageScope::kLocal);
  Stmt work = store(out, {make_int(0)}, make_float(1.0, DataType::Float32()));
  Stmt spread = spread_prefetches(seq({block, work}));
  auto* top = spread.as<SeqNode>();
  ASSERT_NE(top, nullptr);
  EXPECT_TRUE(top->stmts[0].same_as(block));
}

}  // namespace
}  // namespace tilec::cpu
