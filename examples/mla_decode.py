# Multi-head latent attention (MLA, as in DeepSeek-V2/V3) for decoding, FlashMLA-style:
# every query head of a batch attends over one shared compressed KV cache: a latent part
# KV (dim wide) that serves as both keys and values, plus a rotary part K_pe (pe_dim
# wide) that only the keys have, so scores = Q·KV^T + Q_pe·K_pe^T. One block takes
# block_H heads of one batch entry; the KV sequence is split into num_split parts, each
# reduced with its own online softmax (in base 2) to a partial output and log-sum-exp,
# and the parts are combined at the end as FlashDecoding does (tilec runs one T.Kernel
# per function, so the block that computed the splits also combines them).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mla_decode(batch=2, heads=16, seqlen_kv=128, dim=64, pe_dim=16, block_H=8, block_N=32,
               num_split=2, dtype="float16"):
    scale = (1.0 / (dim + pe_dim)) ** 0.5 * 1.44269504  # log2(e): exp2 instead of exp
    accum_dtype = "float32"
    blocks_per_split = seqlen_kv // (block_N * num_split)
    assert seqlen_kv % (block_N * num_split) == 0

    @T.prim_func
    def main(
        Q: T.Tensor((batch, heads, dim), dtype),
        Q_pe: T.Tensor((batch, heads, pe_dim), dtype),
        KV: T.Tensor((batch, seqlen_kv, 1, dim), dtype),
        K_pe: T.Tensor((batch, seqlen_kv, 1, pe_dim), dtype),
        Output: T.Tensor((batch, heads, dim), dtype),
    ):
        with T.Kernel(heads // block_H, batch, threads=128) as (hx, bx):
            Q_shared = T.alloc_shared((block_H, dim), dtype)
            Q_pe_shared = T.alloc_shared((block_H, pe_dim), dtype)
            KV_shared = T.alloc_shared((block_N, dim), dtype)
            K_pe_shared = T.alloc_shared((block_N, pe_dim), dtype)
            S_shared = T.alloc_shared((block_H, block_N), dtype)
            acc_s = T.alloc_fragment((block_H, block_N), accum_dtype)
            acc_o = T.alloc_fragment((block_H, dim), accum_dtype)
            scores_max = T.alloc_fragment((block_H,), accum_dtype)
            scores_max_prev = T.alloc_fragment((block_H,), accum_dtype)
            scores_scale = T.alloc_fragment((block_H,), accum_dtype)
            scores_sum = T.alloc_fragment((block_H,), accum_dtype)
            logsum = T.alloc_fragment((block_H,), accum_dtype)
            o_split = T.alloc_shared((block_H, num_split, dim), accum_dtype)
            lse_split = T.alloc_shared((block_H, num_split), accum_dtype)
            lse_max = T.alloc_fragment((block_H,), accum_dtype)
            weight = T.alloc_shared((block_H, num_split), accum_dtype)
            weight_sum = T.alloc_fragment((block_H,), accum_dtype)

            T.copy(Q[bx, hx * block_H:(hx + 1) * block_H, :], Q_shared)
            T.copy(Q_pe[bx, hx * block_H:(hx + 1) * block_H, :], Q_pe_shared)
            for s in T.serial(num_split):
                T.fill(acc_o, 0)
                T.fill(logsum, 0)
                T.fill(scores_max, -T.infinity(accum_dtype))
                for k in T.Pipelined(blocks_per_split, num_stages=2):
                    kv_start = (s * blocks_per_split + k) * block_N
                    T.copy(KV[bx, kv_start:kv_start + block_N, 0, :], KV_shared)
                    T.copy(K_pe[bx, kv_start:kv_start + block_N, 0, :], K_pe_shared)
                    T.clear(acc_s)
                    T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                           policy=T.GemmWarpPolicy.FullCol)
                    T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                           policy=T.GemmWarpPolicy.FullCol)
                    T.copy(scores_max, scores_max_prev)
                    T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                    for i in T.Parallel(block_H):
                        scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                    for i, j in T.Parallel(block_H, block_N):
                        acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                    T.reduce_sum(acc_s, scores_sum, dim=1)
                    for i in T.Parallel(block_H):
                        logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                    for i, j in T.Parallel(block_H, dim):
                        acc_o[i, j] *= scores_scale[i]
                    T.copy(acc_s, S_shared)
                    T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
                for i, j in T.Parallel(block_H, dim):
                    o_split[i, s, j] = acc_o[i, j] / logsum[i]
                for i in T.Parallel(block_H):
                    lse_split[i, s] = T.log2(logsum[i]) + scores_max[i] * scale
            # Combine the splits: weights 2^(lse_s - max lse), normalised.
            T.reduce_max(lse_split, lse_max, dim=1)
            for i, s in T.Parallel(block_H, num_split):
                weight[i, s] = T.exp2(lse_split[i, s] - lse_max[i])
            T.reduce_sum(weight, weight_sum, dim=1)
            T.clear(acc_o)
            for s in T.serial(num_split):
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] += o_split[i, s, j] * weight[i, s] / weight_sum[i]
            T.copy(acc_o, Output[bx, hx * block_H:(hx + 1) * block_H, :])

    return main
