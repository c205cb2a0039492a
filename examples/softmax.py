# Row softmax: Y[i, :] = exp(X[i, :] - max(X[i, :])) / sum(exp(...)). Each block
# owns block_M whole rows held in a fragment; the row max and the row sum are
# tile reductions.
import tilelang
import tilelang.language as T

M = 256
N = 128
block_M = 16
dtype = "float32"


@T.prim_func
def softmax(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
    with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
        X_local = T.alloc_fragment((block_M, N), dtype)
        row_max = T.alloc_fragment((block_M,), dtype)
        row_sum = T.alloc_fragment((block_M,), dtype)
        T.copy(X[bx * block_M, 0], X_local)
        T.fill(row_max, -T.infinity(dtype))
        T.reduce_max(X_local, row_max, dim=1, clear=False)
        for i, j in T.Parallel(block_M, N):
            X_local[i, j] = T.exp(X_local[i, j] - row_max[i])
        T.reduce_sum(X_local, row_sum, dim=1)
        for i, j in T.Parallel(block_M, N):
            X_local[i, j] /= row_sum[i]
        T.copy(X_local, Y[bx * block_M, 0])
