# Row-wise inclusive prefix sum Y[i, j] = X[i, 0] + ... + X[i, j], scanned in chunks
# of block_N columns; each row carries its running total from chunk to chunk.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def cumsum(M=64, N=96, block_M=8, block_N=32, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_fragment((block_M, block_N), dtype)
            carry = T.alloc_fragment((block_M,), dtype)
            T.clear(carry)
            for c in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bx * block_M, c * block_N], tile)
                for i in T.Parallel(block_M):
                    for j in T.serial(block_N):
                        carry[i] += tile[i, j]
                        tile[i, j] = carry[i]
                T.copy(tile, Y[bx * block_M, c * block_N])

    return main
