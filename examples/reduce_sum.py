# Row sums: Y[i] = sum_j X[i, j], one block per block_M rows, via T.reduce_sum
# over a fragment.
import tilelang
import tilelang.language as T

M = 256
N = 256
block_M = 32
dtype = "float32"


@T.prim_func
def row_sum(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
    with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
        X_shared = T.alloc_shared((block_M, N), dtype)
        X_local = T.alloc_fragment((block_M, N), dtype)
        Y_local = T.alloc_fragment((block_M,), dtype)
        T.copy(X[bx * block_M, 0], X_shared)
        T.copy(X_shared, X_local)
        T.reduce_sum(X_local, Y_local, dim=1)
        T.copy(Y_local, Y[bx * block_M])
