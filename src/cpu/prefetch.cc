#include "tilec/cpu/prefetch.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/stmt.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/pass_context.h"
#include "tilec/transform/simplify.h"

#include <algorithm>

namespace tilec::cpu {

using namespace ir;

Expr prefetch(Expr element) {
  return call_extern(DataType::Int32(), kPrefetchFunction, {std::move(element)});
}

const LoadNode* prefetch_element(const CallNode& c) {
  if (c.call_kind != CallKind::kExtern || c.name != kPrefetchFunction || c.args.size() != 1)
    return nullptr;
  return c.args[0].as<LoadNode>();
}

const LoadNode* as_prefetch(const Expr& e) {
  auto* c = e.as<CallNode>();
  return c ? prefetch_element(*c) : nullptr;
}

namespace {

// `body` under `cond`, or alone where cond simplifies to true.
Stmt guarded(const Expr& cond, Stmt body) {
  Expr c = transform::simplify(cond);
  if (const int64_t* v = as_const_int(c); v && *v) return body;
  return if_then_else(c, std::move(body));
}

// The next iteration's lines of `copy`'s global source, or nothing when the copy does
// not read a global tensor through a region of constant extents.
std::optional<Stmt> prefetch_next(const CopyNode& copy, const Var& var, const Expr& next) {
  const TileRegion& src = copy.src;
  if (src.buffer->scope != StorageScope::kGlobal || src.is_whole()) return std::nullopt;
  const int nd = src.buffer->ndim();
  if (int(src.dims.size()) != nd || nd == 0) return std::nullopt;
  // Extents: a slice's own, else (a point) the destination's, dimension by dimension.
  std::vector<int64_t> extents;
  std::vector<Expr> dst_shape;
  if (copy.dst.is_whole()) dst_shape = copy.dst.buffer->shape;
  for (int d = 0; d < nd; ++d) {
    const RegionDim& dim = src.dims[d];
    Expr extent;
    if (dim.stop) {
      extent = transform::simplify(*dim.stop - dim.start);
    } else if (src.is_point() && int(dst_shape.size()) == nd) {
      extent = dst_shape[d];
    } else {
      return std::nullopt;
    }
    const int64_t* e = as_const_int(extent);
    if (!e || *e <= 0) return std::nullopt;
    extents.push_back(*e);
  }
  VarMap advance{{var.get(), next}};
  std::vector<Expr> starts;
  bool moves = false;
  for (const auto& dim : src.dims) {
    post_order_visit(dim.start, [&](const Expr& x) { moves = moves || x.get() == var.get(); });
    starts.push_back(transform::simplify(substitute(dim.start, advance)));
  }
  if (!moves) return std::nullopt;  // the same tile every iteration: already in cache
  // One prefetch per cache line of each row (the last dimension), plus the row's last
  // element, whose line a row not aligned to lines ends in. Rows (the leading dimensions
  // as one index) form the outer loop and a row's lines the inner one, so each line costs
  // an add and a compare: spread_prefetches hands each slot of the compute that follows
  // its own range of rows. (A linear index over rows and lines, taken apart with div and
  // mod per line, cost about a quarter of a float32 GEMM's cycles.)
  const int64_t elem_bytes = std::max(1, src.buffer->dtype.bytes());
  const int64_t per_line = std::max<int64_t>(1, kCacheLineBytes / elem_bytes);
  const int64_t row = extents.back();
  const int64_t lines = (row + per_line - 1) / per_line + 1;
  DataType it = starts.back().dtype();
  auto c = [&](int64_t v) { return make_int(v, it); };
  int64_t rows = 1;
  for (int d = 0; d + 1 < nd; ++d) rows *= extents[d];
  Var pf_row = make_var("pf_row", it), pf_line = make_var("pf_line", it);
  std::vector<Expr> index(starts);
  Expr col = min(starts.back() + pf_line * c(per_line), starts.back() + c(row - 1));
  index.back() = transform::simplify(col);
  Expr col_ok =
      logical_and(index.back() < cast(it, src.buffer->shape.back()), index.back() >= make_zero(it));
  Expr row_ok = make_bool(true);
  Expr rest = pf_row;
  for (int d = nd - 1; d-- > 0;) {
    DataType dt = starts[d].dtype();
    // The outermost dimension's index is what is left of the row index: no mod.
    Expr r = rest;
    if (d > 0) {
      r = floormod(rest, c(extents[d]));
      rest = floordiv(rest, c(extents[d]));
    }
    index[d] = transform::simplify(starts[d] + (dt == it ? r : cast(dt, r)));
    row_ok = logical_and(
        row_ok, logical_and(index[d] < cast(dt, src.buffer->shape[d]), index[d] >= make_zero(dt)));
  }
  Stmt line_loop = for_loop(pf_line, make_zero(it), c(lines),
                            guarded(col_ok, evaluate(prefetch(load(src.buffer, index)))));
  if (nd == 1) return line_loop;
  return for_loop(pf_row, make_zero(it), c(rows), guarded(row_ok, line_loop));
}

class PrefetchPipelinedCopies : public StmtMutator {
 protected:
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt lowered = StmtMutator::mutate_for(op, self);
    if (op->num_stages <= 0) return lowered;
    auto* loop = lowered.as<ForNode>();
    std::vector<const CopyNode*> copies;
    const Stmt& body = loop->body;
    if (auto* c = body.as<CopyNode>()) copies.push_back(c);
    if (auto* s = body.as<SeqNode>())
      for (const auto& stmt : s->stmts)
        if (auto* c = stmt.as<CopyNode>()) copies.push_back(c);
    DataType it = loop->var.dtype();
    Expr next = loop->var + make_int(loop->step, it);
    std::vector<Stmt> prefetches;
    for (const CopyNode* c : copies)
      if (auto p = prefetch_next(*c, loop->var, next)) prefetches.push_back(*p);
    if (prefetches.empty()) return lowered;
    Expr has_next = loop->step > 0 ? next < loop->end : next > loop->end;
    auto n = copy_node(loop);
    n->body = seq({if_then_else(has_next, seq(prefetches)), loop->body});
    return Stmt(n);
  }
};

}  // namespace

Stmt prefetch_pipelined_copies(const Stmt& body) {
  return PrefetchPipelinedCopies().mutate(body);
}

transform::Pass prefetch_pipelined_copies_pass() {
  return transform::Pass{
      "cpu.prefetch_pipelined_copies", [](const IRModule& mod, const transform::PassInfo&) {
        if (!transform::PassContext::current().get_bool(kPrefetchConfigKey)) return mod;
        return transform::map_function_bodies(
            mod, [](const PrimFunc& f) { return prefetch_pipelined_copies(f->body); });
      }};
}

}  // namespace tilec::cpu
