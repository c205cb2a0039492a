// Tile operations on views (T.reshape / T.view results), as TileLang's own tests write
// them (testing/python/language/test_tilelang_language_reshape.py): T.copy from and to a
// view of a tensor, a shared tile and a fragment, T.copy with an origin or slices of a
// view, T.fill / T.clear of a view region, T.reduce_* of a reshaped fragment (2-D and
// 3-D), a tile T.atomic_add into a view and T.gemm with views of shared tiles. Checked against the
// meaning itself in the interpreter (a view keeps the row-major element order), then on every
// backend that runs here against the interpreter (the error paths are in buffer_view_test.cc).
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"

#include <cmath>

namespace tilec {
namespace {

const char* kViewTileOps = R"(import tilelang
import tilelang.language as T

N = 256
M = 16


@T.prim_func
def copy_from_tensor_view(A: T.Tensor((N,), "float32"), B: T.Tensor((N // M, M), "float32")):
    with T.Kernel(1, threads=32) as _:
        A_reshaped = T.reshape(A, [N // M, M])
        T.copy(A_reshaped, B)


@T.prim_func
def copy_from_shared_view(A: T.Tensor((N // M, M), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(1, threads=32) as _:
        A_shared = T.alloc_shared((N // M, M), "float32")
        for i, j in T.Parallel(N // M, M):
            A_shared[i, j] = A[i, j]
        A_smem_reshaped = T.reshape(A_shared, [N])
        T.copy(A_smem_reshaped, B)


@T.prim_func
def copy_from_fragment_view(A: T.Tensor((N // M, M), "float16"), B: T.Tensor((N,), "float16")):
    with T.Kernel(1, threads=32) as _:
        A_shared = T.alloc_shared((N // M, M), "float16", scope="shared")
        A_local = T.alloc_fragment((N // M, M), "float16")
        B_shared = T.alloc_shared((N,), "float16", scope="shared")
        T.copy(A, A_shared)
        T.copy(A_shared, A_local)
        A_local_reshape = T.reshape(A_local, [N])
        T.copy(A_local_reshape, B_shared)
        T.copy(B_shared, B)


@T.prim_func
def copy_into_view_tiles(A: T.Tensor((64, 32), "float32"), B: T.Tensor((64 * 32,), "float32")):
    with T.Kernel(2, 4, threads=64) as (bx, by):
        A_shared = T.alloc_shared((16, 16), "float32")
        Bv = T.view(B, (64, 32))
        T.copy(A[by * 16, bx * 16], A_shared)
        T.copy(A_shared, Bv[by * 16:(by + 1) * 16, bx * 16:(bx + 1) * 16])


@T.prim_func
def fill_view_regions(C: T.Tensor((8, 12), "float32")):
    with T.Kernel(1, threads=32) as _:
        C_local = T.alloc_fragment((96,), "float32")
        Cv = T.reshape(C_local, (8, 12))
        T.clear(Cv)
        T.fill(Cv[2:4, :], 1.5)
        T.fill(Cv[6, 3:9], -2.0)
        T.copy(Cv, C)


@T.prim_func
def reduce_after_reshape(A: T.Tensor((N,), "float32"), B: T.Tensor((N // M,), "float32")):
    with T.Kernel(1, threads=32) as _:
        A_shared = T.alloc_shared((N,), "float32", scope="shared")
        A_local = T.alloc_fragment((N,), "float32")
        B_local = T.alloc_fragment((N // M,), "float32")
        T.copy(A, A_shared)
        T.copy(A_shared, A_local)
        A_local_reshape = T.reshape(A_local, [N // M, M])
        T.reduce_max(A_local_reshape, B_local, dim=1)
        T.copy(B_local, B)


@T.prim_func
def reduce_absmax_3d(A: T.Tensor((2, 384), "float32"), B: T.Tensor((2, 3), "float32")):
    with T.Kernel(1, threads=128) as _:
        A_local = T.alloc_fragment((2, 384), "float32")
        A_reshaped = T.reshape(A_local, [2, 3, 128])
        B_local = T.alloc_fragment((6,), "float32")
        T.copy(A, A_local)
        T.reduce_absmax(A_reshaped, T.reshape(B_local, (2, 3)), dim=2)
        T.copy(T.reshape(B_local, (2, 3)), B)


@T.prim_func
def sum_into_view_keeps_it(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4,), "float32")):
    with T.Kernel(1, threads=32) as _:
        A_local = T.alloc_fragment((4, 8), "float32")
        acc = T.alloc_fragment((2, 2), "float32")
        T.copy(A, A_local)
        T.fill(acc, 1.0)
        T.reduce_sum(A_local, T.view(acc, (4,)), dim=1, clear=False)
        T.copy(T.view(acc, (4,)), B)


@T.prim_func
def atomic_into_view(A: T.Tensor((4, 64), "float32"), C: T.Tensor((128,), "float32")):
    with T.Kernel(4, threads=32) as bx:
        A_local = T.alloc_fragment((2, 32), "float32")
        Cv = T.reshape(C, (2, 64))
        for i, j in T.Parallel(2, 32):
            A_local[i, j] = A[bx, i * 32 + j]
        T.atomic_add(Cv[0, (bx % 2) * 32], A_local)


@T.prim_func
def gemm_on_shared_views(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32"),
                         C: T.Tensor((64, 64), "float32")):
    with T.Kernel(2, 2, threads=128) as (bx, by):
        A_shared = T.alloc_shared((32 * 16,), "float32")
        B_shared = T.alloc_shared((16 * 32,), "float32")
        C_local = T.alloc_fragment((32, 32), "float32")
        Av = T.reshape(A_shared, (32, 16))
        Bv = T.view(B_shared, (16, 32))
        T.clear(C_local)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[by * 32, k * 16], Av)
            T.copy(B[k * 16, bx * 32], Bv)
            T.gemm(Av, Bv, C_local)
        T.copy(C_local, C[by * 32, bx * 32])
)";

ir::IRModule parse_view_tile_ops() {
  ir::ParseOptions options;
  options.filename = "view_tile_ops.py";
  ir::IRModule mod = ir::parse_kernel_source(kViewTileOps, options);
  ir::check_module_or_throw(mod, options.filename, kViewTileOps);
  return mod;
}

const ir::PrimFunc& function(const ir::IRModule& mod, const std::string& name) {
  for (const auto& f : mod.functions())
    if (f->name == name) return f;
  throw std::runtime_error("no function " + name);
}

// Interprets `name` on random inputs; its tensors afterwards.
std::vector<ir::HostTensor> interpreted(const ir::IRModule& mod, const std::string& name) {
  ir::RandomArgs args = ir::make_random_args(function(mod, name), {}, 5);
  ir::interpret(function(mod, name), args.args);
  return args.tensors;
}

TEST(ViewTileOps, CopiesKeepTheRowMajorElementOrder) {
  ir::IRModule mod = parse_view_tile_ops();
  for (const char* name :
       {"copy_from_tensor_view", "copy_from_shared_view", "copy_from_fragment_view"}) {
    std::vector<ir::HostTensor> t = interpreted(mod, name);
    for (int64_t f = 0; f < 256; ++f) EXPECT_EQ(t[1].get(f), t[0].get(f)) << name << " " << f;
  }
  std::vector<ir::HostTensor> t = interpreted(mod, "copy_into_view_tiles");
  for (int64_t f = 0; f < 64 * 32; ++f) EXPECT_EQ(t[1].get(f), t[0].get(f)) << f;
}

TEST(ViewTileOps, FillsWriteTheViewRegions) {
  std::vector<ir::HostTensor> t = interpreted(parse_view_tile_ops(), "fill_view_regions");
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 12; ++j) {
      double want = (i == 2 || i == 3) ? 1.5 : (i == 6 && j >= 3 && j < 9) ? -2.0 : 0.0;
      EXPECT_EQ(t[0].get(i * 12 + j), want) << i << ", " << j;
    }
}

TEST(ViewTileOps, ReductionsReduceTheViewsDimension) {
  ir::IRModule mod = parse_view_tile_ops();
  std::vector<ir::HostTensor> t = interpreted(mod, "reduce_after_reshape");
  for (int64_t r = 0; r < 16; ++r) {
    double want = -INFINITY;
    for (int64_t c = 0; c < 16; ++c) want = std::max(want, t[0].get(r * 16 + c));
    EXPECT_EQ(t[1].get(r), want) << r;
  }
  t = interpreted(mod, "reduce_absmax_3d");
  for (int64_t m = 0; m < 2; ++m)
    for (int64_t g = 0; g < 3; ++g) {
      double want = 0;
      for (int64_t c = 0; c < 128; ++c)
        want = std::max(want, std::abs(t[0].get(m * 384 + g * 128 + c)));
      EXPECT_EQ(t[1].get(m * 3 + g), want) << m << ", " << g;
    }
  t = interpreted(mod, "sum_into_view_keeps_it");
  for (int64_t r = 0; r < 4; ++r) {
    double want = 1.0;
    for (int64_t c = 0; c < 8; ++c) want += t[0].get(r * 8 + c);
    EXPECT_NEAR(t[1].get(r), want, 1e-5) << r;
  }
}

TEST(ViewTileOps, TileAtomicsAddIntoTheViewsElements) {
  ir::IRModule mod = parse_view_tile_ops();
  std::vector<ir::HostTensor> t = interpreted(mod, "atomic_into_view");
  // The same seed gives the same arguments: C as it was before the adds.
  ir::HostTensor before = ir::make_random_args(function(mod, "atomic_into_view"), {}, 5).tensors[1];
  // Blocks 0 and 2 add their rows into C's columns 0..31 of each view row, 1 and 3 into 32..63.
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 64; ++c) {
      int64_t first = c < 32 ? 0 : 1, j = c % 32;
      double want = before.get(r * 64 + c) + t[0].get(first * 64 + r * 32 + j) +
                    t[0].get((first + 2) * 64 + r * 32 + j);
      EXPECT_NEAR(t[1].get(r * 64 + c), want, 1e-5) << r << ", " << c;
    }
}

TEST(ViewTileOps, GemmOnViewsIsTheProduct) {
  std::vector<ir::HostTensor> t = interpreted(parse_view_tile_ops(), "gemm_on_shared_views");
  for (int64_t i = 0; i < 64; i += 7)
    for (int64_t j = 0; j < 64; j += 5) {
      double want = 0;
      for (int64_t k = 0; k < 64; ++k) want += t[0].get(i * 64 + k) * t[1].get(k * 64 + j);
      EXPECT_NEAR(t[2].get(i * 64 + j), want, 1e-3) << i << ", " << j;
    }
}

class ViewTileOpBackends : public testing::EngineTest,
                           public ::testing::WithParamInterface<testing::CpuBackend> {};

TEST_P(ViewTileOpBackends, MatchTheInterpreter) {
  const testing::CpuBackend& backend = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
  ir::IRModule mod = parse_view_tile_ops();
  Kernel kernel = testing::compile_on(mod, backend);
  for (const auto& func : mod.functions()) {
    auto result = testing::run_and_compare(kernel, func);
    EXPECT_TRUE(result.ok) << func->name << ": " << result.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(TileLang, ViewTileOpBackends,
                         ::testing::ValuesIn(testing::runnable_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

}  // namespace
}  // namespace tilec
