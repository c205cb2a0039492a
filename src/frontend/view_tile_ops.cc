#include "view_tile_ops.h"

#include "tilec/ir/mutator.h"
#include "tilec/transform/elementwise_tile_ops.h"

#include <fmt/format.h>

namespace tilec::frontend {

std::vector<Expr> root_indices(const std::vector<Expr>& view_shape,
                               const std::vector<Expr>& root_shape, std::vector<Expr> indices) {
  Expr linear = indices[0];
  for (size_t k = 1; k < indices.size(); ++k) linear = linear * view_shape[k] + indices[k];
  std::vector<Expr> out(root_shape.size());
  for (size_t k = root_shape.size(); k-- > 0;) {
    out[k] = k == 0 ? linear : floormod(linear, root_shape[k]);
    if (k > 0) linear = floordiv(linear, root_shape[k]);
  }
  return out;
}

Buffer ViewOperands::stand_in(const std::string& name, const Buffer& root, std::vector<Expr> shape,
                              Span span) {
  Buffer b = make_buffer(name, shape, root->dtype, root->scope, span);
  views_.emplace(b.get(), View{root, std::move(shape)});
  return b;
}

class ViewResolver : public StmtMutator {
 public:
  explicit ViewResolver(ViewOperands& views) : views_(views) {}

 protected:
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    const ViewOperands::View* v = view_of(op->buffer);
    if (!v) return StmtMutator::mutate_load(op, self);
    std::vector<Expr> indices;
    for (const auto& i : op->indices) indices.push_back(mutate(i));
    return load(v->root, root_indices(v->shape, v->root->shape, std::move(indices)), at(op->span));
  }

  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    const ViewOperands::View* v = view_of(op->buffer);
    if (!v) return StmtMutator::mutate_store(op, self);
    std::vector<Expr> indices;
    for (const auto& i : op->indices) indices.push_back(mutate(i));
    return store(v->root, root_indices(v->shape, v->root->shape, std::move(indices)),
                 mutate(op->value), at(op->span));
  }

  // The loops of the element-wise forms carry the tile op's place too (a later error
  // about them, such as a fragment layout on a SIMT target, names the line).
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt out = StmtMutator::mutate_for(op, self);
    if (out->span.known() || !span_.known()) return out;
    auto n = std::make_shared<ForNode>(*out.as<ForNode>());
    n->span = span_;
    return Stmt(n);
  }

  Stmt mutate_copy(const CopyNode* op, const Stmt& self) override {
    if (!view_of(op->src.buffer) && !view_of(op->dst.buffer)) return self;
    span_ = op->span;
    return mutate(transform::elementwise_copy(*op));
  }

  Stmt mutate_fill(const FillNode* op, const Stmt& self) override {
    if (!view_of(op->dst.buffer)) return self;
    span_ = op->span;
    return mutate(transform::elementwise_fill(*op));
  }

  Stmt mutate_reduce(const ReduceNode* op, const Stmt& self) override {
    if (!view_of(op->src) && !view_of(op->dst)) return self;
    span_ = op->span;
    std::string what = std::string("T.reduce_") + to_string(op->reduce_kind);
    auto n = std::make_shared<ReduceNode>(*op);
    Staging staging;
    n->src = stage(op->src, what, /*read=*/true, /*written=*/false, staging);
    n->dst = stage(op->dst, what, /*read=*/!op->clear, /*written=*/true, staging);
    return staging.around(Stmt(n), op->span);
  }

  Stmt mutate_gemm(const GemmNode* op, const Stmt& self) override {
    if (!view_of(op->a.buffer) && !view_of(op->b.buffer) && !view_of(op->c.buffer)) return self;
    span_ = op->span;
    auto n = std::make_shared<GemmNode>(*op);
    Staging staging;
    n->a.buffer = stage(op->a.buffer, "T.gemm", true, false, staging);
    n->b.buffer = stage(op->b.buffer, "T.gemm", true, false, staging);
    // C accumulates; with clear_accum over the whole of C nothing of it is read, but a
    // region of C keeps the rest, so the staged tile starts as the view's data.
    bool reads_c = !op->clear_accum || !op->c.is_whole();
    n->c.buffer = stage(op->c.buffer, "T.gemm", reads_c, true, staging);
    return staging.around(Stmt(n), op->span);
  }

  Buffer mutate_buffer(const Buffer& buffer) override {
    if (view_of(buffer))
      throw ViewOperandError(
          fmt::format("this statement does not take the view '{}' (from T.reshape / T.view) "
                      "as an operand",
                      buffer->name),
          "T.copy, T.fill, T.clear, T.gemm, T.reduce_* and tile atomics take views; pass "
          "the viewed buffer to other operations");
    return buffer;
  }

 private:
  // Staged tiles of one op: allocated around it, copied in before, back after.
  struct Staging {
    std::vector<Buffer> tiles;
    std::vector<Stmt> before, after;
    Stmt around(Stmt op, Span span) const {
      std::vector<Stmt> body = before;
      body.push_back(std::move(op));
      body.insert(body.end(), after.begin(), after.end());
      Stmt s = seq(std::move(body), span);
      for (auto it = tiles.rbegin(); it != tiles.rend(); ++it) s = allocate(*it, s, {}, span);
      return s;
    }
  };

  const ViewOperands::View* view_of(const Buffer& b) const {
    auto it = b ? views_.views_.find(b.get()) : views_.views_.end();
    return it == views_.views_.end() ? nullptr : &it->second;
  }

  Stmt whole_copy(const Buffer& from, const Buffer& to) {
    Stmt c = copy(TileRegion{from, {}}, TileRegion{to, {}}, from->span);
    return mutate(transform::elementwise_copy(*c.as<CopyNode>()));
  }

  Buffer stage(const Buffer& b, const std::string& what, bool read, bool written,
               Staging& staging) {
    const ViewOperands::View* v = view_of(b);
    if (!v) return b;
    if (v->root->scope == StorageScope::kGlobal)
      throw ViewOperandError(
          fmt::format("{} does not take the view '{}' of the global tensor '{}': a view "
                      "operand of {} is staged through a tile of its shape, and a whole tensor "
                      "is no tile",
                      what, b->name, v->root->name, what),
          "T.copy the region you need from the view into a T.alloc_shared / T.alloc_fragment "
          "tile and pass that");
    Buffer tile = make_buffer(fmt::format("{}_view{}", b->name, views_.staged_++), b->shape,
                              b->dtype, v->root->scope, b->span);
    staging.tiles.push_back(tile);
    if (read) staging.before.push_back(whole_copy(b, tile));
    if (written) staging.after.push_back(whole_copy(tile, b));
    return tile;
  }

  // Accesses the element-wise forms make carry the tile op's place, for diagnostics.
  Span at(Span own) const { return own.known() ? own : span_; }

  ViewOperands& views_;
  Span span_;
};

Stmt ViewOperands::resolve(const Stmt& stmt) {
  if (views_.empty()) return stmt;
  Stmt out;
  try {
    out = ViewResolver(*this).mutate(stmt);
  } catch (...) {
    views_.clear();
    throw;
  }
  views_.clear();
  return out;
}

}  // namespace tilec::frontend
