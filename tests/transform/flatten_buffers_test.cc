// flatten_buffers and vectorize_loops on small IR: 1-D row-major accesses (int64
// for symbolic global shapes), params untouched; innermost parallel loops vectorized.
#include "tilec/transform/flatten_buffers.h"

#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/vectorize_loops.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

std::vector<const LoadNode*> loads_of(const Stmt& s) {
  std::vector<const LoadNode*> out;
  post_order_visit(s, [&](const Stmt*, const Expr* e) {
    if (e && e->kind() == ExprKind::kLoad) out.push_back(e->as<LoadNode>());
  });
  return out;
}

TEST(FlattenBuffers, RowMajorOffsetsWithConstantShape) {
  Buffer a = make_buffer("A", {Expr(3), Expr(5)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(15)}, DataType::Float32());
  Var i = make_var("i"), j = make_var("j");
  PrimFunc f = make_prim_func(
      "f", {{make_var("A"), a}, {make_var("B"), b}},
      for_loop(i, Expr(0), Expr(3),
               for_loop(j, Expr(0), Expr(5), store(b, {i * Expr(5) + j}, load(a, {i, j})))));
  PrimFunc flat = flatten_buffers(f);
  auto loads = loads_of(flat->body);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0]->buffer->ndim(), 1);
  EXPECT_TRUE(is_const_int(loads[0]->buffer->shape[0], 15));
  EXPECT_EQ(print(loads[0]->indices[0]), print(i * Expr(5) + j));
  EXPECT_EQ(loads[0]->indices[0].dtype(), DataType::Int32());
  EXPECT_EQ(flat->params[0].buffer->ndim(), 2);  // params keep their shape for checking
}

TEST(FlattenBuffers, SymbolicGlobalShapesIndexInInt64) {
  Var n = make_var("n"), m = make_var("m");
  Buffer a = make_buffer("A", {n, m}, DataType::Float16());
  Var i = make_var("i"), j = make_var("j");
  PrimFunc f = make_prim_func("f", {{make_var("A"), a}}, store(a, {i, j}, load(a, {j, i})));
  PrimFunc flat = flatten_buffers(f);
  auto* st = flat->body.as<StoreNode>();
  ASSERT_NE(st, nullptr);
  ASSERT_EQ(st->indices.size(), 1u);
  EXPECT_EQ(st->indices[0].dtype(), DataType::Int64());
  EXPECT_NE(print(st->indices[0]).find("m"), std::string::npos);
}

TEST(VectorizeLoops, OnlyInnermostParallelLoopsAreVectorized) {
  Buffer a = make_buffer("A", {Expr(64)}, DataType::Float32());
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  Stmt inner =
      for_loop(j, Expr(0), Expr(8), store(a, {i * Expr(8) + j}, Expr(0.0)), ForKind::kParallel);
  Stmt serial_inner = for_loop(k, Expr(0), Expr(8), store(a, {k}, Expr(1.0)));
  Stmt s = vectorize_loops(
      seq({for_loop(i, Expr(0), Expr(8), inner, ForKind::kParallel), serial_inner}));
  auto* block = s.as<SeqNode>();
  ASSERT_NE(block, nullptr);
  auto* outer = block->stmts[0].as<ForNode>();
  EXPECT_EQ(outer->for_kind, ForKind::kSerial);
  EXPECT_EQ(outer->body.as<ForNode>()->for_kind, ForKind::kVectorized);
  EXPECT_EQ(block->stmts[1].as<ForNode>()->for_kind, ForKind::kSerial);
}

}  // namespace
}  // namespace tilec::transform
