// Hints: scheduling, layout and register-allocation annotations that do not change what a
// kernel computes, accepted and dropped on every target (docs/semantics.md, "Hints"), and
// T.use_swizzle, which changes only the order blocks run in ("Block swizzle").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> hint_constructs() {
  std::vector<Construct> rows;
  for (const char* name :
       {"annotate_layout", "func_attr", "annotate_padding", "annotate_l2_hit_ratio",
        "no_set_max_nreg", "disable_warp_group_reg_alloc", "annotate_safe_value"}) {
    Construct c{name, ConstructRole::kHint, {}, &Lowering::lower_hint};
    c.variadic = true;
    rows.push_back(std::move(c));
  }
  // T.assume(cond): a promise the compiler may optimize with. tilec lowers the condition
  // (so it must be a well-formed expression of the kernel's names) and drops it; a
  // false promise is not detected.
  rows.push_back({"assume", ConstructRole::kHint, {optional("cond")}, &Lowering::lower_assume});
  rows.push_back({"use_swizzle",
                  ConstructRole::kHint,
                  {required("panel_size"), optional("order", "\"row\""), optional("enable", "True"),
                   optional("num_xcds", "0")},
                  &Lowering::lower_use_swizzle});
  return rows;
}

// Hint arguments (layout dicts, attribute dicts, panel sizes) are checked to be
// well-formed names and constants, then dropped.
Stmt Lowering::lower_hint(const ConstructCall& c) {
  for (const AstExpr* arg : c.args) check_hint_argument(*arg);
  return {};
}

Stmt Lowering::lower_assume(const ConstructCall& c) {
  if (c[0]) expr(*c[0]);
  return {};
}

void Lowering::check_hint_argument(const AstExpr& e) {
  if (e.kind == AstKind::kDict || e.kind == AstKind::kString || e.kind == AstKind::kBool ||
      e.kind == AstKind::kLambda)
    return;
  if (e.kind == AstKind::kName && lookup(e.name)) return;
  if (e.kind == AstKind::kName) fail(e.span, "name '" + e.name + "' is not defined");
}

// T.use_swizzle(panel_size, order="row", enable=True): remaps the enclosing kernel's
// block indices (block_swizzle.h) once its body is lowered.
Stmt Lowering::lower_use_swizzle(const ConstructCall& a) {
  const AstExpr& e = a.call;
  if (!in_kernel_) fail(e.span, "T.use_swizzle is only meaningful inside a T.Kernel");
  if (a[2] && !bool_arg(*a[2], "enable")) return {};
  if (a[3] && int_arg(*a[3], "num_xcds") != 0)
    fail(a[3]->span, "T.use_swizzle(num_xcds=...) remaps blocks over AMD chiplets (XCDs)",
         "tilec's targets have none: leave num_xcds at 0");
  BlockSwizzle swizzle;
  swizzle.panel_size = int_arg(*a[0], "panel_size");
  if (swizzle.panel_size < 1)
    fail(a[0]->span,
         "T.use_swizzle panel_size must be at least 1, got " + std::to_string(swizzle.panel_size));
  if (a[1]) {
    Binding order = const_value(*a[1], "order");
    if (order.kind != Binding::kString || (order.text != "row" && order.text != "column"))
      fail(a[1]->span, "T.use_swizzle order must be \"row\" or \"column\"");
    swizzle.column = order.text == "column";
  }
  if (kernel_swizzle_)
    fail(e.span, "T.use_swizzle appears twice in one kernel", "keep one of them");
  kernel_swizzle_ = swizzle;
  return {};
}

}  // namespace tilec::frontend
