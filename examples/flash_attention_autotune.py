# FlashAttention forward (examples/flash_attention.py) under TileLang's @autotune, as
# TileLang's examples/flash_attention/example_mha_fwd_bshd.py tunes it: get_configs
# builds the block sizes, pipeline depths and thread counts with dict(zip(...)) over
# itertools.product(*...), and the decorator's configs= names them. `tilec tune` searches them;
# the factory's defaults apply until a tuned config is cached.
# flops: 4 * batch * heads * seq_len * seq_len * dim // 2
import itertools

import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


def get_configs():
    iter_params = dict(block_M=[16, 32], block_N=[16, 32], num_stages=[1, 2], threads=[128])
    return [dict(zip(iter_params, values)) for values in itertools.product(*iter_params.values())]


@autotune(configs=get_configs(), warmup=10, rep=10)
@tilelang.jit(out_idx=[3])
def flash_attention(batch=2, heads=4, groups=2, seq_len=64, dim=32, block_M=16, block_N=16,
                    num_stages=1, threads=128, is_causal=True, dtype="float16"):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # softmax in base 2: log2(e)
    head_kv = heads // groups
    q_shape = (batch, seq_len, heads, dim)
    kv_shape = (batch, seq_len, head_kv, dim)
    accum_dtype = "float32"

    @T.macro
    def online_softmax(acc_s, acc_o, scores_max, scores_max_prev, scores_sum, logsum):
        T.copy(scores_max, scores_max_prev)
        T.reduce_max(acc_s, scores_max, dim=1, clear=False)
        for i, j in T.Parallel(block_M, block_N):
            acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
        for i, j in T.Parallel(block_M, dim):
            acc_o[i, j] *= T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
        T.reduce_sum(acc_s, scores_sum, dim=1)
        for i in T.Parallel(block_M):
            logsum[i] = logsum[i] * T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale) + scores_sum[i]

    @T.prim_func
    def main(
        Q: T.Tensor(q_shape, dtype),
        K: T.Tensor(kv_shape, dtype),
        V: T.Tensor(kv_shape, dtype),
        Output: T.Tensor(q_shape, dtype),
    ):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), dtype)
            K_shared = T.alloc_shared((block_N, dim), dtype)
            V_shared = T.alloc_shared((block_N, dim), dtype)
            O_shared = T.alloc_shared((block_M, dim), dtype)
            acc_s = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_s_cast = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), accum_dtype)
            scores_max = T.alloc_fragment((block_M,), accum_dtype)
            scores_max_prev = T.alloc_fragment((block_M,), accum_dtype)
            scores_sum = T.alloc_fragment((block_M,), accum_dtype)
            logsum = T.alloc_fragment((block_M,), accum_dtype)
            kv_head = by // groups

            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))
            loop_range = (
                T.ceildiv((bx + 1) * block_M, block_N) if is_causal else T.ceildiv(seq_len, block_N))
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(K[bz, k * block_N:(k + 1) * block_N, kv_head, :], K_shared)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, 0,
                                                     -T.infinity(acc_s.dtype))
                else:
                    T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                online_softmax(acc_s, acc_o, scores_max, scores_max_prev, scores_sum, logsum)
                T.copy(acc_s, acc_s_cast)
                T.copy(V[bz, k * block_N:(k + 1) * block_N, kv_head, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main
