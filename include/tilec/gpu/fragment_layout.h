// Fragment layouts of the SIMT model: how the elements of a T.alloc_fragment tile are
// spread over the threads of a block. `cyclic`: element f (row-major flat index) lives
// in thread f % T, register f / T, so every thread holds ceil(numel / T) registers
// and a T.Parallel over the fragment's shape, split the same way, touches only its own
// (the layout of gemm accumulators and elementwise tiles). `replicated`: every thread
// holds all numel elements and computes them redundantly (reduction results and tiles
// read at indices other than a loop's own, e.g. row_max[i] inside T.Parallel(i, j)).
// infer_fragment_layouts derives them, TileLang-style, from how each fragment is used
// in the kernel's tile IR; a fragment that needs both is an error naming both uses.
#pragma once

#include "tilec/ir/stmt.h"

#include <map>
#include <string>

namespace tilec::gpu {

enum class FragmentLayoutKind { kCyclic, kReplicated };

struct FragmentLayout {
  FragmentLayoutKind kind = FragmentLayoutKind::kCyclic;
  int64_t num_threads = 1;
  int64_t numel = 0;
  int64_t registers = 0;  // per thread
  std::string reason;     // which use decided it ("accumulator of T.gemm at line 12")

  // "C_local[64, 64] float32: cyclic over 128 threads, (i, j) -> thread (i*64 + j) % 128,
  //  register (i*64 + j) // 128, 32 registers per thread (accumulator of T.gemm, line 21)"
  std::string describe(const ir::Buffer& fragment) const;
};

using FragmentLayouts = std::map<const ir::BufferNode*, FragmentLayout>;

// Layouts of every fragment allocated in `kernel` (its body still holds tile ops and
// T.Parallel loops). Throws ir::IRError with the conflicting uses' locations when a
// fragment cannot be laid out, or when a fragment's shape is not constant.
FragmentLayouts infer_fragment_layouts(const ir::KernelNode& kernel, int64_t num_threads,
                                       const std::string& function_name);

}  // namespace tilec::gpu
