# Tiled GEMM in TileLang's canonical form: C = A @ B with float16 inputs and a
# float32 accumulator. Tiles of A and B are staged in shared memory and the K loop
# is software-pipelined. Grow the problem with e.g. -D M=1024 -D N=1024 -D K=1024.
# flops: 2 * M * N * K
import tilelang
import tilelang.language as T

M = 256
N = 256
K = 256
block_M = 64
block_N = 64
block_K = 32
dtype = "float16"
accum_dtype = "float"


@T.prim_func
def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N])
