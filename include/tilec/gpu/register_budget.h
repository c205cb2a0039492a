// The per-thread private-memory budget of the SIMT lowering: how many bytes of
// registers (the fragments' per-thread registers) one thread may hold, the target
// attribute `private_bytes_per_thread` (defaults per kind in each backend's target_kind.cc;
// 0 turns the check off). Devices do not fail cleanly past it: PoCL's work-group
// functions crash, CUDA spills to slow local memory. So once the layouts are chosen a
// kernel whose fragments need more is refused with a located error naming the
// fragments, their bytes per thread, the budget and what to change.
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/target/target.h"

#include <string>

namespace tilec::gpu {

inline constexpr const char* kPrivateBytesAttr = "private_bytes_per_thread";

// The target's budget in bytes per thread; 0: unchecked.
int64_t register_budget_bytes(const target::Target& target);

// Bytes of registers `layout` gives each thread for `fragment`.
int64_t register_bytes(const ir::Buffer& fragment, const FragmentLayout& layout);

// Throws a located error (at the largest fragment's T.alloc_fragment) when the fragments
// allocated in `kernel` together need more than the target's budget per thread.
void check_register_budget(const ir::KernelNode& kernel, const FragmentLayouts& layouts,
                           const std::string& function_name, const target::Target& target);

}  // namespace tilec::gpu
