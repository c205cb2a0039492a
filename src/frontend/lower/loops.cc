// Loops: for statements over T.Parallel, T.serial, T.Pipelined, range and thread
// bindings; T.Pipelined schedules; unrolled launch loops.
#include "lowering.h"

namespace tilec::frontend {

std::vector<const AstExpr*> Lowering::loop_targets(const AstExpr& target) {
  std::vector<const AstExpr*> names;
  if (target.kind == AstKind::kTuple) {
    for (const auto& c : target.children) names.push_back(c.get());
  } else {
    names.push_back(&target);
  }
  return names;
}

// Whether `body` holds a `with T.Kernel(...)` (at any depth of its statements).
bool Lowering::launches_kernel(const AstBlock& body) const {
  for (const auto& st : body) {
    if (st->kind == AstStmtKind::kWith && st->value && st->value->kind == AstKind::kCall &&
        st->value->base->kind == AstKind::kAttribute &&
        language_function(*st->value->base) == "Kernel")
      return true;
    if (launches_kernel(st->body) || launches_kernel(st->orelse)) return true;
  }
  return false;
}

void Lowering::unrolled_launches(const AstStmt& s, BlockAccumulator& acc) {
  const AstExpr& iter = *s.value;
  bool range = iter.kind == AstKind::kCall && iter.base->kind == AstKind::kName &&
               iter.base->name == "range" && !lookup("range");
  bool serial = iter.kind == AstKind::kCall && iter.base->kind == AstKind::kAttribute &&
                language_function(*iter.base) == "serial";
  const char* hint =
      "a loop around T.Kernel launches is unrolled into one launch per iteration: write "
      "`for i in range(n):` with n a constant (a factory size or flag), or put the loop "
      "inside the T.Kernel";
  if (!(range || serial) || !iter.keywords.empty() || iter.children.empty() ||
      iter.children.size() > 3)
    fail(iter.span, "a loop around T.Kernel launches must be range(...) or T.serial(...)", hint);
  if (s.target->kind != AstKind::kName)
    fail(s.target->span, "a loop around T.Kernel launches binds one name", hint);
  std::vector<int64_t> args;
  for (const auto& c : iter.children) {
    Expr v = expr(*c);
    const auto* i = v.as<IntImmNode>();
    if (!i)
      fail(c->span, "the trip count of a loop around T.Kernel launches must be a constant", hint);
    args.push_back(i->value);
  }
  int64_t begin = args.size() > 1 ? args[0] : 0;
  int64_t end = args.size() > 1 ? args[1] : args[0];
  int64_t step = args.size() > 2 ? args[2] : 1;
  if (step == 0) fail(iter.span, "the loop's step must not be zero");
  int64_t trips = step > 0 ? (end > begin ? (end - begin + step - 1) / step : 0)
                           : (begin > end ? (begin - end - step - 1) / -step : 0);
  if (trips > kMaxUnrolledLaunchLoop)
    fail(iter.span,
         "a loop around T.Kernel launches runs " + std::to_string(trips) +
             " times; tilec unrolls at most " + std::to_string(kMaxUnrolledLaunchLoop),
         hint);
  for (int64_t t = 0, v = begin; t < trips; ++t, v += step) {
    scopes_.emplace_back();
    scopes_.back()[s.target->name] = {
        Binding::kConst, with_span(make_int(v), s.target->span), "", {}};
    for (const auto& st : s.body) statement(*st, acc);
    scopes_.pop_back();
  }
}

Stmt Lowering::for_statement(const AstStmt& s) {
  const AstExpr& iter = *s.value;
  std::string fn;
  if (iter.kind == AstKind::kCall && iter.base->kind == AstKind::kName &&
      iter.base->name == "range" && !lookup("range")) {
    fn = "range";
  } else if (iter.kind == AstKind::kCall && iter.base->kind == AstKind::kAttribute) {
    fn = language_function(*iter.base);
  }
  const Construct* row = fn.empty() || fn == "range" ? nullptr : ConstructTable::get().find(fn);
  if (fn != "range" && (!row || row->role != ConstructRole::kLoop))
    fail(iter.span, "unsupported loop iterable", supported_loops());
  const std::string q = fn == "range" ? "range" : "T." + fn;
  auto targets = loop_targets(*s.target);
  if (fn != "Parallel" && fn != "grid" && targets.size() != 1)
    fail(s.target->span, q + " binds one loop variable, not " + std::to_string(targets.size()),
         "use `for i, j in T.Parallel(M, N)` for a loop nest");

  if (fn == "Parallel" || fn == "grid") {
    // Extents, then the row's keywords (annotations / loop_layout / coalesced_width
    // steer GPU thread mapping only).
    for (const auto& kw : iter.keywords) {
      std::string accepted;
      bool known = false;
      for (const auto& p : row->params) {
        accepted += ", " + p.name + "=";
        known = known || p.name == kw.name;
      }
      if (!known)
        fail(kw.span, q + " got an unexpected keyword argument '" + kw.name + "'",
             "accepted: extents, then" + accepted.substr(1));
    }
    if (iter.children.empty()) fail(iter.span, q + " needs at least one extent");
    if (iter.children.size() != targets.size())
      fail(s.target->span, q + " has " + std::to_string(iter.children.size()) +
                               " extent(s) but the loop binds " + std::to_string(targets.size()) +
                               " variable(s)");
    std::vector<Expr> extents;
    for (const auto& c : iter.children) extents.push_back(expr(*c));
    return loop_nest(s, targets, extents, fn == "grid" ? ForKind::kSerial : ForKind::kParallel, 1,
                     0, "");
  }

  Expr begin = make_int(0), end;
  int64_t step = 1;
  int num_stages = 0;
  std::string thread;
  ForKind kind = ForKind::kSerial;
  std::optional<PipelineScheduleArgs> schedule;
  if (fn == "range") {
    no_keywords(iter, q);
    size_t n = iter.children.size();
    if (n < 1 || n > 3) fail(iter.span, "range takes 1 to 3 arguments, got " + std::to_string(n));
    if (n == 1) {
      end = expr(*iter.children[0]);
    } else {
      begin = expr(*iter.children[0]);
      end = expr(*iter.children[1]);
    }
    if (n == 3) {
      step = int_arg(*iter.children[2], "step");
      if (step == 0) fail(iter.children[2]->span, "range step must not be zero");
    }
  } else {
    ConstructCall a = bind_construct(*row, iter, iter.span);
    if (fn == "Pipelined") schedule = pipeline_schedule_lists(a);
    if ((fn == "serial" || fn == "unroll") && a[2]) {
      step = int_arg(*a[2], "step");
      if (step == 0) fail(a[2]->span, "the step must not be zero");
    }
    if (a[1]) {
      begin = expr(*a[0]);
      end = expr(*a[1]);
    } else {
      end = expr(*a[0]);
    }
    if (fn == "Pipelined") {
      kind = ForKind::kPipelined;
      if (a[2]) {
        int64_t stages = int_arg(*a[2], "num_stages");
        if (stages < 0 || stages > 64) fail(a[2]->span, "num_stages must be between 0 and 64");
        num_stages = int(stages);
      }
    } else if (fn == "vectorized") {
      kind = ForKind::kVectorized;
    } else if (fn == "unroll") {
      kind = ForKind::kUnrolled;
    } else if (fn == "thread_binding") {
      kind = ForKind::kThreadBinding;
      if (!a[2] || a[2]->kind != AstKind::kString)
        fail(iter.span, "T.thread_binding needs thread=\"threadIdx.x\" (or .y/.z)");
      thread = a[2]->name;
    }
  }
  for (const Expr& bound : {begin, end})
    if (!bound.dtype().is_integer())
      fail(iter.span, "loop bounds must be integers, not " + bound.dtype().str());
  if (kind == ForKind::kThreadBinding && in_kernel_)
    return thread_binding_loop(s, iter, thread, begin, end);
  Stmt loop = loop_nest(s, targets, {end}, kind, step, num_stages, thread, begin);
  if (schedule && !schedule->schedule.empty()) loop = with_pipeline_schedule(loop, *schedule);
  return loop;
}

PipelineScheduleArgs Lowering::pipeline_schedule_lists(const ConstructCall& a) {
  PipelineScheduleArgs out;
  auto ints = [&](const Binding& b, const AstExpr& at, const std::string& what) {
    std::vector<int64_t> v;
    if (b.kind == Binding::kNone) return v;
    if (b.kind != Binding::kTuple)
      fail(at.span, "T.Pipelined's " + what + " is a list of integers",
           "write " + what + "=[0, 1, 2] (one entry per statement of the loop body)");
    for (const Binding& item : b.items) {
      const auto* i = item.kind == Binding::kConst ? item.value.as<IntImmNode>() : nullptr;
      if (!i || item.value.dtype().is_bool())
        fail(at.span, "T.Pipelined's " + what + " is a list of integers, but an entry is not",
             "write " + what + "=[0, 1, 2] (one entry per statement of the loop body)");
      v.push_back(i->value);
    }
    return v;
  };
  auto lists = [&](const Binding& b, const AstExpr& at, const std::string& what) {
    std::vector<std::vector<int64_t>> v;
    if (b.kind == Binding::kNone) return v;
    if (b.kind != Binding::kTuple)
      fail(at.span, "T.Pipelined's " + what + " is a list of lists of statement indices",
           "write " + what + "=[[0, 1], [2]]");
    for (const Binding& item : b.items) v.push_back(ints(item, at, what + " entry"));
    return v;
  };
  if (a[3]) {
    out.schedule.order = ints(const_value(*a[3], "order"), *a[3], "order");
    out.order_span = a[3]->span;
  }
  if (a[4]) {
    out.schedule.stage = ints(const_value(*a[4], "stage"), *a[4], "stage");
    out.stage_span = a[4]->span;
  }
  if (a[5]) {
    out.schedule.sync = lists(const_value(*a[5], "sync"), *a[5], "sync");
    out.list_span = a[5]->span;
  }
  if (a[6]) {
    out.schedule.group = lists(const_value(*a[6], "group"), *a[6], "group");
    out.list_span = a[6]->span;
  }
  return out;
}

// Records a validated schedule on the pipelined loop; without num_stages= the depth is
// max(stage) + 1, as in TileLang.
Stmt Lowering::with_pipeline_schedule(const Stmt& loop, const PipelineScheduleArgs& args) {
  auto n = copy_node(loop.as<ForNode>());
  PipelineBodyCount count = count_pipeline_statements(n->body);
  PipelineSchedule sched = args.schedule;
  int64_t k = count.scheduled;
  // Older TileLang code also gave the loop body's scalar bindings entries.
  if (!sched.order.empty() && int64_t(sched.order.size()) != k &&
      int64_t(sched.order.size()) == count.with_bindings)
    k = count.with_bindings;
  if (std::optional<std::string> why = pipeline_schedule_error(sched, k)) {
    Span at = why->rfind("stage", 0) == 0   ? args.stage_span
              : why->rfind("order", 0) == 0 ? args.order_span
                                            : args.list_span;
    if (!at.known()) at = loop->span;
    fail(at, "T.Pipelined: " + *why,
         "order and stage have one entry per statement of the loop body (copies, gemms, "
         "nested loops, ifs; not scalar bindings), order a permutation of 0.." +
             std::to_string(k > 0 ? k - 1 : 0));
  }
  if (!n->num_stages) n->num_stages = int(sched.depth());
  pipeline_schedules_[{loop->span.line, loop->span.col}] = std::move(sched);
  return Stmt(n);
}

// The function with its pipelined loops' schedules as attributes (pipeline_schedule.h),
// found by the loops' source places (a macro expanded twice repeats its schedule).
PrimFunc Lowering::with_pipeline_schedules(PrimFunc fn) const {
  // The gemms' warp policies go with them by index (gemm_policy.h; gemms are leaves, so
  // the post-order visit meets them in source order): Square is the default.
  std::vector<std::pair<std::string, std::string>> policies;
  int64_t gemms = 0;
  post_order_visit(fn->body, [&](const Stmt* s, const Expr*) {
    const auto* g = s ? s->as<GemmNode>() : nullptr;
    if (!g) return;
    int64_t k = gemms++;
    if (!g->span.known()) return;
    auto it = gemm_policies_.find({g->span.line, g->span.col});
    if (it != gemm_policies_.end() && it->second != GemmWarpPolicy::kSquare)
      policies.emplace_back(gemm_policy_attr(k), to_string(it->second));
  });
  for (const auto& [key, value] : policies) fn = with_attr(fn, key, value);
  std::vector<const ForNode*> loops = pipelined_loops(fn->body);
  for (size_t k = 0; k < loops.size(); ++k) {
    auto it = pipeline_schedules_.find({loops[k]->span.line, loops[k]->span.col});
    if (it != pipeline_schedules_.end())
      fn = with_attr(fn, pipeline_schedule_attr(k), format_pipeline_schedule(it->second));
  }
  return fn;
}

// `for tx in T.thread_binding(128, thread="threadIdx.x"):` inside a T.Kernel binds `tx`
// to the kernel's thread index along that axis (its extent must be the kernel's), and
// the body is per-thread code of the block.
Stmt Lowering::thread_binding_loop(const AstStmt& s, const AstExpr& iter, const std::string& thread,
                                   const Expr& begin, const Expr& end) {
  AstExpr tag;
  tag.kind = AstKind::kString;
  tag.name = thread;
  tag.span = iter.span;
  auto [is_thread, d] = launch_tag(tag);
  const auto* n = as_const_int(end);
  if (!is_thread || !is_const_int(begin, 0) || !n ||
      (d < kernel_threads_.size() ? kernel_threads_[d] != *n : *n != 1))
    fail(iter.span,
         "T.thread_binding inside a T.Kernel binds a thread axis from 0 to the kernel's extent "
         "(threads=" +
             threads_text() + ")",
         "write for tx in T.thread_binding(" +
             (kernel_threads_.empty() ? std::string("N") : std::to_string(kernel_threads_[0])) +
             ", thread=\"threadIdx.x\"), or use T.get_thread_binding(d)");
  scopes_.emplace_back();
  thread_name_hint_ = s.target->name;
  Expr v = d < kernel_threads_.size() ? thread_var(int64_t(d), s.target->span, "T.thread_binding")
                                      : make_int(0);
  thread_name_hint_.clear();
  bind_local(s.target->name, {Binding::kVar, v, "", {}}, s.target->span);
  Stmt body = block(s.body, s.span);
  scopes_.pop_back();
  return body;
}

Stmt Lowering::loop_nest(const AstStmt& s, const std::vector<const AstExpr*>& targets,
                         const std::vector<Expr>& extents, ForKind kind, int64_t step,
                         int num_stages, const std::string& thread, Expr begin) {
  scopes_.emplace_back();
  std::vector<Var> vars;
  for (size_t k = 0; k < targets.size(); ++k) {
    const AstExpr* t = targets[k];
    // docs/semantics.md "Integer widths": the variable's type holds every value it takes.
    Expr lo = targets.size() == 1 ? begin : make_int(0);
    Var v = make_var(t->name, loop_var_dtype(lo, extents[k], step), t->span);
    bind_loop_var(t->name, {Binding::kVar, v, "", {}}, t->span);
    vars.push_back(v);
  }
  Stmt body = block(s.body, s.span);
  scopes_.pop_back();
  for (size_t k = vars.size(); k-- > 0;) {
    Expr lo = as_index(vars.size() == 1 ? begin : make_int(0), vars[k].dtype());
    Expr hi = as_index(extents[k], vars[k].dtype());
    body = guarded(s.span, [&] { return for_loop(vars[k], lo, hi, body, kind, step, s.span); });
    if (num_stages || !thread.empty()) {
      auto n = copy_node(body.as<ForNode>());
      n->num_stages = num_stages;
      n->thread_tag = thread;
      body = Stmt(n);
    }
  }
  return body;
}

}  // namespace tilec::frontend
