#include "tilec/gpu/once_per_block.h"

#include "tilec/ir/visitor.h"

namespace tilec::gpu {

using namespace ir;

bool performs_atomic(const Expr& e) {
  bool found = false;
  if (!e) return false;
  post_order_visit(e, [&](const Expr& x) { found = found || as_atomic(x) != nullptr; });
  return found;
}

Stmt on_thread_zero(Stmt s, const Var& tid, Span span) {
  return if_then_else(eq(tid, make_zero(tid.dtype())), std::move(s), {}, span);
}

Stmt let_from_thread_zero(const Var& var, Expr value, Stmt body, const Var& tid, Span span) {
  Buffer result =
      make_buffer(var->name + "_once", {make_int(1)}, value.dtype(), StorageScope::kShared, span);
  Stmt compute = on_thread_zero(store(result, {make_int(0)}, std::move(value), span), tid, span);
  Stmt read = let(var, load(result, {make_int(0)}, span), std::move(body), span);
  return allocate(result, seq({compute, read}, span), std::nullopt, span);
}

}  // namespace tilec::gpu
