# Chunked causal linear attention, O_t = sum_{s <= t} (q_t · k_s) v_s, computed chunk by
# chunk as chunked linear-attention kernels do (e.g. fla's chunk_linear_attn): within a
# chunk of chunk_size tokens the causal part is a masked (q k^T) v; everything before the
# chunk is carried in a dk x dv state S = sum k_s^T v_s, so O_chunk = mask(q k^T) v + q S,
# after which S += k^T v. One block owns one (batch, head) and walks its chunks in order;
# the final state is a second output.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def chunk_linear_attention(batch=2, heads=2, seq_len=64, dim_k=32, dim_v=32, chunk_size=16,
                           dtype="float16"):
    accum_dtype = "float32"
    scale = dim_k ** -0.5
    num_chunks = T.ceildiv(seq_len, chunk_size)

    @T.prim_func
    def main(
        Q: T.Tensor((batch, seq_len, heads, dim_k), dtype),
        K: T.Tensor((batch, seq_len, heads, dim_k), dtype),
        V: T.Tensor((batch, seq_len, heads, dim_v), dtype),
        Output: T.Tensor((batch, seq_len, heads, dim_v), dtype),
        FinalState: T.Tensor((batch, heads, dim_k, dim_v), accum_dtype),
    ):
        with T.Kernel(heads, batch, threads=128) as (by, bz):
            q = T.alloc_shared((chunk_size, dim_k), dtype)
            k = T.alloc_shared((chunk_size, dim_k), dtype)
            v = T.alloc_shared((chunk_size, dim_v), dtype)
            attn = T.alloc_fragment((chunk_size, chunk_size), accum_dtype)
            attn_shared = T.alloc_shared((chunk_size, chunk_size), dtype)
            state = T.alloc_fragment((dim_k, dim_v), accum_dtype)
            state_shared = T.alloc_shared((dim_k, dim_v), dtype)
            acc_o = T.alloc_fragment((chunk_size, dim_v), accum_dtype)
            T.clear(state)
            for c in T.Pipelined(num_chunks, num_stages=1):
                T.copy(Q[bz, c * chunk_size:(c + 1) * chunk_size, by, :], q)
                T.copy(K[bz, c * chunk_size:(c + 1) * chunk_size, by, :], k)
                T.copy(V[bz, c * chunk_size:(c + 1) * chunk_size, by, :], v)
                for i, j in T.Parallel(chunk_size, dim_k):
                    q[i, j] = q[i, j] * scale
                # Intra-chunk: causal mask on q k^T.
                T.gemm(q, k, attn, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(chunk_size, chunk_size):
                    attn[i, j] = T.if_then_else(i >= j, attn[i, j], 0)
                T.copy(attn, attn_shared)
                T.gemm(attn_shared, v, acc_o, clear_accum=True)
                # Inter-chunk: the state carried from earlier chunks, then this chunk's part.
                T.copy(state, state_shared)
                T.gemm(q, state_shared, acc_o)
                T.gemm(k, v, state, transpose_A=True)
                T.copy(acc_o, Output[bz, c * chunk_size:(c + 1) * chunk_size, by, :])
            T.copy(state, FinalState[bz, by, :, :])

    return main
