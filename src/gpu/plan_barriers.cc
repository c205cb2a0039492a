#include "tilec/gpu/plan_barriers.h"

#include "tilec/gpu/subgroup.h"

#include "tilec/ir/functor.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/visitor.h"

#include <map>
#include <set>

namespace tilec::gpu {

using namespace ir;

namespace {

// One access to memory the threads of a block share, as a canonical expression.
struct Access {
  const BufferNode* buffer;
  StorageScope scope;
  bool write;
  std::vector<Expr> index;
  bool per_thread;      // the index depends on the thread index
  bool atomic = false;  // an atomic read-modify-write: atomics of one element never race
};
using Pending = std::vector<Access>;

bool same_index(const Access& a, const Access& b) {
  if (a.index.size() != b.index.size()) return false;
  for (size_t i = 0; i < a.index.size(); ++i)
    if (!same_expr(a.index[i], b.index[i])) return false;
  return true;
}

bool conflicts(const Access& earlier, const Access& later) {
  if (earlier.buffer != later.buffer || !(earlier.write || later.write)) return false;
  if (earlier.atomic && later.atomic) return false;
  // The same expression of the thread index: the element is this thread's own.
  return !(earlier.per_thread && later.per_thread && same_index(earlier, later));
}

bool shared_by_threads(const Buffer& b) {
  return b->scope == StorageScope::kShared || b->scope == StorageScope::kGlobal;
}

class Planner : private StmtFunctor<Stmt(Pending& pending)>,
                private StmtFunctor<void(int depth, VarMap& local, Pending& out)> {
  using PlanStmt = StmtFunctor<Stmt(Pending& pending)>;
  using CollectStmt = StmtFunctor<void(int depth, VarMap& local, Pending& out)>;

 public:
  Stmt plan_kernel(const Stmt& body) {
    Pending pending;
    return plan(body, pending);
  }

 private:
  // Whether `e` (its lets substituted) differs between threads: it mentions a thread
  // index or a subgroup index (gpu/subgroup.h), so control flow on it is per-thread and
  // may not hold a barrier.
  bool mentions_thread(const Expr& e) const {
    bool found = false;
    post_order_visit(e, [&](const Expr& x) {
      if (auto* v = x.as<VarNode>(); v && thread_vars_.count(v)) found = true;
    });
    return found || calls_subgroup_op(e);
  }

  Expr canonical(const Expr& e, const VarMap& local) const {
    Expr out = substitute(e, lets_);
    return local.empty() ? out : substitute(out, local);
  }

  void record_let(const LetNode* l) {
    Expr value = substitute(l->value, lets_);
    lets_[l->var.get()] = value;
  }

  // A loop whose body starts by binding a thread-dependent value is a nest split over
  // the threads: one leaf, no barrier inside.
  bool is_split_loop(const ForNode* f) {
    Stmt s = f->body;
    while (auto* l = s.as<LetNode>()) {
      if (mentions_thread(substitute(l->value, lets_))) return true;
      s = l->body;
    }
    return false;
  }

  Stmt plan(const Stmt& s, Pending& pending) {
    if (!s) return s;
    return PlanStmt::dispatch_stmt(s, pending);
  }

  Stmt visit_stmt(const SeqNode* op, const Stmt& s, Pending& pending) override {
    std::vector<Stmt> out;
    for (const auto& child : op->stmts) out.push_back(plan(child, pending));
    return seq(out, s->span);
  }
  Stmt visit_stmt(const LetNode* l, const Stmt& s, Pending& pending) override {
    // The value's reads are accesses like a leaf's (`v = S[0]` after thread 0 wrote
    // S[0] waits for it).
    Pending accesses;
    VarMap local;
    collect(evaluate(l->value), 0, local, accesses);
    std::optional<StorageScope> scope = hazard_scope(pending, accesses);
    if (scope) pending.clear();
    pending.insert(pending.end(), accesses.begin(), accesses.end());
    record_let(l);
    auto n = copy_node(l);
    n->body = plan(l->body, pending);
    return scope ? seq({evaluate(barrier(*scope)), Stmt(n)}) : Stmt(n);
  }
  Stmt visit_stmt(const AllocateNode* op, const Stmt&, Pending& pending) override {
    auto n = copy_node(op);
    n->body = plan(n->body, pending);
    return Stmt(n);
  }
  Stmt visit_stmt(const KernelNode* op, const Stmt&, Pending& pending) override {
    auto n = copy_node(op);
    Pending fresh;
    n->body = plan(n->body, fresh);
    return Stmt(n);
  }
  Stmt visit_stmt(const EvaluateNode* op, const Stmt& s, Pending& pending) override {
    if (as_barrier(op->value)) {
      pending.clear();
      return s;
    }
    return leaf(s, pending);
  }
  Stmt visit_stmt(const ForNode* f, const Stmt& s, Pending& pending) override {
    if (f->for_kind == ForKind::kThreadBinding) {
      if (f->thread_tag.rfind("threadIdx", 0) == 0) {
        thread_vars_.insert(f->var.get());
        if (!is_const_int(f->end, 1)) wide_axes_.insert(f->var.get());
      }
      auto n = copy_node(f);
      n->body = plan(f->body, pending);
      return Stmt(n);
    }
    if (mentions_thread(canonical(f->begin, {})) || mentions_thread(canonical(f->end, {})) ||
        is_split_loop(f)) {
      return leaf(s, pending);
    }
    return loop(f, s, pending);
  }
  Stmt visit_stmt(const IfNode* i, const Stmt& s, Pending& pending) override {
    if (mentions_thread(canonical(i->cond, {}))) return leaf(s, pending);
    Pending then_pending = pending, else_pending = pending;
    auto n = copy_node(i);
    n->then_case = plan(i->then_case, then_pending);
    if (i->else_case) n->else_case = plan(i->else_case, else_pending);
    pending = then_pending;
    pending.insert(pending.end(), else_pending.begin(), else_pending.end());
    return Stmt(n);
  }
  // A while loop whose body touches memory the threads share needs barriers this planner
  // cannot place yet (between the condition's reads and the body's writes of each
  // iteration): it is refused rather than run with a race. Other while loops are one leaf.
  Stmt visit_stmt(const WhileNode* w, const Stmt& s, Pending& pending) override {
    Pending whole;
    VarMap local;
    collect(s, 0, local, whole);
    if (!whole.empty() && !mentions_thread(canonical(w->cond, {})))
      throw IRError(
          "a while loop whose body reads or writes shared or global memory (line " +
          std::to_string(w->span.line) +
          ") is not supported on the SIMT targets yet; use a T.serial loop with a bound, or "
          "compile for c or llvm");
    return leaf(s, pending);
  }
  Stmt visit_stmt(const StoreNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }
  Stmt visit_stmt(const CopyNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }
  Stmt visit_stmt(const FillNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }
  Stmt visit_stmt(const GemmNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }
  Stmt visit_stmt(const ReduceNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }
  Stmt visit_stmt(const LaunchNode*, const Stmt& s, Pending& pending) override {
    return leaf(s, pending);
  }

  // Planned for its first iteration (what came before the loop) and for every later one
  // (what the previous iteration left, its loop variable renamed so that an element of
  // another iteration never counts as this thread's own).
  Stmt loop(const ForNode* f, const Stmt& self, Pending& pending) {
    // A hazard with what came before the loop is resolved once, before it.
    Pending whole;
    VarMap local;
    collect(self, 0, local, whole);
    std::optional<StorageScope> before = hazard_scope(pending, whole);
    if (before) pending.clear();
    Pending first = pending;
    plan(f->body, first);
    Var previous = make_var(f->var.name() + "_prev", f->var.dtype());
    VarMap rename{{f->var.get(), previous}};
    Pending later = pending;
    for (const auto& a : first) {
      Access r = a;
      for (auto& e : r.index) e = substitute(e, rename);
      later.push_back(std::move(r));
    }
    auto n = copy_node(f);
    n->body = plan(f->body, later);
    pending.insert(pending.end(), later.begin(), later.end());
    return before ? seq({evaluate(barrier(*before)), Stmt(n)}) : Stmt(n);
  }

  // The scope of the barrier `accesses` need after `pending` (global when a global
  // buffer is involved), or nullopt when they need none.
  static std::optional<StorageScope> hazard_scope(const Pending& pending, const Pending& accesses) {
    std::optional<StorageScope> scope;
    for (const auto& a : accesses) {
      for (const auto& p : pending) {
        if (!conflicts(p, a)) continue;
        if (!scope || a.scope == StorageScope::kGlobal) {
          scope = a.scope == StorageScope::kGlobal ? StorageScope::kGlobal : StorageScope::kShared;
        }
      }
    }
    return scope;
  }

  Stmt leaf(const Stmt& s, Pending& pending) {
    Pending accesses;
    VarMap local;
    collect(s, 0, local, accesses);
    std::optional<StorageScope> scope = hazard_scope(pending, accesses);
    Stmt out = s;
    if (scope) {
      pending.clear();
      out = seq({evaluate(barrier(*scope)), s});
    }
    pending.insert(pending.end(), accesses.begin(), accesses.end());
    return out;
  }

  // Accesses of one leaf; its own loop variables are renamed by depth so that two nests
  // split the same way give the same expressions.
  // The accesses of the expression `e` of a leaf.
  void exprs(const Expr& e, VarMap& local, Pending& out) {
    post_order_visit(e, [&](const Expr& x) {
      if (auto* l = x.as<LoadNode>(); l && shared_by_threads(l->buffer))
        add(l->buffer, l->indices, false, local, out);
      // An atomic update writes its element (its read is recorded with its LoadNode).
      if (const CallNode* a = as_atomic(x)) {
        auto* l = a->args[0].as<LoadNode>();
        if (l && shared_by_threads(l->buffer)) {
          add(l->buffer, l->indices, true, local, out);
          out.back().atomic = true;
          for (size_t i = out.size() - 1; i-- > 0;) {  // its read, recorded before it
            if (out[i].buffer == out.back().buffer && !out[i].write &&
                same_index(out[i], out.back())) {
              out[i].atomic = true;
              break;
            }
          }
        }
      }
    });
  }

  void collect(const Stmt& s, int depth, VarMap& local, Pending& out) {
    if (!s) return;
    CollectStmt::dispatch_stmt(s, depth, local, out);
  }

  void visit_stmt(const SeqNode* op, const Stmt&, int depth, VarMap& local, Pending& out) override {
    for (const auto& c : op->stmts) collect(c, depth, local, out);
  }
  void visit_stmt(const LetNode* l, const Stmt&, int depth, VarMap& local, Pending& out) override {
    exprs(l->value, local, out);
    lets_[l->var.get()] = canonical(l->value, local);
    collect(l->body, depth, local, out);
  }
  void visit_stmt(const AllocateNode* op, const Stmt&, int depth, VarMap& local,
                  Pending& out) override {
    collect(op->body, depth, local, out);
  }
  void visit_stmt(const ForNode* f, const Stmt&, int depth, VarMap& local, Pending& out) override {
    exprs(f->begin, local, out);
    exprs(f->end, local, out);
    local[f->var.get()] = canonical_var(depth, f->var.dtype());
    collect(f->body, depth + 1, local, out);
  }
  void visit_stmt(const WhileNode* w, const Stmt&, int depth, VarMap& local,
                  Pending& out) override {
    exprs(w->cond, local, out);
    collect(w->body, depth, local, out);
  }
  void visit_stmt(const IfNode* i, const Stmt&, int depth, VarMap& local, Pending& out) override {
    exprs(i->cond, local, out);
    collect(i->then_case, depth, local, out);
    collect(i->else_case, depth, local, out);
  }
  void visit_stmt(const StoreNode* st, const Stmt&, int depth, VarMap& local,
                  Pending& out) override {
    exprs(st->value, local, out);
    for (const auto& i : st->indices) exprs(i, local, out);
    if (shared_by_threads(st->buffer)) add(st->buffer, st->indices, true, local, out);
  }
  void visit_stmt(const EvaluateNode* op, const Stmt&, int depth, VarMap& local,
                  Pending& out) override {
    exprs(op->value, local, out);
  }
  void visit_stmt(const KernelNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {
  }
  void visit_stmt(const CopyNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {}
  void visit_stmt(const FillNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {}
  void visit_stmt(const GemmNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {}
  void visit_stmt(const ReduceNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {
  }
  void visit_stmt(const LaunchNode*, const Stmt&, int depth, VarMap& local, Pending& out) override {
  }

  // An element is this thread's own only when its index tells the threads apart: it
  // mentions every thread axis of the block (with more than one thread), not only some.
  void add(const Buffer& b, const std::vector<Expr>& indices, bool write, const VarMap& local,
           Pending& out) {
    Access a{b.get(), b->scope, write, {}, false};
    std::set<const VarNode*> mentioned;
    for (const auto& i : indices) {
      a.index.push_back(canonical(i, local));
      post_order_visit(a.index.back(), [&](const Expr& x) {
        if (auto* v = x.as<VarNode>(); v && thread_vars_.count(v)) mentioned.insert(v);
      });
    }
    a.per_thread = !mentioned.empty();
    for (const VarNode* axis : wide_axes_) a.per_thread = a.per_thread && mentioned.count(axis);
    out.push_back(std::move(a));
  }

  Var canonical_var(int depth, DataType t) {
    auto key = std::make_pair(depth, t.str());
    auto it = canonical_.find(key);
    if (it != canonical_.end()) return it->second;
    Var v = make_var("loop" + std::to_string(depth), t);
    canonical_.emplace(key, v);
    return v;
  }

  VarMap lets_;
  std::set<const VarNode*> thread_vars_;
  std::set<const VarNode*> wide_axes_;  // thread axes with more than one thread
  std::map<std::pair<int, std::string>, Var> canonical_;
};

// Plans each T.Kernel's body; nothing outside a kernel runs on the block's threads.
class KernelPlanner : public StmtMutator {
 protected:
  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    auto n = copy_node(op);
    n->body = plan_barriers(op->body);
    return Stmt(n);
  }
};

}  // namespace

Stmt plan_barriers(const Stmt& kernel_body) {
  return Planner().plan_kernel(kernel_body);
}

IRModule plan_barriers(const IRModule& mod) {
  return transform::map_function_bodies(
      mod, [](const PrimFunc& f) { return KernelPlanner().mutate(f->body); });
}

transform::Pass plan_barriers_pass() {
  return transform::Pass{"gpu.plan_barriers", [](const IRModule& mod, const transform::PassInfo&) {
                           return plan_barriers(mod);
                         }};
}

}  // namespace tilec::gpu
