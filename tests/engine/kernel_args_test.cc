// Bad calls: each is a clear error naming what was wrong, never a crash.
#include "test_support.h"

namespace tilec {
namespace {

using testing::EngineTest;

constexpr const char* kAddSource = R"(import tilelang.language as T

M = 16
N = T.symbolic("N")


@T.prim_func
def add(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(M, threads=32) as bx:
        for j in T.serial(N):
            C[bx, j] = A[bx, j] + B[bx, j]
)";

class KernelArgs : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    kernel_.emplace(compile(ir::parse_kernel_source(kAddSource), "c", std::nullopt, "native"));
  }

  // Calls with `args` and returns the error message ("" if the call succeeded).
  std::string error_of(const std::vector<TilecArg>& args) {
    try {
      kernel_->call(args);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

  std::vector<float> a_ = std::vector<float>(16 * 8, 1.0f), b_ = a_, c_ = a_;
  runtime::DLTensorView ta_{a_.data(), ir::DataType::Float32(), {16, 8}};
  runtime::DLTensorView tb_{b_.data(), ir::DataType::Float32(), {16, 8}};
  runtime::DLTensorView tc_{c_.data(), ir::DataType::Float32(), {16, 8}};
  std::optional<Kernel> kernel_;
};

void expect_contains(const std::string& message, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(message.empty()) << "the call was accepted";
  for (const char* part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
}

TEST_F(KernelArgs, GoodCallSucceeds) {
  EXPECT_EQ(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(tb_.get()),
                      runtime::tensor_arg(tc_.get())}),
            "");
  for (float value : c_) EXPECT_EQ(value, 2.0f);
}

TEST_F(KernelArgs, WrongArgumentCount) {
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(tb_.get())}),
                  {"add", "3"});
}

TEST_F(KernelArgs, WrongDtype) {
  std::vector<double> wide(16 * 8);
  runtime::DLTensorView tw(wide.data(), ir::DataType::Float(64), {16, 8});
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(tw.get()),
                            runtime::tensor_arg(tc_.get())}),
                  {"B", "float32"});
}

TEST_F(KernelArgs, WrongConstantDimension) {
  runtime::DLTensorView wrong(a_.data(), ir::DataType::Float32(), {8, 16});
  expect_contains(error_of({runtime::tensor_arg(wrong.get()), runtime::tensor_arg(tb_.get()),
                            runtime::tensor_arg(tc_.get())}),
                  {"A", "16"});
}

TEST_F(KernelArgs, SymbolicDimensionMustAgreeAcrossArguments) {
  runtime::DLTensorView shorter(b_.data(), ir::DataType::Float32(), {16, 4});
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(shorter.get()),
                            runtime::tensor_arg(tc_.get())}),
                  {"B", "N"});
}

TEST_F(KernelArgs, WrongNdim) {
  runtime::DLTensorView flat(a_.data(), ir::DataType::Float32(), {128});
  expect_contains(error_of({runtime::tensor_arg(flat.get()), runtime::tensor_arg(tb_.get()),
                            runtime::tensor_arg(tc_.get())}),
                  {"A", "2"});
}

TEST_F(KernelArgs, NonContiguousStrides) {
  int64_t strides[2] = {1, 16};  // column-major view of the same memory
  DLTensor transposed = *ta_.get();
  transposed.strides = strides;
  expect_contains(error_of({runtime::tensor_arg(&transposed), runtime::tensor_arg(tb_.get()),
                            runtime::tensor_arg(tc_.get())}),
                  {"A", "contiguous"});
}

TEST_F(KernelArgs, CompactExplicitStridesAreAccepted) {
  int64_t strides[2] = {8, 1};
  DLTensor explicit_strides = *ta_.get();
  explicit_strides.strides = strides;
  EXPECT_EQ(error_of({runtime::tensor_arg(&explicit_strides), runtime::tensor_arg(tb_.get()),
                      runtime::tensor_arg(tc_.get())}),
            "");
}

TEST_F(KernelArgs, NullDataPointer) {
  runtime::DLTensorView null_data(nullptr, ir::DataType::Float32(), {16, 8});
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(tb_.get()),
                            runtime::tensor_arg(null_data.get())}),
                  {"C"});
}

TEST_F(KernelArgs, NullTensorPointer) {
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(nullptr),
                            runtime::tensor_arg(tc_.get())}),
                  {"argument 1", "null DLTensor"});
}

TEST_F(KernelArgs, ScalarWhereTensorExpected) {
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::int_arg(3),
                            runtime::tensor_arg(tc_.get())}),
                  {"B"});
}

TEST_F(KernelArgs, WrongDevice) {
  DLTensor on_gpu = *tb_.get();
  on_gpu.device = DLDevice{kDLCUDA, 0};
  expect_contains(error_of({runtime::tensor_arg(ta_.get()), runtime::tensor_arg(&on_gpu),
                            runtime::tensor_arg(tc_.get())}),
                  {"B"});
}

TEST_F(KernelArgs, UnknownFunctionNameListsTheFunctions) {
  try {
    kernel_->call("mul", std::vector<DLTensor*>{ta_.get(), tb_.get(), tc_.get()});
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("no function 'mul'; it has: add"), std::string::npos)
        << e.what();
  }
}

TEST_F(KernelArgs, RawCallChecksTheCountAndTakesDtypesFromParameters) {
  try {
    kernel_->call_raw({RawTensor{a_.data(), {16, 8}}});
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("takes 3 arguments, got 1"), std::string::npos)
        << e.what();
  }
  kernel_->call_raw({RawTensor{a_.data(), {16, 8}}, RawTensor{b_.data(), {16, 8}},
                     RawTensor{c_.data(), {16, 8}}});
  EXPECT_EQ(c_[0], 2.0f);
}

}  // namespace
}  // namespace tilec
