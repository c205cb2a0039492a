#include "builtin_kinds.h"

namespace tilec::target::detail {
namespace {

AttrSchema string_attr(std::string name, std::string description) {
  return {std::move(name), AttrType::kString, std::nullopt, std::move(description)};
}
AttrSchema list_attr(std::string name, std::string description) {
  return {std::move(name), AttrType::kStringList, std::nullopt, std::move(description)};
}
AttrSchema int_attr(std::string name, int64_t default_value, std::string description) {
  return {std::move(name), AttrType::kInt, TargetAttr{default_value}, std::move(description)};
}

// Registers one thread may hold, in bytes (private_bytes_per_thread):
// CUDA: 255 32-bit registers per thread. HIP: 256 VGPRs of 4 bytes per lane.
// Metal and WebGPU: no documented per-thread limit; the CUDA-sized figure is a
// conservative stand-in. OpenCL 1.2 has no query for private memory per work-item, so
// the default is a documented figure between what PoCL's CPU work-group functions were
// seen to run and to crash on: 32 KiB (TileLang's mamba chunk_state kernel runs with
// 17 KB per work-item; its composable-index copy, 72 KB, crashes); GPU drivers spill to
// slow memory long before.
constexpr int64_t kCudaPrivateBytes = 255 * 4;
constexpr int64_t kHipPrivateBytes = 256 * 4;
constexpr int64_t kMetalPrivateBytes = 255 * 4;
constexpr int64_t kWebGpuPrivateBytes = 255 * 4;
constexpr int64_t kOpenCLPrivateBytes = 32 * 1024;

// Limits every GPU kind declares, so passes can read them without knowing the kind.
// `shared_memory_description` replaces the plain one where the default is not a figure.
// Grid limits per axis, in blocks, checked by split_host_device (transform/grid_limits.h):
// CUDA gridDim.x 2^31-1, y/z 65535; HIP the same figures (hipDeviceProp_t.maxGridSize is
// at least that on AMD GPUs); WebGPU maxComputeWorkgroupsPerDimension, 65535 by default;
// Metal documents no smaller per-axis threadgroup count, and is given CUDA's figures as
// the portable ones; OpenCL and the CPU: the int32 block index's 2^31-1 on every axis.
constexpr int64_t kGridX = 2147483647;
std::vector<AttrSchema> grid_limits(int64_t x, int64_t y, int64_t z) {
  return {int_attr("max_grid_x", x, "most blocks along grid axis x"),
          int_attr("max_grid_y", y, "most blocks along grid axis y"),
          int_attr("max_grid_z", z, "most blocks along grid axis z")};
}

std::vector<AttrSchema> joined(std::vector<AttrSchema> a, std::vector<AttrSchema> b) {
  for (auto& x : b) a.push_back(std::move(x));
  return a;
}

std::vector<AttrSchema> gpu_limits(
    int64_t threads, int64_t shared_memory, int64_t warp, int64_t private_bytes,
    int64_t subgroup_reduce = 0,
    std::string shared_memory_description = "bytes of shared memory one block may use") {
  return {
      int_attr("max_threads_per_block", threads, "most threads in one block"),
      int_attr("vector_bytes", 16,
               "widest vector load/store of one thread in bytes (the SIMT lowering's "
               "vectorized copies and splits; 0 turns them off)"),
      int_attr("max_shared_memory_per_block", shared_memory, std::move(shared_memory_description)),
      int_attr("thread_warp_size", warp, "threads that execute in lockstep"),
      int_attr("private_bytes_per_thread", private_bytes,
               "bytes of registers (fragment registers) one thread may hold; the SIMT "
               "lowering refuses kernels whose fragments need more (0: unchecked)"),
      int_attr("subgroup_reduce", subgroup_reduce,
               "1: the device code printer has subgroup (warp) reductions, which T.reduce_* "
               "then uses across threads (opencl: cl_khr_subgroups); 0: a shared-memory "
               "tree")};
}

}  // namespace

std::vector<TargetKind> builtin_target_kinds() {
  std::vector<TargetKind> kinds;
  kinds.push_back({"c",
                   joined({string_attr("mcpu", "CPU to tune the C compiler for"),
                           list_attr("mattr", "extra CPU features, e.g. +avx2")},
                          grid_limits(kGridX, kGridX, kGridX)),
                   {"cpu"},
                   "portable C, compiled by the system C compiler"});
  kinds.push_back({"llvm",
                   joined({string_attr("mtriple", "LLVM target triple"),
                           string_attr("mcpu", "LLVM CPU name, e.g. znver4"),
                           list_attr("mattr", "LLVM CPU features, e.g. +avx2,-sse4.1")},
                          grid_limits(kGridX, kGridX, kGridX)),
                   {"cpu"},
                   "CPU code generated through LLVM"});

  TargetKind cuda{"cuda",
                  {string_attr("arch", "compute capability, e.g. sm_90")},
                  {"cuda", "gpu"},
                  "NVIDIA GPUs"};
  for (auto& limit : gpu_limits(1024, 49152, 32, kCudaPrivateBytes, 1))
    cuda.attrs.push_back(std::move(limit));
  for (auto& limit : grid_limits(kGridX, 65535, 65535)) cuda.attrs.push_back(std::move(limit));
  cuda.attrs.push_back(int_attr("registers_per_block", 65536, "32-bit registers per block"));
  kinds.push_back(std::move(cuda));

  TargetKind hip{"hip",
                 {string_attr("mcpu", "AMD GPU architecture, e.g. gfx942")},
                 {"rocm", "gpu"},
                 "AMD GPUs through ROCm/HIP"};
  // The rocm printer has wavefront reductions (__shfl_xor); thread_warp_size is the
  // arch's wavefront once the rocm module's normalizer has run (64 on CDNA, 32 on RDNA).
  for (auto& limit : gpu_limits(1024, 65536, 64, kHipPrivateBytes, 1))
    hip.attrs.push_back(std::move(limit));
  for (auto& limit : grid_limits(kGridX, 65535, 65535)) hip.attrs.push_back(std::move(limit));
  kinds.push_back(std::move(hip));

  kinds.push_back({"metal",
                   joined(gpu_limits(1024, 32768, 32, kMetalPrivateBytes, 1),
                          grid_limits(kGridX, 65535, 65535)),
                   {"metal", "gpu"},
                   "Apple GPUs"});
  kinds.push_back(
      {"webgpu",
       joined(gpu_limits(256, 16384, 32, kWebGpuPrivateBytes), grid_limits(65535, 65535, 65535)),
       {"webgpu", "gpu"},
       "WebGPU (WGSL)"});
  TargetKind opencl{"opencl",
                    {string_attr("device", "OpenCL device name to prefer")},
                    {"opencl", "gpu"},
                    "OpenCL devices"};
  // Shared memory is the device's: 0 until the opencl module's normalizer fills in the
  // selected device's CL_DEVICE_LOCAL_MEM_SIZE (opencl/device_limits.h).
  for (auto& limit : gpu_limits(256, 0, 1, kOpenCLPrivateBytes, 0,
                                "bytes of __local memory one work-group may use; 0 (the "
                                "default): the selected device's CL_DEVICE_LOCAL_MEM_SIZE, "
                                "16384 when no OpenCL device is found"))
    opencl.attrs.push_back(std::move(limit));
  for (auto& limit : grid_limits(kGridX, kGridX, kGridX)) opencl.attrs.push_back(std::move(limit));
  kinds.push_back(std::move(opencl));
  return kinds;
}

}  // namespace tilec::target::detail
