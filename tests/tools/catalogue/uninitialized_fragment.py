# Accumulates into a fragment that nothing cleared: the interpreter reports the
# first read of an element before any write.
import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        acc = T.alloc_fragment((64,), "float32")
        for i in T.Parallel(64):
            acc[i] = acc[i] + A[i]
        T.copy(acc, B)
