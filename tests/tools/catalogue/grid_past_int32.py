# A grid of 2**31 + 16 blocks: no target runs that many along one axis (the block
# index is int32), so it is a compile-time error, never a wrapped index.
import tilelang.language as T

G = 2**31 + 16


@T.prim_func
def grid_past_int32(Out: T.Tensor((16,), "int32")):
    with T.Kernel(G, threads=1) as bx:
        if bx < 16:
            Out[bx] = Out[bx] + 1
