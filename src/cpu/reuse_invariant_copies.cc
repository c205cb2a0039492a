// reuse_invariant_copies (cpu/reuse_invariant_copies.h): block-invariant tiles of a
// K loop computed once per task and cached per iteration instead of once per block.
#include "tilec/cpu/reuse_invariant_copies.h"

#include "tilec/cpu/prefetch.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/pass_context.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/staged_buffers.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace tilec::cpu {

using namespace ir;

namespace {

constexpr const char* kFirstBlockName = "tilec.cpu.first_block_of_task";

using VarSet = std::unordered_set<const VarNode*>;
using BufferSet = std::unordered_set<const BufferNode*>;

bool is_first_block_marker(const Expr& e) {
  auto* c = e.as<CallNode>();
  return c && c->call_kind == CallKind::kIntrinsic && c->name == kFirstBlockName;
}

// What a statement touches: the variables it uses and binds, the buffers it loads,
// stores (an atomic or a call's non-prefetch buffer argument counts as a store) and
// allocates, and whether it calls anything or still holds a tile op.
struct Footprint {
  VarSet used, bound;
  BufferSet reads, writes, allocated;
  BufferSet prefetched;  // global tensors only prefetched, never loaded
  bool calls = false, tile_ops = false;
};

Footprint footprint(const Stmt& s) {
  Footprint f;
  std::unordered_map<const BufferNode*, int> loads;  // prefetched elements count -1
  post_order_visit(s, [&](const Stmt* st, const Expr* e) {
    if (e) {
      if (auto* v = e->as<VarNode>()) f.used.insert(v);
      if (auto* l = e->as<LoadNode>()) ++loads[l->buffer.get()];
      if (auto* c = e->as<CallNode>()) {
        if (c->call_kind == CallKind::kIntrinsic) return;
        f.calls = true;
        if (const LoadNode* p = as_prefetch(*e)) {
          --loads[p->buffer.get()];
          f.prefetched.insert(p->buffer.get());
          return;
        }
        for (const auto& a : c->args)
          if (auto* l = a.as<LoadNode>()) f.writes.insert(l->buffer.get());
      }
      return;
    }
    if (auto* x = st->as<StoreNode>()) f.writes.insert(x->buffer.get());
    if (auto* x = st->as<LetNode>()) f.bound.insert(x->var.get());
    if (auto* x = st->as<ForNode>()) f.bound.insert(x->var.get());
    if (auto* x = st->as<AllocateNode>()) f.allocated.insert(x->buffer.get());
    switch (st->kind()) {
      case StmtKind::kCopy:
      case StmtKind::kFill:
      case StmtKind::kGemm:
      case StmtKind::kReduce:
      case StmtKind::kKernel:
      case StmtKind::kLaunch:
        f.tile_ops = true;
        break;
      default:
        break;
    }
  });
  for (const auto& [b, n] : loads)
    if (n > 0) f.reads.insert(b);
  for (const BufferNode* b : f.reads) f.prefetched.erase(b);
  return f;
}

BufferSet touched(const Footprint& f) {
  BufferSet out = f.reads;
  out.insert(f.writes.begin(), f.writes.end());
  return out;
}

std::optional<int64_t> const_value(const Expr& e) {
  Expr s = transform::simplify(e);
  if (const int64_t* v = as_const_int(s)) return *v;
  return std::nullopt;
}

// Elements stored by `s`, loops of unknown trip count counted once.
int64_t stored_elements(const Stmt& s) {
  if (s.as<StoreNode>()) return 1;
  if (auto* f = s.as<ForNode>()) {
    auto n = const_value(f->end - f->begin);
    return std::max<int64_t>(1, n.value_or(1)) * stored_elements(f->body);
  }
  if (auto* q = s.as<SeqNode>()) {
    int64_t n = 0;
    for (const auto& x : q->stmts) n += stored_elements(x);
    return n;
  }
  if (auto* i = s.as<IfNode>())
    return stored_elements(i->then_case) + (i->else_case ? stored_elements(i->else_case) : 0);
  if (auto* l = s.as<LetNode>()) return stored_elements(l->body);
  if (auto* a = s.as<AllocateNode>()) return stored_elements(a->body);
  return 0;
}

// Whether `s` is a loop nest `for v_i in [0, n_i)` around one store into `buffer`
// whose indices are the loop variables, each once, with n_i the extent of its dim:
// a store of every element.
bool stores_every_element(const Stmt& s, const BufferNode* buffer) {
  std::vector<const ForNode*> loops;
  Stmt inner = s;
  while (auto* f = inner.as<ForNode>()) {
    loops.push_back(f);
    inner = f->body;
  }
  auto* store = inner.as<StoreNode>();
  if (!store || store->buffer.get() != buffer || store->indices.size() != loops.size())
    return false;
  std::unordered_set<const ForNode*> used;
  for (size_t d = 0; d < store->indices.size(); ++d) {
    auto* v = store->indices[d].as<VarNode>();
    auto extent = const_value(buffer->shape[d]);
    const ForNode* loop = nullptr;
    for (const ForNode* f : loops)
      if (f->var.get() == v) loop = f;
    if (!v || !extent || !loop || !used.insert(loop).second) return false;
    if (loop->step != 1 || !is_const_int(loop->begin, 0) || const_value(loop->end) != *extent)
      return false;
  }
  return true;
}

// The leaves of a loop body: its statements in order, seqs and allocations (the
// loop-local tiles) looked through.
void leaves(const Stmt& s, std::vector<Stmt>* out, BufferSet* local) {
  if (auto* q = s.as<SeqNode>()) {
    for (const auto& x : q->stmts) leaves(x, out, local);
  } else if (auto* a = s.as<AllocateNode>(); a && !a->init) {
    local->insert(a->buffer.get());
    leaves(a->body, out, local);
  } else {
    out->push_back(s);
  }
}

// The kernel as the analysis sees it.
struct KernelInfo {
  const KernelNode* kernel = nullptr;
  std::vector<const AllocateNode*> allocs;  // the leading allocations
  std::vector<Stmt> stmts;                  // then the top-level statements
  BufferSet written_globals;
  VarSet bound;                       // every variable bound in the body
  std::vector<BufferSet> touched_by;  // per top-level statement
  BufferSet kernel_tiles;             // allocated in the body
};

// What caching one loop for one `u` takes.
struct LoopPlan {
  size_t stmt = 0;                                // index into KernelInfo::stmts
  std::unordered_set<const StmtNode*> invariant;  // leaves to run on a cache miss
  std::vector<Buffer> outputs;                    // tiles the rest of the loop reads
  BufferSet skip_prefetch;                        // global tensors only the invariant leaves read
  int64_t extent = 0;
  int64_t work = 0;   // elements the invariant leaves store per iteration
  int64_t bytes = 0;  // of the caches
};

std::optional<LoopPlan> plan_loop(const KernelInfo& info, size_t index, const VarNode* u) {
  auto* loop = info.stmts[index].as<ForNode>();
  if (!loop || loop->step != 1) return std::nullopt;
  if (loop->for_kind != ForKind::kSerial && loop->for_kind != ForKind::kPipelined)
    return std::nullopt;
  Footprint bounds = footprint(evaluate(loop->end - loop->begin));
  for (const VarNode* v : bounds.used)
    if (info.bound.count(v) || v == u) return std::nullopt;
  auto extent = const_value(loop->end - loop->begin);
  if (!extent || *extent <= 0) return std::nullopt;

  // Tiles touched outside this loop cannot skip their stores.
  BufferSet outside;
  for (size_t i = 0; i < info.stmts.size(); ++i)
    if (i != index) outside.insert(info.touched_by[i].begin(), info.touched_by[i].end());

  std::vector<Stmt> items;
  BufferSet local;
  leaves(loop->body, &items, &local);
  LoopPlan plan;
  plan.stmt = index;
  plan.extent = *extent;
  BufferSet defined, seen_by_rest, read_by_rest, written_by_rest, read_by_invariant;
  for (const Stmt& leaf : items) {
    Footprint f = footprint(leaf);
    if (f.tile_ops) return std::nullopt;
    bool ok = !f.calls && !f.writes.empty();
    for (const VarNode* v : f.used) {
      if (f.bound.count(v) || v == loop->var.get()) continue;
      if (v == u || info.bound.count(v)) ok = false;
    }
    for (const BufferNode* b : f.writes) {
      bool tile = local.count(b) || info.kernel_tiles.count(b);
      bool first = !defined.count(b);
      if (f.allocated.count(b)) continue;
      if (!tile || b->scope == StorageScope::kGlobal || outside.count(b) || seen_by_rest.count(b) ||
          (first && !stores_every_element(leaf, b)))
        ok = false;
    }
    for (const BufferNode* b : f.reads) {
      if (f.allocated.count(b) || defined.count(b)) continue;
      if (b->scope != StorageScope::kGlobal || info.written_globals.count(b)) ok = false;
    }
    if (ok) {
      plan.invariant.insert(leaf.get());
      read_by_invariant.insert(f.reads.begin(), f.reads.end());
      plan.work += stored_elements(leaf);
      for (const BufferNode* b : f.writes)
        if (!f.allocated.count(b)) defined.insert(b);
    } else {
      BufferSet t = touched(f);
      seen_by_rest.insert(t.begin(), t.end());
      read_by_rest.insert(f.reads.begin(), f.reads.end());
      written_by_rest.insert(f.writes.begin(), f.writes.end());
    }
  }
  // A tile the rest of the loop also stores into is not a function of k and the block.
  for (const BufferNode* b : defined)
    if (written_by_rest.count(b)) return std::nullopt;
  std::map<std::string, Buffer> outputs;  // by name: a stable order
  post_order_visit(loop->body, [&](const Stmt*, const Expr* e) {
    auto* l = e ? e->as<LoadNode>() : nullptr;
    if (l && defined.count(l->buffer.get()) && read_by_rest.count(l->buffer.get()))
      outputs.emplace(l->buffer->name + "#" + std::to_string(uintptr_t(l->buffer.get())),
                      l->buffer);
  });
  if (plan.invariant.empty() || outputs.empty()) return std::nullopt;
  // Prefetches of what only the skipped leaves read are skipped with them.
  for (const BufferNode* b : read_by_invariant)
    if (b->scope == StorageScope::kGlobal && !read_by_rest.count(b)) plan.skip_prefetch.insert(b);
  for (const auto& [name, b] : outputs) {
    int64_t elements = *extent;
    for (const auto& d : b->shape) elements *= const_value(d).value_or(0);
    plan.bytes += elements * b->dtype.bytes();
    plan.outputs.push_back(b);
  }
  if (plan.bytes <= 0 || plan.bytes > kMaxCacheBytes) return std::nullopt;
  return plan;
}

// Whether `s` only prefetches lines of tensors in `skipped` (loops, lets and ifs around
// them allowed).
bool only_prefetches_of(const Stmt& s, const BufferSet& skipped) {
  bool any = false, other = false;
  post_order_visit(s, [&](const Stmt* st, const Expr*) {
    if (!st) return;
    if (st->as<StoreNode>() || st->as<AllocateNode>()) other = true;
    if (auto* e = st->as<EvaluateNode>()) {
      const LoadNode* p = as_prefetch(e->value);
      if (p && skipped.count(p->buffer.get()))
        any = true;
      else
        other = true;
    }
  });
  return any && !other;
}

// The loop with `outputs` redirected to their caches (stage: the iteration) and the
// invariant leaves run only when `reuse` is false.
class RewriteLoop : public transform::StagedBufferRewriter {
 public:
  RewriteLoop(const LoopPlan& plan, std::map<const BufferNode*, Buffer> caches, Expr iteration,
              Expr reuse)
      : StagedBufferRewriter(std::move(caches), std::move(iteration)),
        plan_(plan),
        reuse_(std::move(reuse)) {}

  using StagedBufferRewriter::mutate;
  Stmt mutate(const Stmt& s) override {
    if (skipped_prefetches_only(s)) return if_then_else(logical_not(reuse_), s);
    Stmt out = StagedBufferRewriter::mutate(s);
    if (plan_.invariant.count(s.get())) return if_then_else(logical_not(reuse_), out);
    return out;
  }

 protected:
  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    if (is_staged(op->buffer.get())) return mutate(op->body);  // now unused
    return StagedBufferRewriter::mutate_allocate(op, self);
  }

 private:
  bool skipped_prefetches_only(const Stmt& s) const {
    return !plan_.skip_prefetch.empty() && s && only_prefetches_of(s, plan_.skip_prefetch);
  }

  const LoopPlan& plan_;
  Expr reuse_;
};

std::optional<KernelInfo> analyze_kernel(const KernelNode* kernel) {
  KernelInfo info;
  info.kernel = kernel;
  Stmt inner = kernel->body;
  while (auto* a = inner.as<AllocateNode>()) {
    if (a->init) break;
    info.allocs.push_back(a);
    info.kernel_tiles.insert(a->buffer.get());
    inner = a->body;
  }
  if (auto* q = inner.as<SeqNode>())
    info.stmts = q->stmts;
  else
    info.stmts = {inner};
  Footprint all = footprint(kernel->body);
  if (all.tile_ops) return std::nullopt;  // not lowered yet: nothing to see
  info.bound = all.bound;
  for (const BufferNode* b : all.allocated) info.kernel_tiles.insert(b);
  for (const BufferNode* b : all.writes)
    if (b->scope == StorageScope::kGlobal) info.written_globals.insert(b);
  for (const Stmt& s : info.stmts) info.touched_by.push_back(touched(footprint(s)));
  return info;
}

Stmt rewrite_kernel(const KernelNode* kernel) {
  auto info = analyze_kernel(kernel);
  if (!info) return Stmt();
  // The block variable whose caches save the most stores (the first on a tie).
  size_t best_u = 0;
  int64_t best_work = 0;
  std::vector<LoopPlan> best_plans;
  for (size_t d = 0; d < kernel->block_vars.size(); ++d) {
    std::vector<LoopPlan> plans;
    int64_t work = 0, bytes = 0;
    for (size_t i = 0; i < info->stmts.size(); ++i)
      if (auto p = plan_loop(*info, i, kernel->block_vars[d].get())) {
        work += p->work * p->extent;
        bytes += p->bytes;
        plans.push_back(std::move(*p));
      }
    if (work > best_work && bytes <= kMaxCacheBytes) {
      best_u = d;
      best_work = work;
      best_plans = std::move(plans);
    }
  }
  if (best_plans.empty()) return Stmt();
  const Var& u = kernel->block_vars[best_u];
  // Reuse when the previous block of this task had the same other coordinates: with u
  // the fastest grid dimension, when u is not 0 and this is not the task's first block.
  Var reuse = make_var("reuse_tiles", DataType::Bool());
  Expr reuse_value = logical_and(ne(u, make_int(0, u.dtype())), logical_not(first_block_of_task()));

  std::vector<Stmt> stmts = info->stmts;
  std::vector<Buffer> caches;
  BufferSet replaced;
  for (const LoopPlan& plan : best_plans) {
    auto* loop = stmts[plan.stmt].as<ForNode>();
    std::map<const BufferNode*, Buffer> cache_of;
    for (const Buffer& b : plan.outputs) {
      std::vector<Expr> shape = {make_int(plan.extent)};
      shape.insert(shape.end(), b->shape.begin(), b->shape.end());
      Buffer cache = make_buffer(b->name + "_reuse", shape, b->dtype, b->scope, b->span);
      cache_of[b.get()] = cache;
      caches.push_back(cache);
      replaced.insert(b.get());
    }
    Expr iteration = loop->var - loop->begin;
    Stmt rewritten = RewriteLoop(plan, cache_of, iteration, reuse).mutate(stmts[plan.stmt]);
    stmts[plan.stmt] = let(reuse, reuse_value, rewritten);
  }
  Stmt body = seq(stmts);
  for (size_t i = info->allocs.size(); i-- > 0;)
    if (!replaced.count(info->allocs[i]->buffer.get()))
      body = allocate(info->allocs[i]->buffer, body, std::nullopt, info->allocs[i]->span);
  for (size_t i = caches.size(); i-- > 0;) body = allocate(caches[i], body);
  auto n = copy_node(kernel);
  n->body = body;
  // u first: the fastest dimension of bind_blocks_to_task_range's order. Blocks are
  // independent, so their order is the target's choice.
  std::rotate(n->block_vars.begin(), n->block_vars.begin() + best_u,
              n->block_vars.begin() + best_u + 1);
  std::rotate(n->grid.begin(), n->grid.begin() + best_u, n->grid.begin() + best_u + 1);
  return Stmt(n);
}

class ReuseInvariantCopies : public StmtMutator {
 public:
  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    Stmt out = rewrite_kernel(op);
    return out ? out : self;
  }
};

class BindFirstBlock : public StmtMutator {
 public:
  explicit BindFirstBlock(Expr is_first) : is_first_(std::move(is_first)) {}
  Expr mutate_call(const CallNode* op, const Expr& self) override {
    if (is_first_block_marker(self)) return is_first_;
    return StmtMutator::mutate_call(op, self);
  }

 private:
  Expr is_first_;
};

}  // namespace

Expr first_block_of_task() {
  return Expr(std::make_shared<CallNode>(DataType::Bool(), kFirstBlockName, std::vector<Expr>{},
                                         CallKind::kIntrinsic));
}

Stmt bind_first_block_of_task(const Stmt& body, const Expr& is_first) {
  return BindFirstBlock(is_first).mutate(body);
}

Stmt reuse_invariant_copies(const Stmt& body) {
  return ReuseInvariantCopies().mutate(body);
}

transform::Pass reuse_invariant_copies_pass() {
  return transform::Pass{
      "cpu.reuse_invariant_copies", [](const IRModule& mod, const transform::PassInfo&) {
        if (!transform::PassContext::current().get_bool(kReuseInvariantCopiesConfigKey)) return mod;
        return transform::map_function_bodies(
            mod, [](const PrimFunc& f) { return reuse_invariant_copies(f->body); });
      }};
}

}  // namespace tilec::cpu
