# 70000 blocks along grid axis y: past CUDA's, HIP's, Metal's and WebGPU's 65535
# (max_grid_y, a located error there); the CPU and OpenCL run it.
import tilelang.language as T

G = 70000


@T.prim_func
def grid_y_70000(Out: T.Tensor((16,), "int32")):
    with T.Kernel(1, G, threads=32) as (bx, by):
        if by < 16:
            Out[by] = Out[by] + 1
