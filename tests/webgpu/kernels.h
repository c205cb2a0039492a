// Kernels written apart from the examples, for the webgpu tests: each runs on wgpu-native and
// matches the interpreter (webgpu_backend_test.cc), and its WGSL also compiles with Tint
// (tint_test.cc). Small on purpose. webgpu_kernels() lists those that take no scalar
// arguments and divide by no zero, with their names (float16 atomics among them: two
// elements per 32-bit word, updated by compare-exchange).
#pragma once

#include <utility>
#include <vector>

namespace tilec::testing {

// Per-thread int32 and float32 atomics (add, max) into global memory on a 2-D block.
inline constexpr const char* kAtomicsKernel = R"PY(
import tilelang.language as T

@T.prim_func
def hist(X: T.Tensor((64, 32), "int32"), H: T.Tensor((8,), "int32"), S: T.Tensor((4,), "float32"),
         Mx: T.Tensor((1,), "float32"), Y: T.Tensor((64, 32), "float32")):
    with T.Kernel(2, threads=(32, 8)) as bx:
        for i, j in T.Parallel(32, 32):
            v = X[bx * 32 + i, j]
            T.atomic_add(H[v % 8], 1)
            T.atomic_add(S[v % 4], T.Cast("float32", v) * 0.5)
            T.atomic_max(Mx[0], T.Cast("float32", v))
            Y[bx * 32 + i, j] = T.Cast("float32", v // 3 - (v % 5))
)PY";

// Scalar arguments (a uniform buffer) and an edge tile; call with a=3, k=7.
inline constexpr const char* kScalarsKernel = R"PY(
import tilelang.language as T

M = 150

@T.prim_func
def axpy(X: T.Tensor((M,), "float32"), Y: T.Tensor((M,), "float32"), a: T.float32, k: T.int32):
    with T.Kernel(T.ceildiv(M, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < M:
                Y[bx * 64 + i] = a * X[bx * 64 + i] + T.Cast("float32", (bx * 64 + i) // k)
)PY";

// An integer division by the scalar d (the status word reports d = 0).
inline constexpr const char* kDivisionKernel = R"PY(
import tilelang.language as T

@T.prim_func
def div(X: T.Tensor((64,), "int32"), Y: T.Tensor((64,), "int32"), d: T.int32):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            Y[i] = X[i] // d
)PY";

inline const std::vector<std::pair<const char*, const char*>>& webgpu_kernels() {
  static const std::vector<std::pair<const char*, const char*>> kernels = {
      {"atomics", kAtomicsKernel},
      {"transpose", R"PY(
import tilelang.language as T

M = 96
N = 80

@T.prim_func
def transpose(A: T.Tensor((M, N), "float32"), B: T.Tensor((N, M), "float32")):
    with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 32), threads=128) as (bx, by):
        tile = T.alloc_shared((32, 32), "float32")
        T.copy(A[by * 32, bx * 32], tile)
        for i, j in T.Parallel(32, 32):
            if bx * 32 + i < N and by * 32 + j < M:
                B[bx * 32 + i, by * 32 + j] = tile[j, i]
)PY"},
      {"row_max", R"PY(
import tilelang.language as T

M = 128
N = 64

@T.prim_func
def row_absmax(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M,), "float32"), Z: T.Tensor((M,), "float32")):
    with T.Kernel(M // 16, threads=64) as bx:
        x = T.alloc_fragment((16, N), "float32")
        mx = T.alloc_fragment((16,), "float32")
        mn = T.alloc_fragment((16,), "float32")
        T.copy(X[bx * 16, 0], x)
        T.reduce_absmax(x, mx, dim=1)
        T.reduce_min(x, mn, dim=1)
        T.copy(mx, Y[bx * 16])
        T.copy(mn, Z[bx * 16])
)PY"},
      {"mask_int8", R"PY(
import tilelang.language as T

N = 250

@T.prim_func
def masked(X: T.Tensor((N,), "int8"), Mk: T.Tensor((N,), "bool"), H: T.Tensor((N,), "int16"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            g = bx * 64 + i
            if g < N:
                Y[g] = T.if_then_else(Mk[g], T.Cast("float32", X[g]) * 2.0 + T.Cast("float32", H[g]), -1.0)
)PY"},
      {"grid3d_shared_atomic", R"PY(
import tilelang.language as T

@T.prim_func
def counts(X: T.Tensor((4, 3, 2, 64), "int32"), C: T.Tensor((4, 3, 2, 8), "int32")):
    with T.Kernel(2, 3, 4, threads=64) as (bx, by, bz):
        h = T.alloc_shared((8,), "int32")
        for i in T.Parallel(8):
            h[i] = 0
        for i in T.Parallel(64):
            T.atomic_add(h[X[bz, by, bx, i] % 8], 1)
        for i in T.Parallel(8):
            C[bz, by, bx, i] = h[i]
)PY"},
      {"gemm_relu", R"PY(
import tilelang.language as T

M = 100
N = 72
K = 48

@T.prim_func
def gemm_bias_relu(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), bias: T.Tensor((N,), "float32"), C: T.Tensor((M, N), "float16")):
    with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 32), threads=128) as (bx, by):
        As = T.alloc_shared((32, 16), "float16")
        Bs = T.alloc_shared((16, 32), "float16")
        acc = T.alloc_fragment((32, 32), "float32")
        T.clear(acc)
        for k in T.Pipelined(T.ceildiv(K, 16), num_stages=2):
            T.copy(A[by * 32, k * 16], As)
            T.copy(B[k * 16, bx * 32], Bs)
            T.gemm(As, Bs, acc)
        for i, j in T.Parallel(32, 32):
            acc[i, j] = T.max(acc[i, j] + T.if_then_else(bx * 32 + j < N, bias[T.min(bx * 32 + j, N - 1)], 0.0), 0.0)
        T.copy(acc, C[by * 32, bx * 32])
)PY"},
      {"float16_atomics", R"PY(
import tilelang.language as T

@T.prim_func
def half_counts(X: T.Tensor((256,), "int32"), H: T.Tensor((8,), "float16")):
    with T.Kernel(4, threads=64) as bx:
        for i in T.Parallel(64):
            T.atomic_add(H[X[bx * 64 + i] % 7], 0.5)
            T.atomic_max(H[7], 1000.0)
)PY"},
  };
  return kernels;
}

}  // namespace tilec::testing
