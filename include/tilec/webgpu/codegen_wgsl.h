// CodeGenWGSL: WGSL compute shaders from SIMT-lowered, flattened tile IR (the output of
// gpu::make_simt_pipeline). A printer of its own over the IR, not a CodeGenC subclass:
// WGSL differs from C in nearly every construct CodeGenC prints (typed `let`/`var`
// declarations instead of C declarations, conversions as `f32(x)` instead of casts, no
// `?:` (`select`), no pointers into buffers (so no pointer-taking helpers: atomics are
// inline compare-exchange loops), no implicit integer/float promotion, shifts by u32,
// operators that may not mix without parentheses, module-scope workgroup variables), so
// overriding CodeGenC's hooks would replace all of it and keep none.
//
// The shape of one kernel (what the `wgpu` execution backend binds, see kernel_info.h):
// its buffer parameters, in order, are `@group(0) @binding(i)` storage arrays
// (`read` for read-only ones); its scalar parameters are the fields of one uniform
// struct at the next binding (4 bytes each, in order); a kernel that divides integers by
// a non-constant has one more binding, its status word, set to
// TILEC_STATUS_DIVISION_BY_ZERO. `@workgroup_size` is the kernel's thread extents.
// A comment line per kernel (`// tilec-wgsl-kernel ...`) records this for the backend.
//
// Dtypes: float32, int32, uint32 and bool values are WGSL's own; float16 is `f16` in
// memory (`enable f16;`, only with WgslOptions::shader_f16) and computed in f32, rounded
// after every operation as docs/semantics.md defines; int8/16 and uint8/16 are computed
// in i32/u32 and wrapped; float8 is decoded exactly into f32. Global tensors of 8- and
// 16-bit integers, bool and float8 are read as packed 32-bit words (writing one would
// race with its neighbours, and is refused). bfloat16, every 64-bit type and float8
// results that need rounding are refused with an IRError naming what to use instead.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/ir/function.h"

#include <cstdint>
#include <string>

namespace tilec::webgpu {

// gpu/subgroup.h's calls (T.reduce_* with subgroup_reduce=1) print as WGSL's subgroupAdd/
// Max/Min, with the subgroup index taken as local_invocation_index / subgroup_size: the SIMT
// lowering forms subgroups from the flat thread index, which WebGPU does not promise but
// Vulkan drivers (lavapipe, and GPUs for the 1-D blocks the lowering uses) do.
// The comment line standing where a browser's WGSL needs `enable subgroups;` (naga, which
// runs the kernel here, refuses the directive; Tint requires it).
inline constexpr const char* kSubgroupsEnableMarker =
    "// enable subgroups; (omitted: wgpu-native's naga refuses it, Tint requires it)";

struct WgslOptions {
  bool shader_f16 = true;  // the device has `shader-f16`: float16 tensors are allowed
  bool subgroups = true;   // the device has `subgroups`: gpu/subgroup.h calls are allowed
  int64_t max_workgroup_storage = 16384;  // bytes of var<workgroup> one kernel may declare
  int64_t max_invocations = 256;          // threads per workgroup
};

// WGSL source of every device function of a lowered module, with the comment lines above.
// Throws ir::IRError naming the kernel and what to change for anything WGSL cannot
// express.
std::string print_wgsl(const ir::IRModule& mod, const WgslOptions& options,
                       std::vector<std::string>* entry_points = nullptr);

// The device codegen of the webgpu backend: format "wgsl"; the limits come from the
// target (`max_shared_memory_per_block`, `max_threads_per_block`), shader_f16 from the
// device its `device` attribute selects (true where no WebGPU device is found: the launch
// then checks the device it runs on).
backend::DeviceCodegen make_wgsl_device_codegen();

}  // namespace tilec::webgpu
