#include "tilec/ir/vector_load.h"

namespace tilec::ir {

Expr vector_load(Buffer buffer, Expr index, int lanes, Span span) {
  if (!buffer) throw IRError("vector load from an undefined buffer");
  if (buffer->ndim() != 1 || lanes < 2 || !buffer->dtype.is_scalar()) {
    throw IRError("vector load of " + std::to_string(lanes) + " lanes from '" + buffer->name +
                  "': needs a flat buffer of scalars and at least 2 lanes");
  }
  DataType t = buffer->dtype.with_lanes(lanes);
  auto node = std::make_shared<LoadNode>(t, std::move(buffer), std::vector<Expr>{std::move(index)});
  node->span = span;
  return Expr(std::move(node));
}

}  // namespace tilec::ir
