#include "tilec/transform/flatten_buffers.h"

#include "tilec/ir/mutator.h"
#include "tilec/transform/index_width.h"
#include "tilec/transform/simplify.h"

#include <limits>
#include <unordered_map>

namespace tilec::transform {

using namespace ir;

namespace {

class Flattener : public StmtMutator {
 protected:
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    if (!needs_flattening(op->buffer)) {
      if (!needs_wide_index(op->buffer)) return StmtMutator::mutate_load(op, self);
      std::vector<Expr> idx;
      mutate_all(op->indices, &idx);
      for (auto& i : idx) i = simplify(widen_index(i), bounds_);
      return load(op->buffer, idx, op->span);
    }
    std::vector<Expr> idx;
    mutate_all(op->indices, &idx);
    return load(flat(op->buffer), {linear(op->buffer, idx)}, op->span);
  }

  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    if (!needs_flattening(op->buffer)) {
      if (!needs_wide_index(op->buffer)) return StmtMutator::mutate_store(op, self);
      std::vector<Expr> idx;
      mutate_all(op->indices, &idx);
      for (auto& i : idx) i = simplify(widen_index(i), bounds_);
      return store(op->buffer, idx, mutate(op->value), op->span);
    }
    std::vector<Expr> idx;
    mutate_all(op->indices, &idx);
    return store(flat(op->buffer), {linear(op->buffer, idx)}, mutate(op->value), op->span);
  }

  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    if (!needs_flattening(op->buffer)) return StmtMutator::mutate_allocate(op, self);
    Buffer b = flat(op->buffer);
    return allocate(b, mutate(op->body), op->init, op->span);
  }

 private:
  static bool needs_flattening(const Buffer& b) {
    return b->scope != StorageScope::kVar && (b->ndim() != 1 || !b->strides.empty());
  }

  Buffer flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    bool wide = needs_wide_index(b);
    Expr numel = wide ? make_int(1, DataType::Int64()) : make_int(1);
    for (const auto& d : b->shape) numel = numel * (wide ? cast(DataType::Int64(), d) : d);
    auto node = std::make_shared<BufferNode>(*b);
    node->shape = {simplify(numel, bounds_)};
    node->strides.clear();
    Buffer out = node;
    flat_[b.get()] = out;
    return out;
  }

  Expr linear(const Buffer& b, const std::vector<Expr>& idx) {
    if (idx.empty()) return make_int(0);
    bool wide = needs_wide_index(b);
    auto widen = [&](const Expr& e) { return wide ? widen_index(e) : e; };
    Expr offset;
    if (b->strides.empty()) {  // Horner form of the row-major offset
      offset = widen(idx[0]);
      for (size_t d = 1; d < idx.size(); ++d) offset = offset * widen(b->shape[d]) + widen(idx[d]);
    } else {
      offset = widen(idx[0]) * widen(b->strides[0]);
      for (size_t d = 1; d < idx.size(); ++d)
        offset = offset + widen(idx[d]) * widen(b->strides[d]);
    }
    return simplify(offset, bounds_);
  }

  std::unordered_map<const BufferNode*, Buffer> flat_;
  VarBounds bounds_;
};

}  // namespace

PrimFunc flatten_buffers(const PrimFunc& func) {
  // Bindings first, so an index built from `idx = bx * 256 + i` is int64 all the way.
  Stmt body = function_needs_wide_index(func) ? widen_index_bindings(func->body) : func->body;
  body = Flattener().mutate(body);
  return body.same_as(func->body) ? func : with_body(func, body);
}

IRModule flatten_buffers(const IRModule& mod) {
  return map_function_bodies(mod, [](const PrimFunc& f) { return flatten_buffers(f)->body; });
}

Pass flatten_buffers_pass() {
  return Pass{"tilec.flatten_buffers",
              [](const IRModule& mod, const PassInfo&) { return flatten_buffers(mod); }};
}

}  // namespace tilec::transform
