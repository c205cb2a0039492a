// The kernel the device-tensor tests (with and without a GPU) call: C = A + B over
// kAddLength float32 elements, A and B read-only, 128 threads a block. Shared so the
// host-entry checks without a GPU and the real run on one exercise the same kernel.
#pragma once

#include <cstdint>

namespace tilec::testing {

inline constexpr int64_t kAddLength = 4096;

inline constexpr const char* kAdd = R"PY(
import tilelang.language as T

@T.prim_func
def add(A: T.Tensor((4096,), "float32", read_only=True), B: T.Tensor((4096,), "float32", read_only=True),
        C: T.Tensor((4096,), "float32")):
    with T.Kernel(32, threads=128) as bx:
        for i in T.Parallel(128):
            C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]
)PY";

}  // namespace tilec::testing
