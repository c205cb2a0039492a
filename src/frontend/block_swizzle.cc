#include "block_swizzle.h"

namespace tilec::frontend {

Stmt apply_block_swizzle(const KernelNode& kernel, const BlockSwizzle& swizzle,
                         const BinaryBuilder& op) {
  auto n = std::make_shared<KernelNode>(kernel);
  Span span = kernel.span;
  std::vector<Var> launched;
  for (size_t d = 0; d < kernel.block_vars.size(); ++d) {
    const Var& v = kernel.block_vars[d];
    launched.push_back(d < 2 ? make_var(v.name() + "_launch", v.dtype(), span) : v);  // z stays
  }
  n->block_vars = launched;
  auto grid = [&](size_t d) {
    return d < kernel.grid.size() ? cast(DataType::Int32(), kernel.grid[d]) : make_int(1);
  };
  auto launch = [&](size_t d) { return d < launched.size() ? Expr(launched[d]) : make_int(0); };
  // As tl::rasterization2DRow: panels of `panel` rows swept column by column, every other
  // panel right to left; the last panel may be narrower. Column order swaps x and y.
  auto add = [&](Expr a, Expr b) { return op(BinaryOp::kAdd, a, b); };
  auto sub = [&](Expr a, Expr b) { return op(BinaryOp::kSub, a, b); };
  auto mul = [&](Expr a, Expr b) { return op(BinaryOp::kMul, a, b); };
  auto div = [&](Expr a, Expr b) { return op(BinaryOp::kFloorDiv, a, b); };
  auto mod = [&](Expr a, Expr b) { return op(BinaryOp::kFloorMod, a, b); };
  Expr one = make_int(1);
  Expr gx = grid(0), gy = grid(1);
  Expr along = swizzle.column ? gy : gx;  // the extent a panel spans fully
  Expr pw = make_int(swizzle.panel_size);
  Expr linear = add(launch(0), mul(launch(1), gx));
  Expr panel = mul(pw, along);
  Expr offset = mod(linear, panel);
  Expr index = div(linear, panel);
  Expr blocks = mul(gx, gy);
  Expr total = div(sub(add(blocks, panel), one), panel);  // ceildiv
  Expr stride = select(op(BinaryOp::kLT, add(index, one), total), pw,
                       div(sub(blocks, mul(index, panel)), along));
  Expr sweep = select(op(BinaryOp::kEQ, mod(index, make_int(2)), one),
                      sub(sub(along, one), div(offset, stride)), div(offset, stride));
  Expr within = add(mod(offset, stride), mul(index, pw));
  Expr x = swizzle.column ? within : sweep;
  Expr y = swizzle.column ? sweep : within;
  Stmt body = kernel.body;
  if (kernel.block_vars.size() >= 2)
    body = let(kernel.block_vars[1], cast(kernel.block_vars[1].dtype(), y), body, span);
  body = let(kernel.block_vars[0], cast(kernel.block_vars[0].dtype(), x), body, span);
  n->body = body;
  return Stmt(n);
}

}  // namespace tilec::frontend
