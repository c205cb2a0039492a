// Fragment layouts of the SIMT model: how the elements of a T.alloc_fragment tile are
// spread over the threads of a block. `cyclic`: element f (row-major flat index) lives
// in thread f % T, register f / T, so every thread holds ceil(numel / T) registers
// and a T.Parallel over the fragment's shape, split the same way, touches only its own
// (the layout of gemm accumulators and elementwise tiles). `replicated`: every thread
// holds all numel elements and computes them redundantly (reduction results and tiles
// read at indices other than a loop's own, e.g. row_max[i] inside T.Parallel(i, j)).
// `partitioned`: the layout a tile op's own implementation imposes on the accumulator
// it writes (a CuTe TiledMMA's C partition): thread t holds `registers` elements,
// register r the one at partition->coordinates(t, r); a T.Parallel over the fragment's
// shape runs, on each thread, over its registers at those coordinates, and every
// fragment that nest touches at the same coordinates shares the layout. Which ops
// impose one is asked of the accumulator layout providers registered for the target.
// infer_fragment_layouts derives them, TileLang-style, from how each fragment is used
// in the kernel's tile IR; a fragment that needs two of them is an error naming both uses.
#pragma once

#include "tilec/ir/stmt.h"
#include "tilec/target/target.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tilec::gpu {

enum class FragmentLayoutKind { kCyclic, kReplicated, kPartitioned };

// A partition of a 2-D-or-more fragment over the block's threads that a tile op defines.
struct PartitionedLayout {
  std::string name;       // "cute TiledMMA SM80_16x8x16_F32F16F16F32_TN, 2x2 warps"
  int64_t registers = 0;  // per thread; registers * threads == numel
  // The element (one index per fragment dim) thread `tid` holds in register `reg`.
  std::function<std::vector<ir::Expr>(const ir::Expr& tid, const ir::Expr& reg)> coordinates;
};
using PartitionedLayoutPtr = std::shared_ptr<const PartitionedLayout>;

// Asked for every T.gemm whose accumulator is a fragment: the layout the target's gemm
// implementation needs for it, or nullopt when that implementation does not take this
// gemm (it then lowers through another one, and the accumulator is cyclic).
struct AccumulatorLayoutProvider {
  std::string name;  // unique, e.g. "cute.tiled_mma"
  std::function<bool(const target::Target&)> supports_target;
  std::function<std::optional<PartitionedLayout>(const ir::GemmNode& gemm, int64_t num_threads,
                                                 const target::Target& target)>
      layout;
};
// Registers (replacing one of the same name; returns false when the name was free) and
// unregisters. Thread-safe; the first provider accepting a target and a gemm decides.
bool register_accumulator_layout_provider(AccumulatorLayoutProvider provider);
bool unregister_accumulator_layout_provider(const std::string& name);
std::optional<PartitionedLayout> accumulator_layout(const ir::GemmNode& gemm, int64_t num_threads,
                                                    const target::Target& target);

struct FragmentLayout {
  FragmentLayoutKind kind = FragmentLayoutKind::kCyclic;
  int64_t num_threads = 1;
  int64_t numel = 0;
  int64_t registers = 0;           // per thread
  std::string reason;              // which use decided it ("accumulator of T.gemm at line 12")
  PartitionedLayoutPtr partition;  // kPartitioned only

  // "C_local[64, 64] float32: cyclic over 128 threads, (i, j) -> thread (i*64 + j) % 128,
  //  register (i*64 + j) // 128, 32 registers per thread (accumulator of T.gemm, line 21)"
  std::string describe(const ir::Buffer& fragment) const;
};

using FragmentLayouts = std::map<const ir::BufferNode*, FragmentLayout>;

// Layouts of every fragment allocated in `kernel` (its body still holds tile ops and
// T.Parallel loops). Throws ir::IRError with the conflicting uses' locations when a
// fragment cannot be laid out, or when a fragment's shape is not constant.
FragmentLayouts infer_fragment_layouts(const ir::KernelNode& kernel, int64_t num_threads,
                                       const std::string& function_name,
                                       const target::Target& target);

}  // namespace tilec::gpu
