#include "tilec/transform/staged_buffers.h"

namespace tilec::transform {

using namespace ir;

Expr StagedBufferRewriter::mutate_load(const LoadNode* op, const Expr& self) {
  Expr e = StmtMutator::mutate_load(op, self);
  auto* l = e.as<LoadNode>();
  auto it = staged_.find(l->buffer.get());
  if (it == staged_.end()) return e;
  std::vector<Expr> idx = {stage_};
  idx.insert(idx.end(), l->indices.begin(), l->indices.end());
  return with_span(load(it->second, idx), op->span);
}

Stmt StagedBufferRewriter::mutate_store(const StoreNode* op, const Stmt& self) {
  Stmt s = StmtMutator::mutate_store(op, self);
  auto* st = s.as<StoreNode>();
  auto it = staged_.find(st->buffer.get());
  if (it == staged_.end()) return s;
  std::vector<Expr> idx = {stage_};
  idx.insert(idx.end(), st->indices.begin(), st->indices.end());
  return store(it->second, idx, st->value, op->span);
}

TileRegion StagedBufferRewriter::mutate_region(const TileRegion& region, bool* changed) {
  TileRegion r = StmtMutator::mutate_region(region, changed);
  auto it = staged_.find(r.buffer.get());
  if (it == staged_.end()) return r;
  std::vector<RegionDim> dims = {RegionDim{stage_, std::nullopt}};
  if (r.is_whole()) {
    for (const auto& extent : r.buffer->shape)
      dims.push_back(RegionDim{make_zero(extent.dtype()), extent});
  } else {
    dims.insert(dims.end(), r.dims.begin(), r.dims.end());
  }
  *changed = true;
  return TileRegion{it->second, std::move(dims)};
}

}  // namespace tilec::transform
