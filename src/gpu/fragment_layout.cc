#include "tilec/gpu/fragment_layout.h"

#include "simt_error.h"
#include "tilec/gpu/parallel_nest.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/writes.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <set>
#include <vector>

namespace tilec::gpu {

using namespace ir;

namespace {

const char* kIndexNames[] = {"i", "j", "k", "l", "m", "n"};

std::string index_name(size_t d) {
  return d < 6 ? kIndexNames[d] : fmt::format("i{}", d);
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Row-major flat index of `vars` over `shape`, as an expression and as the text the
// cyclic and replicated layouts print: ((i0 * s1 + i1) * s2 + i2) ...
Expr flat_index(const std::vector<Var>& vars, const std::vector<int64_t>& shape) {
  Expr flat = make_zero(DataType::Int32());
  for (size_t d = 0; d < vars.size(); ++d) flat = flat * make_int(shape[d]) + vars[d];
  return transform::simplify(flat);
}

std::string flat_text(const std::vector<int64_t>& shape) {
  std::string flat = shape.empty() ? "0" : index_name(0);
  for (size_t k = 1; k < shape.size(); ++k) {
    flat = fmt::format("{}*{} + {}", k > 1 ? "(" + flat + ")" : flat, shape[k], index_name(k));
  }
  return shape.size() > 1 ? "(" + flat + ")" : flat;
}

// `flat` split into indices over `shape` (row-major).
std::vector<Expr> unflatten(const Expr& flat, const std::vector<int64_t>& shape) {
  std::vector<Expr> out(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    Expr q = stride == 1 ? flat : floordiv(flat, make_int(stride));
    out[d] = transform::simplify(d == 0 ? q : floormod(q, make_int(shape[d])));
    stride *= shape[d];
  }
  return out;
}

int64_t evaluate(const Expr& e, const VarMap& values) {
  Expr v = transform::simplify(substitute(e, values));
  const int64_t* c = as_const_int(v);
  if (!c) {
    if (v.dtype().is_bool()) {
      if (auto* imm = v.as<IntImmNode>()) return imm->value;
    }
    throw IRError("fragment layout: '" + print(e) + "' does not evaluate to a constant (" +
                  print(v) + ")");
  }
  return *c;
}

}  // namespace

std::string source_line(const Span& span) {
  return span.known() ? fmt::format("line {}", span.line) : std::string("an unknown line");
}

FragmentLayout make_layout(std::string kind, const std::vector<int64_t>& shape, int64_t num_threads,
                           int64_t registers, const std::function<void(FragmentLayout&)>& build) {
  FragmentLayout l;
  l.kind = std::move(kind);
  l.shape = shape;
  l.num_threads = num_threads;
  l.registers = registers;
  for (size_t d = 0; d < shape.size(); ++d) l.index_vars.push_back(make_var(index_name(d)));
  l.thread_var = make_var("t");
  l.register_var = make_var("r");
  build(l);
  if (!l.holds.defined()) l.holds = make_bool(true);
  return l;
}

FragmentLayout cyclic_layout(const std::vector<int64_t>& shape, int64_t num_threads) {
  int64_t numel = numel_of(shape);
  return make_layout("cyclic", shape, num_threads, (numel + num_threads - 1) / num_threads,
                     [&](FragmentLayout& l) {
                       Expr flat = flat_index(l.index_vars, shape);
                       l.thread_of = transform::simplify(floormod(flat, make_int(num_threads)));
                       l.register_of = transform::simplify(floordiv(flat, make_int(num_threads)));
                       Expr f = l.register_var * make_int(num_threads) + l.thread_var;
                       l.element_of = unflatten(f, shape);
                       if (numel % num_threads != 0) l.holds = f < make_int(numel);
                     });
}

FragmentLayout replicated_layout(const std::vector<int64_t>& shape, int64_t num_threads) {
  FragmentLayout l =
      make_layout("replicated", shape, num_threads, numel_of(shape), [&](FragmentLayout& l) {
        l.thread_of = make_zero(DataType::Int32());
        l.register_of = flat_index(l.index_vars, shape);
        l.element_of = unflatten(l.register_var, shape);
      });
  l.replicated = true;
  return l;
}

std::string FragmentLayout::mapping() const {
  std::string index;
  for (size_t d = 0; d < shape.size(); ++d) index += (d ? ", " : "") + index_name(d);
  if (replicated) {
    return fmt::format("replicated in each of {} threads, ({}) -> register {}", num_threads, index,
                       flat_text(shape));
  }
  if (kind == "cyclic") {
    std::string flat = flat_text(shape);
    return fmt::format("cyclic over {} threads, ({}) -> thread {} % {}, register {} // {}",
                       num_threads, index, flat, num_threads, flat, num_threads);
  }
  return fmt::format("{} over {} threads, ({}) -> thread {}, register {}", kind, num_threads, index,
                     print(thread_of), print(register_of));
}

std::string FragmentLayout::describe(const Buffer& fragment) const {
  std::string dims;
  for (size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
  return fmt::format("{}[{}] {}: {}, {} registers per thread ({})", fragment->name, dims,
                     fragment->dtype.str(), mapping(), registers, reason);
}

std::optional<FragmentLayout> FragmentLayout::reshaped(const std::vector<int64_t>& to) const {
  std::vector<size_t> mine, theirs;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) mine.push_back(d);
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) theirs.push_back(d);
  if (mine.size() != theirs.size()) return std::nullopt;
  for (size_t k = 0; k < mine.size(); ++k)
    if (shape[mine[k]] != to[theirs[k]]) return std::nullopt;
  if (to == shape) return *this;
  if (kind == "cyclic" && !replicated) return cyclic_layout(to, num_threads);
  if (replicated) return replicated_layout(to, num_threads);
  FragmentLayout l = make_layout(kind, to, num_threads, registers, [&](FragmentLayout& n) {
    VarMap forward;
    for (size_t d = 0; d < shape.size(); ++d) forward[index_vars[d].get()] = make_int(0);
    for (size_t k = 0; k < mine.size(); ++k)
      forward[index_vars[mine[k]].get()] = n.index_vars[theirs[k]];
    n.thread_of = substitute(thread_of, forward);
    n.register_of = substitute(register_of, forward);
    VarMap inverse{{thread_var.get(), n.thread_var}, {register_var.get(), n.register_var}};
    n.element_of.assign(to.size(), make_int(0));
    for (size_t k = 0; k < mine.size(); ++k)
      n.element_of[theirs[k]] = substitute(element_of[mine[k]], inverse);
    n.holds = substitute(holds, inverse);
  });
  l.reason = reason;
  return l;
}

int64_t FragmentLayout::thread_at(const std::vector<int64_t>& index) const {
  VarMap values;
  for (size_t d = 0; d < index_vars.size(); ++d) values[index_vars[d].get()] = make_int(index[d]);
  return evaluate(thread_of, values);
}

int64_t FragmentLayout::register_at(const std::vector<int64_t>& index) const {
  VarMap values;
  for (size_t d = 0; d < index_vars.size(); ++d) values[index_vars[d].get()] = make_int(index[d]);
  return evaluate(register_of, values);
}

std::optional<std::vector<int64_t>> FragmentLayout::element_at(int64_t thread, int64_t reg) const {
  VarMap values{{thread_var.get(), make_int(thread)}, {register_var.get(), make_int(reg)}};
  if (!evaluate(holds, values)) return std::nullopt;
  std::vector<int64_t> index;
  for (const auto& e : element_of) index.push_back(evaluate(e, values));
  return index;
}

std::string check_layout(const FragmentLayout& layout) {
  int64_t numel = numel_of(layout.shape);
  std::set<std::pair<int64_t, int64_t>> seen;
  std::vector<int64_t> index(layout.shape.size(), 0);
  for (int64_t f = 0; f < numel; ++f) {
    for (int64_t rest = f, d = int64_t(index.size()); d-- > 0;) {
      index[size_t(d)] = rest % layout.shape[size_t(d)];
      rest /= layout.shape[size_t(d)];
    }
    int64_t t = layout.replicated ? 0 : layout.thread_at(index);
    int64_t r = layout.register_at(index);
    auto where = [&] {
      std::string s;
      for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
      return "(" + s + ")";
    };
    if (t < 0 || t >= layout.num_threads || r < 0 || r >= layout.registers) {
      return fmt::format(
          "element {} maps to thread {}, register {}: outside {} threads x {} "
          "registers",
          where(), t, r, layout.num_threads, layout.registers);
    }
    if (!seen.emplace(t, r).second) {
      return fmt::format("element {} maps to thread {}, register {}, which another element has",
                         where(), t, r);
    }
    auto back = layout.element_at(t, r);
    if (!back || *back != index) {
      return fmt::format("element {} maps to thread {}, register {}, whose inverse is {}", where(),
                         t, r, back ? "another element" : "no element");
    }
  }
  return "";
}

namespace {

// One statement that touches fragments together: a tile op or a T.Parallel nest. When
// it writes a replicated fragment it runs redundantly on every thread, so every
// fragment it reads must be replicated too; the fragments it accesses element by element
// at the nest's own indices (`follows`) are split over the threads together, so they
// share one layout.
struct UseGroup {
  std::set<const BufferNode*> writes, reads, follows;
  std::string what;  // "T.copy at line 12"
};

class LayoutInference : public StmtVisitor {
 public:
  LayoutInference(int64_t num_threads, std::string function_name,
                  const LayoutRequirements& required)
      : num_threads_(num_threads), function_(std::move(function_name)), required_(required) {}

  FragmentLayouts run(const KernelNode& kernel) {
    visit(kernel.body);
    propagate_replication();
    return layouts();
  }

  std::vector<StagedFragment> fragments_to_stage(const KernelNode& kernel, int64_t budget,
                                                 int64_t shared_left) {
    visit(kernel.body);
    std::vector<StagedFragment> staged;
    std::set<const BufferNode*> chosen;
    auto stage = [&](const BufferNode* node, int64_t bytes, std::string reason) {
      staged.push_back({fragments_.at(node), std::move(reason)});
      chosen.insert(node);
      if (shared_left >= 0) shared_left -= bytes;
    };
    auto bytes_of = [&](const BufferNode* node) {
      const Buffer& buffer = fragments_.at(node);
      return numel_of(constant_shape(buffer)) * buffer->dtype.bytes();
    };
    // A gemm operand whose replication would reach a partitioned accumulator: shared
    // memory is the only place both uses can read it from.
    for (const auto& [node, use] : gemm_operands_) {
      if (required_.count(node) || reduce_results_.count(node)) continue;
      if (auto conflict = replication_reaches_required(node)) {
        stage(node, bytes_of(node),
              fmt::format("replicating it in every thread for {} would also replicate '{}' ({}), "
                          "which {} partitions",
                          use, conflict->first->name, conflict->second,
                          required_.at(conflict->first).use));
      }
    }
    if (budget <= 0) return staged;
    // A fragment every thread would hold whole that alone exceeds the register budget,
    // while the block's shared memory has room for it.
    propagate_replication();
    for (const auto& [node, why] : replicated_) {
      if (chosen.count(node) || required_.count(node) || !fragments_.count(node)) continue;
      int64_t bytes = bytes_of(node);
      if (bytes <= budget || (shared_left >= 0 && bytes > shared_left)) continue;
      stage(node, bytes,
            fmt::format("replicated in every thread ({}) it would take {} bytes of each "
                        "thread's registers, above the budget of {}",
                        why, bytes, budget));
    }
    return staged;
  }

 private:
  FragmentLayouts layouts() {
    FragmentLayouts layouts;
    // Required layouts first, then what follows them through the groups.
    for (const auto& [node, buffer] : fragments_) {
      auto req = required_.find(node);
      if (req == required_.end()) continue;
      check_not_replicated(buffer, req->second.use);
      FragmentLayout l = req->second.layout;
      l.reason = req->second.use;
      layouts[node] = l;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& g : groups_) changed |= propagate_through(g, layouts);
    }
    for (const auto& [node, buffer] : fragments_) {
      if (layouts.count(node)) continue;
      std::vector<int64_t> shape = constant_shape(buffer);
      auto replicated = replicated_.find(node);
      FragmentLayout l;
      if (replicated != replicated_.end()) {
        l = replicated_layout(shape, num_threads_);
        l.reason = replicated->second;
      } else {
        l = cyclic_layout(shape, num_threads_);
        l.reason = "elementwise uses only (the default)";
      }
      layouts[node] = l;
    }
    return layouts;
  }

  // The first required fragment that replicating `start` would replicate too (through
  // the groups, as propagate_replication spreads it), with the group that spreads it.
  std::optional<std::pair<const BufferNode*, std::string>> replication_reaches_required(
      const BufferNode* start) const {
    std::map<const BufferNode*, std::string> reached{{start, ""}};
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& g : groups_) {
        bool writes_reached = false;
        for (auto* w : g.writes) writes_reached = writes_reached || reached.count(w);
        if (!writes_reached) continue;
        for (const auto* set : {&g.writes, &g.reads}) {
          for (auto* b : *set) {
            if (!reached.emplace(b, g.what).second) continue;
            changed = true;
            if (required_.count(b)) return std::make_pair(b, g.what);
          }
        }
      }
    }
    return std::nullopt;
  }

 protected:
  void visit_allocate(const AllocateNode* op) override {
    if (op->buffer->scope == StorageScope::kFragment) fragments_[op->buffer.get()] = op->buffer;
    StmtVisitor::visit_allocate(op);
  }

  void visit_copy(const CopyNode* op) override {
    UseGroup g{{}, {}, {}, "T.copy at " + source_line(op->span)};
    add_operand(op->src, false, g);
    for_each_write(op, [&](const Write& w) { add_operand(*w.region, true, g); });
    groups_.push_back(std::move(g));
  }

  void visit_fill(const FillNode* op) override {
    UseGroup g{{}, {}, {}, "T.fill at " + source_line(op->span)};
    for_each_write(op, [&](const Write& w) { add_operand(*w.region, true, g); });
    groups_.push_back(std::move(g));
  }

  void visit_gemm(const GemmNode* op) override {
    std::string what = "T.gemm at " + source_line(op->span);
    UseGroup g{{}, {}, {}, what};
    for_each_write(op, [&](const Write& w) {
      if (!is_fragment(w.buffer)) return;
      g.writes.insert(w.buffer.get());
      g.follows.insert(w.buffer.get());
    });
    for (const auto* operand : {&op->a, &op->b}) {
      if (!is_fragment(operand->buffer)) continue;
      replicated_.emplace(operand->buffer.get(),
                          "as an operand of " + what + " every thread reads all of it");
      gemm_operands_.emplace(operand->buffer.get(), what);
      g.reads.insert(operand->buffer.get());
    }
    groups_.push_back(std::move(g));
  }

  void visit_reduce(const ReduceNode* op) override {
    std::string what =
        fmt::format("T.reduce_{} at {}", to_string(op->reduce_kind), source_line(op->span));
    for_each_write(op, [&](const Write& w) {
      if (!is_fragment(w.buffer)) return;
      replicated_.emplace(w.buffer.get(),
                          "the result of " + what + ", which every thread receives");
      reduce_results_.insert(w.buffer.get());
    });
    // The source is staged through shared memory in its own layout: no constraint.
  }

  void visit_for(const ForNode* op) override {
    if (op->for_kind != ForKind::kParallel || nest_) {
      StmtVisitor::visit_for(op);
      return;
    }
    ParallelNest nest = parallel_nest(op);
    UseGroup g{{}, {}, {}, "the T.Parallel at " + source_line(op->span)};
    nest_ = &nest;
    group_ = &g;
    visit(nest.body);
    nest_ = nullptr;
    group_ = nullptr;
    groups_.push_back(std::move(g));
  }

  void visit_store(const StoreNode* op) override {
    for_each_write(op, [&](const Write& w) { access(w.buffer, *w.indices, true, op->span); });
    StmtVisitor::visit_store(op);
  }

  void visit_load(const LoadNode* op) override {
    access(op->buffer, op->indices, false, op->span);
    ExprVisitor::visit_load(op);
  }

 private:
  static bool is_fragment(const Buffer& b) { return b->scope == StorageScope::kFragment; }

  std::vector<int64_t> constant_shape(const Buffer& buffer) const {
    std::vector<int64_t> shape;
    for (const auto& d : buffer->shape) {
      auto* c = as_const_int(d);
      if (!c) {
        simt_error(function_, buffer->span,
                   fmt::format("fragment '{}' has a symbolic shape; fragments live in "
                               "registers, so their shape must be a constant (use "
                               "T.alloc_shared for a tile of symbolic size)",
                               buffer->name));
      }
      shape.push_back(*c);
    }
    return shape;
  }

  void propagate_replication() {
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
  }

  void check_not_replicated(const Buffer& buffer, const std::string& use) const {
    auto replicated = replicated_.find(buffer.get());
    if (replicated == replicated_.end()) return;
    simt_error(function_, buffer->span,
               fmt::format("no layout fits fragment '{}': as {} it must be partitioned over the "
                           "{} threads, but {} needs every thread to hold all of it. Read it "
                           "through a T.copy into another fragment or a shared tile, or index "
                           "it in T.Parallel with the loop's own variables over its whole shape",
                           buffer->name, use, num_threads_, replicated->second));
  }

  // Gives the fragments `g` splits together the layout one of them has; true if any
  // layout was assigned.
  bool propagate_through(const UseGroup& g, FragmentLayouts& layouts) {
    const BufferNode* leader = nullptr;
    for (auto* b : g.follows)
      if (!replicated_.count(b) && layouts.count(b)) leader = leader ? leader : b;
    if (!leader) return false;
    const FragmentLayout& lead = layouts.at(leader);
    bool changed = false;
    for (auto* b : g.follows) {
      if (b == leader || replicated_.count(b)) continue;
      const Buffer& buffer = fragments_.at(b);
      std::optional<FragmentLayout> mine = lead.reshaped(constant_shape(buffer));
      auto have = layouts.find(b);
      if (have != layouts.end()) {
        if (mine && have->second.same_mapping(*mine)) continue;
        simt_error(function_, buffer->span,
                   fmt::format("{} splits fragments '{}' and '{}' over the threads together, so "
                               "they need one layout, but '{}' is laid out as {} ({}) and '{}' "
                               "as {} ({}). Copy one of them into a shared tile (T.copy) and "
                               "use that instead",
                               g.what, leader->name, b->name, leader->name, lead.mapping(),
                               lead.reason, b->name, have->second.mapping(), have->second.reason));
      }
      if (!mine) {
        simt_error(
            function_, buffer->span,
            fmt::format("{} splits fragments '{}' and '{}' over the threads together, "
                        "but their shapes differ, so '{}' cannot take the layout of '{}' "
                        "({}). Index both with the loop's own variables over the same "
                        "shape",
                        g.what, leader->name, b->name, b->name, leader->name, lead.mapping()));
      }
      check_not_replicated(buffer, fmt::format("a tile {} splits like '{}'", g.what, leader->name));
      mine->reason = fmt::format("follows '{}' through {}", leader->name, g.what);
      layouts[b] = *mine;
      changed = true;
    }
    return changed;
  }

  void add_operand(const TileRegion& r, bool write, UseGroup& g) {
    if (!is_fragment(r.buffer)) return;
    (write ? g.writes : g.reads).insert(r.buffer.get());
    if (!r.is_whole()) {
      replicated_.emplace(r.buffer.get(), g.what + " uses a region of it, not the whole tile");
    } else {
      g.follows.insert(r.buffer.get());
    }
  }

  void access(const Buffer& b, const std::vector<Expr>& indices, bool write, const Span& span) {
    if (!is_fragment(b)) return;
    if (!nest_) {
      replicated_.emplace(b.get(), "it is accessed outside T.Parallel at " + source_line(span));
      return;
    }
    (write ? group_->writes : group_->reads).insert(b.get());
    if (!follows_nest(*nest_, b, indices)) {
      replicated_.emplace(b.get(), fmt::format("{} indexes it with other than its own loop "
                                               "variables over its whole shape",
                                               group_->what));
    } else {
      group_->follows.insert(b.get());
    }
  }

  int64_t num_threads_;
  std::string function_;
  const LayoutRequirements& required_;
  std::map<const BufferNode*, Buffer> fragments_;
  std::map<const BufferNode*, std::string> replicated_;
  std::map<const BufferNode*, std::string> gemm_operands_;  // fragment -> "T.gemm at line 12"
  std::set<const BufferNode*> reduce_results_;
  std::vector<UseGroup> groups_;
  const ParallelNest* nest_ = nullptr;
  UseGroup* group_ = nullptr;
};

}  // namespace

FragmentLayouts infer_fragment_layouts(const KernelNode& kernel, int64_t num_threads,
                                       const std::string& function_name,
                                       const LayoutRequirements& required) {
  return LayoutInference(num_threads, function_name, required).run(kernel);
}

std::vector<StagedFragment> fragments_to_stage(const KernelNode& kernel, int64_t num_threads,
                                               const std::string& function_name,
                                               const LayoutRequirements& required,
                                               int64_t register_budget_bytes,
                                               int64_t shared_bytes_left) {
  return LayoutInference(num_threads, function_name, required)
      .fragments_to_stage(kernel, register_budget_bytes, shared_bytes_left);
}

}  // namespace tilec::gpu
