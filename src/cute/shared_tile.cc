#include "tilec/cute/shared_tile.h"

namespace tilec::cute {

using namespace ir;

std::optional<std::vector<int64_t>> constant_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const auto& d : b->shape) {
    const int64_t* c = as_const_int(d);
    if (!c) return std::nullopt;
    shape.push_back(*c);
  }
  return shape;
}

std::optional<SharedTile> shared_tile(const TileRegion& r) {
  const Buffer& b = r.buffer;
  std::optional<std::vector<int64_t>> shape = constant_shape(b);
  if (!shape) return std::nullopt;
  std::vector<Expr> first(b->shape.size(), make_zero(DataType::Int32()));
  if (!r.is_whole()) {
    if (shape->size() != 3 || r.dims.size() != 3 || r.dims[0].stop) return std::nullopt;
    for (size_t d = 1; d < 3; ++d) {
      const int64_t* start = as_const_int(r.dims[d].start);
      const int64_t* stop = r.dims[d].stop ? as_const_int(*r.dims[d].stop) : nullptr;
      if (!start || *start != 0 || !stop || *stop != (*shape)[d]) return std::nullopt;
    }
    first[0] = r.dims[0].start;
    shape->erase(shape->begin());
  }
  if (shape->size() != 2) return std::nullopt;
  return SharedTile{load(b, first), *shape};
}

}  // namespace tilec::cute
