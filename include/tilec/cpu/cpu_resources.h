// What the CPU a target compiles for offers a GEMM: its vector unit (register width and
// count) and its data caches. The gemm lowering sizes its micro-kernel and its K chunks
// from these instead of assuming one machine.
//  - vector_unit_for(target): from the target's `mattr` (+avx512f, +avx2, +avx, -avx512f,
//    ...), else from `mcpu` when it names another CPU than this one, else (no `mcpu`, or
//    this host's) from the host CPU itself. x86 with AVX-512: 64-byte registers, 32 of
//    them; AVX/AVX2: 32 bytes, 16; plain x86-64: 16 bytes, 16; AArch64: 16 bytes, 32.
//  - host_cache_sizes(): L1 data, L2 and L3 from /sys/devices/system/cpu/cpu0/cache
//    (cache_sizes_from_sysfs reads another root, for tests); a level it cannot read keeps
//    its default (32 KiB, 1 MiB, 8 MiB).
#pragma once

#include "tilec/target/target.h"

#include <cstdint>
#include <string>

namespace tilec::cpu {

struct VectorUnit {
  int64_t bytes = 16;      // one vector register
  int64_t registers = 16;  // architectural vector registers
};

VectorUnit vector_unit_for(const target::Target& target);
VectorUnit host_vector_unit();

struct CacheSizes {
  int64_t l1d = 32 * 1024;
  int64_t l2 = 1024 * 1024;
  int64_t l3 = 8 * 1024 * 1024;
};

const CacheSizes& host_cache_sizes();
CacheSizes cache_sizes_from_sysfs(const std::string& cache_dir);

}  // namespace tilec::cpu
