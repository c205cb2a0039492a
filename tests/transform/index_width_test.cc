// Index width: buffers that may hold more than 2^31-1 elements index in int64 all
// the way down (the cast sits on the leaves, and integer bindings the index is built
// from are rebound as int64); small constant buffers keep int32.
#include "tilec/transform/index_width.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/flatten_buffers.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

constexpr const char* kVectorAdd = R"(import tilelang.language as T

N = 4096
block_N = 256


@T.prim_func
def vector_add(A: T.Tensor((N,), "int8"), B: T.Tensor((N,), "int8"), C: T.Tensor((N,), "int8")):
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            if idx < N:
                C[idx] = A[idx] + B[idx]
)";

PrimFunc vector_add(const std::string& n) {
  return parse_kernel_source(kVectorAdd, {.filename = "k.py", .defines = {{"N", n}}})
      .functions()[0];
}

std::vector<DataType> index_dtypes(const Stmt& s) {
  std::vector<DataType> out;
  post_order_visit(s, [&](const Stmt* st, const Expr* e) {
    if (e && e->kind() == ExprKind::kLoad)
      for (const auto& i : e->as<LoadNode>()->indices) out.push_back(i.dtype());
    if (st && st->kind() == StmtKind::kStore)
      for (const auto& i : st->as<StoreNode>()->indices) out.push_back(i.dtype());
  });
  return out;
}

TEST(IndexWidth, BuffersPastTwoToTheThirtyOneIndexInInt64DownToTheBinding) {
  PrimFunc flat = flatten_buffers(vector_add("2147484672"));
  auto dtypes = index_dtypes(flat->body);
  ASSERT_EQ(dtypes.size(), 3u);
  for (auto t : dtypes) EXPECT_EQ(t, DataType::Int64());
  std::string text = print(flat);
  // The binding is computed in int64: no wrap-around before a widening cast.
  EXPECT_NE(text.find("idx = T.cast(bx, \"int64\") * 256 + T.cast(i, \"int64\")"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("T.cast(bx * 256"), std::string::npos) << text;
}

TEST(IndexWidth, SmallConstantBuffersKeepInt32) {
  PrimFunc flat = flatten_buffers(vector_add("4096"));
  for (auto t : index_dtypes(flat->body)) EXPECT_EQ(t, DataType::Int32());
}

TEST(IndexWidth, ConstantsBeyondInt64RangeOfInt32AreNotTruncatedInGuards) {
  PrimFunc flat = flatten_buffers(vector_add("100000000000"));
  std::string text = print(flat);
  EXPECT_NE(text.find("100000000000"), std::string::npos) << text;
  for (auto t : index_dtypes(flat->body)) EXPECT_EQ(t, DataType::Int64());
}

TEST(IndexWidth, WidenPushesTheCastToTheLeaves) {
  Var bx = make_var("bx"), i = make_var("i");
  Expr wide = widen_index(bx * Expr(256) + i);
  EXPECT_EQ(wide.dtype(), DataType::Int64());
  EXPECT_EQ(print(wide), print(cast(DataType::Int64(), bx) * make_int(256, DataType::Int64()) +
                               cast(DataType::Int64(), i)));
}

TEST(IndexWidth, SymbolicShapesAreNotProvenSmall) {
  Buffer symbolic = make_buffer("A", {make_var("M")}, DataType::Float32());
  Buffer small = make_buffer("B", {Expr(1024), Expr(1024)}, DataType::Float32());
  Buffer big = make_buffer("C", {Expr(65536), Expr(32769)}, DataType::Int(8));
  EXPECT_TRUE(needs_wide_index(symbolic));
  EXPECT_FALSE(needs_wide_index(small));
  EXPECT_TRUE(needs_wide_index(big));
}

}  // namespace
}  // namespace tilec::transform
