// In the AddressSanitizer build (scripts/test_asan.sh) the generated kernels are
// instrumented too: C kernels by $CC, which carries the sanitizer flags, and LLVM-built
// kernels by LLVM's AddressSanitizerPass (src/exec/llvm/llvm_object.cc). A kernel that
// stores one element past the end of a tensor, with bounds checking off, is stopped by
// AddressSanitizer inside the kernel on every CPU backend pair. Outside that build these
// tests skip, saying why.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/exec/native_backend.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define TILEC_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILEC_TEST_UNDER_ASAN 1
#endif
#endif

namespace tilec {
namespace {

using testing::CpuBackend;
using testing::EngineTest;

// Y[I[i]] = X[i]: where the store goes is data, so no compile-time check can see it.
constexpr const char* kScatterSource = R"(import tilelang.language as T


@T.prim_func
def scatter(X: T.Tensor((64,), "float32"), I: T.Tensor((64,), "int32"), Y: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            Y[I[i]] = X[i]
)";

class SanitizedKernels : public EngineTest, public ::testing::WithParamInterface<CpuBackend> {};

TEST_P(SanitizedKernels, AnOutOfBoundsStoreInAGeneratedKernelIsCaught) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
#ifndef TILEC_TEST_UNDER_ASAN
  GTEST_SKIP() << "this build is not sanitized; scripts/test_asan.sh builds and runs it with "
                  "AddressSanitizer";
#else
  const CpuBackend& backend = GetParam();
  if (backend.target == "c") {
    // The C kernel is only instrumented when $CC says so; the asan run sets it, and a
    // run without it would pass this test only by luck, so it is an error.
    std::vector<std::string> command = exec::native_compiler_command();
    bool sanitized = std::any_of(command.begin(), command.end(), [](const std::string& word) {
      return word.find("-fsanitize=address") != std::string::npos;
    });
    ASSERT_TRUE(sanitized) << "$CC is '" << fmt::format("{}", fmt::join(command, " "))
                           << "': generated C would not be instrumented; run the sanitized suite "
                              "through scripts/test_asan.sh, which sets CC";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Kernel kernel = compile(ir::parse_kernel_source(kScatterSource), backend.target, std::nullopt,
                          backend.execution_backend);
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  std::vector<int32_t> index(64);
  std::iota(index.begin(), index.end(), 0);
  auto run = [&] {
    kernel.call_raw(
        {RawTensor{x.data(), {64}}, RawTensor{index.data(), {64}}, RawTensor{y.data(), {64}}});
  };
  run();  // in range: a plain copy
  EXPECT_EQ(y, x);
  index[40] = 64;  // the element just past Y's end: the start of its heap redzone
  EXPECT_DEATH(run(), "heap-buffer-overflow");
#endif
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, SanitizedKernels,
                         ::testing::ValuesIn(testing::cpu_backends()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace tilec
