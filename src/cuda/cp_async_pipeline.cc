// cuda.inject_cp_async_pipeline: see cp_async.h. Planning (which statements are the
// producers) follows TileLang's PipelinePlanning for the common case, the rewrite its
// InjectSoftwarePipeline with two stages of statements: copies in stage 0, the rest in
// stage num_stages - 1.
#include "tilec/cuda/cp_async.h"

#include "tilec/cuda/mma_gemm.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/pipeline_schedule.h"
#include "tilec/ir/source_error.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/writes.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/staged_buffers.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace tilec::cuda {

using namespace ir;

namespace {

using BufferSet = std::set<const BufferNode*>;

// Buffers a statement references, writes, reduces, allocates; variables it binds.
struct Uses : StmtVisitor {
  std::map<const BufferNode*, int> refs;  // references other than the allocation
  BufferSet writes, reduced, allocated;
  std::set<const VarNode*> bound;
  bool nested_pipeline = false;

  static Uses of(const Stmt& s) {
    Uses u;
    u.visit(s);
    return u;
  }
  bool touches(const BufferNode* b) const { return refs.count(b) != 0; }

 protected:
  void visit_buffer_use(const Buffer& b) override { ++refs[b.get()]; }
  void visit_allocate(const AllocateNode* op) override {
    allocated.insert(op->buffer.get());
    if (op->init) visit(*op->init);
    visit(op->body);
  }
  void visit(const Stmt& s) override {
    for_each_write(s, [&](const Write& w) { writes.insert(w.buffer.get()); });
    StmtVisitor::visit(s);
  }
  void visit(const Expr& e) override {
    for_each_write(e, [&](const Write& w) { writes.insert(w.buffer.get()); });
    StmtVisitor::visit(e);
  }
  void visit_reduce(const ReduceNode* op) override {
    reduced.insert(op->src.get());
    reduced.insert(op->dst.get());
    StmtVisitor::visit_reduce(op);
  }
  void visit_let(const LetNode* op) override {
    bound.insert(op->var.get());
    StmtVisitor::visit_let(op);
  }
  void visit_for(const ForNode* op) override {
    bound.insert(op->var.get());
    if (op->for_kind == ForKind::kPipelined) nested_pipeline = true;
    StmtVisitor::visit_for(op);
  }
};

// Variables and loads in a copy's region indices.
struct RegionOperands : ExprVisitor {
  std::set<const VarNode*> vars;
  bool loads = false;
  void visit_region(const TileRegion& r) {
    for (const auto& d : r.dims) {
      visit(d.start);
      if (d.stop) visit(*d.stop);
    }
  }

 protected:
  void visit_var(const VarNode* op) override { vars.insert(op); }
  void visit_load(const LoadNode* op) override {
    loads = true;
    ExprVisitor::visit_load(op);
  }
};

bool constant_shape(const Buffer& b) {
  for (const auto& d : b->shape)
    if (!as_const_int(d)) return false;
  return true;
}

// Rewrites every reference to a staged tile as its stage `stage` of the staged buffer.
using StageRewriter = transform::StagedBufferRewriter;

Stmt call_stmt(const char* name, std::vector<Expr> args, Span span) {
  return evaluate(call_extern(DataType::Int32(), name, std::move(args), span), span);
}

const char* statement_kind(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::kCopy:
      return "T.copy";
    case StmtKind::kGemm:
      return "T.gemm";
    case StmtKind::kFill:
      return "T.fill";
    case StmtKind::kReduce:
      return "T.reduce";
    case StmtKind::kFor:
      return "loop";
    case StmtKind::kIf:
      return "if";
    default:
      return "statement";
  }
}

std::string describe_statement(const Stmt& s, size_t i) {
  std::string text = fmt::format("statement {} ({}", i, statement_kind(s));
  if (s->span.known()) text += fmt::format(" at line {}", s->span.line);
  return text + ")";
}

constexpr const char* kSupportedSchedules =
    "the cuda cp.async pipeline realizes schedules with two stages of statements: stage 0, "
    "global->shared T.copy statements issued max(stage) iterations ahead, and stage "
    "max(stage), everything else; order= must emit every stage-0 statement before the "
    "others and keep the statements of one stage in source order";

class Pipeliner : public StmtMutator {
 public:
  explicit Pipeliner(const PrimFunc& func) : function_(func->name) {
    std::vector<const ForNode*> loops = pipelined_loops(func->body);
    for (size_t k = 0; k < loops.size(); ++k)
      if (std::optional<PipelineSchedule> sched = pipeline_schedule(func, k))
        if (!sched->order.empty()) schedules_.emplace(loops[k], std::move(*sched));
  }

 protected:
  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    const KernelNode* outer = kernel_;
    kernel_ = op;
    kernel_uses_ = Uses::of(op->body);
    Stmt out = StmtMutator::mutate_kernel(op, self);
    kernel_ = outer;
    return out;
  }

  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::mutate_allocate(op, self);
    auto it = staged_.find(op->buffer.get());
    if (it == staged_.end()) return s;
    auto n = copy_node(s.as<AllocateNode>());
    n->buffer = it->second;
    return Stmt(n);
  }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::mutate_for(op, self);
    if (!kernel_ || op->for_kind != ForKind::kPipelined) return s;
    auto sched = schedules_.find(op);
    const PipelineSchedule* schedule = sched == schedules_.end() ? nullptr : &sched->second;
    int64_t stages = schedule ? schedule->depth() : op->num_stages;
    if (stages < 2) return s;  // one stage: the serial loop is the schedule
    if (std::optional<Stmt> p = pipeline(*s.as<ForNode>(), stages, schedule)) return *p;
    return s;
  }

 private:
  [[noreturn]] void schedule_error(const ForNode& loop, const PipelineSchedule& schedule,
                                   const std::string& what) const {
    std::string text =
        fmt::format("kernel '{}': T.Pipelined({}) cannot be realized on cuda: {}; {}", function_,
                    format_pipeline_schedule(schedule), what, kSupportedSchedules);
    if (loop.span.known()) throw LocatedError(loop.span, text);
    throw IRError(text);
  }

  // Which statements the schedule puts in stage 0 (the producers), checked against what
  // the pipeline can issue ahead (`eligible`) and realize (kSupportedSchedules).
  std::vector<bool> scheduled_producers(const ForNode& loop, const PipelineSchedule& schedule,
                                        const std::vector<Stmt>& items, size_t leading_lets,
                                        const std::vector<bool>& eligible) const {
    const size_t entries = schedule.stage.size();
    size_t skip = 0;  // older TileLang code gave the leading scalar bindings entries too
    if (entries == items.size() + leading_lets) {
      skip = leading_lets;
    } else if (entries != items.size()) {
      schedule_error(loop, schedule,
                     fmt::format("its {} entries do not map onto the {} statements the pipeline "
                                 "sees in the loop body (bindings inside the body split it)",
                                 entries, items.size()));
    }
    const int64_t last = schedule.depth() - 1;
    std::vector<bool> producer(items.size());
    std::vector<int64_t> order(items.size()), stage(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      stage[i] = schedule.stage[i + skip];
      order[i] = schedule.order[i + skip];
      if (stage[i] != 0 && stage[i] != last) {
        schedule_error(loop, schedule,
                       fmt::format("{} is in stage {}, between 0 and {}",
                                   describe_statement(items[i], i), stage[i], last));
      }
      if (stage[i] == 0 && !eligible[i]) {
        schedule_error(loop, schedule,
                       fmt::format("{} is in stage 0 but cannot be issued ahead (only a T.copy "
                                   "from a global tensor the loop does not write into a shared "
                                   "tile of constant shape used only in this loop, at indices of "
                                   "the loop variable and values bound outside it)",
                                   describe_statement(items[i], i)));
      }
      producer[i] = stage[i] == 0;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      for (size_t j = 0; j < items.size(); ++j) {
        if (producer[j] && !producer[i] && order[i] < order[j]) {
          schedule_error(loop, schedule,
                         fmt::format("order emits {} (stage {}) before {} (stage 0)",
                                     describe_statement(items[i], i), stage[i],
                                     describe_statement(items[j], j)));
        }
        if (i < j && stage[i] == stage[j] && order[i] > order[j]) {
          schedule_error(loop, schedule,
                         fmt::format("order emits {} before {}, both in stage {}",
                                     describe_statement(items[j], j),
                                     describe_statement(items[i], i), stage[i]));
        }
      }
    }
    return producer;
  }

  // The pipeline of `loop` in `n` stages (the schedule's when it has one, else the
  // planned one), or nullopt when it has no producer to pipeline.
  std::optional<Stmt> pipeline(const ForNode& loop, int64_t n, const PipelineSchedule* schedule) {
    Uses loop_uses = Uses::of(loop.body);
    if (loop_uses.nested_pipeline) return std::nullopt;
    // The body's statements, under the allocations and lets that wrap them.
    // A let of the loop variable and values from outside the loop (`kv_start = (s * n + k) *
    // block_N`) is inlined into the copies, so that they can be issued ahead of it.
    std::vector<Stmt> wrappers;
    VarMap inlined;
    size_t leading_lets = 0;
    Stmt body = loop.body;
    while (body.as<AllocateNode>() || body.as<LetNode>()) {
      wrappers.push_back(body);
      if (body.as<LetNode>()) ++leading_lets;
      if (auto* l = body.as<LetNode>()) {
        RegionOperands value;
        Expr v = substitute(l->value, inlined);
        value.visit(v);
        bool outside = !value.loads;
        for (const VarNode* x : value.vars) outside &= !loop_uses.bound.count(x);
        if (outside) inlined[l->var.get()] = v;
      }
      body = body.as<AllocateNode>() ? body.as<AllocateNode>()->body : body.as<LetNode>()->body;
    }
    std::vector<Stmt> items =
        body.as<SeqNode>() ? body.as<SeqNode>()->stmts : std::vector<Stmt>{body};
    for (Stmt& item : items)
      if (item.as<CopyNode>() && !inlined.empty()) item = substitute(item, inlined);

    auto eligible = [&](const Stmt& s) {
      const auto* c = s.as<CopyNode>();
      if (!c) return false;
      const BufferNode* src = c->src.buffer.get();
      const BufferNode* dst = c->dst.buffer.get();
      if (src->scope != StorageScope::kGlobal || dst->scope != StorageScope::kShared) return false;
      if (loop_uses.writes.count(src) || loop_uses.allocated.count(dst) ||
          loop_uses.reduced.count(dst) || !constant_shape(c->dst.buffer))
        return false;
      // Every reference to the tile is in this loop (the staged buffer replaces it).
      auto in_kernel = kernel_uses_.refs.find(dst);
      if (in_kernel == kernel_uses_.refs.end() || in_kernel->second != loop_uses.refs.at(dst))
        return false;
      RegionOperands operands;
      operands.visit_region(c->src);
      operands.visit_region(c->dst);
      if (operands.loads) return false;
      for (const VarNode* v : operands.vars)
        if (loop_uses.bound.count(v)) return false;  // bound inside the loop body
      return true;
    };
    std::vector<bool> producer(items.size());
    for (size_t i = 0; i < items.size(); ++i) producer[i] = eligible(items[i]);
    const std::vector<bool> scheduled =
        schedule ? scheduled_producers(loop, *schedule, items, leading_lets, producer)
                 : std::vector<bool>{};
    if (schedule) producer = scheduled;
    // Drop producers whose tile an earlier consumer touches or another statement writes,
    // until none changes.
    for (bool changed = true; changed;) {
      changed = false;
      BufferSet tiles;
      for (size_t i = 0; i < items.size(); ++i)
        if (producer[i]) tiles.insert(items[i].as<CopyNode>()->dst.buffer.get());
      BufferSet dropped;
      for (size_t j = 0; j < items.size(); ++j) {
        if (producer[j]) continue;
        Uses u = Uses::of(items[j]);
        for (const BufferNode* t : tiles) {
          if (u.writes.count(t)) dropped.insert(t);
          if (!u.touches(t)) continue;
          for (size_t i = j + 1; i < items.size(); ++i)
            if (producer[i] && items[i].as<CopyNode>()->dst.buffer.get() == t) dropped.insert(t);
        }
      }
      for (size_t i = 0; i < items.size(); ++i) {
        if (producer[i] && dropped.count(items[i].as<CopyNode>()->dst.buffer.get())) {
          if (schedule) {
            schedule_error(loop, *schedule,
                           fmt::format("{} is in stage 0, but another statement of the loop "
                                       "writes its tile or reads it before it",
                                       describe_statement(items[i], i)));
          }
          producer[i] = false;
          changed = true;
        }
      }
    }
    std::vector<Stmt> producers, consumers;
    for (size_t i = 0; i < items.size(); ++i)
      (producer[i] ? producers : consumers).push_back(items[i]);
    if (producers.empty()) return std::nullopt;

    std::map<const BufferNode*, Buffer> staged;
    for (const Stmt& p : producers) {
      const Buffer& tile = p.as<CopyNode>()->dst.buffer;
      if (staged.count(tile.get()) || staged_.count(tile.get())) continue;
      std::vector<Expr> shape = {make_int(n)};
      shape.insert(shape.end(), tile->shape.begin(), tile->shape.end());
      Buffer b = make_buffer(tile->name, shape, tile->dtype, StorageScope::kShared, tile->span);
      staged.emplace(tile.get(), b);
    }
    for (const auto& [old, b] : staged) staged_.emplace(old, b);

    const Var& k = loop.var;
    DataType t = k.dtype();
    auto c = [&](int64_t v) { return make_int(v, t); };
    auto producers_at = [&](Expr iteration, Expr stage) {
      VarMap shift{{k.get(), iteration}};
      std::vector<Stmt> out;
      StageRewriter rewrite(staged, std::move(stage));
      for (const Stmt& p : producers) out.push_back(rewrite.mutate(substitute(p, shift)));
      return seq(out, loop.span);
    };
    Span span = loop.span;
    Stmt commit = call_stmt(kCpAsyncCommit, {}, span);

    // Prologue: iterations begin .. begin + n - 2 into stages 0 .. n - 2, a group each.
    Var s = make_var(k->name + "_stage", t);
    Expr first = transform::simplify(loop.begin + Expr(s));
    Stmt prologue =
        for_loop(s, c(0), c(n - 1),
                 seq({if_then_else(first < loop.end, producers_at(first, s), {}, span), commit}),
                 ForKind::kSerial, 1, span);

    // Steady state: wait for this iteration's group, then issue iteration + n - 1's.
    Expr ahead = transform::simplify(Expr(k) + c(n - 1));
    Expr ahead_stage = transform::simplify(floormod(Expr(k) - loop.begin + c(n - 1), c(n)));
    StageRewriter consumer_rewrite(staged,
                                   transform::simplify(floormod(Expr(k) - loop.begin, c(n))));
    std::vector<Stmt> steady = {
        call_stmt(kCpAsyncWait, {make_int(n - 2)}, span),
        evaluate(barrier(StorageScope::kShared, span), span),
        if_then_else(ahead < loop.end, producers_at(ahead, ahead_stage), {}, span),
        commit,
    };
    for (const Stmt& consumer : consumers) steady.push_back(consumer_rewrite.mutate(consumer));
    Stmt new_body = seq(steady, span);
    for (size_t w = wrappers.size(); w-- > 0;) {
      if (auto* a = wrappers[w].as<AllocateNode>()) {
        auto wrapped = copy_node(a);
        wrapped->body = new_body;
        new_body = Stmt(wrapped);
      } else {
        auto wrapped = copy_node(wrappers[w].as<LetNode>());
        wrapped->body = new_body;
        new_body = Stmt(wrapped);
      }
    }
    auto steady_loop = copy_node(&loop);
    steady_loop->for_kind = ForKind::kSerial;
    steady_loop->num_stages = 0;
    steady_loop->body = new_body;
    // Epilogue: nothing is left in flight when the tiles' memory is reused.
    return seq({prologue, Stmt(steady_loop), call_stmt(kCpAsyncWait, {make_int(0)}, span)}, span);
  }

  std::string function_;
  std::map<const ForNode*, PipelineSchedule> schedules_;
  const KernelNode* kernel_ = nullptr;
  Uses kernel_uses_;
  std::map<const BufferNode*, Buffer> staged_;
};

}  // namespace

bool is_cp_async_call(const Stmt& stmt, const char* name) {
  const auto* e = stmt.as<EvaluateNode>();
  const auto* call = e ? e->value.as<CallNode>() : nullptr;
  return call && call->call_kind == CallKind::kExtern && call->name == name;
}

IRModule inject_cp_async_pipeline(const IRModule& mod, const target::Target& target) {
  if (cuda_sm_version(target) < 80) return mod;  // cp.async is sm_80's
  return transform::map_function_bodies(
      mod, [](const PrimFunc& f) { return Pipeliner(f).mutate(f->body); });
}

transform::Pass inject_cp_async_pipeline_pass() {
  return transform::Pass{"cuda.inject_cp_async_pipeline",
                         [](const IRModule& mod, const transform::PassInfo& info) {
                           return inject_cp_async_pipeline(mod, info.target);
                         }};
}

}  // namespace tilec::cuda
