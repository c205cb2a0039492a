import tilelang.language as T


# TileLang's composable-index copy (testing_language/test_tilelang_language_composable_index.py):
# B_local is indexed by a computed flat index, so every thread holds all of it, and
# A_local, copied into it, too: 2 x 32 x 576 float16 = 73728 bytes per thread.
@T.prim_func
def composable_copy(A: T.Tensor((256, 576), "float16"), B: T.Tensor((256 * 576,), "float16")):
    with T.Kernel(1, 8, threads=128) as (bx, by):
        A_local = T.alloc_fragment([32, 576], "float16")
        B_local = T.alloc_fragment([32 * 576], "float16")
        T.copy(A[by * 32, bx * 576], A_local)
        for i, j in T.Parallel(32, 576):
            B_local[i * 576 + j] = A_local[i, j]
        for i in T.Parallel(32 * 576):
            B[by * 32 * 576 + bx * 576 + i // 576 * 576 + i % 576] = B_local[i]
