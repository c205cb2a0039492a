// cuda.plan_shared_swizzle / cuda.swizzle_shared: see shared_swizzle.h.
#include "tilec/cuda/shared_swizzle.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/vector_load.h"
#include "tilec/ir/visitor.h"

#include <map>
#include <set>
#include <string>

namespace tilec::cuda {

using namespace ir;

namespace {

constexpr int64_t kChunkBytes = 16;  // one ldmatrix row, one cp.async.cg move

}  // namespace

std::optional<SharedSwizzle> choose_shared_swizzle(int64_t row_elems, int64_t elem_bytes) {
  if (row_elems <= 0 || elem_bytes <= 0 || kChunkBytes % elem_bytes != 0) return std::nullopt;
  const int64_t row_bytes = row_elems * elem_bytes;
  SharedSwizzle s{row_elems, kChunkBytes / elem_bytes, 0};
  if (row_bytes % 128 == 0) {
    s.bits = 3;
  } else if (row_bytes % 64 == 0) {
    s.bits = 2;
  } else if (row_bytes % 32 == 0) {
    s.bits = 1;
  } else {
    return std::nullopt;
  }
  return s;
}

int64_t swizzled_offset(const SharedSwizzle& s, int64_t flat) {
  int64_t row = flat / s.row_elems;
  int64_t chunk_xor = (row % 8) >> (3 - s.bits);
  return flat ^ (chunk_xor * s.chunk_elems);
}

Expr swizzled_index(const SharedSwizzle& s, const Expr& flat) {
  DataType t = flat.dtype();
  auto c = [&](int64_t v) { return make_int(v, t); };
  Expr chunk_xor = floormod(floordiv(flat, c(s.row_elems)), c(8));
  if (s.bits < 3) chunk_xor = floordiv(chunk_xor, c(1 << (3 - s.bits)));
  return binary(BinaryOp::kBitXor, flat, chunk_xor * c(s.chunk_elems));
}

namespace {

std::string swizzle_attr(const std::string& tile) {
  return kSharedSwizzleAttrPrefix + tile;
}

// The row extent of each shared gemm operand, by name; 0 where one name has two.
std::map<std::string, int64_t> gemm_operand_rows(const Stmt& body) {
  std::map<std::string, int64_t> rows;
  post_order_visit(body, [&](const Stmt* s, const Expr*) {
    const auto* g = s ? s->as<GemmNode>() : nullptr;
    if (!g) return;
    for (const TileRegion* r : {&g->a, &g->b}) {
      const Buffer& b = r->buffer;
      if (b->scope != StorageScope::kShared || b->ndim() < 2) continue;
      const int64_t* w = as_const_int(b->shape.back());
      int64_t row = w ? *w : 0;
      auto [it, fresh] = rows.try_emplace(b->name, row);
      if (!fresh && it->second != row) it->second = 0;
    }
  });
  return rows;
}

// Whether an access of `indices` moving `lanes` elements can take the swizzled index: one
// flat index and at most one 16-byte chunk (the XOR permutes whole chunks; a wider vector
// would straddle two).
bool access_fits(const Buffer& b, const std::vector<Expr>& indices, int lanes) {
  return indices.size() == 1 && int64_t(lanes) * b->dtype.bytes() <= kChunkBytes;
}

bool is_ldmatrix(const CallNode& call) {
  return call.call_kind == CallKind::kExtern && call.name.rfind("tilec_ldmatrix_", 0) == 0;
}

// Rewrites every access of the chosen (flat) shared tiles to its swizzled place; only
// tiles that access_fits() accepts everywhere are chosen.
class Swizzler : public StmtMutator {
 public:
  explicit Swizzler(std::map<const BufferNode*, SharedSwizzle> tiles) : tiles_(std::move(tiles)) {}

 protected:
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    Expr e = StmtMutator::mutate_load(op, self);
    const auto* l = e.as<LoadNode>();
    const SharedSwizzle* s = swizzle_of(l->buffer);
    if (!s) return e;
    Expr index = swizzled_index(*s, l->indices[0]);
    if (!l->dtype.is_scalar()) return vector_load(l->buffer, index, l->dtype.lanes, l->span);
    return load(l->buffer, {index}, l->span);
  }
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    Stmt st = StmtMutator::mutate_store(op, self);
    const auto* s0 = st.as<StoreNode>();
    const SharedSwizzle* s = swizzle_of(s0->buffer);
    if (!s) return st;
    return store(s0->buffer, {swizzled_index(*s, s0->indices[0])}, s0->value, s0->span);
  }

 private:
  const SharedSwizzle* swizzle_of(const Buffer& b) const {
    auto it = tiles_.find(b.get());
    return it == tiles_.end() ? nullptr : &it->second;
  }

  std::map<const BufferNode*, SharedSwizzle> tiles_;
};

}  // namespace

IRModule plan_shared_swizzle(const IRModule& mod) {
  std::vector<PrimFunc> functions;
  for (const PrimFunc& f : mod.functions()) {
    PrimFunc g = f;
    for (const auto& [name, row] : gemm_operand_rows(f->body))
      if (row > 0) g = with_attr(g, swizzle_attr(name), row);
    functions.push_back(g);
  }
  return IRModule(std::move(functions), mod.attrs());
}

IRModule swizzle_shared(const IRModule& mod) {
  std::vector<PrimFunc> functions;
  for (const PrimFunc& f : mod.functions()) {
    // The tiles an ldmatrix reads (its address argument is an element of the tile). A tile
    // whose element is the argument of another extern call (a cute::copy, a user's
    // function) may be addressed there as a plain row-major array, and one with an access
    // that cannot take the swizzle (access_fits): those keep the plain layout.
    std::map<const BufferNode*, SharedSwizzle> tiles;
    std::set<const BufferNode*> unfit;
    post_order_visit(f->body, [&](const Stmt* st, const Expr* e) {
      if (const auto* write = st ? st->as<StoreNode>() : nullptr) {
        if (!access_fits(write->buffer, write->indices, write->value.dtype().lanes))
          unfit.insert(write->buffer.get());
        return;
      }
      if (const auto* l = e ? e->as<LoadNode>() : nullptr) {
        if (!access_fits(l->buffer, l->indices, l->dtype.lanes)) unfit.insert(l->buffer.get());
        return;
      }
      const auto* call = e ? e->as<CallNode>() : nullptr;
      if (!call || call->call_kind != CallKind::kExtern) return;
      for (const Expr& arg : call->args) {
        const auto* l = arg.as<LoadNode>();
        if (!l || l->buffer->scope != StorageScope::kShared) continue;
        if (!is_ldmatrix(*call)) {
          unfit.insert(l->buffer.get());
          continue;
        }
        auto row = f->attrs.find(swizzle_attr(l->buffer->name));
        const auto* w = row == f->attrs.end() ? nullptr : std::get_if<int64_t>(&row->second);
        if (!w) continue;
        if (auto sw = choose_shared_swizzle(*w, l->buffer->dtype.bytes()))
          tiles.emplace(l->buffer.get(), *sw);
      }
    });
    for (const BufferNode* b : unfit) tiles.erase(b);
    auto node = std::make_shared<PrimFuncNode>(*f);
    for (auto it = node->attrs.begin(); it != node->attrs.end();)
      it = it->first.rfind(kSharedSwizzleAttrPrefix, 0) == 0 ? node->attrs.erase(it) : ++it;
    if (!tiles.empty()) node->body = Swizzler(std::move(tiles)).mutate(f->body);
    functions.push_back(node);
  }
  return IRModule(std::move(functions), mod.attrs());
}

transform::Pass plan_shared_swizzle_pass() {
  return transform::Pass{
      "cuda.plan_shared_swizzle",
      [](const IRModule& mod, const transform::PassInfo&) { return plan_shared_swizzle(mod); }};
}

transform::Pass swizzle_shared_pass() {
  return transform::Pass{
      "cuda.swizzle_shared",
      [](const IRModule& mod, const transform::PassInfo&) { return swizzle_shared(mod); }};
}

}  // namespace tilec::cuda
