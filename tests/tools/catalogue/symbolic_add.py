# Vector add over a symbolic length N (bound from the arguments).
import tilelang.language as T

N = T.symbolic("N")
block_N = 128


@T.prim_func
def add(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            if idx < N:
                C[idx] = A[idx] + B[idx]
