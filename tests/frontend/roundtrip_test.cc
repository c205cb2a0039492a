// Round trip: parse(print(parse(x))) is structurally equal to parse(x), and printing
// is a fixed point, for every example file and for a kernel using every construct.
#include "build_paths.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tilec::ir {
namespace {

void expect_round_trip(const IRModule& m) {
  std::string text = print(m);
  ParseOptions options;
  options.filename = "printed.py";
  IRModule again = parse_kernel_source(text, options);
  EXPECT_TRUE(structural_equal(m, again)) << text << "\n---- reprinted ----\n" << print(again);
  EXPECT_EQ(structural_hash(m), structural_hash(again));
  EXPECT_EQ(print(again), text);
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TILEC_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RoundTrip, EveryExampleFile) {
  auto files = example_files();
  ASSERT_GE(files.size(), 7u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    expect_round_trip(parse_kernel_file(path.string()));
  }
}

TEST(RoundTrip, ExamplesWithDefines) {
  std::string dir = std::string(TILEC_SOURCE_DIR) + "/examples/";
  expect_round_trip(
      parse_kernel_file(dir + "gemm.py", {{"M", "512"}, {"N", "384"}, {"K", "1024"}}));
  expect_round_trip(parse_kernel_file(dir + "gemm_fp32.py", {{"M", "1024"}}));
  expect_round_trip(parse_kernel_file(dir + "softmax.py", {{"dtype", "float16"}}));
}

TEST(RoundTrip, EveryConstruct) {
  const char* source = R"(import tilelang.language as T

M = T.symbolic("M")
N = T.dynamic("N")


@T.prim_func
def everything(A: T.Tensor((M, 64), "float16", read_only=True), B: T.Buffer((64, N), "float32"), n: T.int32, s: T.float32):
    with T.Kernel(T.ceildiv(M, 32), 2, threads=(64, 2)) as (bx, by):
        a = T.alloc_shared((32, 64), "float16")
        f = T.alloc_fragment((32,), "float32")
        l = T.alloc_local((4,), "int8")
        acc = T.alloc_var("float32", init=1)
        cnt = T.alloc_var("int32")
        T.copy(A[bx * 32, 0], a)
        T.copy(A[bx * 32:bx * 32 + 32, 0:64], a)
        T.fill(l, 3)
        T.clear(f)
        T.reduce_sum(B, f, dim=0, clear=False)
        T.reduce_abssum(a, f, dim=1)
        T.gemm(a, B, B, transpose_A=True, clear_accum=True)
        cnt = 0
        for i, j in T.Parallel(32, 64):
            v = a[i, j] * 2 + T.float16(0.5)
            a[i, j] = T.max(v, -T.infinity("float16"))
        for k in T.Pipelined(T.ceildiv(N, 16), num_stages=2):
            acc += T.exp(s) * (k + 1) / (s - 1.0)
            cnt += k % 3
        for r in range(n, 0, -2):
            acc = acc - T.sqrt(T.cast(r, "float32")) ** 2
        for q in T.serial(2, n):
            if q < 4 and not q == 3 or q >= 10:
                B[q, 0] = T.if_then_else(q > 5, s, 0.0)
            elif 0 < q < 2:
                B[q, 1] = s if q != 1 else -s
            else:
                B[q, 2] = T.fma(s, s, 1.0)
        for v in T.vectorized(4):
            l[v] = T.int8(v)
        for u in T.unroll(4):
            B[u, u] //= 2.0
            B[u, 0] = T.float16(1.0) + a[0, u]
            B[u, 1] = (u - (u - 1)) * -(u + 1)
            B[u, 2] = T.min(T.abs(s), T.log2(s)) + T.pow(s, 3.0) + T.floor(s) - T.ceil(s)
            B[u, 3] = T.tanh(s) + T.sigmoid(s) + T.rsqrt(s) + T.log(s) + T.exp2(s)
            B[u, 4] = T.sin(s) + T.atan2(s, 2.0) + T.erf(s) + T.round(s) + T.fmod(s, 3.0)
        while cnt < n:
            cnt += 2
        T.evaluate(n)
)";
  IRModule m = parse_kernel_source(source);
  expect_round_trip(m);
}

// T.gemm's policy= is kept by the gemm's index (gemm_policy.h), not its source place, so
// printing (which moves every statement) and parsing again keeps each gemm's policy.
TEST(RoundTrip, GemmWarpPolicies) {
  const char* source = R"(import tilelang.language as T


@T.prim_func
def policies(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        a = T.alloc_shared((64, 64), "float16")
        b = T.alloc_shared((64, 64), "float16")
        c = T.alloc_fragment((64, 64), "float32")
        T.copy(A, a)
        T.copy(B, b)
        T.gemm(a, b, c, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
        T.gemm(a, b, c, policy=T.GemmWarpPolicy.Square)
        for k in T.serial(2):
            T.gemm(a, b, c, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
        T.copy(c, C)
)";
  IRModule m = parse_kernel_source(source);
  const AttrMap& attrs = m.functions()[0]->attrs;
  EXPECT_EQ(gemm_warp_policy(attrs, 0), GemmWarpPolicy::kFullRow);
  EXPECT_EQ(gemm_warp_policy(attrs, 1), GemmWarpPolicy::kSquare);
  EXPECT_EQ(gemm_warp_policy(attrs, 2), GemmWarpPolicy::kFullCol);
  std::string text = print(m);
  EXPECT_NE(text.find("T.gemm(a, b, c, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("transpose_B=True, policy=T.GemmWarpPolicy.FullCol)"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("tilec.gemm_policy"), std::string::npos) << text;
  expect_round_trip(m);
}

}  // namespace
}  // namespace tilec::ir
