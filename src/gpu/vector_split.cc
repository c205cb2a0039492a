#include "tilec/gpu/vector_split.h"

#include "tilec/gpu/lane_affine.h"
#include "tilec/ir/mentions.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

#include <set>

namespace tilec::gpu {

using namespace ir;

namespace {

struct Access {
  Buffer buffer;
  std::vector<Expr> indices;  // with let-bound variables substituted
};

// What the body of a nest does, as far as vectorizing its innermost loop is concerned.
class BodyScan {
 public:
  // `reg`: the register variable of a layout split (nullptr: none), at which the
  // fragments split with the nest are accessed (their registers, consecutive per lane).
  explicit BodyScan(const VarNode* j, const VarNode* reg = nullptr) : j_(j), reg_(reg) {}

  bool ok = true;
  std::vector<Access> contiguous;  // accesses that differ between lanes
  std::vector<bool> stored;        // per contiguous access: a store
  struct Mask {
    Expr cond;  // one comparison (let-bound variables substituted)
    bool at_last_lane;
  };
  std::vector<Mask> masks;  // outermost first
  std::set<const StmtNode*> mask_ifs;
  std::set<const ExprNode*> mask_selects;
  int max_bytes = 0;

  void scan(const Stmt& s) {
    if (!ok || !s) return;
    if (auto* q = s.as<SeqNode>()) {
      for (const auto& x : q->stmts) scan(x);
    } else if (auto* l = s.as<LetNode>()) {
      expr(l->value);
      lets_[l->var.get()] = substitute(l->value, lets_);
      scan(l->body);
    } else if (auto* i = s.as<IfNode>()) {
      if (i->else_case || !monotone(i->cond)) {
        ok = false;
        return;
      }
      expr(i->cond);
      add_mask(substitute(i->cond, lets_));
      mask_ifs.insert(s.get());
      scan(i->then_case);
    } else if (auto* st = s.as<StoreNode>()) {
      expr(st->value);
      for (const auto& x : st->indices) expr(x);
      if (!access(st->buffer, st->indices, /*store=*/true)) ok = false;
    } else {
      ok = false;  // loops, allocations, barriers, evaluated calls
    }
  }

 private:
  // Splits a monotone condition into its comparisons, each checked at the one lane where
  // it is tightest (the last lane for an upper bound on j, the first for a lower bound).
  void add_mask(const Expr& m) {
    auto* b = m.as<BinaryNode>();
    if (b && b->op == BinaryOp::kAnd) {
      add_mask(b->a);
      add_mask(b->b);
      return;
    }
    bool last = false;
    if (b && mentions(m, j_)) {
      int64_t c = *as_const_int(*affine_coefficient(b->a, j_)) -
                  *as_const_int(*affine_coefficient(b->b, j_));
      bool upper = b->op == BinaryOp::kLT || b->op == BinaryOp::kLE;
      last = upper ? c > 0 : c < 0;
    }
    for (const auto& x : masks)
      if (same_expr(x.cond, m)) return;
    masks.push_back({m, last});
  }

  void expr(const Expr& e) {
    post_order_visit(e, [&](const Expr& x) {
      if (!ok) return;
      if (auto* ld = x.as<LoadNode>()) {
        if (!access(ld->buffer, ld->indices, false)) ok = false;
      } else if (auto* c = x.as<CallNode>()) {
        if (c->call_kind != CallKind::kIntrinsic) ok = false;
      } else if (auto* sel = x.as<SelectNode>()) {
        // A mask: the select T.copy puts around a source read outside the source tensor.
        if (monotone(sel->cond) && !reads_memory(sel->cond)) {
          add_mask(substitute(sel->cond, lets_));
          mask_selects.insert(x.get());
        }
      }
    });
  }

  static bool reads_memory(const Expr& e) {
    bool found = false;
    post_order_visit(e, [&](const Expr& x) {
      if (x.as<LoadNode>() || x.as<CallNode>()) found = true;
    });
    return found;
  }

  // A conjunction of comparisons whose sides are affine in j (or a j-free condition):
  // true for the first and the last lane means true for every lane.
  bool monotone(const Expr& c) {
    Expr e = substitute(c, lets_);
    if (!mentions(e, j_)) return true;
    auto* b = e.as<BinaryNode>();
    if (!b) return false;
    if (b->op == BinaryOp::kAnd) return monotone(b->a) && monotone(b->b);
    bool ordered = b->op == BinaryOp::kLT || b->op == BinaryOp::kLE || b->op == BinaryOp::kGT ||
                   b->op == BinaryOp::kGE;
    if (!ordered) return false;
    auto x = affine_coefficient(b->a, j_), y = affine_coefficient(b->b, j_);
    return x && y && as_const_int(*x) && as_const_int(*y);
  }

  bool access(const Buffer& b, const std::vector<Expr>& raw, bool store) {
    if (reg_ && b->scope == StorageScope::kLocal && raw.size() == 1 && raw[0].get() == reg_)
      return true;  // a split fragment's register: the lane's own
    if (b->scope != StorageScope::kGlobal && b->scope != StorageScope::kShared) {
      // Per-thread variables (T.alloc_var) may be read when every lane reads the same.
      if (store || b->scope != StorageScope::kVar) return false;
    }
    std::vector<Expr> idx;
    bool varies = false;
    for (const auto& x : raw) {
      idx.push_back(substitute(x, lets_));
      varies = varies || mentions(idx.back(), j_);
    }
    if (!varies) return !store;  // every lane storing to one element is not a vector
    if (!b->strides.empty() || idx.empty() || b->scope == StorageScope::kVar) return false;
    for (size_t d = 0; d + 1 < idx.size(); ++d)
      if (mentions(idx[d], j_)) return false;
    auto c = affine_coefficient(idx.back(), j_);
    if (!c || !is_const_int(*c, 1)) return false;
    // A buffer written here and also accessed at another offset: lanes of one vector could
    // read what other lanes write (gpu.vectorize_lanes would keep it scalar anyway).
    for (size_t k = 0; k < contiguous.size(); ++k) {
      if (contiguous[k].buffer != b || (!store && !stored[k])) continue;
      for (size_t d = 0; d < idx.size(); ++d)
        if (!same_expr(contiguous[k].indices[d], idx[d])) return false;
    }
    contiguous.push_back({b, idx});
    stored.push_back(store);
    max_bytes = std::max(max_bytes, b->dtype.is_bool() ? 1 : b->dtype.bytes());
    return true;
  }

  const VarNode* j_;
  const VarNode* reg_;
  VarMap lets_;
};

// The body with its masks dropped (the vector path runs only where all hold).
class DropMasks : public StmtMutator {
 public:
  DropMasks(const std::set<const StmtNode*>& ifs, const std::set<const ExprNode*>& selects)
      : ifs_(ifs), selects_(selects) {}

 protected:
  Stmt mutate_if(const IfNode* op, const Stmt& self) override {
    if (ifs_.count(self.get())) return mutate(op->then_case);
    return StmtMutator::mutate_if(op, self);
  }
  Expr mutate_select(const SelectNode* op, const Expr& self) override {
    if (selects_.count(self.get())) return mutate(op->true_value);
    return StmtMutator::mutate_select(op, self);
  }

 private:
  const std::set<const StmtNode*>& ifs_;
  const std::set<const ExprNode*>& selects_;
};

Expr flat_index(const Access& a) {
  Expr flat = make_zero(DataType::Int64());
  for (size_t d = 0; d < a.indices.size(); ++d)
    flat =
        flat * cast(DataType::Int64(), a.buffer->shape[d]) + cast(DataType::Int64(), a.indices[d]);
  return flat;
}

// Whether every access's first element at j = q * lanes (any q) is proven a multiple of
// `lanes` elements.
bool proven_aligned(const Access& a, const Var& j, int64_t lanes) {
  Var q = make_var("q", j.dtype());
  Expr at = substitute(flat_index(a), VarMap{{j.get(), q * make_int(lanes, j.dtype())}});
  return divisible_by(at, lanes) || divisible_by(transform::simplify(at), lanes);
}

// The widest lane count from `widest` down (halving, dividing `run`) whose alignment is
// proven for every access; else `widest`, to be checked at run time (*runtime true).
int64_t choose_lanes(const BodyScan& scan, const Var& j, int64_t widest, int64_t run,
                     bool* runtime) {
  for (int64_t v = widest; v >= 2; v /= 2) {
    if (run % v != 0) continue;
    bool proven = true;
    for (const auto& a : scan.contiguous) proven = proven && proven_aligned(a, j, v);
    if (proven) {
      *runtime = false;
      return v;
    }
  }
  *runtime = true;
  return widest;
}

// One vector step at lane 0's innermost index j0: the vector lane loop where every mask
// holds at its tightest lane and every access is aligned, else the scalar body lane by
// lane. `at_lane` maps j (and a layout split's register) to their values at lane `lane`.
Stmt vector_step(const Stmt& body, const BodyScan& scan, const Var& j, const Var& j0,
                 const Var& lane, const VarMap& at_lane, int64_t chosen, bool runtime_alignment,
                 const Span& span) {
  Stmt vector_body = substitute(DropMasks(scan.mask_ifs, scan.mask_selects).mutate(body), at_lane);
  Stmt scalar_body = substitute(body, at_lane);
  Stmt vector_loop = for_loop(lane, make_zero(j.dtype()), make_int(chosen, j.dtype()), vector_body,
                              ForKind::kVectorized, 1, span);
  Stmt scalar_loop = for_loop(lane, make_zero(j.dtype()), make_int(chosen, j.dtype()), scalar_body,
                              ForKind::kSerial, 1, span);
  Expr ok = make_bool(true);
  Expr last = j0 + make_int(chosen - 1, j.dtype());
  for (const auto& m : scan.masks)
    ok = logical_and(ok, substitute(m.cond, VarMap{{j.get(), m.at_last_lane ? last : Expr(j0)}}));
  if (runtime_alignment) {
    for (const auto& a : scan.contiguous) {
      if (proven_aligned(a, j, chosen)) continue;
      Expr first = substitute(flat_index(a), VarMap{{j.get(), Expr(j0)}});
      ok = logical_and(ok, eq(floormod(first, make_int(chosen, DataType::Int64())),
                              make_zero(DataType::Int64())));
    }
  }
  ok = transform::simplify(ok);
  return is_const_int(ok, 1) ? vector_loop : if_then_else(ok, vector_loop, scalar_loop, span);
}

// The longest run (a power of two dividing the registers, at most `limit`) such that
// every thread's registers q * run .. q * run + run - 1 hold consecutive elements along
// fragment dimension `dim`, starting at a multiple of the run, all present or all
// absent; 1 when there is none. Checked on the layout's constants.
int64_t register_run(const FragmentLayout& layout, size_t dim, int64_t limit) {
  if (layout.replicated || layout.num_threads * layout.registers > (int64_t(1) << 16)) return 1;
  for (int64_t run = limit; run >= 2; run /= 2) {
    if (layout.registers % run != 0) continue;
    bool ok = true;
    for (int64_t t = 0; t < layout.num_threads && ok; ++t) {
      for (int64_t q = 0; q < layout.registers && ok; q += run) {
        auto first = layout.element_at(t, q);
        ok = !first || (*first)[dim] % run == 0;
        for (int64_t l = 1; l < run && ok; ++l) {
          auto e = layout.element_at(t, q + l);
          if (!first || !e) {
            ok = bool(first) == bool(e);
            continue;
          }
          for (size_t d = 0; d < e->size() && ok; ++d)
            ok = (*e)[d] == (*first)[d] + (d == dim ? l : 0);
        }
      }
    }
    if (ok) return run;
  }
  return 1;
}

}  // namespace

std::optional<Stmt> split_nest_vectorized(const ParallelNest& nest, const Stmt& body,
                                          const Var& tid, int64_t threads, int64_t vector_bytes,
                                          const Span& span) {
  if (vector_bytes < 2 || nest.vars.empty()) return std::nullopt;
  const Var& j = nest.vars.back();
  const int64_t* inner = as_const_int(nest.extents.back());
  if (!inner || *inner < 2 || !j.dtype().is_integer()) return std::nullopt;
  BodyScan scan(j.get());
  scan.scan(body);
  if (!scan.ok || scan.contiguous.empty()) return std::nullopt;

  // Lanes: as many as the widest element allows, dividing the innermost extent.
  // Every thread keeps work: no more lanes than elements per thread (as TileLang
  // vectorizes the per-thread part of a partitioned loop).
  int64_t elements = *inner;
  for (size_t k = 0; k + 1 < nest.extents.size() && elements > 0; ++k) {
    const int64_t* e = as_const_int(nest.extents[k]);
    elements = e ? elements * *e : -1;
  }
  int64_t lanes = vector_bytes / scan.max_bytes;
  while (lanes >= 2 && (*inner % lanes != 0 || (elements > 0 && elements / lanes < threads)))
    lanes /= 2;
  if (lanes < 2) return std::nullopt;
  // Prefer the widest vector whose alignment is proven; else the widest, checked at run time.
  bool runtime_alignment = false;
  int64_t chosen = choose_lanes(scan, j, lanes, *inner, &runtime_alignment);

  DataType t = DataType::Int32();
  int64_t per_row = *inner / chosen;
  Expr total = make_int(per_row);
  for (size_t k = 0; k + 1 < nest.extents.size(); ++k) total = total * cast(t, nest.extents[k]);
  total = transform::simplify(total);

  Var reg = make_var("r", t), flat = make_var("f", t), lane = make_var("l", j.dtype());
  Var j0 = make_var(j.name() + "0", j.dtype());
  Stmt step = vector_step(body, scan, j, j0, lane, VarMap{{j.get(), j0 + lane}}, chosen,
                          runtime_alignment, span);

  // Coordinates of vector f: the outer variables as in the scalar split, j0 = lane 0's j.
  Expr q = nest.vars.size() == 1 ? Expr(flat) : floormod(flat, make_int(per_row));
  step = let(j0, cast(j.dtype(), transform::simplify(q * make_int(chosen))), step);
  Expr stride = make_int(per_row);
  for (size_t k = nest.vars.size() - 1; k-- > 0;) {
    Expr coord = k == 0 ? floordiv(flat, stride)
                        : floormod(floordiv(flat, stride), cast(t, nest.extents[k]));
    step = let(nest.vars[k], cast(nest.vars[k].dtype(), transform::simplify(coord)), step);
    stride = transform::simplify(stride * cast(t, nest.extents[k]));
  }
  const int64_t* total_const = as_const_int(total);
  if (!total_const || *total_const % threads != 0)
    step = if_then_else(flat < total, step, {}, span);
  step = let(flat, reg * make_int(threads) + tid, step);
  Expr steps = transform::simplify(ceildiv(total, make_int(threads)));
  return for_loop(reg, make_zero(t), steps, step, ForKind::kSerial, 1, span);
}

std::optional<Stmt> layout_split_vectorized(const ParallelNest& nest, const Stmt& body,
                                            const FragmentLayout& layout,
                                            const std::vector<int>& dims, const Var& tid,
                                            const Var& reg, int64_t vector_bytes,
                                            const Span& span) {
  if (vector_bytes < 2 || nest.vars.empty() || dims.back() < 0) return std::nullopt;
  const Var& j = nest.vars.back();
  size_t dim = size_t(dims.back());
  if (dim + 1 != layout.shape.size() || !j.dtype().is_integer()) return std::nullopt;
  BodyScan scan(j.get(), reg.get());
  scan.scan(body);
  if (!scan.ok || scan.contiguous.empty()) return std::nullopt;
  int64_t widest = vector_bytes / scan.max_bytes;
  int64_t run = widest >= 2 ? register_run(layout, dim, widest) : 1;
  if (run < 2) return std::nullopt;
  bool runtime_alignment = false;
  int64_t chosen = choose_lanes(scan, j, run, run, &runtime_alignment);

  // for q in [0, registers / lanes): rq = q * lanes; (i, ..., j0) = element_of(tid, rq);
  // if holds: the vector step over registers rq .. rq + lanes - 1 (elements j0 + lane).
  DataType t = DataType::Int32();
  Var q = make_var("q", t), rq = make_var("rq", t), lane = make_var("l", j.dtype());
  Var j0 = make_var(j.name() + "0", j.dtype());
  VarMap at_lane{{j.get(), j0 + lane}, {reg.get(), rq + cast(t, lane)}};
  Stmt step = vector_step(body, scan, j, j0, lane, at_lane, chosen, runtime_alignment, span);
  VarMap inverse{{layout.thread_var.get(), tid}, {layout.register_var.get(), rq}};
  Expr holds = transform::simplify(substitute(layout.holds, inverse));
  if (!is_const_int(holds, 1)) step = if_then_else(holds, step, {}, span);
  step = let(j0, cast(j.dtype(), transform::simplify(substitute(layout.element_of[dim], inverse))),
             step);
  for (size_t k = nest.vars.size() - 1; k-- > 0;) {
    Expr value = dims[k] < 0
                     ? make_zero(nest.vars[k].dtype())
                     : transform::simplify(substitute(layout.element_of[size_t(dims[k])], inverse));
    step = let(nest.vars[k], cast(nest.vars[k].dtype(), value), step);
  }
  step = let(rq, q * make_int(chosen), step);
  return for_loop(q, make_int(0), make_int(layout.registers / chosen), step, ForKind::kSerial, 1,
                  span);
}

}  // namespace tilec::gpu
