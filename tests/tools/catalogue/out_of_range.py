# Writes one element past the end of A: the interpreter reports it.
import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(17):
            A[i] = 1.0
