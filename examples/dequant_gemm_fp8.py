# Float8 weight GEMM C = A @ dequant(B)^T: B holds one float8_e4m3 weight per byte (the
# OCP/TVM e4m3fn format) and one float32 scale per output column; each K tile of B is
# widened to float16, scaled, and multiplied with T.gemm accumulating in float32.
# -D weight_dtype=float8_e5m2 runs the same kernel on e5m2 weights.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def fp8_dequant_matmul(M=64, N=48, K=64, block_M=32, block_N=16, block_K=32,
                       in_dtype="float16", weight_dtype="float8_e4m3", accum_dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K), weight_dtype),
             Scale: T.Tensor((N,), "float32"), C: T.Tensor((M, N), in_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K), weight_dtype)
            B_dequant = T.alloc_fragment((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            Scale_shared = T.alloc_shared((block_N,), "float32")
            # T.copy masks the columns past N in the last tile (Scale[bx * block_N + i]
            # would read past its end when N is not a multiple of block_N).
            T.copy(Scale[bx * block_N], Scale_shared)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[bx * block_N, ko * block_K], B_shared)
                for i, j in T.Parallel(block_N, block_K):
                    w = T.Cast("float32", B_shared[i, j]) * Scale_shared[i]
                    B_dequant[i, j] = T.Cast(in_dtype, w)
                T.gemm(A_shared, B_dequant, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
