// The compiled bounds-checked mode (pass config tilec.bounds_check) on every CPU
// backend pair: kernels that index with the contents of an integer tensor report the
// first index outside its shape as an error from the call (the kernel's line:col, the
// tensor, every index, the shape) and never touch the element; in-range data gives
// exactly the results of the unchecked build; targets without the pass refuse it. cuda
// runs the same checks on the device emulator.
#include "build_paths.h"
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/transform/bounds_check.h"

#include <cstdint>
#include <numeric>
#include <vector>

namespace tilec {
namespace {

using testing::CpuBackend;
using testing::EngineTest;

// The catalogue's gather kernel: line 12 holds the load X[I[...]], N = 1000, 10 blocks.
ir::IRModule gather_module() {
  return ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/tests/tools/catalogue/gather.py");
}

// Rows of X picked by R: a two-dimensional access whose first index is data.
constexpr const char* kRowsSource = R"(import tilelang.language as T


@T.prim_func
def rows(X: T.Tensor((64, 16), "float32"), R: T.Tensor((64,), "int32"), Y: T.Tensor((64, 16), "float32")):
    with T.Kernel(16, threads=64) as bx:
        for i, j in T.Parallel(4, 16):
            Y[bx * 4 + i, j] = X[R[bx * 4 + i], j]
)";

// A scatter into a shared tile through an index tensor (line 9: the store into S).
constexpr const char* kSharedScatterSource = R"(import tilelang.language as T


@T.prim_func
def scatter(A: T.Tensor((64,), "float32"), I: T.Tensor((64,), "int32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        S = T.alloc_shared((64,), "float32")
        for i in T.Parallel(64):
            S[I[i]] = A[i]
        for i in T.Parallel(64):
            B[i] = S[i] * 2.0
)";

PassConfig checked() {
  return {{transform::kBoundsCheckConfigKey, true}};
}

std::string call_error(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class BoundsCheck : public EngineTest, public ::testing::WithParamInterface<CpuBackend> {
 protected:
  Kernel build(const ir::IRModule& mod, bool bounds_check) {
    const CpuBackend& backend = GetParam();
    PassConfig config = backend.pass_config();
    if (bounds_check) config[transform::kBoundsCheckConfigKey] = true;
    return compile(mod, backend.target_string(), std::nullopt, backend.execution_backend, config);
  }
  Kernel build(const char* source, bool bounds_check) {
    return build(ir::parse_kernel_source(source), bounds_check);
  }
};

TEST_P(BoundsCheck, OutOfRangeIndexDataIsAnErrorNamingPlaceTensorIndexAndShape) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
  Kernel kernel = build(gather_module(), true);
  std::vector<float> x(1000, 1.0f), y(1000, 0.0f);
  std::vector<int32_t> index(1000);
  std::iota(index.begin(), index.end(), 0);
  index[537] = 5000;
  std::string error = call_error([&] {
    kernel.call_raw({RawTensor{x.data(), {1000}}, RawTensor{index.data(), {1000}},
                     RawTensor{y.data(), {1000}}});
  });
  EXPECT_NE(error.find("kernel 'gather': line 12:"), std::string::npos) << error;
  EXPECT_NE(error.find("load 'X' at index [5000] is outside its shape [1000]"), std::string::npos)
      << error;
  // The block that met it wrote nothing from the violating element on.
  EXPECT_EQ(y[537], 0.0f);
}

TEST_P(BoundsCheck, InRangeDataGivesTheUncheckedResults) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
  Kernel plain = build(gather_module(), false);
  Kernel with_checks = build(gather_module(), true);
  EXPECT_NE(plain.cache_key(), with_checks.cache_key());
  std::vector<float> x(1000);
  std::vector<int32_t> index(1000);
  for (int i = 0; i < 1000; ++i) {
    x[i] = float(i) * 0.5f - 3.0f;
    index[i] = (i * 7919) % 1000;
  }
  std::vector<float> y_plain(1000, -1.0f), y_checked(1000, -2.0f);
  plain.call_raw({RawTensor{x.data(), {1000}}, RawTensor{index.data(), {1000}},
                  RawTensor{y_plain.data(), {1000}}});
  with_checks.call_raw({RawTensor{x.data(), {1000}}, RawTensor{index.data(), {1000}},
                        RawTensor{y_checked.data(), {1000}}});
  EXPECT_EQ(y_plain, y_checked);
  EXPECT_EQ(y_checked[1], x[7919 % 1000]);
}

TEST_P(BoundsCheck, TwoDimensionalIndexAndShapeAreReportedWhole) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
  Kernel kernel = build(kRowsSource, true);
  std::vector<float> x(64 * 16, 1.0f), y(64 * 16, 0.0f);
  std::vector<int32_t> rows(64, 3);
  rows[41] = 70;
  std::string error = call_error([&] {
    kernel.call_raw({RawTensor{x.data(), {64, 16}}, RawTensor{rows.data(), {64}},
                     RawTensor{y.data(), {64, 16}}});
  });
  EXPECT_NE(error.find("line 8:"), std::string::npos) << error;
  EXPECT_NE(error.find("load 'X' at index [70, 0] is outside its shape [64, 16]"),
            std::string::npos)
      << error;
}

TEST_P(BoundsCheck, SharedMemoryWriteOutsideTheTileIsReported) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
  Kernel kernel = build(kSharedScatterSource, true);
  std::vector<float> a(64), b(64, 0.0f);
  std::vector<int32_t> index(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = float(i);
    index[i] = 63 - i;
  }
  kernel.call_raw(
      {RawTensor{a.data(), {64}}, RawTensor{index.data(), {64}}, RawTensor{b.data(), {64}}});
  EXPECT_EQ(b[0], 2.0f * 63.0f);  // in range: a permutation, as the unchecked build

  index[5] = -1;
  std::string error = call_error([&] {
    kernel.call_raw(
        {RawTensor{a.data(), {64}}, RawTensor{index.data(), {64}}, RawTensor{b.data(), {64}}});
  });
  EXPECT_NE(error.find("line 9:"), std::string::npos) << error;
  EXPECT_NE(error.find("store 'S' at index [-1] is outside its shape [64]"), std::string::npos)
      << error;
}

TEST_P(BoundsCheck, EveryBlockOutOfRangeGivesOneReportAndTheKernelStillRuns) {
  TILEC_SKIP_UNLESS_BUILT(GetParam());
  Kernel kernel = build(gather_module(), true);
  std::vector<float> x(1000, 1.0f), y(1000, 0.0f);
  std::vector<int32_t> index(1000, 1000);
  std::string error = call_error([&] {
    kernel.call_raw({RawTensor{x.data(), {1000}}, RawTensor{index.data(), {1000}},
                     RawTensor{y.data(), {1000}}});
  });
  EXPECT_NE(error.find("load 'X' at index [1000] is outside its shape [1000]"), std::string::npos)
      << error;
  EXPECT_EQ(y, std::vector<float>(1000, 0.0f));  // every block stopped before its first write
  // The next call with good data starts from a fresh record.
  std::fill(index.begin(), index.end(), 2);
  x[2] = 4.0f;
  kernel.call_raw(
      {RawTensor{x.data(), {1000}}, RawTensor{index.data(), {1000}}, RawTensor{y.data(), {1000}}});
  EXPECT_EQ(y, std::vector<float>(1000, 4.0f));
}

// The CPU pairs, and cuda on the device emulator (the same checks in CUDA C++, whose
// violation the emulator reports as the CPU does; a GPU prints it and traps).
std::vector<CpuBackend> bounds_checked_backends() {
  std::vector<CpuBackend> out = testing::cpu_backends();
  out.push_back({"cuda", exec::kEmulatorBackendName, "-arch=sm_80"});
  return out;
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, BoundsCheck, ::testing::ValuesIn(bounds_checked_backends()),
                         [](const auto& info) { return info.param.name(); });

class BoundsCheckTargets : public EngineTest {};

TEST_F(BoundsCheckTargets, ATargetWithoutTheCheckPassRefusesInsteadOfRunningUnchecked) {
  ir::IRModule mod = gather_module();
  // opencl's codegen prints no bounds calls, so its pipeline leaves the pass out.
  if (!target::find_target_kind("opencl"))
    GTEST_SKIP() << "this build has no opencl backend (-DTILEC_OPENCL=OFF)";
  auto opencl = exec::get_execution_backend("opencl");
  if (!opencl->available()) GTEST_SKIP() << opencl->unavailable_reason();
  std::string error =
      call_error([&] { compile(mod, "opencl", std::nullopt, "opencl", checked()); });
  EXPECT_NE(error.find("bounds checking is not supported on target 'opencl"), std::string::npos)
      << error;
  EXPECT_NE(error.find("--target llvm"), std::string::npos) << error;
}

TEST_F(BoundsCheckTargets, OffByDefaultAndTheCheckedSourceCarriesTheReport) {
  ir::IRModule mod = gather_module();
  Kernel plain = compile(mod, "c", std::string("c"), "native");
  EXPECT_EQ(plain.device_source().find("tilec_bounds_report"), std::string::npos);
  Kernel with_checks = compile(mod, "c", std::string("c"), "native", checked());
  EXPECT_NE(with_checks.device_source().find("tilec_bounds_report"), std::string::npos);
  EXPECT_NE(with_checks.host_source().find("tilec_bounds_record.message"), std::string::npos);
}

}  // namespace
}  // namespace tilec
