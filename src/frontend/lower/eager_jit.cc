// Eager @tilelang.jit functions: their statements, T.empty outputs and kernels.
#include "lowering.h"

namespace tilec::frontend {

// One statement of an eager @tilelang.jit body, or of the @T.macro `macro` called there (TileLang
// expands a macro at its call, so a macro may hold the T.Kernel, allocate outputs with
// T.empty and check shapes with assert). Tensor annotations of the jit's own parameters
// are only read at its top level.
void Lowering::eager_statement(const AstStmt& st, EagerBody& b, const AstStmt* macro) {
  bool top_level = !macro;
  const AstStmt& s = b.def;
  if (top_level && st.kind == AstStmtKind::kAnnAssign && b.tensors.count(st.target->name) &&
      std::any_of(s.params.begin(), s.params.end(),
                  [&](const AstParam& p) { return p.name == st.target->name; })) {
    const std::string& pname = st.target->name;
    Param param = parameter(pname, *st.annotation, st.target->span);
    b.inputs.emplace(pname, param);
    scopes_.back()[pname] = param.is_buffer() ? Binding{Binding::kBuffer, {}, "", param.buffer}
                                              : Binding{Binding::kVar, param.var, "", {}};
    return;
  }
  const AstExpr* v = st.value.get();
  if (st.kind == AstStmtKind::kAssign && v && v->kind == AstKind::kCall &&
      v->base->kind == AstKind::kAttribute && language_function(*v->base) == "empty") {
    if (st.target->kind != AstKind::kName) fail(st.target->span, "assign T.empty to one name");
    return eager_output(st, *v, b);
  }
  // `copy_impl(A, B)` / `return copy_ret_impl(A)`: an @T.macro expanded here.
  if ((st.kind == AstStmtKind::kExpr || st.kind == AstStmtKind::kReturn) && v &&
      v->kind == AstKind::kCall && v->base->kind == AstKind::kName) {
    const Binding* m = lookup(v->base->name);
    if (m && m->kind == Binding::kFunction && m->macro) {
      const AstStmt& def = *m->function;
      scopes_.push_back(macro_arguments(*v, def));
      scopes_.emplace_back();
      for (const auto& inner : def.body) eager_statement(*inner, b, &def);
      scopes_.pop_back();
      scopes_.pop_back();
      --helper_depth_;
      return;
    }
  }
  switch (st.kind) {
    case AstStmtKind::kWith:
      b.acc.add(kernel_statement(st));
      return;
    case AstStmtKind::kReturn:
    case AstStmtKind::kPass:
      return;
    case AstStmtKind::kAssert:
      return constant_assert(st, top_level ? s.name : macro->name);
    case AstStmtKind::kRaise:
      constant_raise(st, top_level ? s.name : macro->name);  // [[noreturn]]
    case AstStmtKind::kIf:  // on a constant, as in a factory: only the taken branch
      for (const auto& inner : constant_branch(st, top_level ? s.name : macro->name))
        eager_statement(*inner, b, macro);
      return;
    case AstStmtKind::kAssign:
    case AstStmtKind::kAnnAssign:
      if (st.value) assign_constant(*st.target, *st.value);
      for (const auto& t : st.more_targets) assign_constant(*t, *st.value);
      return;
    case AstStmtKind::kExpr:
      if (st.value->kind == AstKind::kString) return;
      [[fallthrough]];
    default:
      fail(st.span, "unsupported statement in the @tilelang.jit function '" + s.name + "'",
           "it declares its tensors (A: T.Tensor(...)), constants and outputs (T.empty), "
           "holds T.Kernel blocks and calls @T.macro functions that hold them");
  }
}

// `B = T.empty((M, N), dtype)`, also written T.empty(M, N, dtype=...): a kernel output.
void Lowering::eager_output(const AstStmt& st, const AstExpr& v, EagerBody& b) {
  std::vector<Expr> shape;
  DataType t = DataType::Float32();
  bool dtype_keyword = std::any_of(v.keywords.begin(), v.keywords.end(),
                                   [](const auto& kw) { return kw.name == "dtype"; });
  if (v.children.size() > 1 && dtype_keyword) {  // the sizes as separate arguments
    for (const auto& kw : v.keywords)
      if (kw.name != "dtype")
        fail(kw.span, "T.empty got an unexpected keyword argument '" + kw.name + "'");
    for (const auto& c : v.children)
      for (const Expr& d : shape_arg(*c, true)) shape.push_back(d);
    for (const auto& kw : v.keywords) t = dtype_arg(*kw.value);
  } else {
    auto a = bind_args(v, "T.empty", {"shape", "dtype"}, 1);
    shape = shape_arg(*a[0], true);
    if (a[1]) t = dtype_arg(*a[1]);
  }
  auto node = std::make_shared<BufferNode>(
      *make_buffer(st.target->name, shape, t, StorageScope::kGlobal, st.span));
  b.outputs.push_back(make_buffer_param(node));
  scopes_.back()[st.target->name] = Binding{Binding::kBuffer, {}, "", b.outputs.back().buffer};
}

// def f(A, B, block_M=64): M, N = T.const("M, N"); A: T.Tensor((M, N), dtype); ...
// C = T.empty((M, N), dtype); with T.Kernel(...): ...; return C. The kernel's
// parameters are the annotated tensors in parameter order, then the T.empty outputs.
PrimFunc Lowering::eager_jit(const AstStmt& s, const std::string& name) {
  std::set<std::string> tensors;
  for (const auto& st : s.body)
    if (st->kind == AstStmtKind::kAnnAssign && st->target->kind == AstKind::kName)
      tensors.insert(st->target->name);
  scopes_.emplace_back();
  out_of_scope_.clear();
  // `alpha: T.float32` / `layer: T.int32` in the signature: a runtime scalar argument of
  // the kernel (TileLang passes it at each call), unless -D fixes its value.
  no_star_parameters(s);
  std::map<std::string, Param> inputs;
  AttrMap attrs;  // the scalar parameters' defaults
  for (const auto& p : s.params) {
    // `A: T.Tensor((128, 128), T.float32)` in the signature: a tensor of that shape, as
    // in a @T.prim_func (its sizes cannot use the body's T.const names).
    if (tensor_annotation(p) && !tensors.count(p.name)) {
      Param param = parameter(p);
      tensors.insert(p.name);
      inputs.emplace(p.name, param);
      scopes_.back()[p.name] = Binding{Binding::kBuffer, {}, "", param.buffer};
      continue;
    }
    std::optional<DataType> t = scalar_annotation(p);
    if (!t || tensors.count(p.name)) continue;
    tensors.insert(p.name);
    if (auto define = options_.defines.find(p.name); define != options_.defines.end()) {
      Expr zero = t->is_float()  ? make_float(0, *t)
                  : t->is_bool() ? make_bool(false)
                                 : make_int(0, *t);
      scopes_.back()[p.name] = define_value(p.name, define->second, {Binding::kConst, zero});
      used_defines_.insert(p.name);
      continue;
    }
    Param param = parameter(p);
    if (p.default_value)
      attrs[param_default_attr(p.name)] = scalar_default(*p.default_value, param.var);
    inputs.emplace(p.name, param);
    scopes_.back()[p.name] = Binding{Binding::kVar, param.var, "", {}};
  }
  bind_parameters(s, {}, {}, ParamSource::kDefinesFirst, tensors);
  EagerBody body_state{s, tensors, inputs, {}, {}};
  for (const auto& st : s.body) eager_statement(*st, body_state, /*macro=*/nullptr);
  std::vector<Param>& outputs = body_state.outputs;
  BlockAccumulator& acc = body_state.acc;
  std::vector<Param> params;
  for (const auto& p : s.params)
    if (auto it = inputs.find(p.name); it != inputs.end()) params.push_back(it->second);
  for (const auto& p : outputs) params.push_back(p);
  eager_outputs_[name] = int64_t(outputs.size());
  Stmt body = acc.finish(s.span);
  scopes_.pop_back();
  require_kernel(body, s, name);
  return make_prim_func(name, std::move(params), std::move(body), std::move(attrs), s.span);
}

}  // namespace tilec::frontend
