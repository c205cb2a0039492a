// The host codegens' argument checks (`c`, and `llvm` built with LLVM, which must say
// exactly the same), exercised through a real compiled kernel: each bad call is a clear
// error naming the argument and what was expected, and symbolic dims bound from one
// tensor are enforced on the next.
#include "build_paths.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/exec/native_backend.h"
#ifdef TILEC_HAVE_LLVM
#include "tilec/cpu/llvm_codegen.h"
#endif
#include "tilec/frontend/parser.h"
#include "tilec/runtime/dlpack_tensor.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

namespace tilec::cpu {
namespace {

using runtime::DLTensorView;

const char* kAxpy = R"(
import tilelang.language as T
n = T.symbolic("n")
@T.prim_func
def axpy(X: T.Tensor((n, 4), "float32"), Y: T.Tensor((n, 4), "float32"), alpha: T.float32, k: T.int32):
    with T.Kernel(T.ceildiv(n, 2), threads=32) as bx:
        for i, j in T.Parallel(2, 4):
            if bx * 2 + i < n:
                Y[bx * 2 + i, j] = Y[bx * 2 + i, j] + alpha * X[bx * 2 + i, j] + k
)";

// Host codegen "c" (C device code, native) or "llvm" (LLVM IR, llvm_jit).
class HostChecks : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
#ifndef TILEC_HAVE_LLVM
    if (GetParam() == "llvm") GTEST_SKIP() << "this build has no LLVM (-DTILEC_LLVM=OFF)";
#endif
    target::Target target = target::Target::parse(GetParam());
    ir::IRModule lowered = make_cpu_pipeline().lower(ir::parse_kernel_source(kAxpy), target);
    // CTest runs each test of this suite as its own process, in parallel: one build
    // directory per process, so no two builds write the same files.
    dir_ = std::filesystem::path(TILEC_BINARY_DIR) / "test-cpu" /
           ("host_checks_" + GetParam() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    if (GetParam() == "c") {
      built_ = exec::make_native_execution_backend()->build(
          codegen::generate_c_host(lowered, target), generate_c_device(lowered, target), target,
          target, dir_);
    }
#ifdef TILEC_HAVE_LLVM
    if (GetParam() == "llvm") {
      built_ = exec::get_execution_backend("llvm_jit")
                   ->build(generate_llvm_host(lowered, target),
                           generate_llvm_device(lowered, target), target, target, dir_);
    }
#endif
  }
  void TearDown() override {
    built_ = {};
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  // The error message of a call, or "" when it succeeded.
  std::string call(std::vector<TilecArg> args) {
    try {
      built_.module->function("axpy")(args);
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }

  std::vector<float> x_ = std::vector<float>(12, 1.0f), y_ = std::vector<float>(12, 0.0f);
  DLTensorView x_view_{x_.data(), ir::DataType::Float32(), {3, 4}};
  DLTensorView y_view_{y_.data(), ir::DataType::Float32(), {3, 4}};
  exec::BuiltModule built_;
  std::filesystem::path dir_;
};

TEST_P(HostChecks, GoodCallRunsTheKernel) {
  EXPECT_EQ(call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
                  runtime::float_arg(2.0), runtime::int_arg(1)}),
            "");
  for (float v : y_) EXPECT_FLOAT_EQ(v, 3.0f);
}

TEST_P(HostChecks, WrongArgumentCount) {
  std::string err = call({runtime::tensor_arg(x_view_.get())});
  EXPECT_NE(err.find("expects 4 argument(s) (X, Y, alpha, k), got 1"), std::string::npos) << err;
}

TEST_P(HostChecks, WrongDtype) {
  std::vector<double> d(12);
  DLTensorView wrong(d.data(), ir::DataType::Float(64), {3, 4});
  std::string err = call({runtime::tensor_arg(wrong.get()), runtime::tensor_arg(y_view_.get()),
                          runtime::float_arg(2.0), runtime::int_arg(1)});
  EXPECT_NE(err.find("argument 'X' (#0): expected dtype float32, got float64"), std::string::npos)
      << err;
}

TEST_P(HostChecks, WrongRankAndMismatchedSymbolicDim) {
  DLTensorView flat(x_.data(), ir::DataType::Float32(), {12});
  std::string err = call({runtime::tensor_arg(flat.get()), runtime::tensor_arg(y_view_.get()),
                          runtime::float_arg(2.0), runtime::int_arg(1)});
  EXPECT_NE(err.find("argument 'X' (#0): expected a 2-D tensor, got 1-D"), std::string::npos)
      << err;
  DLTensorView shorter(y_.data(), ir::DataType::Float32(), {2, 4});
  err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(shorter.get()),
              runtime::float_arg(2.0), runtime::int_arg(1)});
  EXPECT_NE(err.find("argument 'Y' (#1): shape[0] is 2, but dimension 'n' was bound to 3"),
            std::string::npos)
      << err;
  DLTensorView wide(y_.data(), ir::DataType::Float32(), {3, 6});
  err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(wide.get()),
              runtime::float_arg(2.0), runtime::int_arg(1)});
  EXPECT_NE(err.find("expected shape[1] == 4, got 6"), std::string::npos) << err;
}

TEST_P(HostChecks, NonContiguousTensor) {
  int64_t strides[2] = {1, 3};  // column-major
  x_view_.get()->strides = strides;
  std::string err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
                          runtime::float_arg(2.0), runtime::int_arg(1)});
  x_view_.get()->strides = nullptr;
  EXPECT_NE(err.find("argument 'X' (#0): expected a contiguous row-major tensor"),
            std::string::npos)
      << err;
}

TEST_P(HostChecks, WrongDeviceAndNullData) {
  x_view_.get()->device.device_type = kDLCUDA;
  std::string err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
                          runtime::float_arg(2.0), runtime::int_arg(1)});
  x_view_.get()->device.device_type = kDLCPU;
  EXPECT_NE(err.find("expected a tensor on device type 1 (kDLCPU), got device type 2 (kDLCUDA)"),
            std::string::npos)
      << err;
  DLTensorView null_data(nullptr, ir::DataType::Float32(), {3, 4});
  err = call({runtime::tensor_arg(null_data.get()), runtime::tensor_arg(y_view_.get()),
              runtime::float_arg(2.0), runtime::int_arg(1)});
  EXPECT_NE(err.find("argument 'X' (#0): tensor data pointer is NULL"), std::string::npos) << err;
}

TEST_P(HostChecks, ScalarKindAndRange) {
  std::string err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
                          runtime::tensor_arg(x_view_.get()), runtime::int_arg(1)});
  EXPECT_NE(err.find("argument 'alpha' (#2): expected a float32 scalar, got a tensor"),
            std::string::npos)
      << err;
  err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
              runtime::float_arg(2.0), runtime::float_arg(1.5)});
  EXPECT_NE(err.find("argument 'k' (#3): expected a int32 scalar, got a float"), std::string::npos)
      << err;
  err = call({runtime::tensor_arg(x_view_.get()), runtime::tensor_arg(y_view_.get()),
              runtime::float_arg(2.0), runtime::int_arg(int64_t{1} << 40)});
  EXPECT_NE(err.find("does not fit dtype int32"), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(HostCodegens, HostChecks, ::testing::Values("c", "llvm"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tilec::cpu
