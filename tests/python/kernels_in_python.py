"""Kernels written as Python functions in the kernel syntax, for test_kernels.py: a
module of their own, as a user's would be (tilec.compile reads their source)."""

import tilec
import tilec.language as T

N = T.symbolic("N")
block = 32
dtype = "float32"

M_GEMM = 64
N_GEMM = 48
K_GEMM = 40


@T.prim_func
def vadd(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
    with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
        for i in T.Parallel(block):
            idx = bx * block + i
            if idx < N:
                C[idx] = A[idx] + B[idx]


@tilec.jit(out_idx=[-1])
@T.prim_func
def gemm(
    A: T.Tensor((M_GEMM, K_GEMM), dtype), B: T.Tensor((K_GEMM, N_GEMM), dtype), C: T.Tensor((M_GEMM, N_GEMM), dtype)
):
    with T.Kernel(T.ceildiv(N_GEMM, 32), T.ceildiv(M_GEMM, 32), threads=128) as (bx, by):
        A_shared = T.alloc_shared((32, 16), dtype)
        B_shared = T.alloc_shared((16, 32), dtype)
        C_local = T.alloc_fragment((32, 32), dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K_GEMM, 16), num_stages=2):
            T.copy(A[by * 32, k * 16], A_shared)
            T.copy(B[k * 16, bx * 32], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * 32, bx * 32])


def make_offset_kernel(offset):
    """A closure: the kernel uses a constant of the enclosing function."""

    @T.prim_func
    def add_offset(A: T.Tensor((16,), "float32"), B: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=16) as bx:
            for i in T.Parallel(16):
                B[i] = A[i] + offset

    return add_offset


@tilec.jit(out_idx=[-1])
def matmul_factory(M, N, K, block_M=32, block_N=32, block_K=16):
    """TileLang's factory form (a function returning a @T.prim_func)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@T.prim_func
def broken(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16) as bx:
        T.no_such_op(A)
