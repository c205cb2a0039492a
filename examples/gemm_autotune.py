# Autotuned GEMM written as TileLang's examples/gemm/example_gemm_autotune.py is: the
# block sizes are the kernel's None-defaulted parameters, get_configs builds the search
# space with itertools.product, and AutoTuner.from_kernel(...).run() drives the search.
# `tilec tune examples/gemm_autotune.py` tunes it; `tilec run` then uses the best config.
# Each config is C = A @ B^T with float16 inputs and a float32 accumulator.
# flops: 2 * M * N * K
import itertools

import tilelang as tl
import tilelang.language as T
from tilelang.autotuner import AutoTuner


def ref_program(A, B):
    return A @ B.T


def get_configs(M, N, K):
    block_M = [32, 64]
    block_N = [32, 64]
    block_K = [32]
    num_stages = [0, 2]
    thread_num = [128]
    _configs = list(itertools.product(block_M, block_N, block_K, num_stages, thread_num))
    configs = [
        {
            "block_M": c[0],
            "block_N": c[1],
            "block_K": c[2],
            "num_stages": c[3],
            "thread_num": c[4],
        }
        for c in _configs
    ]
    # A config the kernel refuses (its tile would not fit the shared-memory budget the
    # factory asserts): the tuner reports it and goes on.
    configs.append({"block_M": 512, "block_N": 512, "block_K": 32, "num_stages": 2, "thread_num": 128})
    return configs


def get_best_config(M=256, N=256, K=128):

    def kernel(
        block_M=None,
        block_N=None,
        block_K=None,
        num_stages=None,
        thread_num=None,
    ):
        dtype = "float16"
        accum_dtype = "float"
        assert (block_M + block_N) * block_K * 2 <= 48 * 1024, "the tiles exceed 48 KB of shared memory"

        @T.prim_func
        def main(
                A: T.Tensor((M, K), dtype),
                B: T.Tensor((N, K), dtype),
                C: T.Tensor((M, N), dtype),
        ):
            with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
                A_shared = T.alloc_shared((block_M, block_K), dtype)
                B_shared = T.alloc_shared((block_N, block_K), dtype)
                C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
                T.clear(C_local)
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                    T.copy(A[by * block_M, k * block_K], A_shared)
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                    T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                T.copy(C_local, C[by * block_M, bx * block_N])

        return main

    autotuner = AutoTuner.from_kernel(
        kernel=kernel, configs=get_configs(M, N, K)).set_compile_args(
            out_idx=[-1],
            target="auto",
        ).set_profile_args(
            supply_type=tl.TensorSupplyType.Integer,
            ref_prog=ref_program,
            skip_check=False,
        )
    return autotuner.run(warmup=3, rep=20)


def main(m=256, n=256, k=128):
    result = get_best_config(m, n, k)
    print(result.config)


if __name__ == "__main__":
    main()
