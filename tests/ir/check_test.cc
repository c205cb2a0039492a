#include "tilec/ir/check.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

Param tensor_param(const Buffer& b) {
  return Param{make_var(b->name, DataType::Int64()), b};
}

Stmt kernel(Var bx, Stmt body) {
  auto k = std::make_shared<KernelNode>();
  k->grid = {Expr(4)};
  k->block_vars = {bx};
  k->threads = {128};
  k->body = std::move(body);
  return Stmt(k);
}

TileRegion whole(Buffer b) {
  return TileRegion{std::move(b), {}};
}

// The single diagnostic of `body` in a function over `params`; fails if not exactly one.
Diagnostic only_diagnostic(std::vector<Param> params, Stmt body) {
  auto diags = check_function(make_prim_func("f", std::move(params), std::move(body)));
  EXPECT_EQ(diags.size(), 1u) << (diags.empty() ? "no diagnostics"
                                                : format_diagnostics(diags, "test.py"));
  return diags.empty() ? Diagnostic{} : diags[0];
}

void expect_contains(const Diagnostic& d, const std::string& needle) {
  EXPECT_NE(d.message.find(needle), std::string::npos) << d.message;
  EXPECT_FALSE(d.hint.empty()) << d.message;
  EXPECT_EQ(d.function, "f");
}

Buffer out_buffer() {
  return make_buffer("Out", {Expr(16)}, DataType::Float32());
}

TEST(Check, AWellFormedKernelHasNoDiagnostics) {
  Buffer a = make_buffer("A", {Expr(16)}, DataType::Float32());
  Buffer out = out_buffer();
  Buffer s = make_buffer("S", {Expr(4)}, DataType::Float32(), StorageScope::kShared);
  Var bx = make_var("bx"), i = make_var("i");
  TileRegion tile_a{a, {RegionDim{bx * Expr(4), bx * Expr(4) + Expr(4)}}};
  TileRegion tile_o{out, {RegionDim{bx * Expr(4), {}}}};
  Stmt body = allocate(
      s, seq({copy(tile_a, whole(s)),
              for_loop(i, Expr(0), Expr(4), store(s, {Expr(i)}, load(s, {Expr(i)}) * Expr(2.0)),
                       ForKind::kParallel),
              copy(whole(s), tile_o)}));
  auto diags =
      check_function(make_prim_func("f", {tensor_param(a), tensor_param(out)}, kernel(bx, body)));
  EXPECT_TRUE(diags.empty()) << format_diagnostics(diags, "t.py");
}

TEST(Check, UseOutsideTheBindingScope) {
  Var t = make_var("t", DataType::Float32(), Span{3, 5});
  Buffer out = out_buffer();
  Stmt body = seq({let(t, make_float(1.0), evaluate(t)),
                   store(out, {Expr(0)}, with_span(Expr(t) + Expr(1.0), Span{7, 12}))});
  Diagnostic d = only_diagnostic({tensor_param(out)}, body);
  expect_contains(d, "'t' is used outside the scope that binds it");
  EXPECT_EQ(d.span.line, 7);
  EXPECT_EQ(d.span.col, 12);
}

TEST(Check, NonBoolConditionAndFloatIndexAndLoopBound) {
  Buffer out = out_buffer();
  Var x = make_var("x", DataType::Float32());
  auto cond_node = std::make_shared<IfNode>();
  cond_node->cond = make_int(3);
  cond_node->then_case = store(out, {Expr(0)}, make_float(1.0));
  expect_contains(only_diagnostic({tensor_param(out)}, Stmt(cond_node)),
                  "condition of 'if' has dtype int32");
  auto st = std::make_shared<StoreNode>();
  st->buffer = out;
  st->indices = {make_float(1.0)};
  st->value = make_float(1.0);
  expect_contains(only_diagnostic({tensor_param(out)}, Stmt(st)),
                  "index of 'Out' has dtype float32");
  Var i = make_var("i");
  expect_contains(
      only_diagnostic({tensor_param(out)}, for_loop(i, Expr(0), make_float(4.0),
                                                    store(out, {Expr(i)}, make_float(0.0)))),
      "loop bound has dtype float32");
}

TEST(Check, IndexCountMustMatchRank) {
  Buffer out = out_buffer();
  auto st = std::make_shared<StoreNode>();
  st->buffer = out;
  st->indices = {Expr(0), Expr(1)};
  st->value = make_float(1.0);
  expect_contains(only_diagnostic({tensor_param(out)}, Stmt(st)),
                  "uses 2 index(es) but it has 1 dimension(s)");
}

TEST(Check, CopyExtentsMustAgree) {
  Buffer a = make_buffer("A", {Expr(8), Expr(8)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(4), Expr(8)}, DataType::Float32(), StorageScope::kShared);
  Var bx = make_var("bx");
  TileRegion slice{a, {RegionDim{Expr(0), Expr(8)}, RegionDim{Expr(0), Expr(4)}}};  // 8 x 4
  Diagnostic d = only_diagnostic({tensor_param(a)}, kernel(bx, allocate(s, copy(slice, whole(s)))));
  expect_contains(
      d, "T.copy extents do not agree: source 'A' is [8, 4] and destination 'S' is [4, 8]");
}

TEST(Check, GemmShapesRespectTransposes) {
  Buffer a = make_buffer("A", {Expr(32), Expr(16)}, DataType::Float16());  // K x M when transposed
  Buffer b = make_buffer("B", {Expr(32), Expr(8)}, DataType::Float16());
  Buffer c = make_buffer("C", {Expr(16), Expr(8)}, DataType::Float32());
  auto make = [&](bool ta) {
    auto g = std::make_shared<GemmNode>();
    g->a = whole(a);
    g->b = whole(b);
    g->c = whole(c);
    g->transpose_a = ta;
    return make_prim_func("f", {tensor_param(a), tensor_param(b), tensor_param(c)}, Stmt(g));
  };
  EXPECT_TRUE(check_function(make(true)).empty());
  auto diags = check_function(make(false));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("T.gemm shapes do not agree"), std::string::npos);
}

TEST(Check, ReduceDimAndDestinationShape) {
  Buffer src = make_buffer("S", {Expr(4), Expr(8)}, DataType::Float32());
  Buffer good = make_buffer("D", {Expr(4)}, DataType::Float32());
  Buffer bad = make_buffer("E", {Expr(8)}, DataType::Float32());
  auto make = [&](Buffer dst, int dim) {
    auto r = std::make_shared<ReduceNode>();
    r->src = src;
    r->dst = dst;
    r->dim = dim;
    return make_prim_func("f", {tensor_param(src), tensor_param(dst)}, Stmt(r));
  };
  EXPECT_TRUE(check_function(make(good, 1)).empty());
  auto shape = check_function(make(bad, 1));
  ASSERT_EQ(shape.size(), 1u);
  EXPECT_NE(shape[0].message.find("'E' has shape [8]"), std::string::npos) << shape[0].message;
  auto range = check_function(make(good, 2));
  ASSERT_EQ(range.size(), 1u);
  EXPECT_NE(range[0].message.find("dim=2 is out of range"), std::string::npos);
}

TEST(Check, WritesToReadOnlyParameters) {
  auto node = std::make_shared<BufferNode>(*make_buffer("In", {Expr(16)}, DataType::Float32()));
  node->read_only = true;
  Buffer in = node;
  expect_contains(only_diagnostic({tensor_param(in)}, store(in, {Expr(0)}, make_float(1.0))),
                  "writes 'In', which is declared read-only");
  auto f = std::make_shared<FillNode>();
  f->dst = whole(in);
  f->value = make_float(0.0);
  expect_contains(only_diagnostic({tensor_param(in)}, Stmt(f)), "T.fill destination");
}

TEST(Check, BuffersOutsideTheirAllocationAndTilesOutsideKernels) {
  Buffer out = out_buffer();
  Buffer s = make_buffer("S", {Expr(16)}, DataType::Float32(), StorageScope::kShared);
  Var bx = make_var("bx");
  Stmt escaped = kernel(bx, seq({allocate(s, evaluate(load(s, {Expr(0)}))),
                                 store(out, {Expr(0)}, load(s, {Expr(1)}))}));
  expect_contains(only_diagnostic({tensor_param(out)}, escaped),
                  "buffer 'S' is used outside its scope");
  expect_contains(only_diagnostic({tensor_param(out)}, allocate(s, evaluate(Expr(0)))),
                  "shared buffer 'S' is allocated outside a T.Kernel");
}

TEST(Check, NestedKernels) {
  Buffer out = out_buffer();
  Var bx = make_var("bx"), by = make_var("by");
  expect_contains(only_diagnostic({tensor_param(out)},
                                  kernel(bx, kernel(by, store(out, {Expr(by)}, make_float(1.0))))),
                  "T.Kernel is nested inside another T.Kernel");
}

TEST(Check, ParallelLoopOfOneIterationCannotRace) {
  // T.Parallel(1, D) rows, as TileLang's layernorm backward writes them: Acc[0] += A[i] over
  // a single i has no other iteration to race with, so it is accepted; over two it is not.
  Buffer a = make_buffer("A", {Expr(16)}, DataType::Float32());
  Buffer acc = make_buffer("Acc", {Expr(1)}, DataType::Float32());
  Var i = make_var("i");
  auto body = [&] { return store(acc, {Expr(0)}, load(acc, {Expr(0)}) + load(a, {Expr(i)})); };
  Stmt one = for_loop(i, Expr(0), Expr(1), body(), ForKind::kParallel);
  EXPECT_TRUE(
      check_function(make_prim_func("f", {tensor_param(a), tensor_param(acc)}, one)).empty());
  Stmt two = for_loop(i, Expr(0), Expr(2), body(), ForKind::kParallel);
  expect_contains(only_diagnostic({tensor_param(a), tensor_param(acc)}, two),
                  "writes the same element of 'Acc' and reads it");
}

TEST(Check, ParallelIterationsThatDependOnEachOther) {
  Buffer a = make_buffer("A", {Expr(16)}, DataType::Float32());
  Buffer acc = make_buffer("Acc", {Expr(1)}, DataType::Float32());
  Var i = make_var("i"), idx = make_var("idx");
  // Acc[0] = Acc[0] + A[i]: every iteration writes and reads the same element.
  Stmt race = for_loop(i, Expr(0), Expr(16),
                       store(acc, {Expr(0)}, load(acc, {Expr(0)}) + load(a, {Expr(i)})),
                       ForKind::kParallel);
  expect_contains(only_diagnostic({tensor_param(a), tensor_param(acc)}, race),
                  "writes the same element of 'Acc' and reads it");
  // A[i] = A[i + 1]: reads what the neighbouring iteration writes.
  Stmt shift = for_loop(i, Expr(0), Expr(15), store(a, {Expr(i)}, load(a, {Expr(i) + Expr(1)})),
                        ForKind::kParallel);
  expect_contains(only_diagnostic({tensor_param(a)}, shift), "other iterations write");
  // A[idx] = A[idx] * 2 through a let: independent, accepted; the same as a serial loop.
  Stmt fine =
      for_loop(i, Expr(0), Expr(16),
               let(idx, Expr(i) * Expr(1), store(a, {Expr(idx)}, load(a, {Expr(idx)}) * Expr(2.0))),
               ForKind::kParallel);
  EXPECT_TRUE(check_function(make_prim_func("f", {tensor_param(a)}, fine)).empty());
  Stmt serial = for_loop(i, Expr(0), Expr(16),
                         store(acc, {Expr(0)}, load(acc, {Expr(0)}) + load(a, {Expr(i)})));
  EXPECT_TRUE(
      check_function(make_prim_func("f", {tensor_param(a), tensor_param(acc)}, serial)).empty());
}

TEST(Check, FormattedDiagnosticsShowTheLineAndCaret) {
  Buffer out = out_buffer();
  Var t = make_var("t");
  auto f = make_prim_func("f", {tensor_param(out)},
                          store(out, {Expr(0)}, with_span(cast(DataType::Float32(), t), {2, 14})));
  std::string source = "def f(Out):\n    Out[0] = t + 1\n";
  try {
    check_module_or_throw(IRModule({f}), "k.py", source);
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("k.py:2:14: error: 't' is used outside the scope that binds it"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("    Out[0] = t + 1\n             ^"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(check_module_or_throw(IRModule({make_prim_func("g", {}, evaluate(Expr(0)))})));
}

}  // namespace
}  // namespace tilec::ir
