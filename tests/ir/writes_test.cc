// for_each_write: what each statement kind and an atomic update report as written.
#include "tilec/ir/writes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tilec::ir {
namespace {

struct Tiles {
  Buffer a = make_buffer("A", {Expr(16), Expr(16)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(16), Expr(16)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(16), Expr(16)}, DataType::Float32(), StorageScope::kShared);
  Buffer f = make_buffer("F", {Expr(16), Expr(16)}, DataType::Float32(), StorageScope::kFragment);
  Buffer r = make_buffer("R", {Expr(16)}, DataType::Float32(), StorageScope::kFragment);
  Var i = make_var("i");
};

std::vector<Write> writes_of(const Stmt& s) {
  std::vector<Write> out;
  for_each_write(s, [&](const Write& w) { out.push_back(w); });
  return out;
}

TEST(ForEachWrite, StoreWritesItsElement) {
  Tiles t;
  Stmt s = store(t.a, {Expr(t.i), Expr(3)}, Expr(1.0));
  auto w = writes_of(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.a);
  EXPECT_EQ(w[0].region, nullptr);
  ASSERT_NE(w[0].indices, nullptr);
  ASSERT_EQ(w[0].indices->size(), 2u);
  EXPECT_TRUE((*w[0].indices)[0].same_as(t.i));
  EXPECT_STREQ(w[0].what, "assignment");
}

TEST(ForEachWrite, CopyWritesItsDestinationRegion) {
  Tiles t;
  Stmt s = copy(TileRegion{t.a, {RegionDim{Expr(t.i) * Expr(16), {}}}}, TileRegion{t.s, {}});
  auto w = writes_of(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.s);  // not the source A
  ASSERT_NE(w[0].region, nullptr);
  EXPECT_EQ(w[0].region, &s.as<CopyNode>()->dst);
  EXPECT_EQ(w[0].indices, nullptr);
  EXPECT_STREQ(w[0].what, "T.copy destination");
}

TEST(ForEachWrite, FillWritesItsDestinationRegion) {
  Tiles t;
  Stmt s = fill(TileRegion{t.f, {}}, Expr(0.0));
  auto w = writes_of(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.f);
  EXPECT_EQ(w[0].region, &s.as<FillNode>()->dst);
  EXPECT_STREQ(w[0].what, "T.fill destination");
}

TEST(ForEachWrite, GemmWritesOnlyItsAccumulator) {
  Tiles t;
  auto g = std::make_shared<GemmNode>();
  g->a = TileRegion{t.s, {}};
  g->b = TileRegion{t.b, {}};
  g->c = TileRegion{t.f, {}};
  auto w = writes_of(Stmt(g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.f);
  EXPECT_EQ(w[0].region, &g->c);
  EXPECT_STREQ(w[0].what, "T.gemm accumulator C");
}

TEST(ForEachWrite, ReduceWritesItsWholeDestination) {
  Tiles t;
  auto r = std::make_shared<ReduceNode>();
  r->src = t.f;
  r->dst = t.r;
  r->dim = 1;
  auto w = writes_of(Stmt(r));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.r);  // not the source F
  EXPECT_EQ(w[0].region, nullptr);
  EXPECT_EQ(w[0].indices, nullptr);
  EXPECT_STREQ(w[0].what, "T.reduce destination");
}

TEST(ForEachWrite, AtomicUpdateWritesItsElement) {
  Tiles t;
  Expr update = atomic_update("atomic_add", load(t.a, {Expr(t.i), Expr(0)}), Expr(1.0));
  std::vector<Write> w;
  for_each_write(update, [&](const Write& x) { w.push_back(x); });
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].buffer, t.a);
  ASSERT_NE(w[0].indices, nullptr);
  EXPECT_EQ(w[0].indices->size(), 2u);
  EXPECT_STREQ(w[0].what, "atomic update");
  // As a statement it is an evaluate, whose own node writes nothing: the write is
  // its expression's.
  EXPECT_TRUE(writes_of(evaluate(update)).empty());
}

TEST(ForEachWrite, OtherNodesWriteNothingThemselves) {
  Tiles t;
  Stmt inner = store(t.a, {Expr(t.i), Expr(0)}, Expr(1.0));
  EXPECT_TRUE(writes_of(for_loop(t.i, Expr(0), Expr(16), inner)).empty());
  EXPECT_TRUE(writes_of(if_then_else(Expr(t.i) < Expr(4), inner)).empty());
  EXPECT_TRUE(writes_of(allocate(t.s, inner)).empty());
  EXPECT_TRUE(writes_of(seq({inner, inner})).empty());
  EXPECT_TRUE(writes_of(Stmt()).empty());
  std::vector<Write> w;
  for_each_write(load(t.a, {Expr(0), Expr(0)}), [&](const Write& x) { w.push_back(x); });
  for_each_write(call("exp", {Expr(1.0)}), [&](const Write& x) { w.push_back(x); });
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace tilec::ir
