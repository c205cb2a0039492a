# GEMM C = A @ B in TileLang's factory style: block shapes and dtypes are factory
# parameters, blocks are visited in a swizzled order (T.use_swizzle, better L2 reuse
# on GPUs), the warp layout is chosen with policy=, and the block indices come from
# T.get_block_binding inside an anonymous T.Kernel.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=96, N=80, K=64, block_M=32, block_N=16, block_K=16, dtype="float16",
           accum_dtype="float32", num_stages=2, enable_swizzle=True):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128):
            bx = T.get_block_binding(0)
            by = T.get_block_binding(1)
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(panel_size=4, enable=enable_swizzle)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, policy=T.GemmWarpPolicy.FullRow, k_pack=1)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
