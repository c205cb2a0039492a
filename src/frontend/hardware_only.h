// TileLang constructs that only NVIDIA Hopper (sm_90) and Blackwell (sm_100) GPUs, or raw
// PTX, execute: tensor memory, mbarriers, TMA, warp-group MMA, warp specialization,
// register reallocation, thread-block clusters and `T.ptx_*` intrinsics. None of tilec's
// targets (c, llvm, opencl, cuda, cute) lowers them; the front end refuses each where it
// is written with one message naming the construct, what it is, the NVIDIA architecture
// TileLang's cuda target needs for it, and the portable tile operation to write instead.
// This table is the one place that knows them: call sites ask it, they hold no list.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tilec::frontend {

struct HardwareOnlyConstruct {
  std::string_view name;     // the T.* name, or a name prefix when `prefix`
  bool prefix;               // matches every T.* name that starts with `name`
  std::string_view what;     // "Blackwell tensor memory"
  std::string_view arch;     // the oldest NVIDIA arch TileLang runs it on: "sm_100a"
  std::string_view instead;  // the portable tile operation(s) to write instead
};

// Every entry, in table order (the construct table's refused rows).
std::span<const HardwareOnlyConstruct> hardware_only_constructs();

// The entry for `T.<fn>` (fn without "T."), else nullptr. Exact names win over prefixes.
// `T.Kernel(cluster_dims=...)` is looked up as "Kernel.cluster_dims".
const HardwareOnlyConstruct* find_hardware_only(std::string_view fn);

// "T.alloc_tmem (Blackwell tensor memory) needs an NVIDIA GPU of sm_100a or newer:
// TileLang's cuda target (--target \"cuda -arch=sm_100a\") has it; none of tilec's
// targets (c, cuda, llvm, opencl, ...: the target kinds registered) lowers it". `spelled` is the
// construct as the user wrote it ("T.alloc_tmem", "with T.ws(...)").
std::string hardware_only_message(std::string_view spelled, const HardwareOnlyConstruct& c);

// The hint: the entry's portable alternative.
std::string hardware_only_hint(const HardwareOnlyConstruct& c);

}  // namespace tilec::frontend
