#include "hoist_shared.h"

#include "simt_error.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace tilec::gpu {

using namespace ir;

namespace {

// Where each shared tile is used, in one walk's order: a tile whose every use precedes
// a later allocation -- and is in no loop around that allocation which began after the
// tile's own -- is dead there, and the later tile may take its storage.
class SharedLifetimes : public StmtVisitor {
 public:
  struct Allocation {
    int64_t at = 0;
    std::vector<std::pair<int64_t, int64_t>> loops;  // enclosing loops' [first, end) uses
  };
  std::map<const AllocateNode*, Allocation> allocations;
  std::map<const BufferNode*, std::vector<int64_t>> uses;
  std::map<const BufferNode*, int64_t> allocated_at;

  // Whether `tile` is dead at `alloc`: never used at or after it, nor in a loop around it
  // that started after the tile's allocation (its next iteration would use it again).
  bool dead_at(const Buffer& tile, const AllocateNode* alloc) const {
    auto a = allocations.find(alloc);
    auto u = uses.find(tile.get());
    auto born = allocated_at.find(tile.get());
    if (a == allocations.end() || u == uses.end() || born == allocated_at.end()) return false;
    if (!u->second.empty() && u->second.back() >= a->second.at) return false;
    for (const auto& [first, end] : a->second.loops) {
      if (first <= born->second) continue;
      for (int64_t use : u->second)
        if (use >= first && use < end) return false;
    }
    return true;
  }

 protected:
  void visit_for(const ForNode* op) override {
    int64_t first = counter_;
    size_t mark = pending_.size();
    StmtVisitor::visit_for(op);
    // The allocations inside this loop learn its range.
    for (size_t i = mark; i < pending_.size(); ++i)
      allocations[pending_[i]].loops.emplace_back(first, counter_);
  }
  void visit_allocate(const AllocateNode* op) override {
    if (op->buffer->scope == StorageScope::kShared) {
      allocations[op].at = counter_;
      allocated_at[op->buffer.get()] = counter_;
      pending_.push_back(op);
    }
    StmtVisitor::visit_allocate(op);
  }
  void visit_buffer_use(const Buffer& buffer) override {
    if (buffer->scope == StorageScope::kShared) uses[buffer.get()].push_back(counter_);
    ++counter_;
  }

 private:
  int64_t counter_ = 0;
  std::vector<const AllocateNode*> pending_;  // the shared allocations, in walk order
};

class SharedHoister : public StmtMutator {
 public:
  SharedHoister(std::string function, const Stmt& body) : function_(std::move(function)) {
    lifetimes_.visit(body);
  }
  std::vector<Buffer> shared;

 protected:
  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    if (op->buffer->scope != StorageScope::kShared) return StmtMutator::mutate_allocate(op, self);
    for (const auto& d : op->buffer->shape) {
      if (!as_const_int(d)) {
        simt_error(function_, op->buffer->span,
                   fmt::format("shared tile '{}' has a symbolic shape; workgroup memory is sized "
                               "when the kernel is compiled, so give it constant dimensions",
                               op->buffer->name));
      }
    }
    // A tile of the same dtype and shape whose scope has ended (a tile op's scratch, such
    // as a reduction's staged copy) is reused: the scopes' tiles would otherwise all be
    // live at once at the kernel's top. The barrier planner, which runs later, sees one
    // buffer and orders the accesses of both uses.
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (!same_tile(*it, op->buffer)) continue;
      Buffer reused = *it;
      free_.erase(it);
      replacement_[op->buffer.get()] = reused;
      Stmt body = mutate(op->body);
      free_.push_back(reused);
      return body;
    }
    // So is a tile still in scope that is dead here (reduce_sum's shared tile, read only
    // before its reduction stages a copy of the same shape).
    for (const Buffer& tile : shared) {
      if (busy_.count(tile.get()) || !same_tile(tile, op->buffer) ||
          std::find(free_.begin(), free_.end(), tile) != free_.end() ||
          !lifetimes_.dead_at(tile, op))
        continue;
      Buffer reused = tile;
      replacement_[op->buffer.get()] = reused;
      busy_.insert(reused.get());
      Stmt body = mutate(op->body);
      busy_.erase(reused.get());
      return body;
    }
    shared.push_back(op->buffer);
    Stmt body = mutate(op->body);
    free_.push_back(op->buffer);
    return body;
  }
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto it = replacement_.find(buffer.get());
    return it == replacement_.end() ? buffer : it->second;
  }

 private:
  static bool same_tile(const Buffer& a, const Buffer& b) {
    if (a->dtype != b->dtype || a->shape.size() != b->shape.size()) return false;
    for (size_t d = 0; d < a->shape.size(); ++d) {
      const int64_t* x = as_const_int(a->shape[d]);
      const int64_t* y = as_const_int(b->shape[d]);
      if (!x || !y || *x != *y) return false;
    }
    return true;
  }

  std::string function_;
  std::vector<Buffer> free_;  // hoisted tiles whose scope has ended
  std::map<const BufferNode*, Buffer> replacement_;
  SharedLifetimes lifetimes_;
  std::set<const BufferNode*> busy_;  // dead tiles a later tile has taken
};

}  // namespace

HoistedShared hoist_shared(const Stmt& body, const std::string& function) {
  SharedHoister hoister(function, body);
  Stmt out = hoister.mutate(body);
  return {out, hoister.shared};
}

}  // namespace tilec::gpu
