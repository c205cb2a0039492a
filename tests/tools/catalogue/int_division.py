import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((16,), "int32")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(16):
            A[i] = i / 2
