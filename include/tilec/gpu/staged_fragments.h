// Layout conversion through shared memory (TileLang's answer when two uses of a tile
// need different layouts): the T.gemm operands fragment_layout.h's fragments_to_stage
// picks become shared tiles, so their writers store them in their own layout (a gemm
// accumulator's micro-tile, say), the barrier planner puts a barrier between those
// stores and the gemm, and the gemm reads the operand from shared memory. The shared
// tile is hoisted and counted against the target's shared-memory limit like any other.
#pragma once

#include "tilec/gpu/fragment_layout.h"

#include <map>
#include <string>
#include <vector>

namespace tilec::gpu {

// Rewrites statements so every staged fragment (its allocation and every reference) is
// one shared tile of the same name, shape and dtype: the same tile in every statement
// apply() rewrites.
class SharedStaging {
 public:
  explicit SharedStaging(const std::vector<StagedFragment>& staged);
  ir::Stmt apply(const ir::Stmt& body) const;
  bool empty() const { return replacement_.empty(); }

 private:
  std::map<const ir::BufferNode*, ir::Buffer> replacement_;
};

// How the lowered IR prints a staged operand, e.g. "acc_s_cast[64, 64] float16: staged in
// shared memory (8192 bytes), a layout conversion: replicating it ...".
std::string describe_staged(const StagedFragment& staged);

}  // namespace tilec::gpu
