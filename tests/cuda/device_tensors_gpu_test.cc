// The real run of kDLCUDA tensors and a stream, on a machine with an NVIDIA GPU
// (scripts/gpu_check.sh runs it; elsewhere it skips saying why): device memory is
// allocated, filled and read back with the CUDA driver API (loaded with dlopen, as tilec
// does), the kernel is called on device tensors on a stream created here, with host and
// device tensors mixed, and the results match the host computation.
#include "add_kernel.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/engine/compile.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace tilec {
namespace {

using testing::kAdd;
using testing::kAddLength;

// The driver entry points this test uses (tilec's execution backend retains device 0's
// primary context, which these calls then use).
struct Driver {
  using Ptr = unsigned long long;
  int (*ctx_set_current)(void*) = nullptr;
  int (*primary_retain)(void**, int) = nullptr;
  int (*mem_alloc)(Ptr*, size_t) = nullptr;
  int (*mem_free)(Ptr) = nullptr;
  int (*htod)(Ptr, const void*, size_t) = nullptr;
  int (*dtoh)(void*, Ptr, size_t) = nullptr;
  int (*stream_create)(void**, unsigned) = nullptr;
  int (*stream_sync)(void*) = nullptr;
  int (*stream_destroy)(void*) = nullptr;
  bool load() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      return fn != nullptr;
    };
    return sym(ctx_set_current, "cuCtxSetCurrent") &&
           sym(primary_retain, "cuDevicePrimaryCtxRetain") && sym(mem_alloc, "cuMemAlloc_v2") &&
           sym(mem_free, "cuMemFree_v2") && sym(htod, "cuMemcpyHtoD_v2") &&
           sym(dtoh, "cuMemcpyDtoH_v2") && sym(stream_create, "cuStreamCreate") &&
           sym(stream_sync, "cuStreamSynchronize") && sym(stream_destroy, "cuStreamDestroy_v2");
  }
};

struct Tensor {
  std::array<int64_t, 1> shape{kAddLength};
  DLTensor dl{};
  Tensor(void* data, DLDeviceType type) {
    dl.data = data;
    dl.device = DLDevice{type, 0};
    dl.ndim = 1;
    dl.dtype = DLDataType{kDLFloat, 32, 1};
    dl.shape = shape.data();
  }
};

TEST(CudaDeviceTensorsOnGpu, DeviceTensorsOnAStreamAndMixedArgumentsMatchTheHost) {
  auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  if (auto reason = cuda::cuda_driver_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Driver d;
  ASSERT_TRUE(d.load()) << "libcuda.so.1 lacks the driver API entry points this test uses";
  Kernel kernel =
      compile(ir::parse_kernel_source(kAdd), "auto", std::nullopt, "nvrtc");  // the GPU here
  ASSERT_EQ(kernel.context().target().kind(), "cuda");
  std::vector<float> a(kAddLength), b(kAddLength), c(kAddLength, 0.0f);
  for (int i = 0; i < kAddLength; ++i) {
    a[size_t(i)] = float(i) * 0.5f;
    b[size_t(i)] = 3.0f - float(i);
  }
  // A host call first: it loads the module and makes device 0's primary context current.
  {
    Tensor ta(a.data(), kDLCPU), tb(b.data(), kDLCPU), tc(c.data(), kDLCPU);
    kernel.call(std::vector<DLTensor*>{&ta.dl, &tb.dl, &tc.dl});
    for (int i = 0; i < kAddLength; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
  }
  void* context = nullptr;
  ASSERT_EQ(d.primary_retain(&context, 0), 0);
  ASSERT_EQ(d.ctx_set_current(context), 0);
  const size_t bytes = kAddLength * sizeof(float);
  Driver::Ptr da = 0, db = 0, dc = 0;
  ASSERT_EQ(d.mem_alloc(&da, bytes), 0);
  ASSERT_EQ(d.mem_alloc(&db, bytes), 0);
  ASSERT_EQ(d.mem_alloc(&dc, bytes), 0);
  ASSERT_EQ(d.htod(da, a.data(), bytes), 0);
  ASSERT_EQ(d.htod(db, b.data(), bytes), 0);
  void* stream = nullptr;
  ASSERT_EQ(d.stream_create(&stream, 0), 0);
  auto device = [](Driver::Ptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); };
  {
    Tensor ta(device(da), kDLCUDA), tb(device(db), kDLCUDA), tc(device(dc), kDLCUDA);
    std::vector<TilecArg> args;
    for (Tensor* t : {&ta, &tb, &tc}) args.push_back(TilecArg{kTilecArgTensor, {.tensor = &t->dl}});
    kernel.call("add", args, CallOptions{stream});
    ASSERT_EQ(d.stream_sync(stream), 0);
    std::vector<float> out(kAddLength, -1.0f);
    ASSERT_EQ(d.dtoh(out.data(), dc, bytes), 0);
    for (int i = 0; i < kAddLength; ++i)
      ASSERT_EQ(out[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
  }
  {
    // Mixed: A on the device, B and C on the host, on the default stream.
    std::vector<float> out(kAddLength, -1.0f);
    Tensor ta(device(da), kDLCUDA), tb(b.data(), kDLCPU), tc(out.data(), kDLCPU);
    kernel.call(std::vector<DLTensor*>{&ta.dl, &tb.dl, &tc.dl});
    for (int i = 0; i < kAddLength; ++i)
      ASSERT_EQ(out[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
  }
  d.stream_destroy(stream);
  d.mem_free(da);
  d.mem_free(db);
  d.mem_free(dc);
}

}  // namespace
}  // namespace tilec
