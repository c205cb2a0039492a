# GEMV y = A @ x written with per-thread code, in the style of TileLang's examples/gemv:
# a block computes BLOCK_N outputs with threads=(reduce_threads, BLOCK_N); thread (tk, tn)
# sums its strip of row tn in a register, the strips meet in shared memory and are
# combined by a tree reduction, one T.sync_threads() after every halving step.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def splitk_gemv(N=256, K=500, BLOCK_N=8, log_reduce=4, dtype="float16", accum_dtype="float32"):
    reduce_threads = 1 << log_reduce
    TILE_K = T.ceildiv(K, reduce_threads)

    @T.prim_func
    def main(A: T.Tensor((N, K), dtype), x: T.Tensor((K,), dtype), y: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(reduce_threads, BLOCK_N)) as bn:
            tk = T.get_thread_binding(0)
            tn = T.get_thread_binding(1)
            partial = T.alloc_shared((BLOCK_N, reduce_threads), accum_dtype)
            acc = T.alloc_local((1,), accum_dtype)
            T.clear(acc)
            row = bn * BLOCK_N + tn
            for k in T.serial(TILE_K):
                kk = tk * TILE_K + k
                if kk < K and row < N:
                    acc[0] += A[row, kk].astype(accum_dtype) * x[kk].astype(
                        accum_dtype)
            partial[tn, tk] = acc[0]
            T.sync_threads()
            for s in T.serial(log_reduce):
                half = reduce_threads >> (s + 1)
                if tk < half:
                    partial[tn, tk] += partial[tn, tk + half]
                T.sync_threads()
            if tk == 0 and row < N:
                y[row] = partial[tn, 0]

    return main
