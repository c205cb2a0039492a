#include "tilec/ir/thread_binding.h"

#include "tilec/ir/visitor.h"

namespace tilec::ir {

const char* thread_axis_tag(size_t axis) {
  static const char* const kTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  return axis < 3 ? kTags[axis] : "";
}

std::optional<ThreadBinding> thread_binding_of(const KernelNode& kernel) {
  ThreadBinding out;
  Stmt s = kernel.body;
  for (size_t d = 0; d < kernel.threads.size(); ++d) {
    auto* f = s.as<ForNode>();
    if (!f || f->for_kind != ForKind::kThreadBinding || f->thread_tag != thread_axis_tag(d) ||
        !is_const_int(f->begin, 0) || !is_const_int(f->end, kernel.threads[d]) || f->step != 1)
      return std::nullopt;
    out.vars.push_back(f->var);
    s = f->body;
  }
  out.body = s;
  return out;
}

bool is_thread_private(const Buffer& buffer) {
  return buffer->scope == StorageScope::kLocal || buffer->scope == StorageScope::kVar;
}

bool varies_by_thread(const Expr& e, const std::unordered_set<const VarNode*>& per_thread) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* v = x.as<VarNode>(); v && per_thread.count(v)) found = true;
    if (auto* l = x.as<LoadNode>(); l && is_thread_private(l->buffer)) found = true;
  });
  return found;
}

Stmt bind_threads(const std::vector<Var>& vars, const std::vector<int64_t>& threads, Stmt body,
                  Span span) {
  if (vars.size() != threads.size())
    throw IRError("bind_threads: one thread index per axis of threads= is needed");
  for (size_t d = vars.size(); d-- > 0;) {
    auto loop = copy_node(
        for_loop(vars[d], make_int(0), make_int(threads[d]), body, ForKind::kThreadBinding, 1, span)
            .as<ForNode>());
    loop->thread_tag = thread_axis_tag(d);
    body = Stmt(loop);
  }
  return body;
}

}  // namespace tilec::ir
