# Weight-only quantized GEMM C = A @ dequant(B)^T: B holds two signed 4-bit weights
# per uint8 byte (low nibble first, stored with a +8 bias) and one float scale per
# output column; each K tile is unpacked with bitwise operators into a float16
# fragment and multiplied with T.gemm.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def dequant_matmul(M=64, N=48, K=64, block_M=32, block_N=16, block_K=32, in_dtype="float16",
                   storage_dtype="uint8", accum_dtype="float32", num_bits=4):
    pack = 8 // num_bits
    mask = (1 << num_bits) - 1
    bias = 1 << (num_bits - 1)
    # B packs `pack` weights per byte along K: an odd K would leave its last weight unstored.
    assert K % pack == 0, "K must be a multiple of 8 // num_bits (the weights per byte)"

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K // pack), storage_dtype),
             Scale: T.Tensor((N,), in_dtype), C: T.Tensor((M, N), in_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_packed = T.alloc_shared((block_N, block_K // pack), storage_dtype)
            B_dequant = T.alloc_fragment((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            Scale_shared = T.alloc_shared((block_N,), in_dtype)
            # T.copy masks the columns past N in the last tile (Scale[bx * block_N + i]
            # would read past its end when N is not a multiple of block_N).
            T.copy(Scale[bx * block_N], Scale_shared)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[bx * block_N, ko * (block_K // pack)], B_packed)
                for i, j in T.Parallel(block_N, block_K):
                    byte = T.Cast("int32", B_packed[i, j // pack])
                    q = (byte >> (num_bits * (j % pack))) & mask
                    B_dequant[i, j] = T.Cast(in_dtype, q - bias) * Scale_shared[i]
                T.gemm(A_shared, B_dequant, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
