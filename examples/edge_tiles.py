# C = 2 * A + B on a 100 x 70 matrix with 32 x 32 tiles: neither dimension is a
# multiple of the tile, so the last row and column of blocks rely on T.copy's edge
# masking (out-of-bounds elements read as zero and are not written back).
import tilelang
import tilelang.language as T

M = 100
N = 70
block_M = 32
block_N = 32
dtype = "float32"


@T.prim_func
def scale_add(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_tile = T.alloc_shared((block_M, block_N), dtype)
        B_tile = T.alloc_shared((block_M, block_N), dtype)
        C_tile = T.alloc_fragment((block_M, block_N), dtype)
        T.copy(A[by * block_M, bx * block_N], A_tile)
        T.copy(B[by * block_M, bx * block_N], B_tile)
        for i, j in T.Parallel(block_M, block_N):
            C_tile[i, j] = 2.0 * A_tile[i, j] + B_tile[i, j]
        T.copy(C_tile, C[by * block_M, bx * block_N])
