#include "tilec/ir/structural.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace tilec::ir {
namespace {

// Builds C[i] = A[i] + B[i] over a symbolic n, tiled by `tile`, with caller-chosen
// names so alpha-equivalence can be tested.
PrimFunc vector_add(const std::string& prefix, int tile = 128, DataType dtype = DataType::Float32(),
                    const std::function<void(BufferNode&)>& edit_a = {}) {
  Var n = make_var(prefix + "n");
  auto a_node = std::make_shared<BufferNode>(*make_buffer(prefix + "A", {Expr(n)}, dtype));
  if (edit_a) edit_a(*a_node);
  Buffer a = a_node;
  Buffer b = make_buffer(prefix + "B", {Expr(n)}, dtype);
  Buffer c = make_buffer(prefix + "C", {Expr(n)}, dtype);
  Var bx = make_var(prefix + "bx"), i = make_var(prefix + "i");
  Var idx = make_var(prefix + "idx");
  Stmt body = let(idx, bx * Expr(tile) + i,
                  if_then_else(Expr(idx) < Expr(n),
                               store(c, {Expr(idx)}, load(a, {Expr(idx)}) + load(b, {Expr(idx)}))));
  auto kernel = std::make_shared<KernelNode>();
  kernel->grid = {ceildiv(n, Expr(tile))};
  kernel->block_vars = {bx};
  kernel->threads = {128};
  kernel->body = for_loop(i, Expr(0), Expr(tile), body, ForKind::kParallel);
  auto param = [](Buffer buf) { return Param{make_var(buf->name, DataType::Int64()), buf}; };
  return make_prim_func("vadd", {param(a), param(b), param(c)}, Stmt(kernel));
}

TEST(StructuralEqual, IndependentlyBuiltFunctionsWithOtherNamesAreEqual) {
  PrimFunc f = vector_add("x_");
  std::vector<std::unique_ptr<int[]>> noise;  // shifts heap addresses between builds
  for (int i = 0; i < 50; ++i) noise.emplace_back(new int[i + 1]);
  PrimFunc g = vector_add("renamed_");
  EXPECT_TRUE(structural_equal(f, g));
  EXPECT_EQ(structural_hash(f), structural_hash(g));
  EXPECT_TRUE(structural_equal(IRModule({f}), IRModule({g})));
  EXPECT_EQ(structural_hash(IRModule({f})), structural_hash(IRModule({g})));
}

TEST(StructuralEqual, DifferencesInEveryFieldAreSeen) {
  PrimFunc base = vector_add("");
  EXPECT_FALSE(structural_equal(base, vector_add("", 64)));
  EXPECT_FALSE(structural_equal(base, vector_add("", 128, DataType::Float16())));
  EXPECT_FALSE(structural_equal(base, with_attr(base, "tilec.note", int64_t(1))));
  auto renamed = std::make_shared<PrimFuncNode>(*base);
  renamed->name = "other";
  EXPECT_FALSE(structural_equal(base, PrimFunc(renamed)));

  // Buffer fields: scope, read_only, strides, shape.
  auto mutate_buffer = [&](const std::function<void(BufferNode&)>& edit) {
    return vector_add("", 128, DataType::Float32(), edit);
  };
  EXPECT_FALSE(structural_equal(base, mutate_buffer([](BufferNode& b) { b.read_only = true; })));
  EXPECT_FALSE(structural_equal(
      base, mutate_buffer([](BufferNode& b) { b.scope = StorageScope::kShared; })));
  EXPECT_FALSE(structural_equal(base, mutate_buffer([](BufferNode& b) { b.strides = {Expr(1)}; })));
  EXPECT_FALSE(structural_equal(base, mutate_buffer([](BufferNode& b) { b.shape = {Expr(7)}; })));
  // A parameter buffer that the body does not reference (the body uses another,
  // identical-looking buffer) is a different binding.
  auto detached = std::make_shared<PrimFuncNode>(*base);
  detached->params[0].buffer = std::make_shared<BufferNode>(*base->params[0].buffer);
  EXPECT_FALSE(structural_equal(base, PrimFunc(detached)));
  // Only the name changed: still equal.
  EXPECT_TRUE(structural_equal(base, mutate_buffer([](BufferNode& b) { b.name = "Z"; })));

  // Loop fields.
  Var i = make_var("i");
  Buffer out = make_buffer("O", {Expr(8)}, DataType::Float32());
  auto loop = [&](ForKind kind, int64_t step, int stages, const std::string& tag) {
    auto n = std::make_shared<ForNode>();
    n->var = i;
    n->begin = Expr(0);
    n->end = Expr(8);
    n->step = step;
    n->for_kind = kind;
    n->num_stages = stages;
    n->thread_tag = tag;
    n->body = store(out, {Expr(i)}, make_float(1.0));
    return Stmt(n);
  };
  Stmt l = loop(ForKind::kSerial, 1, 0, "");
  EXPECT_TRUE(structural_equal(l, loop(ForKind::kSerial, 1, 0, "")));
  EXPECT_FALSE(structural_equal(l, loop(ForKind::kParallel, 1, 0, "")));
  EXPECT_FALSE(structural_equal(l, loop(ForKind::kSerial, 2, 0, "")));
  EXPECT_FALSE(structural_equal(l, loop(ForKind::kSerial, 1, 3, "")));
  EXPECT_FALSE(structural_equal(l, loop(ForKind::kSerial, 1, 0, "threadIdx.x")));
}

TEST(StructuralEqual, BoundVariablesCompareByBindingPositionNotName) {
  Var x = make_var("x"), y = make_var("y");
  Buffer o = make_buffer("O", {Expr(4)}, DataType::Int32());
  // let x = 1 in O[0] = x   vs   let y = 1 in O[0] = y
  EXPECT_TRUE(structural_equal(let(x, Expr(1), store(o, {Expr(0)}, x)),
                               let(y, Expr(1), store(o, {Expr(0)}, y))));
  // Two nested lets: using the outer vs the inner variable differs.
  Stmt outer = let(x, Expr(1), let(y, Expr(2), store(o, {Expr(0)}, x)));
  Stmt inner = let(x, Expr(1), let(y, Expr(2), store(o, {Expr(0)}, y)));
  EXPECT_FALSE(structural_equal(outer, inner));
  EXPECT_NE(structural_hash(outer), structural_hash(inner));
  // Free variables map one-to-one in order of appearance.
  EXPECT_TRUE(structural_equal(Expr(x) + Expr(y), Expr(y) + Expr(x)));
  EXPECT_FALSE(structural_equal(Expr(x) + Expr(x), Expr(x) + Expr(y)));
  EXPECT_FALSE(structural_equal(Expr(x), Expr(make_var("x", DataType::Int64()))));
}

TEST(StructuralEqual, SpansAreIgnoredAndConstantsCompareByValueAndType) {
  Expr a = with_span(Expr(3) + Expr(4), Span{3, 7});
  Expr b = Expr(3) + Expr(4);
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_FALSE(structural_equal(Expr(3), make_int(3, DataType::Int64())));
  EXPECT_FALSE(structural_equal(make_float(0.5), make_float(0.25)));
}

TEST(StructuralEqual, ReusedVariableInSiblingScopesMatchesDistinctVariables) {
  Var i = make_var("i"), j = make_var("j");
  Buffer o = make_buffer("O", {Expr(4)}, DataType::Int32());
  auto body = [&](Var v) { return for_loop(v, Expr(0), Expr(4), store(o, {Expr(v)}, v)); };
  EXPECT_TRUE(structural_equal(seq({body(i), body(i)}), seq({body(i), body(j)})));
}

TEST(StructuralHash, IsStableAcrossProcessesAndReleases) {
  // A fixed value: the hash keys the on-disk kernel cache, so it must not depend on
  // pointers, hash seeds or the platform. Changing the encoding changes this value
  // (and invalidates caches) on purpose.
  Var x = make_var("x");
  EXPECT_EQ(structural_hash(Expr(x) * Expr(2) + Expr(1)), 0x179f5f0867182828ull)
      << std::hex << structural_hash(Expr(x) * Expr(2) + Expr(1));
}

TEST(SameExpr, ComparesVariablesAndBuffersByIdentity) {
  Var i = make_var("i"), other_i = make_var("i");
  Buffer a = make_buffer("A", {Expr(16)}, DataType::Float32());
  Buffer other_a = make_buffer("A", {Expr(16)}, DataType::Float32());
  EXPECT_TRUE(same_expr(Expr(i) * Expr(2) + Expr(1), Expr(i) * Expr(2) + Expr(1)));
  EXPECT_FALSE(same_expr(Expr(i) + Expr(1), Expr(other_i) + Expr(1)));
  EXPECT_TRUE(structural_equal(Expr(i) + Expr(1), Expr(other_i) + Expr(1)));
  EXPECT_TRUE(same_expr(load(a, {Expr(i)}), load(a, {Expr(i)})));
  EXPECT_FALSE(same_expr(load(a, {Expr(i)}), load(other_a, {Expr(i)})));
  EXPECT_FALSE(same_expr(Expr(1), make_int(1, DataType::Int64())));
}

TEST(SameExpr, CoversSelectCallCastAndNaN) {
  Var x = make_var("x", DataType::Float32());
  EXPECT_TRUE(same_expr(call("exp", {Expr(x)}), call("exp", {Expr(x)})));
  EXPECT_FALSE(same_expr(call("exp", {Expr(x)}), call("log", {Expr(x)})));
  Expr c = Expr(x) < Expr(0.0);
  EXPECT_TRUE(same_expr(select(c, Expr(x), Expr(0.0)), select(c, Expr(x), Expr(0.0))));
  EXPECT_FALSE(same_expr(select(c, Expr(x), Expr(0.0)), select(c, Expr(0.0), Expr(x))));
  EXPECT_TRUE(same_expr(cast(DataType::Int32(), Expr(x)), cast(DataType::Int32(), Expr(x))));
  Expr nan = make_float(std::nan(""), DataType::Float32());
  EXPECT_TRUE(same_expr(nan, make_float(std::nan(""), DataType::Float32())));
}

}  // namespace
}  // namespace tilec::ir
