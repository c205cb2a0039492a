// The C++ builder produces IR structurally equal to parsing the same kernel file.
#include "tilec/ir/builder.h"
#include "build_paths.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"

#include <gtest/gtest.h>

#include <limits>

namespace tilec::ir {
namespace {

IRModule example(const std::string& name) {
  return parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + name);
}

void expect_equal(const PrimFunc& built, const IRModule& parsed) {
  IRModule mine({built});
  EXPECT_TRUE(structural_equal(mine, parsed)) << print(mine) << "\n---- parsed ----\n"
                                              << print(parsed);
  EXPECT_EQ(print(mine), print(parsed));
}

TEST(Builder, VectorAddEqualsExample) {
  const int N = 4096, block_N = 256;
  const DataType f32 = DataType::Float32();
  PrimFuncBuilder f("vector_add");
  auto A = f.tensor("A", {N}, f32);
  auto B = f.tensor("B", {N}, f32);
  auto C = f.tensor("C", {N}, f32);
  f.kernel((N + block_N - 1) / block_N, 128, [&](Var bx) {
    f.parallel(block_N, [&](Var i) {
      Var idx = f.let("idx", bx * block_N + i);
      f.if_then(idx < N, [&] { f.store(C(idx), A(idx) + B(idx)); });
    });
  });
  expect_equal(f.build(), example("vector_add.py"));
}

TEST(Builder, GemmEqualsExample) {
  const int M = 256, N = 256, K = 256, block_M = 64, block_N = 64, block_K = 32;
  const DataType f16 = DataType::Float16(), f32 = DataType::Float32();
  PrimFuncBuilder f("gemm");
  auto A = f.tensor("A", {M, K}, f16);
  auto B = f.tensor("B", {K, N}, f16);
  auto C = f.tensor("C", {M, N}, f16);
  f.kernel(N / block_N, M / block_M, 128, [&](Var bx, Var by) {
    auto A_shared = f.alloc_shared("A_shared", {block_M, block_K}, f16);
    auto B_shared = f.alloc_shared("B_shared", {block_K, block_N}, f16);
    auto C_local = f.alloc_fragment("C_local", {block_M, block_N}, f32);
    f.clear(C_local);
    f.pipelined(K / block_K, 3, [&](Var k) {
      f.copy(A(by * block_M, k * block_K), A_shared);
      f.copy(B(k * block_K, bx * block_N), B_shared);
      f.gemm(A_shared, B_shared, C_local);
    });
    f.copy(C_local, C(by * block_M, bx * block_N));
  });
  expect_equal(f.build(), example("gemm.py"));
}

TEST(Builder, SoftmaxEqualsExample) {
  const int M = 256, N = 128, block_M = 16;
  const DataType f32 = DataType::Float32();
  PrimFuncBuilder f("softmax");
  auto X = f.tensor("X", {M, N}, f32);
  auto Y = f.tensor("Y", {M, N}, f32);
  f.kernel(M / block_M, 128, [&](Var bx) {
    auto X_local = f.alloc_fragment("X_local", {block_M, N}, f32);
    auto row_max = f.alloc_fragment("row_max", {block_M}, f32);
    auto row_sum = f.alloc_fragment("row_sum", {block_M}, f32);
    f.copy(X(bx * block_M, 0), X_local);
    // The parser folds `-T.infinity(dtype)` into one constant; so does this.
    f.fill(row_max, make_float(-std::numeric_limits<double>::infinity(), f32));
    f.reduce_max(X_local, row_max, 1, /*clear=*/false);
    f.parallel(block_M, N, [&](Var i, Var j) {
      f.store(X_local(i, j), call("exp", {X_local(i, j) - row_max(i)}));
    });
    f.reduce_sum(X_local, row_sum, 1);
    f.parallel(block_M, N,
               [&](Var i, Var j) { f.store(X_local(i, j), X_local(i, j) / row_sum(i)); });
    f.copy(X_local, Y(bx * block_M, 0));
  });
  expect_equal(f.build(), example("softmax.py"));
}

TEST(Builder, VarsSlicesAndErrors) {
  PrimFuncBuilder f("k");
  auto A = f.tensor("A", {16, 16}, DataType::Float32(), /*read_only=*/true);
  Var n = f.scalar("n", DataType::Int32());
  f.kernel(1, 32, [&](Var) {
    auto acc = f.alloc_var("acc", DataType::Float32(), 0);
    auto s = f.alloc_shared("s", {4, 16}, DataType::Float32());
    f.copy(A(slice(0, 4), slice(0, 16)), s);
    f.serial(n, [&](Var i) { f.assign(acc, acc.value() + s(0, i)); });
    EXPECT_THROW(f.assign(s, 1.0), IRError);
    EXPECT_THROW(f.store(A(slice(0, 2), 0), 1.0), IRError);
    EXPECT_THROW(s(1), IRError);
  });
  PrimFunc func = f.build();
  EXPECT_THROW(f.build(), IRError);
  EXPECT_TRUE(func->params[0].buffer->read_only);
  std::string text = print(func);
  EXPECT_NE(text.find("acc = T.alloc_var(\"float32\", init=0.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("T.copy(A[0:4, 0:16], s)"), std::string::npos) << text;
  EXPECT_NE(text.find("acc += s[0, i]"), std::string::npos) << text;
  EXPECT_TRUE(structural_equal(IRModule({func}), parse_kernel_source(text)));
}

}  // namespace
}  // namespace tilec::ir
