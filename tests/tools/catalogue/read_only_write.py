import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((16,), "float32", read_only=True)):
    with T.Kernel(1) as bx:
        for i in T.Parallel(16):
            A[i] = 1.0
