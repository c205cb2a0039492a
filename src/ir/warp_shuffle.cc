#include "tilec/ir/warp_shuffle.h"

namespace tilec::ir {

bool is_warp_shuffle_name(const std::string& name) {
  return name == "shfl_xor" || name == "shfl_down" || name == "shfl_up" || name == "shfl_sync";
}

Expr warp_shuffle(const std::string& name, Expr value, Expr lane, Expr width, Span span) {
  if (!is_warp_shuffle_name(name))
    throw IRError("unknown warp shuffle '" + name +
                  "'; known: shfl_xor, shfl_down, shfl_up, shfl_sync");
  if (!value || !lane || !width) throw IRError("T." + name + " takes (value, lane, width)");
  if (!lane.dtype().is_integer())
    throw IRError("T." + name + "'s lane argument must be an integer, not " + lane.dtype().str());
  const int64_t* w = as_const_int(width);
  if (!w || *w < 1 || *w > 1024)
    throw IRError("T." + name + "'s width must be a constant from 1 to 1024 (32 is a warp)");
  DataType t = value.dtype();
  std::vector<Expr> args{std::move(value), cast(DataType::Int32(), lane), make_int(*w)};
  auto node = std::make_shared<CallNode>(t, name, std::move(args));
  node->span = span;
  return Expr(node);
}

const CallNode* as_warp_shuffle(const Expr& e) {
  auto* c = e.as<CallNode>();
  return c && c->call_kind == CallKind::kIntrinsic && is_warp_shuffle_name(c->name) ? c : nullptr;
}

}  // namespace tilec::ir
