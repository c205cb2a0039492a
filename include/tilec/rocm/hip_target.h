// What the rocm backend reads from a `hip` target: the AMD GPU architecture (-mcpu, TileLang's
// attribute; gfx90a when absent), its wavefront size (64 lanes on GCN/CDNA, gfx9 and older;
// 32 on RDNA, gfx10 and newer, as HIP compiles for them by default), whether it has MFMA
// matrix cores (gfx908, gfx90a, gfx94x) and the bfloat16 `_1k` MFMA form (gfx90a, gfx94x),
// and the LDS (shared memory) a workgroup may use: 64 KiB. The normalizer writes the arch's
// wavefront into `thread_warp_size`, which the shared SIMT lowering takes as the warp size.
#pragma once

#include "tilec/target/target.h"

#include <optional>
#include <string>

namespace tilec::rocm {

inline constexpr const char* kDefaultHipArch = "gfx90a";
inline constexpr int64_t kLdsBytesPerWorkgroup = 64 * 1024;
inline constexpr const char* kWavefrontNormalizerName = "rocm.wavefront";

// -mcpu of a hip target, without feature suffixes ("gfx90a:sramecc+:xnack-" -> "gfx90a").
std::string hip_arch(const target::Target& target);
// 64 for gfx6..gfx9 (and unknown names), 32 for gfx10 and newer.
int64_t arch_wavefront_size(const std::string& arch);
// The warp size the lowering uses: the target's thread_warp_size once normalized.
int64_t hip_wavefront_size(const target::Target& target);
bool arch_has_mfma(const std::string& arch);
bool arch_has_mfma_bf16_1k(const std::string& arch);

// The normalizer: a hip target whose thread_warp_size differs from its arch's wavefront
// gets the arch's; nullopt otherwise.
std::optional<target::Target> normalize_hip_wavefront(const target::Target& target);

}  // namespace tilec::rocm
