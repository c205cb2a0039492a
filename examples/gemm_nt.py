# Float32 GEMM with B stored transposed: C = A @ B^T, B of shape (N, K), as in
# attention's Q @ K^T. T.gemm(..., transpose_B=True) reads b(k, n) = B[n, k].
# -D M=1024 -D N=1024 -D K=1024 gives a benchmark-sized problem.
import tilelang
import tilelang.language as T

M = 256
N = 256
K = 256
block_M = 64
block_N = 64
block_K = 32
dtype = "float32"


@T.prim_func
def gemm_nt(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_N, block_K), dtype)
        C_local = T.alloc_fragment((block_M, block_N), dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[bx * block_N, k * block_K], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)
        T.copy(C_local, C[by * block_M, bx * block_N])
