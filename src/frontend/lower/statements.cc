// Statements: blocks, assignments, expression statements (the T.* statement calls),
// element stores, if and with.
#include "lowering.h"

namespace tilec::frontend {

Stmt Lowering::block(const AstBlock& stmts, Span span) {
  scopes_.emplace_back();
  BlockAccumulator acc;
  for (const auto& s : stmts) {
    statement(*s, acc);
    // Every statement that takes views resolves them; one left means a construct that
    // does not take a view got one.
    if (view_operands_.pending())
      fail(s->span, "this statement does not take a view (from T.reshape / T.view) as an operand",
           "T.copy, T.fill, T.clear, T.gemm, T.reduce_* and tile atomics take views; pass "
           "the viewed buffer to other operations");
  }
  for (const auto& [name, binding] : scopes_.back()) {
    Span at = binding.kind == Binding::kVar ? binding.value->span
              : binding.buffer              ? binding.buffer->span
                                            : Span{};
    out_of_scope_[name] = at;
  }
  scopes_.pop_back();
  return acc.finish(span);
}

void Lowering::statement(const AstStmt& s, BlockAccumulator& acc) {
  switch (s.kind) {
    case AstStmtKind::kPass:
      return;
    case AstStmtKind::kExpr:
      return expression_statement(s, acc);
    case AstStmtKind::kAssign:
      assignment(s, *s.target, acc);
      for (const auto& t : s.more_targets) assignment(s, *t, acc);
      return;
    case AstStmtKind::kAnnAssign:
      return annotated_local(s, acc);
    case AstStmtKind::kAssert:
      fail(s.span, "'assert' is not allowed inside a kernel",
           "check sizes in the factory: `assert M % block_M == 0` before the @T.prim_func");
    case AstStmtKind::kRaise:
      fail(s.span, "'raise' is not allowed inside a kernel",
           "reject unsupported parameters in the factory, before the @T.prim_func");
    case AstStmtKind::kReturn:
      fail(s.span, "'return' is not allowed inside a kernel",
           "a kernel writes its results to its tensor parameters; factories return kernels");
    case AstStmtKind::kAugAssign:
      return aug_assignment(s, acc);
    case AstStmtKind::kFor:
      if (!in_kernel_ && launches_kernel(s.body)) return unrolled_launches(s, acc);
      return acc.add(for_statement(s));
    case AstStmtKind::kWhile:
      return acc.add(while_statement(s));
    case AstStmtKind::kIf:
      return acc.add(if_statement(s));
    case AstStmtKind::kWith:
      return acc.add(with_statement(s));
    case AstStmtKind::kFunctionDef:
      fail(s.span, "nested functions are not supported",
           "define every @T.prim_func at module level");
    case AstStmtKind::kOpaque:  // only made at module level
    case AstStmtKind::kImport:
      fail(s.span, "imports belong at module level");
  }
}

void Lowering::expression_statement(const AstStmt& s, BlockAccumulator& acc) {
  const AstExpr& e = *s.value;
  if (e.kind == AstKind::kString) return;  // docstring
  std::string fn = e.kind == AstKind::kCall && e.base->kind == AstKind::kAttribute
                       ? language_function(*e.base)
                       : "";
  const std::string q = "T." + fn;
  hardware_only(e.span, fn);
  if (e.kind == AstKind::kCall && e.base->kind == AstKind::kName) {
    const Binding* b = lookup(e.base->name);
    if (b && b->kind == Binding::kFunction && b->macro) return expand_macro(e, *b, acc);
  }
  if (e.kind == AstKind::kCall && !fn.empty()) {
    const Construct* row = ConstructTable::get().find(fn);
    if (row && row->statement) {
      if (Stmt st = (this->*row->statement)(bind_construct(*row, e, s.span)))
        acc.add(on_views(st, s.span));
      return;
    }
    if (row) wrong_role(*row, e, ConstructRole::kStatement);
    if (DataType::parse(fn))
      fail(e.span, q + " is a value, not a statement", supported_statement_calls());
    std::string near = ConstructTable::get().did_you_mean(fn);
    fail(e.base->span, "unknown function " + q,
         (near.empty() ? "" : near + " ") + supported_statement_calls());
  }
  if (e.kind == AstKind::kCall) {
    if (e.base->kind == AstKind::kAttribute) fail_not_language(*e.base);
    fail(e.span, "unsupported call statement", supported_statement_calls());
  }
  fail(e.span, "this expression statement has no effect", supported_statement_calls());
}

void Lowering::assignment(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc) {
  const AstExpr& value = *s.value;
  if (target.kind == AstKind::kSubscript) {
    if (std::optional<int64_t> lanes = ramp_lanes(target))
      return acc.add(
          lane_loop(*lanes, s.span, [&] { return element_store(target, expr(value), s.span); }));
    return acc.add(element_store(target, expr(value), s.span));
  }
  if (target.kind == AstKind::kTuple || target.kind == AstKind::kList)
    return unpacking(s, target, acc);
  if (target.kind != AstKind::kName)
    fail(target.span, "unsupported assignment target",
         "assign one name (x = ...) or one element (A[i, j] = ...) per statement");
  const std::string& name = target.name;
  std::string fn = value.kind == AstKind::kCall && value.base->kind == AstKind::kAttribute
                       ? language_function(*value.base)
                       : "";
  hardware_only(value.span, fn);
  if (auto view = data_view(value, fn)) {
    bind_local(name, *view, target.span);
    return;
  }
  if (const Construct* row = fn.empty() ? nullptr : ConstructTable::get().find(fn);
      row && row->allocation)
    return (this->*row->allocation)(bind_construct(*row, value, s.span), target, acc);
  if (fn.rfind("alloc_", 0) == 0) {
    std::string near = ConstructTable::get().did_you_mean(fn);
    fail(value.base->span, "unknown allocation T." + fn,
         (near.empty() ? "" : near + " ") +
             "supported: " + ConstructTable::get().names({ConstructRole::kAllocation}));
  }
  if (fn == "get_thread_binding" || fn == "launch_thread") {
    // tn = T.get_thread_binding(0): `tn` names the thread index itself (no let), so the
    // kernel prints back as written.
    thread_name_hint_ = name;
    Expr v = expr(value);
    thread_name_hint_.clear();
    if (v.as<VarNode>() || as_const_int(v))
      return bind_local(name, {Binding::kVar, v, "", {}}, target.span);
  }
  Expr v = expr(value);
  if (const Binding* b = lookup(name); b && b->kind == Binding::kVarBuffer)
    return acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, v, s.span); }));
  // A constant computed on the host side (`total_rounds = ceil_log2 // LOG_BLOCK_N`
  // between launches) stays a constant, so a launch loop's trip count may use it.
  if (!in_kernel_ && (v.as<IntImmNode>() || v.as<FloatImmNode>()))
    return bind_local(name, {Binding::kConst, v, "", {}}, target.span);
  Var var = make_var(name, v.dtype(), target.span);
  bind_local(name, {Binding::kVar, var, "", {}}, target.span);
  acc.open_let(var, v, s.span);
}

// `a, b = x // H, x % H`: every value is computed before any name is bound.
void Lowering::unpacking(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc) {
  const AstExpr& value = *s.value;
  if (value.kind != AstKind::kTuple && value.kind != AstKind::kList)
    fail(value.span, "only a tuple of values can be unpacked inside a kernel",
         "write a, b = x // H, x % H");
  if (value.children.size() != target.children.size())
    fail(value.span, "cannot unpack " + std::to_string(value.children.size()) + " values into " +
                         std::to_string(target.children.size()) + " names");
  std::vector<Expr> values;
  for (const auto& c : value.children) values.push_back(expr(*c));
  for (size_t i = 0; i < values.size(); ++i) {
    const AstExpr& t = *target.children[i];
    if (t.kind != AstKind::kName)
      fail(t.span, "only names can be unpacked into", "write a, b = x, y");
    if (const Binding* b = lookup(t.name); b && b->kind == Binding::kVarBuffer) {
      acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, values[i], s.span); }));
      continue;
    }
    Var var = make_var(t.name, values[i].dtype(), t.span);
    bind_local(t.name, {Binding::kVar, var, "", {}}, t.span);
    acc.open_let(var, values[i], s.span);
  }
}

// `x: T.int32 = 0` in a kernel: a mutable scalar, as T.alloc_var(T.int32, init=0).
void Lowering::annotated_local(const AstStmt& s, BlockAccumulator& acc) {
  if (s.target->kind != AstKind::kName)
    fail(s.target->span, "annotate one name", "write x: T.int32 = 0");
  const std::string& name = s.target->name;
  DataType t = dtype_arg(*s.annotation);
  std::optional<Expr> init;
  if (s.value) init = expr(*s.value);
  Buffer buffer = make_buffer(name, {make_int(1)}, t, StorageScope::kVar, s.target->span);
  bind_local(name, {Binding::kVarBuffer, {}, "", buffer}, s.target->span);
  guarded(s.span, [&] { acc.open_allocate(buffer, init, s.span); });
}

// The buffer and lowered indices of the element `A[i, j]` that is read or
// (is_store) assigned; the messages say which of the two was attempted.
ElementAccess Lowering::element_access(const AstExpr& e, bool is_store) {
  if (e.base->kind != AstKind::kName) {
    if (is_store) fail(e.span, "only buffer elements can be assigned", "write A[i, j] = value");
    fail(e.span, "only buffers can be subscripted", "write A[i, j] with A a buffer");
  }
  const Binding* b = lookup(e.base->name);
  if (!b) fail(e.base->span, "name '" + e.base->name + "' is not defined");
  if (b->kind != Binding::kBuffer && b->kind != Binding::kVarBuffer && b->kind != Binding::kView) {
    fail(e.span,
         "'" + e.base->name +
             (is_store ? "' is not a buffer" : "' is not a buffer and cannot be subscripted"));
  }
  std::vector<Expr> indices;
  for (const auto& c : e.children) {
    if (c->kind == AstKind::kSlice && is_store) {
      fail(c->span, "slice assignment is not supported",
           "use T.fill(A[i:i + 4, j], value) or T.copy(src, A[i:i + 4, j]), or a T.Parallel loop");
    }
    if (c->kind == AstKind::kSlice) {
      fail(c->span, "a slice is not a value",
           "slices are tile operands (T.copy(A[i:i + 4, j], B)); read one element as A[i, j]");
    }
    indices.push_back(expr(*c));
  }
  if (b->kind == Binding::kView) return view_access(*b, std::move(indices), e);
  return {b->buffer, std::move(indices)};
}

Stmt Lowering::element_store(const AstExpr& target, Expr value, Span span) {
  ElementAccess access = element_access(target, /*is_store=*/true);
  return guarded(span, [&] { return store(access.buffer, access.indices, value, span); });
}

void Lowering::aug_assignment(const AstStmt& s, BlockAccumulator& acc) {
  const std::string& op = s.op;
  BinaryOp bop = binary_op_for(op);
  const AstExpr& target = *s.target;
  if (target.kind == AstKind::kName) {
    const Binding* b = lookup(target.name);
    if (!b) fail(target.span, "name '" + target.name + "' is not defined");
    if (b->kind != Binding::kVarBuffer)
      fail(target.span,
           "cannot modify '" + target.name + "': names bound in a kernel are immutable",
           "declare it with " + target.name + " = T.alloc_var(dtype) to make it mutable");
    Expr current =
        guarded(target.span, [&] { return load(b->buffer, {make_int(0)}, target.span); });
    Expr v = binary_op(bop, current, expr(*s.value), s.span);
    return acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, v, s.span); }));
  }
  if (target.kind != AstKind::kSubscript)
    fail(target.span, "unsupported augmented assignment target", "write x += v or A[i, j] += v");
  auto element_update = [&] {
    Expr current = expr(target);
    auto* load_node = current.as<LoadNode>();
    Expr v = binary_op(bop, current, expr(*s.value), s.span);
    return guarded(s.span, [&] { return store(load_node->buffer, load_node->indices, v, s.span); });
  };
  if (std::optional<int64_t> lanes = ramp_lanes(target))
    return acc.add(lane_loop(*lanes, s.span, element_update));
  acc.add(element_update());
}

// Vector statements (docs/semantics.md, "Vectors"): a store whose index holds a
// T.Ramp(base, stride, lanes) stores `lanes` elements, lane l at base + stride * l, of
// a value whose T.Ramp loads and T.Broadcast(v, lanes) operands are taken lane by lane.
// It is lowered here to a T.vectorized loop over the lanes, which every target runs
// (and the CPU and SIMT code generators may turn back into vector instructions).
std::optional<int64_t> Lowering::ramp_lanes(const AstExpr& target) {
  for (const auto& c : target.children) {
    if (c->kind == AstKind::kCall && c->base->kind == AstKind::kAttribute &&
        language_function(*c->base) == "Ramp") {
      ConstructCall a = bind_construct(*ConstructTable::get().find("Ramp"), *c, c->span);
      int64_t lanes = int_arg(*a[2], "lanes");
      if (lanes < 1 || lanes > 64)
        fail(a[2]->span, "T.Ramp lanes must be between 1 and 64, got " + std::to_string(lanes));
      return lanes;
    }
  }
  return std::nullopt;
}

Stmt Lowering::if_statement(const AstStmt& s) {
  Expr cond = expr(*s.value);
  // A constant condition (a factory flag: `if is_causal:`, `if window_size is not None:`)
  // picks its branch as Python does; the other is not lowered, so it may use what this
  // configuration leaves undefined (`window_size` None, a buffer of another variant).
  if (auto* c = cond.as<IntImmNode>()) {
    const AstBlock& taken = c->value ? s.body : s.orelse;
    return block(taken, taken.empty() ? s.span : taken[0]->span);
  }
  Stmt then_case = block(s.body, s.span);
  Stmt else_case = s.orelse.empty() ? Stmt() : block(s.orelse, s.orelse[0]->span);
  return guarded(s.span, [&] { return if_then_else(cond, then_case, else_case, s.span); });
}

// `while cond:` inside a kernel (docs/semantics.md, "While loops"): the condition reads
// state the body changes, T.alloc_var values or buffer elements.
Stmt Lowering::while_statement(const AstStmt& s) {
  Expr cond = expr(*s.value);
  if (!cond.dtype().is_bool() && !cond.dtype().is_integer())
    fail(s.value->span, "the condition of a while loop is a " + cond.dtype().str() + " value",
         "compare it: `while x > 0.0:`");
  if (auto* c = cond.as<IntImmNode>()) {
    if (!c->value) return Stmt();  // `while False:` never runs its body
    fail(s.value->span, "this while loop never ends: its condition is always true",
         "tilec has no `break`; loop on a condition the body changes, e.g. `while i < n:` "
         "with `i = T.alloc_var(T.int32, 0)` and `i += 1` in the body");
  }
  Stmt body = block(s.body, s.span);
  return guarded(s.span, [&] { return while_loop(cond, body, s.span); });
}

// `with CONTEXT:` inside a function: T.Kernel, or TVM script's if-frames.
Stmt Lowering::with_statement(const AstStmt& s) {
  const AstExpr& ctx = *s.value;
  std::string fn = ctx.kind == AstKind::kCall && ctx.base->kind == AstKind::kAttribute
                       ? language_function(*ctx.base)
                       : "";
  if (fn == "If") return if_frame(s);
  hardware_only(ctx.span, fn, "with T." + fn + "(...)");
  if (const Construct* row = fn.empty() ? nullptr : ConstructTable::get().find(fn);
      row && row->frame)
    return (this->*row->frame)(bind_construct(*row, ctx, s.span), s);
  if (fn == "Then" || fn == "Else")
    fail(ctx.span, "`with T." + fn + "():` belongs directly inside `with T.If(cond):`",
         "write with T.If(cond):\n    with T.Then(): ...\n    with T.Else(): ...");
  return kernel_statement(s);
}

// TVM script's `with T.If(cond): with T.Then(): A  with T.Else(): B` is `if cond: A
// else: B`; the If holds exactly one Then, then at most one Else.
Stmt Lowering::if_frame(const AstStmt& s) {
  const AstExpr& ctx = *s.value;
  auto a = bind_args(ctx, "T.If", {"condition"}, 1);
  if (s.target) fail(s.target->span, "`with T.If(...)` binds no name");
  const AstStmt* then_frame = nullptr;
  const AstStmt* else_frame = nullptr;
  for (const auto& st : s.body) {
    if (st->kind == AstStmtKind::kPass ||
        (st->kind == AstStmtKind::kExpr && st->value->kind == AstKind::kString))
      continue;
    std::string fn = st->kind == AstStmtKind::kWith && st->value->kind == AstKind::kCall &&
                             st->value->base->kind == AstKind::kAttribute
                         ? language_function(*st->value->base)
                         : "";
    if (fn == "Then" && !then_frame && !else_frame) {
      then_frame = st.get();
    } else if (fn == "Else" && then_frame && !else_frame) {
      else_frame = st.get();
    } else {
      fail(st->span,
           fn == "Then" || fn == "Else"
               ? "`with T." + fn + "():` is out of place in this `with T.If(...)`"
               : std::string("only `with T.Then():` and `with T.Else():` may appear directly "
                             "inside `with T.If(...)`"),
           "write with T.If(cond):\n    with T.Then(): ...\n    with T.Else(): ...");
    }
    bind_args(*st->value, "T." + fn, {}, 0);
    if (st->target) fail(st->target->span, "`with T." + fn + "()` binds no name");
  }
  if (!then_frame)
    fail(s.span, "`with T.If(...)` has no `with T.Then():`",
         "put the guarded statements in `with T.Then():` inside the T.If");
  Expr cond = expr(*a[0]);
  Stmt then_case = block(then_frame->body, then_frame->span);
  Stmt else_case = else_frame ? block(else_frame->body, else_frame->span) : Stmt();
  return guarded(s.span, [&] { return if_then_else(cond, then_case, else_case, s.span); });
}

}  // namespace tilec::frontend
