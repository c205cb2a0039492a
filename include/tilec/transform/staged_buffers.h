// StagedBufferRewriter: every reference to a tile of `staged` becomes the same reference
// to one stage of its staged buffer, a buffer of one more leading dimension (loads and
// stores gain the stage as their first index; a tile operand gains it as a unit first
// dimension, a whole-buffer operand becomes the stage's full slice). Used where one tile
// becomes several copies of itself: the cuda cp.async pipeline's stages, the cpu's
// per-iteration caches of block-invariant tiles.
#pragma once

#include "tilec/ir/mutator.h"

#include <map>

namespace tilec::transform {

class StagedBufferRewriter : public ir::StmtMutator {
 public:
  StagedBufferRewriter(std::map<const ir::BufferNode*, ir::Buffer> staged, ir::Expr stage)
      : staged_(std::move(staged)), stage_(std::move(stage)) {}

 protected:
  ir::Expr mutate_load(const ir::LoadNode* op, const ir::Expr& self) override;
  ir::Stmt mutate_store(const ir::StoreNode* op, const ir::Stmt& self) override;
  ir::TileRegion mutate_region(const ir::TileRegion& region, bool* changed) override;
  bool is_staged(const ir::BufferNode* buffer) const { return staged_.count(buffer) != 0; }

 private:
  std::map<const ir::BufferNode*, ir::Buffer> staged_;
  ir::Expr stage_;
};

}  // namespace tilec::transform
