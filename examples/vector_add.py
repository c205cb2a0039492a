# Vector add: C = A + B. Each block handles one tile of block_N elements; the
# guard keeps the last block inside the vector when N is not a multiple of block_N.
# bytes: 3 * N * 4
import tilelang
import tilelang.language as T

N = 4096
block_N = 256
dtype = "float32"


@T.prim_func
def vector_add(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            if idx < N:
                C[idx] = A[idx] + B[idx]
