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

// Limits every GPU kind declares, so passes can read them without knowing the kind.
std::vector<AttrSchema> gpu_limits(int64_t threads, int64_t shared_memory, int64_t warp) {
  return {int_attr("max_threads_per_block", threads, "most threads in one block"),
          int_attr("vector_bytes", 16,
                   "widest vector load/store of one thread in bytes (the SIMT lowering's "
                   "vectorized copies and splits; 0 turns them off)"),
          int_attr("max_shared_memory_per_block", shared_memory,
                   "bytes of shared memory one block may use"),
          int_attr("thread_warp_size", warp, "threads that execute in lockstep")};
}

}  // namespace

std::vector<TargetKind> builtin_target_kinds() {
  std::vector<TargetKind> kinds;
  kinds.push_back({"c",
                   {string_attr("mcpu", "CPU to tune the C compiler for"),
                    list_attr("mattr", "extra CPU features, e.g. +avx2")},
                   {"cpu"},
                   "portable C, compiled by the system C compiler"});
  kinds.push_back({"llvm",
                   {string_attr("mtriple", "LLVM target triple"),
                    string_attr("mcpu", "LLVM CPU name, e.g. znver4"),
                    list_attr("mattr", "LLVM CPU features, e.g. +avx2,-sse4.1")},
                   {"cpu"},
                   "CPU code generated through LLVM"});

  TargetKind cuda{"cuda",
                  {string_attr("arch", "compute capability, e.g. sm_90")},
                  {"cuda", "gpu"},
                  "NVIDIA GPUs"};
  for (auto& limit : gpu_limits(1024, 49152, 32)) cuda.attrs.push_back(std::move(limit));
  cuda.attrs.push_back(int_attr("registers_per_block", 65536, "32-bit registers per block"));
  kinds.push_back(std::move(cuda));

  TargetKind hip{"hip",
                 {string_attr("mcpu", "AMD GPU architecture, e.g. gfx942")},
                 {"rocm", "gpu"},
                 "AMD GPUs through ROCm/HIP"};
  for (auto& limit : gpu_limits(1024, 65536, 64)) hip.attrs.push_back(std::move(limit));
  kinds.push_back(std::move(hip));

  kinds.push_back({"metal", gpu_limits(1024, 32768, 32), {"metal", "gpu"}, "Apple GPUs"});
  kinds.push_back({"webgpu", gpu_limits(256, 16384, 32), {"webgpu", "gpu"}, "WebGPU (WGSL)"});
  TargetKind opencl{"opencl",
                    {string_attr("device", "OpenCL device name to prefer")},
                    {"opencl", "gpu"},
                    "OpenCL devices"};
  for (auto& limit : gpu_limits(256, 16384, 1)) opencl.attrs.push_back(std::move(limit));
  kinds.push_back(std::move(opencl));
  return kinds;
}

}  // namespace tilec::target::detail
