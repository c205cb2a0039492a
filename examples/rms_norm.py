# RMSNorm, Y[i, :] = X[i, :] * rsqrt(mean(X[i, :]^2) + eps) * W, written as TileLang
# users write it: a factory whose parameters (sizes, block shape, eps, dtype) come
# from `tilec -D NAME=VALUE` or their defaults, returning the @T.prim_func.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def rms_norm(M=96, N=64, block_M=16, eps=1e-6, dtype="float32", accum_dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), accum_dtype)
            sq = T.alloc_fragment((block_M, N), accum_dtype)
            rstd = T.alloc_fragment((block_M,), accum_dtype)
            T.copy(X[bx * block_M, 0], x)
            for i, j in T.Parallel(block_M, N):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, rstd, dim=1)
            for i in T.Parallel(block_M):
                rstd[i] = T.rsqrt(rstd[i] / N + eps)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] * rstd[i] * W[j]
            T.copy(x, Y[bx * block_M, 0])

    return main
