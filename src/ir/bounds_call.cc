#include "tilec/ir/bounds_call.h"

namespace tilec::ir {

namespace {

constexpr const char* kPrefix = "tilec.bounds.";
constexpr const char* kStop = "tilec.bounds.stop";

Expr make_bounds_call(std::string name, std::vector<Expr> args, Span span) {
  auto node = std::make_shared<CallNode>(DataType::Int32(), std::move(name), std::move(args),
                                         CallKind::kExtern);
  node->span = span;
  return Expr(std::move(node));
}

}  // namespace

Expr bounds_violation(BoundsAccess access, const Buffer& buffer, const std::vector<Expr>& indices,
                      Span span) {
  if (int(indices.size()) != buffer->ndim())
    throw IRError("bounds_violation: " + std::to_string(indices.size()) + " indices for the " +
                  std::to_string(buffer->ndim()) + "-D buffer '" + buffer->name + "'");
  std::vector<Expr> args;
  for (const auto& i : indices) args.push_back(cast(DataType::Int64(), i));
  for (const auto& d : buffer->shape) args.push_back(cast(DataType::Int64(), d));
  std::string kind = access == BoundsAccess::kStore ? "store." : "load.";
  return make_bounds_call(kPrefix + kind + buffer->name, std::move(args), span);
}

Expr bounds_stop_if_failed(Span span) {
  return make_bounds_call(kStop, {}, span);
}

std::optional<BoundsCall> as_bounds_call(const Expr& e) {
  auto* call = e.as<CallNode>();
  if (!call || call->call_kind != CallKind::kExtern || call->name.rfind(kPrefix, 0) != 0)
    return std::nullopt;
  BoundsCall out;
  out.span = call->span;
  if (call->name == kStop) {
    out.stop = true;
    return out;
  }
  std::string rest = call->name.substr(std::string(kPrefix).size());
  if (rest.rfind("load.", 0) == 0) {
    out.buffer = rest.substr(5);
  } else if (rest.rfind("store.", 0) == 0) {
    out.access = BoundsAccess::kStore;
    out.buffer = rest.substr(6);
  } else {
    throw IRError("malformed bounds call '" + call->name + "'");
  }
  if (call->args.size() % 2 != 0)
    throw IRError("malformed bounds call '" + call->name + "': an odd number of arguments");
  size_t rank = call->args.size() / 2;
  out.indices.assign(call->args.begin(), call->args.begin() + long(rank));
  out.shape.assign(call->args.begin() + long(rank), call->args.end());
  return out;
}

}  // namespace tilec::ir
