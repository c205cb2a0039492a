# Reads X at positions taken from the index tensor I (data used as indices).
import tilelang.language as T

N = 1000
block = 100


@T.prim_func
def gather(X: T.Tensor((N,), "float32"), I: T.Tensor((N,), "int32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
        for i in T.Parallel(block):
            Y[bx * block + i] = X[I[bx * block + i]]
