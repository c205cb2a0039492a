# Three grid axes of n blocks each: with n=2000000000 every axis fits int32 but the CPU host's
# total (n^3, about 8e27) does not fit int64; refused at run time, never wrapped.
import tilelang.language as T


@T.prim_func
def grid_total_past_int64(Out: T.Tensor((1,), "int64"), n: T.int64):
    with T.Kernel(n, n, n, threads=1) as (bx, by, bz):
        Out[0] = 1
