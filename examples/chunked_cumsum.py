# Row-wise inclusive prefix sum in two launches, the way chunked scans are written in
# TileLang: the first grid scans each chunk of block_N columns on its own (T.cumsum on a
# shared tile) and records every chunk's total; the second grid, launched after the
# first has finished, adds to each chunk the totals of the chunks before it.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def chunked_cumsum(M=64, N=256, block_M=8, block_N=64, dtype="float32"):
    num_chunks = T.ceildiv(N, block_N)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Totals: T.Tensor((M, num_chunks), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), num_chunks, threads=64) as (bx, by):
            tile = T.alloc_shared((block_M, block_N), dtype)
            T.clear(tile)
            T.copy(X[bx * block_M, by * block_N], tile)
            T.cumsum(tile, dim=1)
            T.copy(tile, Y[bx * block_M, by * block_N])
            for i in T.Parallel(block_M):
                if bx * block_M + i < M:
                    Totals[bx * block_M + i, by] = tile[i, block_N - 1]

        with T.Kernel(T.ceildiv(M, block_M), num_chunks, threads=64) as (bx, by):
            carry = T.alloc_shared((block_M,), dtype)
            T.clear(carry)
            for c in T.serial(by):
                for i in T.Parallel(block_M):
                    if bx * block_M + i < M:
                        carry[i] += Totals[bx * block_M + i, c]
            for i, j in T.Parallel(block_M, block_N):
                if bx * block_M + i < M and by * block_N + j < N:
                    Y[bx * block_M + i, by * block_N + j] += carry[i]

    return main
