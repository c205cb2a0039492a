#include "tilec/gpu/lower_simt.h"

#include "hoist_shared.h"
#include "simt_error.h"
#include "tilec/gpu/fragment_layout.h"
#include "tilec/gpu/once_per_block.h"
#include "tilec/gpu/parallel_nest.h"
#include "tilec/gpu/register_budget.h"
#include "tilec/gpu/simt_context.h"
#include "tilec/gpu/staged_fragments.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/gpu/vector_split.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/thread_binding.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/tile_op_impl.h"

#include "tilec/transform/warp_shuffles.h"
#include "tilec/transform/work_item_loops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_set>

namespace tilec::gpu {

using namespace ir;

namespace {

bool writes_any(const Stmt& body, const std::function<bool(const Buffer&)>& pred) {
  bool found = false;
  post_order_visit(body, [&](const Stmt* s, const Expr*) {
    if (!s) return;
    if (auto* st = s->as<StoreNode>(); st && pred(st->buffer)) found = true;
  });
  return found;
}

// Splits T.Parallel nests over the threads and maps fragments to their registers.
// Per-thread code (ir/thread_binding.h, docs/semantics.md "Per-thread code") runs on
// every thread as written: a T.Parallel nest or tile op that touches a thread index or
// thread-private storage runs whole in each thread, and its stores, like those under a
// condition on the thread index, are not handed to thread 0. Atomic updates in
// block-level code are handed to thread 0 (gpu/once_per_block.h).
class Distributor : public StmtMutator {
 public:
  Distributor(Var tid, int64_t num_threads, int64_t vector_bytes, const FragmentLayouts& layouts,
              SimtContext& context, std::string function, const std::vector<Var>& thread_vars)
      : tid_(std::move(tid)),
        threads_(num_threads),
        vector_bytes_(vector_bytes),
        layouts_(layouts),
        context_(context),
        function_(std::move(function)) {
    for (const auto& v : thread_vars) thread_state_.insert(v.get());
  }

 protected:
  // Whether `e` depends on which thread evaluates it: a thread index, a name bound to
  // one, or thread-private storage.
  bool per_thread(const Expr& e) const {
    // Kernels without per-thread code keep the block model: nothing varies by thread but
    // what a tile-op implementation computes per thread from subgroup operations.
    if (!thread_state_.empty() && varies_by_thread(e, thread_state_)) return true;
    if (calls_subgroup_op(e)) return true;
    bool found = false;
    if (!subgroup_state_.empty()) {
      post_order_visit(e, [&](const Expr& x) {
        if (auto* v = x.as<VarNode>()) found = found || subgroup_state_.count(v) > 0;
      });
    }
    return found;
  }
  bool per_thread(const Stmt& s) const {
    if (thread_state_.empty()) return false;
    bool found = false;
    post_order_visit(s, [&](const Stmt* st, const Expr* e) {
      if (e) {
        found = found || per_thread(*e);
      } else if (auto* store = st->as<StoreNode>()) {
        found = found || is_thread_private(store->buffer);
      }
    });
    return found;
  }

  // Whether code here, in which nothing depends on the thread (`thread_dependent`
  // false), means "once per block" (docs/semantics.md): a kernel without per-thread
  // code outside the nests split over the threads, or a nest every thread runs whole
  // for a replicated fragment. In a per-thread kernel a scalar statement means "once in
  // every thread", which is what every thread executing it does.
  bool once_per_block(bool thread_dependent) const {
    if (thread_dependent) return false;
    if (mode_ == Mode::kRedundant) return true;
    return mode_ == Mode::kBlock && thread_state_.empty();
  }
  bool thread_dependent(const Stmt& self) const {
    return per_thread_depth_ > 0 || mode_ == Mode::kPerThread || per_thread(self);
  }

  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    if (per_thread(op->value)) {
      if (!thread_state_.empty()) thread_state_.insert(op->var.get());
      subgroup_state_.insert(op->var.get());
    }
    if (performs_atomic(op->value) && once_per_block(thread_dependent(self))) {
      Expr value = mutate(op->value);
      return let_from_thread_zero(op->var, value, mutate(op->body), tid_, op->span);
    }
    return StmtMutator::mutate_let(op, self);
  }

  Stmt mutate_evaluate(const EvaluateNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::mutate_evaluate(op, self);
    if (performs_atomic(op->value) && once_per_block(thread_dependent(self)))
      return on_thread_zero(s, tid_, op->span);
    return s;
  }

  Stmt mutate_if(const IfNode* op, const Stmt& self) override {
    if (performs_atomic(op->cond) &&
        once_per_block(per_thread_depth_ > 0 || mode_ == Mode::kPerThread ||
                       per_thread(op->cond))) {
      // Thread 0 performs the update; every thread branches on its result.
      Var cond = make_var("cond", op->cond.dtype());
      Expr value = mutate(op->cond);
      auto n = copy_node(op);
      n->cond = cond;
      n->then_case = mutate(op->then_case);
      if (op->else_case) n->else_case = mutate(op->else_case);
      return let_from_thread_zero(cond, value, Stmt(n), tid_, op->span);
    }
    if (!per_thread(op->cond)) return StmtMutator::mutate_if(op, self);
    ++per_thread_depth_;
    Stmt out = StmtMutator::mutate_if(op, self);
    --per_thread_depth_;
    return out;
  }

  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    if (op->buffer->scope != StorageScope::kFragment) return StmtMutator::mutate_allocate(op, self);
    Buffer regs = context_.register_buffer(op->buffer);
    regs_[op->buffer.get()] = regs;
    return allocate(regs, mutate(op->body), std::nullopt, op->span);
  }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    if (op->for_kind == ForKind::kThreadBinding) {
      simt_error(function_, op->span,
                 fmt::format("a thread-binding loop ('{}') in the kernel source; the SIMT "
                             "lowering binds the threads of T.Kernel(..., threads=N) itself, so "
                             "write the loop as T.Parallel or T.serial",
                             op->thread_tag));
    }
    if (op->for_kind != ForKind::kParallel) {
      if ((performs_atomic(op->begin) || performs_atomic(op->end)) &&
          once_per_block(per_thread_depth_ > 0 || mode_ == Mode::kPerThread ||
                         per_thread(op->begin) || per_thread(op->end))) {
        simt_error(function_, op->span,
                   "an atomic update in the bounds of a loop in block-level code; every "
                   "thread of the block evaluates the bounds, so bind its result to a name "
                   "before the loop (prev = T.atomic_add(..., return_prev=True))");
      }
      if (!per_thread(op->begin) && !per_thread(op->end)) return StmtMutator::mutate_for(op, self);
      ++per_thread_depth_;
      Stmt out = StmtMutator::mutate_for(op, self);
      --per_thread_depth_;
      return out;
    }
    if (mode_ == Mode::kBlock && (per_thread_depth_ > 0 || per_thread(self))) {
      // Per-thread code: the whole nest, serially, in every thread.
      Mode saved = mode_;
      mode_ = Mode::kPerThread;
      ++per_thread_depth_;
      Stmt out = mutate(serial_nest(op));
      --per_thread_depth_;
      mode_ = saved;
      return out;
    }
    if (mode_ != Mode::kBlock) {
      // A nest inside a split nest (or a redundant one) runs serially in its thread.
      auto n = copy_node(op);
      n->for_kind = ForKind::kSerial;
      n->body = mutate(op->body);
      return Stmt(n);
    }
    ParallelNest nest = parallel_nest(op);
    bool redundant = writes_any(nest.body, [&](const Buffer& b) {
      auto it = layouts_.find(b.get());
      return it != layouts_.end() && it->second.replicated;
    });
    if (redundant) return redundant_nest(nest, op->span);
    if (auto leader = layout_leader(nest)) return layout_split_nest(nest, *leader, op->span);
    return split_nest(nest, op->span);
  }

  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    std::vector<Expr> indices;
    mutate_all(op->indices, &indices);
    bool thread_dependent = this->thread_dependent(self);
    bool shared_memory =
        op->buffer->scope == StorageScope::kShared || op->buffer->scope == StorageScope::kGlobal;
    if (!shared_memory && performs_atomic(op->value) && once_per_block(thread_dependent)) {
      // Each thread keeps the result (a register, a local): thread 0 performs the update.
      Var result = make_var(op->buffer->name + "_value", value.dtype());
      Stmt keep = mutate_store_of(op, result, indices, thread_dependent);
      return let_from_thread_zero(result, value, keep, tid_, op->span);
    }
    return mutate_store_of(op, value, indices, thread_dependent);
  }

  Stmt mutate_store_of(const StoreNode* op, const Expr& value, const std::vector<Expr>& indices,
                       bool thread_dependent) {
    bool shared_memory =
        op->buffer->scope == StorageScope::kShared || op->buffer->scope == StorageScope::kGlobal;
    if (op->buffer->scope == StorageScope::kFragment) {
      if (thread_dependent && !thread_state_.empty()) {
        simt_error(function_, op->span,
                   fmt::format("per-thread code writes fragment '{}'; on SIMT targets a "
                               "fragment is spread over (or copied into) the threads' "
                               "registers, so one thread's write is not the block's: write "
                               "per-thread results to a T.alloc_shared tile or T.alloc_local",
                               op->buffer->name));
      }
      auto [regs, index] = registers_of(op->buffer, op->indices, indices, op->span);
      return store(regs, {index}, value, op->span);
    }
    Stmt s = store(op->buffer, indices, value, op->span);
    if (shared_memory && mode_ != Mode::kSplit && !thread_dependent) {
      // Every thread computes the same value here; one of them stores it.
      s = if_then_else(eq(tid_, make_zero(tid_.dtype())), s, {}, op->span);
    }
    return s;
  }

  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    std::vector<Expr> indices;
    mutate_all(op->indices, &indices);
    if (op->buffer->scope == StorageScope::kFragment) {
      auto [regs, index] = registers_of(op->buffer, op->indices, indices, op->span);
      return load(regs, {index}, op->span);
    }
    return load(op->buffer, indices, op->span);
  }

 private:
  enum class Mode { kBlock, kSplit, kRedundant, kPerThread };

  // The perfect T.Parallel nest at `outer` as serial loops.
  static Stmt serial_nest(const ForNode* outer) {
    ParallelNest nest = parallel_nest(outer);
    Stmt body = nest.body;
    for (size_t k = nest.vars.size(); k-- > 0;) {
      body = for_loop(nest.vars[k], make_zero(nest.extents[k].dtype()), nest.extents[k], body,
                      ForKind::kSerial, 1, outer->span);
    }
    return body;
  }

  struct Split {
    const ParallelNest* nest;
    Var reg;
    const FragmentLayout* layout;  // the layout the nest is split by; nullptr: cyclic
  };

  // A fragment the nest accesses at its own indices whose layout is neither cyclic nor
  // replicated: the nest is split by that layout (its index variables, and the layout).
  struct Leader {
    std::vector<int> dims;  // per nest variable, the fragment dimension it indexes or -1
    const FragmentLayout* layout;
  };

  std::optional<Leader> layout_leader(const ParallelNest& nest) {
    std::optional<Leader> leader;
    post_order_visit(nest.body, [&](const Stmt* s, const Expr* e) {
      if (leader) return;
      const Buffer* b = nullptr;
      const std::vector<Expr>* indices = nullptr;
      if (auto* st = s ? s->as<StoreNode>() : nullptr) {
        b = &st->buffer;
        indices = &st->indices;
      } else if (auto* ld = e ? e->as<LoadNode>() : nullptr) {
        b = &ld->buffer;
        indices = &ld->indices;
      }
      if (!b || (*b)->scope != StorageScope::kFragment) return;
      auto it = layouts_.find(b->get());
      if (it == layouts_.end() || it->second.replicated || it->second.kind == "cyclic") return;
      if (!follows_nest(nest, *b, *indices)) return;
      Leader l{std::vector<int>(nest.vars.size(), -1), &it->second};
      for (size_t d = 0; d < indices->size(); ++d) {
        for (size_t k = 0; k < nest.vars.size(); ++k)
          if ((*indices)[d].get() == nest.vars[k].get()) l.dims[k] = int(d);
      }
      leader = l;
    });
    return leader;
  }

  // Whether `fragment`'s registers are the ones the current split gives a thread.
  bool split_matches(const FragmentLayout& layout) const {
    if (!split_.layout) return layout.kind == "cyclic";
    auto mine = layout.reshaped(split_.layout->shape);
    return mine && mine->same_mapping(*split_.layout);
  }

  std::pair<Buffer, Expr> registers_of(const Buffer& fragment, const std::vector<Expr>& original,
                                       const std::vector<Expr>& mutated, const Span& span) {
    auto it = regs_.find(fragment.get());
    if (it == regs_.end()) {
      simt_error(function_, span,
                 fmt::format("fragment '{}' is used outside the scope it is allocated in",
                             fragment->name));
    }
    const FragmentLayout& layout = layouts_.at(fragment.get());
    if (layout.replicated) {
      Expr flat = make_zero(DataType::Int32());
      for (size_t d = 0; d < mutated.size(); ++d) {
        flat = flat * fragment->shape[d] + cast(DataType::Int32(), mutated[d]);
      }
      return {it->second, transform::simplify(flat)};
    }
    if (mode_ == Mode::kSplit && follows_nest(*split_.nest, fragment, original) &&
        split_matches(layout)) {
      return {it->second, split_.reg};
    }
    simt_error(function_, span,
               fmt::format("fragment '{}' is laid out over the threads ({}), but this access is "
                           "not one the layout gives the accessing thread; access it in a "
                           "T.Parallel over its whole shape indexed by the loop's own "
                           "variables, or T.copy it into shared memory first",
                           fragment->name, layout.describe(fragment)));
  }

  // Every thread runs the whole nest (it writes a fragment each thread holds entirely).
  Stmt redundant_nest(const ParallelNest& nest, const Span& span) {
    Mode saved = mode_;
    mode_ = Mode::kRedundant;
    Stmt body = mutate(nest.body);
    mode_ = saved;
    for (size_t k = nest.vars.size(); k-- > 0;) {
      body = for_loop(nest.vars[k], make_zero(nest.extents[k].dtype()), nest.extents[k], body,
                      ForKind::kSerial, 1, span);
    }
    return body;
  }

  // for r in [0, ceil(total / T)): f = r * T + tid; if f < total: (i, j, ...) = f unflattened.
  Stmt split_nest(const ParallelNest& nest, const Span& span) {
    DataType t = DataType::Int32();
    Expr total = make_int(1);
    for (const auto& e : nest.extents) total = total * cast(t, e);
    total = transform::simplify(total);
    Var reg = make_var("r", t);
    Var flat = make_var("f", t);
    Mode saved_mode = mode_;
    Split saved_split = split_;
    mode_ = Mode::kSplit;
    split_ = Split{&nest, reg, nullptr};
    Stmt body = mutate(nest.body);
    mode_ = saved_mode;
    split_ = saved_split;
    if (auto vectorized = split_nest_vectorized(nest, body, tid_, threads_, vector_bytes_, span))
      return *vectorized;
    Expr stride = make_int(1);
    for (size_t k = nest.vars.size(); k-- > 0;) {
      Expr coord = k == 0 ? floordiv(flat, stride)
                          : floormod(floordiv(flat, stride), cast(t, nest.extents[k]));
      body = let(nest.vars[k], cast(nest.vars[k].dtype(), transform::simplify(coord)), body);
      stride = transform::simplify(stride * cast(t, nest.extents[k]));
    }
    const int64_t* total_const = as_const_int(total);
    if (!total_const || *total_const % threads_ != 0) {
      body = if_then_else(flat < total, body, {}, span);
    }
    body = let(flat, reg * make_int(threads_) + tid_, body);
    Expr registers = transform::simplify(ceildiv(total, make_int(threads_)));
    return for_loop(reg, make_zero(t), registers, body, ForKind::kSerial, 1, span);
  }

  // for r in [0, registers): (i, j, ...) = layout.element_of(tid, r); if layout.holds: body.
  Stmt layout_split_nest(const ParallelNest& nest, const Leader& leader, const Span& span) {
    const FragmentLayout& layout = *leader.layout;
    Var reg = make_var("r", DataType::Int32());
    Mode saved_mode = mode_;
    Split saved_split = split_;
    mode_ = Mode::kSplit;
    split_ = Split{&nest, reg, &layout};
    Stmt body = mutate(nest.body);
    mode_ = saved_mode;
    split_ = saved_split;
    if (auto vectorized = layout_split_vectorized(nest, body, layout, leader.dims, tid_, reg,
                                                  vector_bytes_, span))
      return *vectorized;
    VarMap inverse{{layout.thread_var.get(), tid_}, {layout.register_var.get(), reg}};
    Expr holds = transform::simplify(substitute(layout.holds, inverse));
    if (!is_const_int(holds, 1)) body = if_then_else(holds, body, {}, span);
    for (size_t k = nest.vars.size(); k-- > 0;) {
      Expr value =
          leader.dims[k] < 0
              ? make_zero(nest.vars[k].dtype())
              : transform::simplify(substitute(layout.element_of[size_t(leader.dims[k])], inverse));
      body = let(nest.vars[k], cast(nest.vars[k].dtype(), value), body);
    }
    return for_loop(reg, make_int(0), make_int(layout.registers), body, ForKind::kSerial, 1, span);
  }

  Var tid_;
  int64_t threads_;
  int64_t vector_bytes_;  // widest vector access of the target; 0: no vectorized splits
  const FragmentLayouts& layouts_;
  SimtContext& context_;
  std::string function_;
  std::unordered_set<const VarNode*> thread_state_;  // thread indices and names bound to them
  // Names bound to per-thread values in any kernel: subgroup indices and what follows.
  std::unordered_set<const VarNode*> subgroup_state_;
  int per_thread_depth_ = 0;  // inside control flow that depends on the thread
  std::map<const BufferNode*, Buffer> regs_;
  Mode mode_ = Mode::kBlock;
  Split split_{nullptr, {}, nullptr};
};

// The largest fragment every thread holds whole, when the fragments together need more
// than `budget` bytes per thread and the shared memory left (minus what `staged` takes)
// has room for it; nullopt otherwise.
std::optional<StagedFragment> replicated_fragment_to_stage(
    const KernelNode& kernel, const FragmentLayouts& layouts, int64_t budget, int64_t shared_left,
    const std::vector<StagedFragment>& staged) {
  if (budget <= 0) return std::nullopt;
  for (const auto& s : staged) {
    int64_t bytes = s.fragment->dtype.bytes();
    for (const auto& d : s.fragment->shape) {
      const int64_t* c = as_const_int(d);
      bytes *= c ? *c : 0;
    }
    if (shared_left >= 0) shared_left -= bytes;
  }
  int64_t total = 0, largest = 0;
  std::optional<Buffer> choice;
  post_order_visit(kernel.body, [&](const Stmt* s, const Expr*) {
    auto* a = s ? s->as<AllocateNode>() : nullptr;
    if (!a || a->buffer->scope != StorageScope::kFragment) return;
    auto it = layouts.find(a->buffer.get());
    if (it == layouts.end()) return;
    int64_t bytes = register_bytes(a->buffer, it->second);
    total += bytes;
    if (it->second.replicated && bytes > largest && (shared_left < 0 || bytes <= shared_left)) {
      largest = bytes;
      choice = a->buffer;
    }
  });
  if (total <= budget || !choice) return std::nullopt;
  return StagedFragment{*choice,
                        fmt::format("replicated in every thread it takes {} bytes of each "
                                    "thread's registers, and the fragments together need {}, "
                                    "above the budget of {}",
                                    largest, total, budget)};
}

// The bytes of shared memory the target's limit leaves beside the kernel's own shared
// tiles (-1: no limit known).
int64_t shared_bytes_left(const KernelNode& k, const target::Target& target) {
  int64_t limit = target.get_int("max_shared_memory_per_block", 0);
  if (limit <= 0) return -1;
  int64_t used = 0;
  post_order_visit(k.body, [&](const Stmt* s, const Expr*) {
    auto* a = s ? s->as<AllocateNode>() : nullptr;
    if (!a || a->buffer->scope != StorageScope::kShared) return;
    int64_t bytes = a->buffer->dtype.bytes();
    for (const auto& d : a->buffer->shape) {
      const int64_t* c = as_const_int(d);
      bytes *= c ? *c : 0;
    }
    used += bytes;
  });
  return std::max<int64_t>(0, limit - used);
}

struct LoweredKernel {
  Stmt kernel;
  std::vector<std::pair<std::string, std::string>> layouts;  // fragment name, description
};

LoweredKernel lower_kernel(const KernelNode* k, const std::string& function,
                           const GemmPolicies& policies, const target::Target& target) {
  int64_t threads = 1;
  for (int64_t t : k->threads) threads *= t;
  int64_t limit = target.get_int("max_threads_per_block", 0);
  if (threads < 1) {
    simt_error(function, k->span,
               fmt::format("T.Kernel has threads={}; a block needs at least one thread", threads));
  }
  if (limit > 0 && threads > limit) {
    simt_error(function, k->span,
               fmt::format("T.Kernel asks for {} threads per block, but target '{}' allows at "
                           "most {} (max_threads_per_block); lower threads= in T.Kernel or raise "
                           "-max_threads_per_block",
                           threads, target.str(), limit));
  }
  static const char* kTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  // The kernel's own thread indices (per-thread code) are the binding loops' variables.
  std::optional<ThreadBinding> binding = thread_binding_of(*k);
  std::vector<Var> thread_vars = binding ? binding->vars : std::vector<Var>{};
  std::vector<Var> axes;
  for (size_t d = 0; d < k->threads.size(); ++d) {
    axes.push_back(binding ? thread_vars[d]
                           : make_var(k->threads.size() == 1 ? kThreadIndexName
                                                             : std::string("t") + "xyz"[d]));
  }
  Var tid = k->threads.size() == 1 ? axes[0] : make_var(kThreadIndexName);

  Stmt source = k->body;
  if (binding) {
    // Shuffles exchange through shared tiles between barriers, as on the CPU model.
    transform::LoweredShuffles shuffles =
        transform::lower_warp_shuffles(binding->body, thread_vars, k->threads, function);
    source = shuffles.body;
    for (size_t i = shuffles.exchange.size(); i-- > 0;)
      source = allocate(shuffles.exchange[i], source);
  } else {
    transform::reject_shuffles_without_threads(*k, function);
  }
  // Plan: ask the implementation lowering each T.gemm which accumulator layout it needs;
  // stage in shared memory the gemm operands that registers cannot hold (a layout
  // conversion) and plan again, since an implementation may choose differently for a
  // shared operand; infer every fragment's layout with those; check the registers
  // against the target's budget; then lower the tile ops for real.
  auto plan = [&](const Stmt& body) {
    auto context = std::make_unique<SimtContext>(tid, threads, function);
    context->set_gemm_policies(policies);
    ScopedSimtContext current(*context);
    post_order_visit(body, [&](const Stmt* s, const Expr*) {
      if (s && s->kind() == StmtKind::kGemm) transform::lower_tile_op(*s, target);
    });
    return context;
  };
  const Stmt unstaged_source = source;
  std::unique_ptr<SimtContext> context = plan(source);
  int64_t budget = register_budget_bytes(target);
  int64_t shared_left = shared_bytes_left(*k, target);
  std::vector<StagedFragment> staged =
      fragments_to_stage(*k, threads, function, context->requirements(), budget, shared_left);
  auto staged_kernel = copy_node(k);
  FragmentLayouts layouts;
  for (;;) {
    SharedStaging staging(staged);
    staged_kernel = copy_node(k);
    source = unstaged_source;
    if (!staging.empty()) {
      staged_kernel->body = staging.apply(k->body);
      source = staging.apply(source);
      context = plan(source);
    }
    layouts = infer_fragment_layouts(*staged_kernel, threads, function, context->requirements());
    // Each replicated fragment may fit the budget alone while all of them together do
    // not: stage the largest replicated one that shared memory has room for, and plan
    // again, until the fragments fit or none is left to stage (the check then reports).
    auto more = replicated_fragment_to_stage(*staged_kernel, layouts, budget, shared_left, staged);
    if (!more) break;
    staged.push_back(std::move(*more));
  }
  check_register_budget(*staged_kernel, layouts, function, target);
  Stmt body;
  {
    ScopedSimtContext current(*context);
    context->start_lowering(layouts);
    body = transform::lower_tile_ops(source, target);
  }
  int64_t vector_bytes = target.get_int("vector_bytes", 0);
  body = Distributor(tid, threads, vector_bytes, layouts, *context, function, thread_vars)
             .mutate(body);
  HoistedShared hoisted = hoist_shared(body, function);
  body = hoisted.body;
  if (k->threads.size() > 1) {
    Expr flat = make_zero(DataType::Int32());
    for (size_t d = axes.size(); d-- > 0;) flat = flat * make_int(k->threads[d]) + axes[d];
    body = let(tid, transform::simplify(flat), body);
  }
  for (size_t d = axes.size(); d-- > 0;) {
    auto loop = copy_node(for_loop(axes[d], make_int(0), make_int(k->threads[d]), body,
                                   ForKind::kThreadBinding, 1, k->span)
                              .as<ForNode>());
    loop->thread_tag = kTags[d];
    body = Stmt(loop);
  }
  for (size_t i = hoisted.shared.size(); i-- > 0;) body = allocate(hoisted.shared[i], body);
  auto kernel = copy_node(k);
  kernel->body = body;

  LoweredKernel out{Stmt(kernel), {}};
  post_order_visit(staged_kernel->body, [&](const Stmt* s, const Expr*) {
    if (auto* a = s ? s->as<AllocateNode>() : nullptr;
        a && a->buffer->scope == StorageScope::kFragment) {
      out.layouts.emplace_back(a->buffer->name, layouts.at(a->buffer.get()).describe(a->buffer));
    }
  });
  for (const auto& s : staged) out.layouts.emplace_back(s.fragment->name, describe_staged(s));
  return out;
}

class KernelFinder : public StmtMutator {
 public:
  KernelFinder(const std::string& function, GemmPolicies policies, const target::Target& target)
      : function_(function), policies_(std::move(policies)), target_(target) {}
  std::vector<std::pair<std::string, std::string>> layouts;

 protected:
  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    LoweredKernel lowered = lower_kernel(op, function_, policies_, target_);
    for (auto& l : lowered.layouts) layouts.push_back(std::move(l));
    return lowered.kernel;
  }

 private:
  const std::string& function_;
  GemmPolicies policies_;
  const target::Target& target_;
};

}  // namespace

IRModule lower_simt(const IRModule& mod, const target::Target& target) {
  std::vector<PrimFunc> functions;
  for (const auto& f : mod.functions()) {
    // Per-thread code obeys the same rules on every target: what the CPU model rejects
    // (a barrier under a condition on the thread index, ...) is rejected here too.
    transform::work_item_loops(f);
    KernelFinder finder(f->name, GemmPolicies(f), target);
    Stmt body = finder.mutate(f->body);
    PrimFunc g = with_body(f, body);
    for (const auto& [name, text] : finder.layouts)
      g = with_attr(g, kLayoutAttrPrefix + name, text);
    functions.push_back(g);
  }
  return IRModule(std::move(functions), mod.attrs());
}

transform::Pass lower_simt_pass() {
  return transform::Pass{"gpu.lower_simt",
                         [](const IRModule& mod, const transform::PassInfo& info) {
                           return lower_simt(mod, info.target);
                         }};
}

}  // namespace tilec::gpu
