// DLPack kDLCUDA tensors and streams through a cuda kernel's host entry, here without a
// GPU. The generated host code (both the `c` and the `llvm` host codegen) is called
// with a runtime env whose device API records what it is asked to do, over host memory:
// tensors already in device memory (kDLCUDA, device 0) reach the launch as they are,
// with no allocation or copy, host tensors are copied in and (unless read-only) back,
// mixed arguments do both, the call's stream reaches every copy and the launch, and a
// tensor on another device id or device type, or a host tensor where the kernel was
// compiled for device memory only (device.host_tensors=false), is refused before
// anything is allocated. The kDLCUDA "tensors" are descriptors whose data pointers are
// never dereferenced. Through the real CUDA module, the same checks run before the
// driver is needed, and a stream for a CPU kernel is an error. The run on a GPU is
// scripts/gpu_check.sh's.
#include "../engine/test_support.h"

#include "add_kernel.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/engine/compile.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/runtime/error.h"
#include "tilec/runtime/kernel_library.h"
#include "tilec/runtime/runtime_env.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace tilec {
namespace {

using testing::kAdd;
using testing::kAddLength;

// What the host entry asked of the device, in order.
struct Recorder {
  int allocs = 0, frees = 0, to_device = 0, to_host = 0, launches = 0;
  std::vector<void*> copy_streams;
  void* launch_stream = reinterpret_cast<void*>(-1);
  std::vector<void*> launch_buffers;
  std::vector<std::vector<float>*> owned;  // device buffers, host memory here
  ~Recorder() {
    for (auto* b : owned) delete b;
  }

  static Recorder& of(void* device) { return *static_cast<Recorder*>(device); }
  static int32_t alloc(void* device, int64_t nbytes, void** out, char*, int32_t) {
    auto* buffer = new std::vector<float>(size_t(nbytes) / sizeof(float) + 1);
    of(device).owned.push_back(buffer);
    of(device).allocs++;
    *out = buffer->data();
    return 0;
  }
  static int32_t release(void* device, void*) {
    of(device).frees++;
    return 0;
  }
  static int32_t copy(void* device, void* buffer, void* host, int64_t nbytes, int32_t kind,
                      void* stream, char*, int32_t) {
    Recorder& r = of(device);
    r.copy_streams.push_back(stream);
    if (kind == kTilecCopyHostToDevice) {
      r.to_device++;
      std::memcpy(buffer, host, size_t(nbytes));
    } else {
      r.to_host++;
      std::memcpy(host, buffer, size_t(nbytes));
    }
    return 0;
  }
  static int32_t launch(void* device, const char*, const int64_t[3], const int64_t[3], int64_t,
                        const TilecDeviceArg* args, int32_t num_args, void* stream, char*,
                        int32_t) {
    Recorder& r = of(device);
    r.launches++;
    r.launch_stream = stream;
    for (int32_t i = 0; i < num_args; ++i)
      if (args[i].kind == kTilecDeviceArgBuffer) r.launch_buffers.push_back(args[i].v.buffer);
    return 0;
  }
};

constexpr TilecDeviceApi kRecordingApi{&Recorder::alloc, &Recorder::release, &Recorder::copy,
                                       &Recorder::launch};

// A 1-D float32 tensor of kAddLength elements on `device`.
struct Tensor {
  std::vector<float> host = std::vector<float>(kAddLength, 1.0f);
  std::array<int64_t, 1> shape{kAddLength};
  DLTensor dl{};
  Tensor(DLDeviceType type, int id, void* device_pointer = nullptr) {
    dl.data = type == kDLCPU ? host.data() : device_pointer;
    dl.device = DLDevice{type, id};
    dl.ndim = 1;
    dl.dtype = DLDataType{kDLFloat, 32, 1};
    dl.shape = shape.data();
  }
};

void* fake_device_pointer(uintptr_t address) {
  return reinterpret_cast<void*>(address);  // a device address, never dereferenced here
}

class CudaDeviceTensors : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
    if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  }

  // The host entry of `add` built for cuda with the parameter's host codegen.
  Kernel build(bool host_tensors = true) {
    ir::IRModule mod = ir::parse_kernel_source(kAdd);
    return compile(mod, "cuda -arch=sm_80", std::string(GetParam()), "nvrtc",
                   {{"device.host_tensors", host_tensors}});
  }

  // Calls the entry directly, on an env over the recorder; "" or the error message.
  std::string call(const Kernel& kernel, Recorder& recorder, std::vector<Tensor*> tensors,
                   void* stream = nullptr) {
    auto library = runtime::KernelLibrary::open(kernel.library_path().string());
    TilecRuntimeEnv env = *runtime::default_runtime_env();
    env.device_api = &kRecordingApi;
    env.device = &recorder;
    env.device_memory_type = kDLCUDA;
    env.device_memory_id = 0;
    env.stream = stream;
    std::vector<TilecArg> args;
    for (Tensor* t : tensors) args.push_back(TilecArg{kTilecArgTensor, {.tensor = &t->dl}});
    std::array<char, 1024> err{};
    int32_t status = library->entry("add")(args.data(), int32_t(args.size()), &env, err.data(),
                                           int32_t(err.size()));
    return status == 0 ? std::string() : std::string(err.data());
  }
};

TEST_P(CudaDeviceTensors, DeviceTensorsArePassedWithoutCopiesOnTheStream) {
  Kernel kernel = build();
  Recorder r;
  Tensor a(kDLCUDA, 0, fake_device_pointer(0x7000000)),
      b(kDLCUDA, 0, fake_device_pointer(0x7100000)), c(kDLCUDA, 0, fake_device_pointer(0x7200000));
  void* stream = fake_device_pointer(0x5000);
  ASSERT_EQ(call(kernel, r, {&a, &b, &c}, stream), "");
  EXPECT_EQ(r.allocs, 0);
  EXPECT_EQ(r.to_device + r.to_host, 0);
  EXPECT_EQ(r.launches, 1);
  EXPECT_EQ(r.launch_stream, stream);
  EXPECT_EQ(r.launch_buffers, (std::vector<void*>{a.dl.data, b.dl.data, c.dl.data}));
}

TEST_P(CudaDeviceTensors, HostTensorsAreCopiedInAndWrittenOnesBack) {
  Kernel kernel = build();
  Recorder r;
  Tensor a(kDLCPU, 0), b(kDLCPU, 0), c(kDLCPU, 0);
  ASSERT_EQ(call(kernel, r, {&a, &b, &c}), "");
  EXPECT_EQ(r.allocs, 3);
  EXPECT_EQ(r.frees, 3);
  EXPECT_EQ(r.to_device, 3);
  EXPECT_EQ(r.to_host, 1) << "A and B are read-only: only C comes back";
  EXPECT_EQ(r.launch_stream, nullptr) << "no stream given: the default stream";
}

TEST_P(CudaDeviceTensors, MixedArgumentsCopyOnlyTheHostOnes) {
  Kernel kernel = build();
  Recorder r;
  Tensor a(kDLCPU, 0), b(kDLCUDA, 0, fake_device_pointer(0x7100000)), c(kDLCPU, 0);
  void* stream = fake_device_pointer(0x5000);
  ASSERT_EQ(call(kernel, r, {&a, &b, &c}, stream), "");
  EXPECT_EQ(r.allocs, 2);
  EXPECT_EQ(r.to_device, 2);
  EXPECT_EQ(r.to_host, 1);
  EXPECT_EQ(r.frees, 2);
  ASSERT_EQ(r.launch_buffers.size(), 3u);
  EXPECT_NE(r.launch_buffers[0], a.dl.data) << "A is a device copy";
  EXPECT_EQ(r.launch_buffers[1], b.dl.data) << "B is passed as it is";
  for (void* s : r.copy_streams) EXPECT_EQ(s, stream);
  EXPECT_EQ(r.launch_stream, stream);
}

TEST_P(CudaDeviceTensors, AnotherDeviceIdIsRefusedBeforeAnythingIsAllocated) {
  Kernel kernel = build();
  Recorder r;
  Tensor a(kDLCPU, 0), b(kDLCUDA, 1, fake_device_pointer(0x7100000)), c(kDLCPU, 0);
  std::string err = call(kernel, r, {&a, &b, &c});
  EXPECT_NE(err.find("argument 'B' (#1): a kDLCUDA tensor on device 1, but kernel 'add' runs on "
                     "kDLCUDA device 0"),
            std::string::npos)
      << err;
  EXPECT_EQ(r.allocs + r.launches, 0);
}

TEST_P(CudaDeviceTensors, AnotherDeviceTypeNamesTheAcceptedOnes) {
  Kernel kernel = build();
  Recorder r;
  Tensor a(kDLOpenCL, 0, fake_device_pointer(0x7000000)), b(kDLCPU, 0), c(kDLCPU, 0);
  std::string err = call(kernel, r, {&a, &b, &c});
  EXPECT_NE(err.find("argument 'A' (#0): expected a tensor on device type 1 (kDLCPU) or 2 "
                     "(kDLCUDA), got device type 4 (kDLOpenCL)"),
            std::string::npos)
      << err;
  EXPECT_EQ(r.allocs + r.launches, 0);
}

TEST_P(CudaDeviceTensors, DeviceMemoryOnlyKernelRefusesAHostTensor) {
  Kernel kernel = build(/*host_tensors=*/false);
  Recorder r;
  Tensor a(kDLCUDA, 0, fake_device_pointer(0x7000000)),
      b(kDLCUDA, 0, fake_device_pointer(0x7100000)), c(kDLCPU, 0);
  std::string err = call(kernel, r, {&a, &b, &c});
  EXPECT_NE(err.find("argument 'C' (#2): a host tensor (kDLCPU), but kernel 'add' takes only "
                     "tensors in device memory (compiled with pass config "
                     "device.host_tensors=false)"),
            std::string::npos)
      << err;
  EXPECT_EQ(r.allocs + r.launches, 0);
  Tensor d(kDLCUDA, 0, fake_device_pointer(0x7200000));
  Recorder ok;
  EXPECT_EQ(call(kernel, ok, {&a, &b, &d}), "");
  EXPECT_EQ(ok.allocs, 0);
}

INSTANTIATE_TEST_SUITE_P(HostCodegens, CudaDeviceTensors,
#ifdef TILEC_HAVE_LLVM
                         ::testing::Values("c", "llvm"),
#else
                         ::testing::Values("c"),
#endif
                         [](const auto& info) { return std::string(info.param); });

// Through the CUDA module itself: placement is checked before the driver is needed.
TEST(CudaDeviceTensorsModule, ChecksRunBeforeTheDriverIsNeeded) {
  auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  Kernel kernel = compile(ir::parse_kernel_source(kAdd), "cuda -arch=sm_80", std::nullopt, "nvrtc");
  Tensor a(kDLCUDA, 3, fake_device_pointer(0x7000000)), b(kDLCPU, 0), c(kDLCPU, 0);
  try {
    kernel.call(std::vector<DLTensor*>{&a.dl, &b.dl, &c.dl});
    FAIL() << "expected the device id to be refused";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("a kDLCUDA tensor on device 3, but kernel 'add' runs "
                                         "on kDLCUDA device 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaDeviceTensorsModule, AStreamForAHostKernelIsAnError) {
  Kernel kernel = compile(ir::parse_kernel_source(kAdd), "c");
  Tensor a(kDLCPU, 0), b(kDLCPU, 0), c(kDLCPU, 0);
  std::vector<TilecArg> args;
  for (Tensor* t : {&a, &b, &c}) args.push_back(TilecArg{kTilecArgTensor, {.tensor = &t->dl}});
  try {
    kernel.call("add", args, CallOptions{fake_device_pointer(0x5000)});
    FAIL() << "expected the stream to be refused";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("a stream was given, but this kernel runs on the host"),
              std::string::npos)
        << e.what();
  }
  kernel.call("add", args, CallOptions{});  // without one it runs
  EXPECT_EQ(c.host[7], 2.0f);
}

}  // namespace
}  // namespace tilec
