// T.Kernel, implicit kernels, T.launch_thread and thread/block bindings.
#include "lowering.h"

namespace tilec::frontend {

// A loop bound in the loop variable's dtype (a widened constant stays a constant).
Expr Lowering::as_index(const Expr& e, DataType t) {
  if (e.dtype() == t) return e;
  if (const int64_t* c = as_const_int(e)) return make_int(*c, t);
  return e.dtype().bits < t.bits ? cast(t, e) : e;
}

// T.get_thread_binding(d): the kernel's thread index along axis d, created on first use
// (named after the name it is assigned to, when it is).
Expr Lowering::thread_var(int64_t d, Span span, const std::string& what) {
  if (!in_kernel_)
    fail(span, what + " is only meaningful inside a T.Kernel",
         "bind thread indices inside `with T.Kernel(..., threads=N):`");
  if (d < 0 || d >= int64_t(kernel_threads_.size()))
    fail(span,
         "the kernel has " + std::to_string(kernel_threads_.size()) +
             " thread dimension(s) (threads=" + threads_text() + "); " + what + " names axis " +
             std::to_string(d),
         "give T.Kernel threads=(x, y, z) with as many extents as thread axes used");
  Var& v = kernel_thread_vars_[size_t(d)];
  if (!v) {
    std::string name =
        thread_name_hint_.empty() ? default_thread_name(size_t(d)) : thread_name_hint_;
    v = make_var(name, DataType::Int32(), span);
  }
  return v;
}

std::string Lowering::threads_text() const {
  std::string t;
  for (size_t i = 0; i < kernel_threads_.size(); ++i)
    t += (i ? ", " : "") + std::to_string(kernel_threads_[i]);
  return kernel_threads_.size() == 1 ? t : "(" + t + ")";
}

// "threadIdx.y" -> {true, 1}; "blockIdx.z" -> {false, 2}.
std::pair<bool, size_t> Lowering::launch_tag(const AstExpr& tag) {
  static const char* const kTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                      "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
  if (tag.kind == AstKind::kString)
    for (size_t i = 0; i < 6; ++i)
      if (tag.name == kTags[i]) return {i < 3, i % 3};
  fail(tag.span, "T.launch_thread's first argument names a thread or block axis",
       "one of \"threadIdx.x\", \"threadIdx.y\", \"threadIdx.z\", \"blockIdx.x\", "
       "\"blockIdx.y\", \"blockIdx.z\"");
}

// T.launch_thread("threadIdx.x", n) inside a T.Kernel (explicit or implicit): the
// kernel's index along that axis; n must be the kernel's extent there.
Expr Lowering::lower_launch_thread(const ConstructCall& a) {
  const AstExpr& e = a.call;
  auto [is_thread, d] = launch_tag(*a[0]);
  Expr extent = expr(*a[1]);
  if (!in_kernel_)
    fail(e.span,
         "T.launch_thread is only meaningful inside a T.Kernel or at the top of a kernel function",
         "write it at the top level of the @T.prim_func body, or inside `with T.Kernel(...)`");
  const auto* n = as_const_int(extent);
  if (is_thread) {
    if (!n) fail(a[1]->span, "the thread extent of T.launch_thread must be a constant integer");
    if (d >= kernel_threads_.size() && *n == 1) return make_int(0);
    if (d >= kernel_threads_.size() || kernel_threads_[d] != *n)
      fail(e.span,
           "T.launch_thread(\"" + a[0]->name + "\", " + std::to_string(*n) +
               ") does not match the kernel's threads=" + threads_text(),
           "launch the same extent T.Kernel(..., threads=...) gives that axis");
    return thread_var(int64_t(d), e.span, "T.launch_thread");
  }
  if (d >= kernel_block_vars_.size() && n && *n == 1) return make_int(0);
  if (d >= kernel_block_vars_.size())
    fail(e.span, "the kernel has " + std::to_string(kernel_block_vars_.size()) +
                     " grid dimension(s); T.launch_thread(\"" + a[0]->name +
                     "\", ...) names none of them");
  if (const auto* g = as_const_int(kernel_grid_[d]); g && n && *g != *n)
    fail(e.span, "T.launch_thread(\"" + a[0]->name + "\", " + std::to_string(*n) +
                     ") does not match the kernel's grid extent " + std::to_string(*g));
  return kernel_block_vars_[d];
}

// A function body written TIR-style, `bx = T.launch_thread("blockIdx.x", 8)` and
// `tx = T.launch_thread("threadIdx.x", 128)` at its top level instead of a T.Kernel:
// the whole body is one kernel whose grid and threads those launches give.
const AstExpr* Lowering::top_level_launch(const AstStmt& st) {
  const AstExpr* v = st.value.get();
  if (!v || (st.kind != AstStmtKind::kAssign && st.kind != AstStmtKind::kExpr)) return nullptr;
  if (v->kind != AstKind::kCall || v->base->kind != AstKind::kAttribute ||
      v->base->name != "launch_thread")
    return nullptr;
  return v;
}

bool Lowering::has_top_level_launch(const AstBlock& body) const {
  for (const auto& st : body)
    if (const AstExpr* v = top_level_launch(*st);
        v && language_function(*v->base) == "launch_thread")
      return true;
  return false;
}

Stmt Lowering::implicit_kernel(const AstBlock& body, Span span) {
  auto n = std::make_shared<KernelNode>();
  n->span = span;
  std::vector<Expr> grid(3);
  std::vector<int64_t> threads(3, 0);
  std::vector<std::string> block_names(3), thread_names(3);
  for (const auto& st : body) {
    const AstExpr* v = top_level_launch(*st);
    if (!v || language_function(*v->base) != "launch_thread") continue;
    ConstructCall a = bind_construct(*ConstructTable::get().find("launch_thread"), *v, v->span);
    auto [is_thread, d] = launch_tag(*a[0]);
    Expr extent = expr(*a[1]);
    std::string name = st->kind == AstStmtKind::kAssign && st->target->kind == AstKind::kName
                           ? st->target->name
                           : "";
    if (is_thread) {
      const auto* c = as_const_int(extent);
      if (!c || *c < 1 || *c > 4096)
        fail(a[1]->span,
             "the thread extent of T.launch_thread must be a constant between 1 and 4096");
      if (threads[d]) fail(v->span, "T.launch_thread(\"" + a[0]->name + "\") is launched twice");
      threads[d] = *c;
      thread_names[d] = name;
    } else {
      if (!extent.dtype().is_integer())
        fail(a[1]->span, "grid extents must be integers, not " + extent.dtype().str());
      if (grid[d]) fail(v->span, "T.launch_thread(\"" + a[0]->name + "\") is launched twice");
      grid[d] = extent;
      block_names[d] = name;
    }
  }
  size_t grid_dims = 1, thread_dims = 1;
  for (size_t d = 0; d < 3; ++d) {
    if (grid[d]) grid_dims = d + 1;
    if (threads[d]) thread_dims = d + 1;
  }
  scopes_.emplace_back();
  for (size_t d = 0; d < grid_dims; ++d) {
    n->grid.push_back(grid[d] ? grid[d] : make_int(1));
    std::string name =
        block_names[d].empty() ? std::string("blockIdx_") + "xyz"[d] : block_names[d];
    n->block_vars.push_back(make_var(name, DataType::Int32(), span));
  }
  for (size_t d = 0; d < thread_dims; ++d) n->threads.push_back(threads[d] ? threads[d] : 1);
  return kernel_body(n, body, span, thread_names);
}

// Lowers `body` as the body of kernel `n` (grid, threads and block vars set).
Stmt Lowering::kernel_body(const std::shared_ptr<KernelNode>& n, const AstBlock& body, Span span,
                           const std::vector<std::string>& thread_names) {
  in_kernel_ = true;
  kernel_block_vars_ = n->block_vars;
  kernel_grid_ = n->grid;
  kernel_threads_ = n->threads;
  kernel_thread_vars_.assign(n->threads.size(), Var());
  for (size_t d = 0; d < thread_names.size() && d < n->threads.size(); ++d)
    if (!thread_names[d].empty())
      kernel_thread_vars_[d] = make_var(thread_names[d], DataType::Int32(), span);
  kernel_swizzle_.reset();
  n->body = block(body, span);
  bool per_thread = false;
  for (const auto& v : kernel_thread_vars_) per_thread = per_thread || bool(v);
  if (per_thread) {
    for (size_t d = 0; d < kernel_thread_vars_.size(); ++d)
      if (!kernel_thread_vars_[d])
        kernel_thread_vars_[d] = make_var(default_thread_name(d), DataType::Int32(), span);
    n->body = bind_threads(kernel_thread_vars_, n->threads, n->body, span);
  }
  in_kernel_ = false;
  kernel_block_vars_.clear();
  kernel_grid_.clear();
  kernel_threads_.clear();
  kernel_thread_vars_.clear();
  scopes_.pop_back();
  if (kernel_swizzle_) {
    BlockSwizzle swizzle = *std::exchange(kernel_swizzle_, {});
    return apply_block_swizzle(
        *n, swizzle, [&](BinaryOp op, Expr a, Expr b) { return binary_op(op, a, b, span); });
  }
  return Stmt(n);
}

Stmt Lowering::kernel_statement(const AstStmt& s) {
  const AstExpr& ctx = *s.value;
  if (ctx.kind != AstKind::kCall || ctx.base->kind != AstKind::kAttribute ||
      language_function(*ctx.base) != "Kernel")
    fail(ctx.span, "unsupported 'with' statement",
         "the only context is `with T.Kernel(...) as (bx, by):`");
  if (in_kernel_)
    fail(s.span, "T.Kernel cannot be nested", "a function launches one kernel grid at a time");
  if (ctx.children.size() > 3)
    fail(ctx.span,
         "T.Kernel takes 0 to 3 grid extents, got " + std::to_string(ctx.children.size()));
  auto n = std::make_shared<KernelNode>();
  n->span = s.span;
  for (const auto& c : ctx.children) {
    Expr g = expr(*c);
    if (!g.dtype().is_integer())
      fail(c->span, "grid extents must be integers, not " + g.dtype().str());
    n->grid.push_back(g);
  }
  if (n->grid.empty()) n->grid.push_back(make_int(1));  // T.Kernel(threads=n): one block
  n->threads = {128};
  for (const auto& kw : ctx.keywords) {
    if (kw.name == "is_cpu") continue;  // every tilec target runs the same grid
    hardware_only(kw.span, "Kernel." + kw.name, "T.Kernel(" + kw.name + "=...)");
    if (kw.name != "threads")
      fail(kw.span, "T.Kernel got an unexpected keyword argument '" + kw.name + "'",
           "accepted: grid extents, then threads=N or threads=(x, y, z), is_cpu=");
    n->threads.clear();
    std::vector<const AstExpr*> items;
    if (kw.value->kind == AstKind::kTuple || kw.value->kind == AstKind::kList) {
      for (const auto& c : kw.value->children) items.push_back(c.get());
    } else {
      items.push_back(kw.value.get());
    }
    if (items.empty() || items.size() > 3) fail(kw.span, "threads takes 1 to 3 extents");
    for (const AstExpr* item : items) {
      int64_t t = int_arg(*item, "threads");
      if (t <= 0 || t > 4096)
        fail(item->span, "threads must be between 1 and 4096, got " + std::to_string(t));
      n->threads.push_back(t);
    }
  }
  std::vector<AstExpr> implicit;  // `with T.Kernel(...):` binds no names
  std::vector<const AstExpr*> targets;
  if (s.target) {
    targets = loop_targets(*s.target);
  } else {
    static const char* const kNames[] = {"blockIdx_x", "blockIdx_y", "blockIdx_z"};
    implicit.resize(n->grid.size());
    for (size_t d = 0; d < n->grid.size(); ++d) {
      implicit[d].kind = AstKind::kName;
      implicit[d].name = kNames[d];
      implicit[d].span = ctx.span;
      targets.push_back(&implicit[d]);
    }
  }
  if (targets.size() != n->grid.size())
    fail(s.target->span, "T.Kernel has " + std::to_string(n->grid.size()) +
                             " grid extent(s) but binds " + std::to_string(targets.size()) +
                             " block index name(s)");
  scopes_.emplace_back();
  for (const AstExpr* t : targets) {
    Var v = make_var(t->name, DataType::Int32(), t->span);
    bind_local(t->name, {Binding::kVar, v, "", {}}, t->span);
    n->block_vars.push_back(v);
  }
  return kernel_body(n, s.body, s.span);
}

}  // namespace tilec::frontend
