import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        tx = T.get_thread_binding(0)
        if tx < 16:
            T.sync_threads()
        A[bx * 32 + tx] = 1.0
