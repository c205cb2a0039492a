# LayerNorm over the last dimension with an affine weight and bias, as a factory:
# mean and variance are tile reductions of a fragment holding block_M whole rows.
import tilelang
import tilelang.language as T


def num_blocks(rows, block):
    return (rows + block - 1) // block


@tilelang.jit(out_idx=[-1])
def layer_norm(M=64, N=64, block_M=8, eps=1e-5, dtype="float32"):
    accum_dtype = "float32"
    grid = num_blocks(M, block_M)

    @T.prim_func(private=True)
    def main(
        X: T.Tensor[(M, N), dtype],
        Wt: T.Tensor[(N,), dtype],
        Bias: T.Tensor[(N,), dtype],
        Y: T.Tensor[(M, N), dtype],
    ):
        T.func_attr({"tir.noalias": True})
        with T.Kernel(grid, threads=128) as bx:
            x = T.alloc_fragment((block_M, N), accum_dtype)
            centered = T.alloc_fragment((block_M, N), accum_dtype)
            mean = T.alloc_fragment((block_M,), accum_dtype)
            var = T.alloc_fragment((block_M,), accum_dtype)
            T.copy(X[bx * block_M, 0], x)
            T.reduce_sum(x, mean, dim=1)
            for i in T.Parallel(block_M):
                mean[i] = mean[i] / N
            for i, j in T.Parallel(block_M, N):
                centered[i, j] = (x[i, j] - mean[i]) * (x[i, j] - mean[i])
            T.reduce_sum(centered, var, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = (x[i, j] - mean[i]) * T.rsqrt(var[i] / N + eps) * Wt[j] + Bias[j]
            T.copy(x, Y[bx * block_M, 0])

    return main
