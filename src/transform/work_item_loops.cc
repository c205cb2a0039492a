#include "tilec/transform/work_item_loops.h"

#include "tilec/ir/functor.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/thread_binding.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/warp_shuffles.h"

#include <fmt/format.h>

#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace tilec::transform {

using namespace ir;

namespace {

// kBlock: runs once per block (block-collective tile ops, uniform control flow around
// them); kThread: per-thread code with no synchronisation point inside (one phase can
// hold it); kBarrier: a barrier; kMixed: per-thread code and synchronisation points
// together, so the statement itself is split.
enum class Kind { kBlock, kThread, kBarrier, kMixed };

Kind combine(Kind a, Kind b) {
  if (a == b) return a;
  if (a == Kind::kMixed || b == Kind::kMixed || a == Kind::kThread || b == Kind::kThread)
    return Kind::kMixed;
  return Kind::kBlock;  // collective work and barriers
}

// "line 9:13: kernel 'f'": the interpreter's place format, which the CLI turns into
// file:line:col.
std::string where(const std::string& function, const Span& span) {
  return span.known() ? fmt::format("line {}:{}: kernel '{}'", span.line, span.col, function)
                      : fmt::format("kernel '{}'", function);
}

std::string describe(const StmtNode* s) {
  switch (s->kind) {
    case StmtKind::kGemm:
      return "T.gemm (a block-wide tile operation)";
    case StmtKind::kReduce:
      return fmt::format("T.reduce_{} (a block-wide tile operation)",
                         to_string(static_cast<const ReduceNode*>(s)->reduce_kind));
    default:
      return "a barrier (T.sync_threads / T.tvm_storage_sync)";
  }
}

// Rewrites every access of a thread-private buffer that got one copy per thread to that
// thread's copy: index `tid` in front.
class ToThreadCopy : public StmtMutator {
 public:
  ToThreadCopy(const std::unordered_map<const BufferNode*, Buffer>& expanded, Expr tid,
               const std::string& function)
      : expanded_(expanded), tid_(std::move(tid)), function_(function) {}

 protected:
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    auto it = expanded_.find(op->buffer.get());
    if (it == expanded_.end()) return StmtMutator::mutate_load(op, self);
    std::vector<Expr> indices{tid_};
    for (const auto& i : op->indices) indices.push_back(mutate(i));
    return load(it->second, std::move(indices), op->span);
  }
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    auto it = expanded_.find(op->buffer.get());
    if (it == expanded_.end()) return StmtMutator::mutate_store(op, self);
    std::vector<Expr> indices{tid_};
    for (const auto& i : op->indices) indices.push_back(mutate(i));
    return store(it->second, std::move(indices), mutate(op->value), op->span);
  }
  TileRegion mutate_region(const TileRegion& region, bool* changed) override {
    auto it = expanded_.find(region.buffer.get());
    if (it == expanded_.end()) return StmtMutator::mutate_region(region, changed);
    *changed = true;
    TileRegion out{it->second, {RegionDim{tid_, std::nullopt}}};
    if (region.is_whole()) {
      for (const auto& d : region.buffer->shape) out.dims.push_back(RegionDim{make_int(0), d});
    } else {
      for (const auto& d : region.dims)
        out.dims.push_back(RegionDim{mutate(d.start),
                                     d.stop ? std::optional<Expr>(mutate(*d.stop)) : std::nullopt});
    }
    return out;
  }
  Stmt mutate_reduce(const ReduceNode* op, const Stmt& self) override {
    for (const Buffer& b : {op->src, op->dst}) {
      if (expanded_.count(b.get())) {
        throw IRError(fmt::format(
            "{}: T.reduce_{} on thread-private '{}', which lives across a barrier or a "
            "block-wide tile operation, is not supported (each thread would need its own "
            "copy); reduce a T.alloc_fragment or shared tile, or loop over '{}' with T.serial",
            where(function_, op->span), to_string(op->reduce_kind), b->name, b->name));
      }
    }
    return StmtMutator::mutate_reduce(op, self);
  }

 private:
  const std::unordered_map<const BufferNode*, Buffer>& expanded_;
  Expr tid_;
  const std::string& function_;
};

// One piece of a kernel body as WorkItemLoops splits it into phases.
struct Item {
  enum Kind { kThread, kBlock, kBarrier, kOpenLet, kOpenAllocate } kind;
  Stmt stmt;
  Var var;
  Expr value;
  Buffer buffer;
  std::optional<Expr> init;
  Span span;
};

class WorkItemLoops : private StmtFunctor<Kind()>,
                      private StmtFunctor<void(std::vector<Item>& out)> {
  using Classify = StmtFunctor<Kind()>;
  using Items = StmtFunctor<void(std::vector<Item>& out)>;

 public:
  WorkItemLoops(const KernelNode& kernel, ThreadBinding binding, std::string function)
      : kernel_(kernel), binding_(std::move(binding)), function_(std::move(function)) {
    Expr tid = make_int(0);
    int64_t stride = 1;
    for (size_t d = 0; d < binding_.vars.size(); ++d) {
      dep_.insert(binding_.vars[d].get());
      tid = tid + binding_.vars[d] * make_int(stride);
      stride *= kernel.threads[d];
    }
    tid_ = simplify(tid);
    num_threads_ = stride;
  }

  Stmt run() {
    // Shuffles first: they become exchanges through shared memory between barriers.
    LoweredShuffles shuffles =
        lower_warp_shuffles(binding_.body, binding_.vars, kernel_.threads, function_);
    hoisted_ = shuffles.exchange;
    origins_ = std::move(shuffles.origins);
    Stmt body = build(shuffles.body);
    for (size_t i = hoisted_.size(); i-- > 0;) body = allocate(hoisted_[i], body);
    auto n = copy_node(&kernel_);
    n->body = body;
    return Stmt(n);
  }

 private:
  // ------------------------------------------------------------ classification
  bool depends(const Expr& e) const { return varies_by_thread(e, dep_); }
  // Whether a tile op or T.Parallel nest touches thread-private storage or a thread index.
  bool touches_thread_state(const Stmt& s) const {
    bool found = false;
    post_order_visit(s, [&](const Stmt* st, const Expr* e) {
      if (e) {
        found = found || depends(*e);
        return;
      }
      auto region = [&](const TileRegion& r) { found = found || is_thread_private(r.buffer); };
      if (auto* store = st->as<StoreNode>()) found = found || is_thread_private(store->buffer);
      if (auto* c = st->as<CopyNode>()) {
        region(c->src);
        region(c->dst);
      }
      if (auto* f = st->as<FillNode>()) region(f->dst);
      if (auto* g = st->as<GemmNode>()) {
        region(g->a);
        region(g->b);
        region(g->c);
      }
      if (auto* r = st->as<ReduceNode>())
        found = found || is_thread_private(r->src) || is_thread_private(r->dst);
    });
    return found;
  }

  // Per-thread control flow (`what` at `at`) may hold per-thread code only.
  void require_no_sync(const Stmt& body, const std::string& what, const Span& at) const {
    post_order_visit(body, [&](const Stmt* st, const Expr*) {
      if (!st) return;
      bool sync = st->as<GemmNode>() || st->as<ReduceNode>();
      std::string what_it_is = describe(st->get());
      if (auto* e = st->as<EvaluateNode>()) {
        sync = as_barrier(e->value) != nullptr;
        if (auto it = origins_.find(e->value.get()); it != origins_.end()) what_it_is = it->second;
      }
      if (!sync) return;
      throw IRError(fmt::format(
          "{}: {} inside {} (line {}); every thread of the block must reach the same "
          "barriers and block-wide tile operations: move it out of that {}, or make the "
          "condition the same for every thread",
          where(function_, (*st)->span), what_it_is, what, at.line,
          what.rfind("a loop", 0) == 0 || what.rfind("a while", 0) == 0 ? "loop" : "if"));
    });
  }

  Kind classify(const Stmt& s) {
    if (!s) return Kind::kBlock;
    if (auto it = kinds_.find(s.get()); it != kinds_.end()) return it->second;
    Kind k = classify_uncached(s);
    kinds_[s.get()] = k;
    return k;
  }

  Kind classify_uncached(const Stmt& s) { return Classify::dispatch_stmt(s); }

  Kind visit_stmt(const SeqNode* op, const Stmt&) override {
    Kind k = Kind::kBlock;
    bool first = true;
    for (const auto& c : op->stmts) {
      Kind ck = classify(c);
      k = first ? ck : combine(k, ck);
      first = false;
    }
    return k == Kind::kBarrier && !first ? Kind::kBarrier : k;
  }
  Kind visit_stmt(const LetNode* l, const Stmt&) override {
    bool per_thread = depends(l->value);
    if (per_thread) dep_.insert(l->var.get());
    Kind body = classify(l->body);
    if (body == Kind::kThread) return Kind::kThread;
    if (body == Kind::kMixed || per_thread) return Kind::kMixed;
    return body;
  }
  Kind visit_stmt(const AllocateNode* a, const Stmt&) override {
    Kind body = classify(a->body);
    // A shared tile or fragment is one per block: never allocated inside a phase.
    if (body == Kind::kThread) return is_thread_private(a->buffer) ? Kind::kThread : Kind::kMixed;
    if (is_thread_private(a->buffer) && a->init) return Kind::kMixed;
    return body;
  }
  Kind visit_stmt(const ForNode* f, const Stmt& s) override {
    if (f->for_kind == ForKind::kParallel)
      return touches_thread_state(s) ? Kind::kThread : Kind::kBlock;
    if (depends(f->begin) || depends(f->end)) {
      require_no_sync(f->body, "a loop whose bounds depend on the thread index", f->span);
      return Kind::kThread;
    }
    Kind body = classify(f->body);
    return body == Kind::kBarrier ? Kind::kBlock : body;
  }
  Kind visit_stmt(const IfNode* i, const Stmt&) override {
    if (depends(i->cond)) {
      require_no_sync(i->then_case, "an if whose condition depends on the thread index", i->span);
      require_no_sync(i->else_case, "an if whose condition depends on the thread index", i->span);
      return Kind::kThread;
    }
    Kind k = classify(i->then_case);
    if (i->else_case) k = combine(k, classify(i->else_case));
    return k == Kind::kBarrier ? Kind::kBlock : k;
  }
  // A while loop is control flow like an if: a condition that differs between threads
  // makes it per-thread code (every thread runs its own iterations), which may then hold
  // no synchronisation point; a uniform one runs once per block around its body.
  Kind visit_stmt(const WhileNode* w, const Stmt&) override {
    if (depends(w->cond)) {
      require_no_sync(w->body, "a while loop whose condition depends on the thread index", w->span);
      return Kind::kThread;
    }
    Kind body = classify(w->body);
    return body == Kind::kBarrier ? Kind::kBlock : body;
  }
  Kind visit_stmt(const StoreNode*, const Stmt&) override { return Kind::kThread; }
  Kind visit_stmt(const EvaluateNode* op, const Stmt&) override {
    return as_barrier(op->value) ? Kind::kBarrier : Kind::kThread;
  }
  Kind visit_stmt(const CopyNode*, const Stmt& s) override {
    return touches_thread_state(s) ? Kind::kThread : Kind::kBlock;
  }
  Kind visit_stmt(const FillNode*, const Stmt& s) override {
    return touches_thread_state(s) ? Kind::kThread : Kind::kBlock;
  }
  Kind visit_stmt(const GemmNode*, const Stmt& s) override {
    return touches_thread_state(s) ? Kind::kThread : Kind::kBlock;
  }
  Kind visit_stmt(const ReduceNode*, const Stmt& s) override {
    return touches_thread_state(s) ? Kind::kThread : Kind::kBlock;
  }
  Kind visit_stmt(const KernelNode*, const Stmt& s) override {
    throw IRError(
        fmt::format("{}: a nested kernel or launch inside a T.Kernel", where(function_, s->span)));
  }
  Kind visit_stmt(const LaunchNode*, const Stmt& s) override {
    throw IRError(
        fmt::format("{}: a nested kernel or launch inside a T.Kernel", where(function_, s->span)));
  }

  // ------------------------------------------------------------ splitting
  static bool pure(const Expr& e) {
    bool ok = true;
    post_order_visit(e, [&](const Expr& x) {
      if (x.as<LoadNode>()) ok = false;
      if (auto* c = x.as<CallNode>(); c && c->call_kind != CallKind::kIntrinsic) ok = false;
    });
    return ok;
  }

  static bool constant_shape(const Buffer& b) {
    for (const auto& d : b->shape)
      if (!as_const_int(d)) return false;
    return true;
  }

  void items(const Stmt& s, std::vector<Item>& out) {
    if (!s) return;
    Kind k = classify(s);
    if (k == Kind::kThread) return out.push_back({Item::kThread, s, {}, {}, {}, {}, s->span});
    if (k == Kind::kBarrier) {  // a phase boundary: the phases order the threads
      return out.push_back({Item::kBarrier, s, {}, {}, {}, {}, s->span});
    }
    if (k == Kind::kBlock) return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
    Items::dispatch_stmt(s, out);
  }

  void visit_stmt(const SeqNode* op, const Stmt&, std::vector<Item>& out) override {
    for (const auto& c : op->stmts) items(c, out);
  }
  void visit_stmt(const LetNode* l, const Stmt& s, std::vector<Item>& out) override {
    if (!dep_.count(l->var.get())) {
      out.push_back({Item::kOpenLet, {}, l->var, l->value, {}, {}, s->span});
    } else if (pure(l->value)) {
      inline_[l->var.get()] = substitute(l->value, inline_);
    } else {
      // A per-thread value read in later phases: one copy per thread.
      Buffer b = make_buffer(l->var.name(), {make_int(num_threads_)}, l->var.dtype(),
                             StorageScope::kLocal, l->var->span);
      hoisted_.push_back(b);
      out.push_back({Item::kThread, store(b, {tid_}, l->value, s->span), {}, {}, {}, {}, s->span});
      inline_[l->var.get()] = load(b, {tid_});
    }
    return items(l->body, out);
  }
  void visit_stmt(const AllocateNode* a, const Stmt& s, std::vector<Item>& out) override {
    if (!is_thread_private(a->buffer)) {
      out.push_back({Item::kOpenAllocate, {}, {}, {}, a->buffer, a->init, s->span});
      return items(a->body, out);
    }
    std::vector<Expr> shape{make_int(num_threads_)};
    for (const auto& d : a->buffer->shape) shape.push_back(d);
    Buffer copies = make_buffer(a->buffer->name, shape, a->buffer->dtype, StorageScope::kLocal,
                                a->buffer->span);
    expanded_[a->buffer.get()] = copies;
    if (constant_shape(copies)) {
      hoisted_.push_back(copies);
    } else {
      out.push_back({Item::kOpenAllocate, {}, {}, {}, copies, std::nullopt, s->span});
    }
    if (a->init) {
      out.push_back({Item::kThread,
                     store(a->buffer, {make_int(0)}, *a->init, s->span),
                     {},
                     {},
                     {},
                     {},
                     s->span});
    }
    return items(a->body, out);
  }
  void visit_stmt(const ForNode* op, const Stmt& s, std::vector<Item>& out) override {
    auto n = copy_node(op);
    n->body = build(n->body);
    return out.push_back({Item::kBlock, Stmt(n), {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const IfNode* op, const Stmt& s, std::vector<Item>& out) override {
    auto n = copy_node(op);
    n->then_case = build(n->then_case);
    if (n->else_case) n->else_case = build(n->else_case);
    return out.push_back({Item::kBlock, Stmt(n), {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const WhileNode* op, const Stmt& s, std::vector<Item>& out) override {
    auto n = copy_node(op);
    n->body = build(n->body);
    return out.push_back({Item::kBlock, Stmt(n), {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const StoreNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const EvaluateNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const KernelNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const CopyNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const FillNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const GemmNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const ReduceNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }
  void visit_stmt(const LaunchNode*, const Stmt& s, std::vector<Item>& out) override {
    return out.push_back({Item::kBlock, s, {}, {}, {}, {}, s->span});
  }

  Stmt build(const Stmt& s) {
    std::vector<Item> list;
    items(s, list);
    std::deque<Stmt> rest;    // the statements after the current item, in order
    std::vector<Stmt> group;  // per-thread statements of the phase being collected, reversed
    auto flush = [&] {
      if (group.empty()) return;
      rest.push_front(phase(std::vector<Stmt>(group.rbegin(), group.rend()), group.back()->span));
      group.clear();
    };
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (it->kind == Item::kThread) {
        group.push_back(it->stmt);
        continue;
      }
      flush();
      if (it->kind == Item::kBlock || it->kind == Item::kBarrier) {
        rest.push_front(it->stmt);
        continue;
      }
      Stmt body = seq(std::vector<Stmt>(rest.begin(), rest.end()), it->span);
      Stmt scoped = it->kind == Item::kOpenLet ? let(it->var, it->value, body, it->span)
                                               : allocate(it->buffer, body, it->init, it->span);
      rest.assign(1, scoped);
    }
    flush();
    return seq(std::vector<Stmt>(rest.begin(), rest.end()), s->span);
  }

  // One phase: `stmts` for every thread of the block, in thread order (x fastest).
  Stmt phase(const std::vector<Stmt>& stmts, const Span& span) {
    Stmt body = seq(stmts, span);
    body = ToThreadCopy(expanded_, tid_, function_).mutate(body);
    body = substitute(body, inline_);
    VarMap fresh;
    std::vector<Var> vars;
    for (const auto& v : binding_.vars) {
      vars.push_back(make_var(v.name(), v.dtype(), v->span));
      fresh[v.get()] = vars.back();
    }
    body = substitute(body, fresh);
    for (size_t d = 0; d < vars.size(); ++d) {
      body = kernel_.threads[d] == 1 ? let(vars[d], make_int(0), body, span)
                                     : for_loop(vars[d], make_int(0), make_int(kernel_.threads[d]),
                                                body, ForKind::kSerial, 1, span);
    }
    return body;
  }

  const KernelNode& kernel_;
  ThreadBinding binding_;
  std::string function_;
  Expr tid_;
  int64_t num_threads_ = 1;
  std::unordered_set<const VarNode*> dep_;  // thread indices and names bound per thread
  std::unordered_map<const StmtNode*, Kind> kinds_;
  VarMap inline_;  // per-thread names: their value, in terms of the thread indices
  std::unordered_map<const BufferNode*, Buffer> expanded_;  // private buffer -> its copies
  std::vector<Buffer> hoisted_;  // allocated around the whole kernel body
  std::unordered_map<const ExprNode*, std::string> origins_;  // barriers shuffles inserted
};

class KernelFinder : public StmtMutator {
 public:
  explicit KernelFinder(std::string function) : function_(std::move(function)) {}

 protected:
  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    std::optional<ThreadBinding> binding = thread_binding_of(*op);
    if (!binding) {
      reject_shuffles_without_threads(*op, function_);
      return self;
    }
    return WorkItemLoops(*op, std::move(*binding), function_).run();
  }

 private:
  std::string function_;
};

}  // namespace

PrimFunc work_item_loops(const PrimFunc& func) {
  Stmt body = KernelFinder(func->name).mutate(func->body);
  return body.same_as(func->body) ? func : with_body(func, body);
}

IRModule work_item_loops(const IRModule& mod) {
  std::vector<PrimFunc> functions;
  bool changed = false;
  for (const auto& f : mod.functions()) {
    functions.push_back(work_item_loops(f));
    changed = changed || functions.back() != f;
  }
  return changed ? IRModule(std::move(functions), mod.attrs()) : mod;
}

Pass work_item_loops_pass() {
  return Pass{"tilec.work_item_loops",
              [](const IRModule& mod, const PassInfo&) { return work_item_loops(mod); }};
}

}  // namespace tilec::transform
