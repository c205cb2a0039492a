// cuda.plan_shared_swizzle / cuda.swizzle_shared: see shared_swizzle.h.
#include "tilec/cuda/shared_swizzle.h"

#include "tilec/gpu/fragment_layout.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/vector_load.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace tilec::cuda {

using namespace ir;

namespace {

constexpr int64_t kChunkBytes = 16;  // one ldmatrix row, one cp.async.cg move

struct SharedLayoutCalls {
  std::mutex mutex;
  std::map<std::string, SharedLayoutCall> calls;
};

SharedLayoutCalls& shared_layout_calls() {
  static SharedLayoutCalls registry;
  return registry;
}

std::optional<SharedLayoutCall> shared_layout_call(const CallNode& call) {
  if (call.call_kind != CallKind::kExtern) return std::nullopt;
  SharedLayoutCalls& r = shared_layout_calls();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.calls.find(call.name);
  if (it == r.calls.end()) return std::nullopt;
  return it->second;
}

}  // namespace

void register_shared_layout_call(const std::string& call_name, SharedLayoutCall call) {
  SharedLayoutCalls& r = shared_layout_calls();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.calls[call_name] = std::move(call);
}

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

// A tile's layout, as the rewrite applies it: where each flat element lives, and the code
// that registered calls taking the tile are given (0 for the ldmatrix swizzle, which no
// registered call takes).
struct TileIndex {
  std::function<Expr(const Expr&)> index;
  int64_t code = 0;
};

// The tiles registered calls need in a layout of their own, with the call that needs it.
struct NeededLayout {
  SharedTileLayout layout;
  std::string needed_by;
};

std::map<const BufferNode*, NeededLayout> needed_layouts(const Stmt& body) {
  std::map<const BufferNode*, NeededLayout> needed;
  post_order_visit(body, [&](const Stmt*, const Expr* e) {
    const auto* call = e ? e->as<CallNode>() : nullptr;
    std::optional<SharedLayoutCall> reg = call ? shared_layout_call(*call) : std::nullopt;
    if (!reg) return;
    for (auto [tile_arg, code_arg] : reg->tile_args) {
      const auto* l = tile_arg < call->args.size() ? call->args[tile_arg].as<LoadNode>() : nullptr;
      const int64_t* code =
          code_arg < call->args.size() ? as_const_int(call->args[code_arg]) : nullptr;
      if (!l || !code || *code == 0 || l->buffer->scope != StorageScope::kShared) continue;
      std::string by = fmt::format("{} at {}", call->name, gpu::source_line(call->span));
      std::optional<SharedTileLayout> layout = reg->layout(*call, tile_arg, *code);
      if (!layout) {
        throw IRError(
            fmt::format("cuda.swizzle_shared: {} asks for layout code {} of shared tile "
                        "'{}', which names no layout of that tile",
                        by, *code, l->buffer->name));
      }
      auto [it, fresh] = needed.try_emplace(l->buffer.get(), NeededLayout{*layout, by});
      if (!fresh && it->second.layout.description != layout->description) {
        throw IRError(fmt::format(
            "cuda.swizzle_shared: shared tile '{}' is read in two layouts: {} needs {}, and {} "
            "needs {}; give each of them its own shared tile",
            l->buffer->name, it->second.needed_by, it->second.layout.description, by,
            layout->description));
      }
    }
  });
  return needed;
}

// Rewrites every access of the chosen (flat) shared tiles to its place in the tile's
// layout, and gives registered calls taking a tile its layout code.
class Relayout : public StmtMutator {
 public:
  explicit Relayout(std::map<const BufferNode*, TileIndex> tiles) : tiles_(std::move(tiles)) {}

 protected:
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    Expr e = StmtMutator::mutate_load(op, self);
    const auto* l = e.as<LoadNode>();
    const TileIndex* t = index_of(l->buffer);
    if (!t) return e;
    Expr index = t->index(l->indices[0]);
    if (!l->dtype.is_scalar()) return vector_load(l->buffer, index, l->dtype.lanes, l->span);
    return load(l->buffer, {index}, l->span);
  }
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    Stmt st = StmtMutator::mutate_store(op, self);
    const auto* s0 = st.as<StoreNode>();
    const TileIndex* t = index_of(s0->buffer);
    if (!t) return st;
    return store(s0->buffer, {t->index(s0->indices[0])}, s0->value, s0->span);
  }
  Expr mutate_call(const CallNode* op, const Expr& self) override {
    Expr e = StmtMutator::mutate_call(op, self);
    std::optional<SharedLayoutCall> reg = shared_layout_call(*op);
    if (!reg) return e;
    const auto* call = e.as<CallNode>();
    std::vector<Expr> args = call->args;
    for (auto [tile_arg, code_arg] : reg->tile_args) {
      const auto* l = tile_arg < args.size() ? args[tile_arg].as<LoadNode>() : nullptr;
      const TileIndex* t = l ? index_of(l->buffer) : nullptr;
      if (t && code_arg < args.size()) args[code_arg] = make_int(t->code, args[code_arg].dtype());
    }
    return call_extern(call->dtype, call->name, std::move(args), call->span);
  }

 private:
  const TileIndex* index_of(const Buffer& b) const {
    auto it = tiles_.find(b.get());
    return it == tiles_.end() ? nullptr : &it->second;
  }

  std::map<const BufferNode*, TileIndex> tiles_;
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
    std::map<const BufferNode*, NeededLayout> needed = needed_layouts(f->body);
    // A tile a registered call needs in its layout must take it in every access.
    auto cannot_take = [&](const Buffer& b, const std::string& access) {
      auto it = needed.find(b.get());
      if (it == needed.end()) return;
      throw IRError(fmt::format(
          "cuda.swizzle_shared: shared tile '{}' must be laid out as {}, which {} reads it in, "
          "but {} cannot address it there (a moved 16-byte chunk would split it); keep other "
          "accesses of that tile to at most 16 bytes, or compile for a target without that "
          "layout",
          b->name, it->second.layout.description, it->second.needed_by, access));
    };
    // The tiles an ldmatrix reads (its address argument is an element of the tile). A tile
    // whose element is the argument of another extern call (a cute::copy, a user's
    // function) may be addressed there as a plain row-major array, and one with an access
    // that cannot take the swizzle (access_fits): those keep the plain layout.
    std::map<const BufferNode*, SharedSwizzle> tiles;
    std::set<const BufferNode*> unfit;
    auto check_access = [&](const Buffer& b, const std::vector<Expr>& indices, int lanes,
                            const char* kind) {
      if (access_fits(b, indices, lanes)) return;
      cannot_take(b, fmt::format("a {} of {} lanes", kind, lanes));
      unfit.insert(b.get());
    };
    post_order_visit(f->body, [&](const Stmt* st, const Expr* e) {
      if (const auto* write = st ? st->as<StoreNode>() : nullptr) {
        return check_access(write->buffer, write->indices, write->value.dtype().lanes, "store");
      }
      if (const auto* l = e ? e->as<LoadNode>() : nullptr) {
        return check_access(l->buffer, l->indices, l->dtype.lanes, "load");
      }
      const auto* call = e ? e->as<CallNode>() : nullptr;
      if (!call || call->call_kind != CallKind::kExtern) return;
      for (const Expr& arg : call->args) {
        const auto* l = arg.as<LoadNode>();
        if (!l || l->buffer->scope != StorageScope::kShared) continue;
        if (!is_ldmatrix(*call)) {
          // A registered call takes the tile in its layout; any other extern call takes the
          // element's value (CodeGenCUDA passes addresses only to its own ldmatrix, mma and
          // cp.async calls), which the rewrite reads from its new place. Only the ldmatrix
          // swizzle keeps to tiles no other call touches.
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
    std::map<const BufferNode*, TileIndex> placed;
    for (auto& [b, need] : needed) placed[b] = TileIndex{need.layout.index, need.layout.code};
    for (const auto& [b, sw] : tiles) {
      if (unfit.count(b) || placed.count(b)) continue;
      placed[b] = TileIndex{[sw](const Expr& flat) { return swizzled_index(sw, flat); }, 0};
    }
    auto node = std::make_shared<PrimFuncNode>(*f);
    for (auto it = node->attrs.begin(); it != node->attrs.end();)
      it = it->first.rfind(kSharedSwizzleAttrPrefix, 0) == 0 ? node->attrs.erase(it) : ++it;
    if (!placed.empty()) node->body = Relayout(std::move(placed)).mutate(f->body);
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
