import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1) as bx:
        A[0] = (1.0 +
