# B = A * alpha + n: a float scalar parameter (alpha) and an integer one (n), given with
# --shape (a float for n is an error naming it, its dtype and the value).
import tilelang.language as T


@T.prim_func
def scale(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32"),
          alpha: T.float32 = 1.5, n: T.int32 = 2):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            B[i] = A[i] * alpha + n
