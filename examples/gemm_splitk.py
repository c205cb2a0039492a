# Split-K GEMM C += A @ B^T: the K dimension is cut into split_k slices, one per
# grid layer bz; each block adds its partial tile into C with T.atomic_add, which
# is atomic across the blocks the CPU thread pool runs at once. C holds float32
# (atomics on float16 are not portable); its initial contents are accumulated into.
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul_split_k(M=64, N=48, K=128, block_M=32, block_N=16, block_K=16, split_k=4,
                   dtype="float16", accum_dtype="float32"):
    # Each slice is a whole number of block_K tiles (rounded up, so the slices cover all of
    # K at any size); T.copy masks the columns past K in the last ones. A slice that is not
    # a multiple of block_K would make neighbouring slices read the same columns twice.
    split_size = -(-K // (split_k * block_K)) * block_K

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k,
                      threads=128) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(split_size, block_K), num_stages=2):
                T.copy(A[by * block_M, bz * split_size + ko * block_K], A_shared)
                T.copy(B[bx * block_N, bz * split_size + ko * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.atomic_add(C[by * block_M, bx * block_N], C_local)

    return main
