#include "tilec/gpu/fragment_layout.h"

#include "tilec/gpu/parallel_nest.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <mutex>
#include <set>
#include <vector>

namespace tilec::gpu {

using namespace ir;

namespace {

std::string at_line(const Span& span) {
  return span.known() ? fmt::format("line {}", span.line) : std::string("an unknown line");
}

// One statement that touches fragments together: a tile op or a T.Parallel nest. When
// it writes a replicated fragment it runs redundantly on every thread, so every
// fragment it reads must be replicated too.
struct UseGroup {
  std::set<const BufferNode*> writes, reads;
  std::string what;  // "T.copy at line 12"
};

struct ProviderRegistry {
  std::mutex mutex;
  std::vector<AccumulatorLayoutProvider> providers;
};

ProviderRegistry& providers() {
  static ProviderRegistry registry;
  return registry;
}

class LayoutInference : public StmtVisitor {
 public:
  LayoutInference(int64_t num_threads, std::string function_name, const target::Target& target)
      : num_threads_(num_threads), function_(std::move(function_name)), target_(target) {}

  FragmentLayouts run(const KernelNode& kernel) {
    visit(kernel.body);
    // Propagate replication through the groups until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& g : groups_) {
        const BufferNode* replicated_write = nullptr;
        for (auto* w : g.writes)
          if (replicated_.count(w)) replicated_write = w;
        if (!replicated_write) continue;
        for (const auto* set : {&g.writes, &g.reads}) {
          for (auto* b : *set) {
            if (replicated_.count(b)) continue;
            replicated_[b] = fmt::format("{} also writes the replicated fragment '{}'", g.what,
                                         replicated_write->name);
            changed = true;
          }
        }
      }
    }
    propagate_partitions();
    FragmentLayouts layouts;
    for (const auto& [node, buffer] : fragments_) {
      int64_t numel = 1;
      for (const auto& d : buffer->shape) {
        auto* c = as_const_int(d);
        if (!c) {
          throw IRError(fmt::format(
              "kernel '{}': fragment '{}' has a symbolic shape; fragments live in registers, so "
              "their shape must be a constant (use T.alloc_shared for a tile of symbolic size)",
              function_, buffer->name));
        }
        numel *= *c;
      }
      FragmentLayout layout;
      layout.num_threads = num_threads_;
      layout.numel = numel;
      auto cyclic = cyclic_required_.find(node);
      auto replicated = replicated_.find(node);
      if (auto part = partitioned_.find(node); part != partitioned_.end()) {
        const char* other = replicated != replicated_.end() ? "every thread to hold all of it"
                            : cyclic != cyclic_required_.end()
                                ? "a cyclic partition over the threads"
                                : nullptr;
        if (other || numel != part->second.layout->registers * num_threads_) {
          throw IRError(fmt::format(
              "kernel '{}': no layout fits fragment '{}': as {} it is partitioned as {}, but {} "
              "needs {}. Use it in T.Parallel over its whole shape with the loop's own "
              "variables, or T.copy it into another fragment or a shared tile first",
              function_, buffer->name, part->second.reason, part->second.layout->name,
              replicated != replicated_.end()    ? replicated->second
              : cyclic != cyclic_required_.end() ? cyclic->second
                                                 : "the partition",
              other ? other : "exactly its elements spread over the threads"));
        }
        layout.kind = FragmentLayoutKind::kPartitioned;
        layout.registers = part->second.layout->registers;
        layout.reason = part->second.reason;
        layout.partition = part->second.layout;
      } else if (replicated != replicated_.end()) {
        if (cyclic != cyclic_required_.end()) {
          throw IRError(fmt::format(
              "kernel '{}': no layout fits fragment '{}': as {} it must be partitioned over the "
              "{} threads, but {} needs every thread to hold all of it. Read it through a "
              "T.copy into another fragment or a shared tile, or index it in T.Parallel with "
              "the loop's own variables over its whole shape",
              function_, buffer->name, cyclic->second, num_threads_, replicated->second));
        }
        layout.kind = FragmentLayoutKind::kReplicated;
        layout.registers = numel;
        layout.reason = replicated->second;
      } else {
        layout.kind = FragmentLayoutKind::kCyclic;
        layout.registers = (numel + num_threads_ - 1) / num_threads_;
        layout.reason = cyclic != cyclic_required_.end() ? cyclic->second
                                                         : "elementwise uses only (the default)";
      }
      layouts[node] = layout;
    }
    return layouts;
  }

 protected:
  void visit_allocate(const AllocateNode* op) override {
    if (op->buffer->scope == StorageScope::kFragment) fragments_[op->buffer.get()] = op->buffer;
    StmtVisitor::visit_allocate(op);
  }

  void visit_copy(const CopyNode* op) override {
    UseGroup g{{}, {}, "T.copy at " + at_line(op->span)};
    add_operand(op->src, false, g);
    add_operand(op->dst, true, g);
    groups_.push_back(std::move(g));
  }

  void visit_fill(const FillNode* op) override {
    UseGroup g{{}, {}, "T.fill at " + at_line(op->span)};
    add_operand(op->dst, true, g);
    groups_.push_back(std::move(g));
  }

  void visit_gemm(const GemmNode* op) override {
    std::string what = "T.gemm at " + at_line(op->span);
    UseGroup g{{}, {}, what};
    if (is_fragment(op->c.buffer)) {
      if (auto layout = accumulator_layout(*op, num_threads_, target_)) {
        partitioned_.emplace(
            op->c.buffer.get(),
            Partition{std::make_shared<const PartitionedLayout>(std::move(*layout)),
                      "the accumulator of " + what});
      } else {
        cyclic_required_.emplace(op->c.buffer.get(), "the accumulator of " + what);
      }
      g.writes.insert(op->c.buffer.get());
    }
    for (const auto* operand : {&op->a, &op->b}) {
      if (!is_fragment(operand->buffer)) continue;
      replicated_.emplace(operand->buffer.get(),
                          "as an operand of " + what + " every thread reads all of it");
      g.reads.insert(operand->buffer.get());
    }
    groups_.push_back(std::move(g));
  }

  void visit_reduce(const ReduceNode* op) override {
    std::string what =
        fmt::format("T.reduce_{} at {}", to_string(op->reduce_kind), at_line(op->span));
    if (is_fragment(op->dst)) {
      replicated_.emplace(op->dst.get(), "the result of " + what + ", which every thread receives");
    }
    // The source is staged through shared memory in its own layout: no constraint.
  }

  void visit_for(const ForNode* op) override {
    if (op->for_kind != ForKind::kParallel || nest_) {
      StmtVisitor::visit_for(op);
      return;
    }
    ParallelNest nest = parallel_nest(op);
    UseGroup g{{}, {}, "the T.Parallel at " + at_line(op->span)};
    nest_ = &nest;
    group_ = &g;
    visit(nest.body);
    nest_ = nullptr;
    group_ = nullptr;
    groups_.push_back(std::move(g));
  }

  void visit_store(const StoreNode* op) override {
    access(op->buffer, op->indices, true, op->span);
    StmtVisitor::visit_store(op);
  }

  void visit_load(const LoadNode* op) override {
    access(op->buffer, op->indices, false, op->span);
    ExprVisitor::visit_load(op);
  }

 private:
  struct Partition {
    PartitionedLayoutPtr layout;
    std::string reason;
  };

  static bool is_fragment(const Buffer& b) { return b->scope == StorageScope::kFragment; }

  static bool same_shape(const Buffer& a, const Buffer& b) {
    if (a->shape.size() != b->shape.size()) return false;
    for (size_t d = 0; d < a->shape.size(); ++d) {
      auto *x = as_const_int(a->shape[d]), *y = as_const_int(b->shape[d]);
      if (!x || !y || *x != *y) return false;
    }
    return true;
  }

  // A fragment a T.Parallel touches together with a partitioned one, at the same
  // coordinates (same shape), is partitioned the same way; one that is written there
  // while replicated, or is of another shape, cannot be.
  void propagate_partitions() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& g : groups_) {
        const BufferNode* owner = nullptr;
        for (const auto* set : {&g.writes, &g.reads})
          for (auto* b : *set)
            if (!owner && partitioned_.count(b)) owner = b;
        if (!owner) continue;
        const Partition& p = partitioned_.at(owner);
        for (const auto* set : {&g.writes, &g.reads}) {
          for (auto* b : *set) {
            if (partitioned_.count(b)) continue;
            bool written = g.writes.count(b) > 0;
            if (replicated_.count(b) && !written) continue;  // read whole by every thread
            if (!same_shape(fragments_.at(b), fragments_.at(owner))) {
              throw IRError(fmt::format(
                  "kernel '{}': {} touches fragment '{}' together with '{}', which is "
                  "partitioned as {} ({}), but their shapes differ; give them the same shape "
                  "or copy one through a shared tile",
                  function_, g.what, fragments_.at(b)->name, owner->name, p.layout->name,
                  p.reason));
            }
            partitioned_.emplace(
                b, Partition{p.layout, fmt::format("{} uses it with '{}'", g.what, owner->name)});
            changed = true;
          }
        }
      }
    }
  }

  void add_operand(const TileRegion& r, bool write, UseGroup& g) {
    if (!is_fragment(r.buffer)) return;
    (write ? g.writes : g.reads).insert(r.buffer.get());
    if (!r.is_whole()) {
      replicated_.emplace(r.buffer.get(), g.what + " uses a region of it, not the whole tile");
    }
  }

  void access(const Buffer& b, const std::vector<Expr>& indices, bool write, const Span& span) {
    if (!is_fragment(b)) return;
    if (!nest_) {
      replicated_.emplace(b.get(), "it is accessed outside T.Parallel at " + at_line(span));
      return;
    }
    (write ? group_->writes : group_->reads).insert(b.get());
    if (!follows_nest(*nest_, b, indices)) {
      replicated_.emplace(b.get(), fmt::format("{} indexes it with other than its own loop "
                                               "variables over its whole shape",
                                               group_->what));
    }
  }

  int64_t num_threads_;
  std::string function_;
  const target::Target& target_;
  std::map<const BufferNode*, Partition> partitioned_;
  std::map<const BufferNode*, Buffer> fragments_;
  std::map<const BufferNode*, std::string> cyclic_required_;
  std::map<const BufferNode*, std::string> replicated_;
  std::vector<UseGroup> groups_;
  const ParallelNest* nest_ = nullptr;
  UseGroup* group_ = nullptr;
};

std::string join_dims(const std::vector<std::string>& names, const std::vector<int64_t>& shape) {
  // Row-major flat index: ((i0 * s1 + i1) * s2 + i2) ...
  std::string flat = names.empty() ? "0" : names[0];
  for (size_t k = 1; k < names.size(); ++k) {
    flat = fmt::format("{}*{} + {}", k > 1 ? "(" + flat + ")" : flat, shape[k], names[k]);
  }
  return flat;
}

}  // namespace

std::string FragmentLayout::describe(const Buffer& fragment) const {
  std::vector<std::string> names;
  std::vector<int64_t> shape;
  static const char* kNames[] = {"i", "j", "k", "l", "m", "n"};
  for (size_t d = 0; d < fragment->shape.size(); ++d) {
    names.push_back(d < 6 ? kNames[d] : fmt::format("i{}", d));
    auto* c = as_const_int(fragment->shape[d]);
    shape.push_back(c ? *c : 0);
  }
  std::string dims, index;
  for (size_t d = 0; d < names.size(); ++d) {
    dims += (d ? ", " : "") + std::to_string(shape[d]);
    index += (d ? ", " : "") + names[d];
  }
  std::string flat = join_dims(names, shape);
  if (names.size() > 1) flat = "(" + flat + ")";
  if (kind == FragmentLayoutKind::kPartitioned) {
    return fmt::format(
        "{}[{}] {}: partitioned by {} over {} threads, ({}) of thread t's register r given by "
        "the partition, {} registers per thread ({})",
        fragment->name, dims, fragment->dtype.str(), partition ? partition->name : "?", num_threads,
        index, registers, reason);
  }
  if (kind == FragmentLayoutKind::kReplicated) {
    return fmt::format(
        "{}[{}] {}: replicated in each of {} threads, ({}) -> register {}, {} registers per "
        "thread ({})",
        fragment->name, dims, fragment->dtype.str(), num_threads, index, flat, registers, reason);
  }
  return fmt::format(
      "{}[{}] {}: cyclic over {} threads, ({}) -> thread {} % {}, register {} // {}, {} "
      "registers per thread ({})",
      fragment->name, dims, fragment->dtype.str(), num_threads, index, flat, num_threads, flat,
      num_threads, registers, reason);
}

FragmentLayouts infer_fragment_layouts(const KernelNode& kernel, int64_t num_threads,
                                       const std::string& function_name,
                                       const target::Target& target) {
  return LayoutInference(num_threads, function_name, target).run(kernel);
}

bool register_accumulator_layout_provider(AccumulatorLayoutProvider provider) {
  ProviderRegistry& r = providers();
  std::lock_guard lock(r.mutex);
  for (auto& existing : r.providers) {
    if (existing.name == provider.name) {
      existing = std::move(provider);
      return false;
    }
  }
  r.providers.push_back(std::move(provider));
  return true;
}

bool unregister_accumulator_layout_provider(const std::string& name) {
  ProviderRegistry& r = providers();
  std::lock_guard lock(r.mutex);
  for (auto it = r.providers.begin(); it != r.providers.end(); ++it) {
    if (it->name == name) {
      r.providers.erase(it);
      return true;
    }
  }
  return false;
}

std::optional<PartitionedLayout> accumulator_layout(const GemmNode& gemm, int64_t num_threads,
                                                    const target::Target& target) {
  std::vector<AccumulatorLayoutProvider> snapshot;
  {
    ProviderRegistry& r = providers();
    std::lock_guard lock(r.mutex);
    snapshot = r.providers;
  }
  for (const auto& p : snapshot) {
    if (p.supports_target && !p.supports_target(target)) continue;
    if (auto layout = p.layout(gemm, num_threads, target)) return layout;
  }
  return std::nullopt;
}

}  // namespace tilec::gpu
