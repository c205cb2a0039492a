#include "tilec/runtime/kernel_library.h"
#include "build_paths.h"

#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/runtime/error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace tilec::runtime {
namespace {

namespace fs = std::filesystem;

// A hand-written kernel library in the shape of abi.h: `scale` multiplies a
// float32 vector in place by an int scalar, checking its arguments.
constexpr const char* kScaleSource = R"(
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdio.h>
typedef struct { int32_t kind; union { DLTensor* tensor; int64_t i; double f; } v; } TilecArg;
typedef int32_t (*TilecTaskFn)(int64_t, int64_t, void*);
typedef struct { int32_t (*parallel_for)(int64_t, TilecTaskFn, void*); int32_t num_threads; } TilecRuntimeEnv;
int32_t tilec_abi_version(void) { return ABI; }
typedef struct { float* data; int64_t factor; } Closure;
static int32_t body(int64_t begin, int64_t end, void* p) {
  Closure* c = (Closure*)p;
  for (int64_t i = begin; i < end; ++i) c->data[i] *= (float)c->factor;
  return 0;
}
int32_t scale(const TilecArg* args, int32_t num_args, const TilecRuntimeEnv* env, char* err, int32_t err_len) {
  if (num_args != 2) { snprintf(err, err_len, "expected 2 arguments, got %d", num_args); return 1; }
  DLTensor* x = args[0].v.tensor;
  Closure c = { (float*)x->data, args[1].v.i };
  return env->parallel_for(x->shape[0], body, &c);
}
)";

class KernelLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TILEC_BINARY_DIR) / "test-tmp" /
           fmt::format("runtime-{}-{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string build(int abi_version) {
    fs::path source = dir_ / fmt::format("scale{}.c", abi_version);
    fs::path library = dir_ / fmt::format("libscale{}.so", abi_version);
    std::ofstream(source) << kScaleSource;
    std::string command = fmt::format("cc -shared -fPIC -O1 -DABI={} -o '{}' '{}'", abi_version,
                                      library.string(), source.string());
    if (std::system(command.c_str()) != 0) ADD_FAILURE() << "compile failed: " << command;
    return library.string();
  }

  fs::path dir_;
};

TEST_F(KernelLibraryTest, LoadsLooksUpAndCallsAnEntry) {
  auto library = KernelLibrary::open(build(TILEC_ABI_VERSION));
  EXPECT_TRUE(library->has_entry("scale"));
  EXPECT_FALSE(library->has_entry("missing"));
  std::vector<float> data(100, 1.5f);
  DLTensorView x(data.data(), ir::DataType::Float32(), {100});
  std::vector<TilecArg> args = {tensor_arg(x.get()), int_arg(4)};
  call_host_entry(library->entry("scale"), "scale", args);
  for (float value : data) EXPECT_EQ(value, 6.0f);
}

TEST_F(KernelLibraryTest, KernelErrorBecomesRuntimeErrorWithItsMessage) {
  auto library = KernelLibrary::open(build(TILEC_ABI_VERSION));
  std::vector<TilecArg> args = {int_arg(1)};
  try {
    call_host_entry(library->entry("scale"), "scale", args);
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "kernel 'scale': expected 2 arguments, got 1");
  }
}

TEST_F(KernelLibraryTest, RejectsAnotherAbiVersion) {
  std::string path = build(TILEC_ABI_VERSION + 41);
  try {
    KernelLibrary::open(path);
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(fmt::format("ABI version {}", TILEC_ABI_VERSION + 41)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("recompile"), std::string::npos) << message;
  }
}

TEST_F(KernelLibraryTest, MissingEntryNamesTheSymbol) {
  auto library = KernelLibrary::open(build(TILEC_ABI_VERSION));
  try {
    library->entry("gemm");
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("no host entry 'gemm'"), std::string::npos);
  }
}

TEST_F(KernelLibraryTest, GarbageFileIsAClearLoadError) {
  fs::path garbage = dir_ / "libgarbage.so";
  std::ofstream(garbage) << "not an ELF file";
  try {
    KernelLibrary::open(garbage.string());
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load kernel library"), std::string::npos);
  }
  EXPECT_THROW(KernelLibrary::open((dir_ / "absent.so").string()), RuntimeError);
}

TEST(DLPackDtype, RoundTripsEveryTileDtype) {
  for (ir::DataType dtype :
       {ir::DataType::Float32(), ir::DataType::Float16(), ir::DataType::BFloat16(),
        ir::DataType::Float(64), ir::DataType::Int32(), ir::DataType::Int(8), ir::DataType::UInt(8),
        ir::DataType::Int64()}) {
    auto back = from_dl_dtype(to_dl_dtype(dtype));
    ASSERT_TRUE(back.has_value()) << dtype.str();
    EXPECT_EQ(*back, dtype);
  }
  DLDataType boolean = to_dl_dtype(ir::DataType::Bool());
  EXPECT_EQ(boolean.code, kDLUInt);
  EXPECT_EQ(boolean.bits, 8);
  EXPECT_EQ(from_dl_dtype(DLDataType{kDLUInt, 1, 1}), ir::DataType::Bool());
  EXPECT_EQ(dl_dtype_str(DLDataType{kDLComplex, 64, 1}), "code=5 bits=64 lanes=1");
  EXPECT_EQ(dl_dtype_str(to_dl_dtype(ir::DataType::BFloat16())), "bfloat16");
}

TEST(DLTensorView, DescribesContiguousCpuMemoryAndSurvivesMoves) {
  std::vector<float> data(6);
  DLTensorView view(data.data(), ir::DataType::Float32(), {2, 3});
  DLTensorView moved = std::move(view);
  const DLTensor* t = moved.get();
  EXPECT_EQ(t->data, data.data());
  EXPECT_EQ(t->ndim, 2);
  EXPECT_EQ(t->shape[0], 2);
  EXPECT_EQ(t->shape[1], 3);
  EXPECT_EQ(t->strides, nullptr);
  EXPECT_EQ(t->device.device_type, kDLCPU);
}

}  // namespace
}  // namespace tilec::runtime
