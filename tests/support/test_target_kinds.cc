#include "test_target_kinds.h"

#include "tilec/target/kind_schema.h"

namespace tilec::test {

using target::GpuLimits;
using target::TargetKind;

namespace {

TargetKind gpu_kind(std::string name, std::vector<target::AttrSchema> own, GpuLimits limits,
                    std::string description) {
  TargetKind kind{name, std::move(own), {name, "gpu"}, std::move(description)};
  for (auto& limit : target::gpu_limit_attrs(std::move(limits))) kind.attrs.push_back(limit);
  return kind;
}

}  // namespace

void register_test_target_kinds() {
  // The host kinds the backend layer defaults to (create_backend_context: `llvm` where
  // LLVM is built, else `c`), with the cpu module's attributes (src/cpu/target_kinds.cc).
  target::register_target_kind({"c",
                                {target::string_attr("mcpu", "CPU to tune the C compiler for"),
                                 target::string_list_attr("mattr", "extra CPU features")},
                                {"cpu"},
                                "test stand-in for the cpu module's `c`"});
  target::register_target_kind({"llvm",
                                {target::string_attr("mtriple", "LLVM target triple"),
                                 target::string_attr("mcpu", "LLVM CPU name"),
                                 target::string_list_attr("mattr", "LLVM CPU features")},
                                {"cpu"},
                                "test stand-in for the cpu module's `llvm`"});
  TargetKind gpu = gpu_kind("gpu_test", {target::string_attr("arch", "architecture")},
                            {.max_threads_per_block = 1024,
                             .max_shared_memory_per_block = 49152,
                             .thread_warp_size = 32,
                             .private_bytes_per_thread = 1020,
                             .subgroup_reduce = 1},
                            "test stand-in for a CUDA-like GPU kind");
  gpu.attrs.push_back(target::int_attr("registers_per_block", 65536, "registers per block"));
  target::register_target_kind(std::move(gpu));
  target::register_target_kind(gpu_kind("wave_test", {target::string_attr("mcpu", "GPU name")},
                                        {.max_threads_per_block = 1024,
                                         .max_shared_memory_per_block = 65536,
                                         .thread_warp_size = 64,
                                         .private_bytes_per_thread = 1024,
                                         .subgroup_reduce = 1},
                                        "test stand-in for a HIP-like GPU kind"));
  target::register_target_kind(gpu_kind("plain_gpu_test", {},
                                        {.max_threads_per_block = 1024,
                                         .max_shared_memory_per_block = 32768,
                                         .thread_warp_size = 32,
                                         .private_bytes_per_thread = 1020,
                                         .subgroup_reduce = 1},
                                        "test stand-in for a GPU kind with only limits"));
  target::register_target_kind(gpu_kind("cl_test", {target::string_attr("device", "device name")},
                                        {.max_threads_per_block = 256,
                                         .max_shared_memory_per_block = 0,
                                         .thread_warp_size = 1,
                                         .private_bytes_per_thread = 32 * 1024,
                                         .subgroup_reduce = 0},
                                        "test stand-in for an OpenCL-like GPU kind"));
}

namespace {
// Before any other static of the test binary (some tests parse targets at namespace scope).
struct RegisterFirst {
  RegisterFirst() { register_test_target_kinds(); }
};
__attribute__((init_priority(101))) const RegisterFirst kRegistered;
}  // namespace

}  // namespace tilec::test
