// Batched innermost T.Parallel loops (interp_batch.h): a compiler from the loop body to
// column-evaluating nodes, and the loop statement that runs them batch by batch.
#include "interp_batch.h"
#include "interp_widen.h"

#include "tilec/ir/functor.h"
#include "tilec/ir/tensor.h"
#include "tilec/ir/visitor.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace tilec::interp {

namespace {

constexpr int kBatchLanes = 256;
// More nested lets than this in one body leaves the loop to the scalar form.
constexpr int kMaxLaneVars = 32;

// One value per lane, or one value for every lane (`uniform`).
struct Col {
  const Slot* v;
  bool uniform;
  // An integer column whose lane k is v[0].i + k * step (v holds the values too): the
  // loop variable, and sums and products of it with uniform values that wrap in no lane.
  bool affine;
  int64_t step;
  // Left uninitialised (arrays of columns are filled before they are read; zeroing
  // them was a visible part of every batched load).
  Col() = default;
  Col(const Slot* values, bool same_for_all, bool is_affine = false, int64_t lane_step = 0)
      : v(values), uniform(same_for_all), affine(is_affine), step(lane_step) {}
  Slot at(int k) const { return v[uniform ? 0 : k]; }
};

// An integer column's first value and step when it is uniform or affine.
bool linear(const Col& c, __int128& first, __int128& step) {
  if (!c.uniform && !c.affine) return false;
  first = c.v[0].i;
  step = c.uniform ? 0 : c.step;
  return true;
}

bool fits(__int128 v, DataType t) {
  if (t.is_int() && t.bits <= 64)
    return v >= -(__int128(1) << (t.bits - 1)) && v < (__int128(1) << (t.bits - 1));
  if (t.is_uint() && t.bits < 64) return v >= 0 && v < (__int128(1) << t.bits);
  return false;
}

// Marks `r`, the integer column of dtype t just computed as x op y over n lanes, affine
// when x and y are linear and so is the exact result, with no lane wrapped: its first and
// last exact values fit t, and between them it is monotone.
Col mark_affine(Col r, BinaryOp op, const Col& x, const Col& y, int n, DataType t) {
  __int128 x0, dx, y0, dy, r0, dr;
  if (r.uniform || n == 0 || !linear(x, x0, dx) || !linear(y, y0, dy)) return r;
  switch (op) {
    case BinaryOp::kAdd:
      r0 = x0 + y0, dr = dx + dy;
      break;
    case BinaryOp::kSub:
      r0 = x0 - y0, dr = dx - dy;
      break;
    case BinaryOp::kMul:
      if (dx != 0 && dy != 0) return r;
      r0 = x0 * y0, dr = dx * y0 + dy * x0;
      break;
    default:
      return r;
  }
  if (!fits(r0, t) || !fits(r0 + dr * (n - 1), t) || !fits(dr, DataType::Int(64))) return r;
  r.affine = true;
  r.step = int64_t(dr);
  return r;
}

// The iterations of one batch: `n` lanes, the columns of the loop's variables (the loop
// variable is 0, each enclosing let the next id) and the scratch columns of the nodes.
struct Lanes {
  Frame& frame;
  Slot* scratch;
  Col* vars;
  int n;
  Slot* column(int id) const { return scratch + size_t(id) * kBatchLanes; }
};

struct BExpr {
  DataType dtype;
  int out;  // this node's scratch column
  BExpr(DataType t, int column) : dtype(t), out(column) {}
  virtual ~BExpr() = default;
  virtual Col eval(Lanes& lanes) const = 0;
};
using BExprPtr = std::unique_ptr<BExpr>;

struct BStmt {
  virtual ~BStmt() = default;
  virtual void run(Lanes& lanes) const = 0;
};
using BStmtPtr = std::unique_ptr<BStmt>;

// Runs `body` on the lanes listed in `sel` (ascending, `m` of them): the loop's
// variables are gathered into the columns from `gather` on, and restored after.
template <class F>
void on_lanes(Lanes& lanes, int depth, int gather, const Slot* sel, int m, F&& body) {
  Col saved[kMaxLaneVars];
  int n = lanes.n;
  for (int v = 0; v < depth; ++v) {
    saved[v] = lanes.vars[v];
    if (saved[v].uniform) continue;
    Slot* g = lanes.column(gather + v);
    for (int k = 0; k < m; ++k) g[k] = saved[v].v[sel[k].i];
    lanes.vars[v] = {g, false};
  }
  lanes.n = m;
  body();
  lanes.n = n;
  for (int v = 0; v < depth; ++v) lanes.vars[v] = saved[v];
}

// The lanes where `cond` is (or is not) true, as ascending indices in `sel`.
int select_lanes(const Col& cond, int n, bool want, Slot* sel) {
  int m = 0;
  for (int k = 0; k < n; ++k)
    if ((cond.v[k].i != 0) == want) sel[m++].i = k;
  return m;
}

// A condition column as 0/1 per lane (floats compare with zero, as to_int does).
Col truth(const Col& c, DataType t, int n, Slot* out) {
  if (!t.is_float()) return c;
  for (int k = 0, size = c.uniform ? 1 : n; k < size; ++k) out[k].i = to_int(c.v[k], t) != 0;
  return {out, c.uniform};
}

// ---------------------------------------------------------------- expressions

// An expression free of the loop's variables: once per batch.
struct UniformB : BExpr {
  CExprPtr scalar;
  UniformB(CExprPtr e, int column) : BExpr(e->dtype, column), scalar(std::move(e)) {}
  Col eval(Lanes& lanes) const override {
    Slot* o = lanes.column(out);
    o[0] = scalar->eval(lanes.frame);
    return {o, true};
  }
};

struct LaneVarB : BExpr {
  int id;
  LaneVarB(DataType t, int column, int var) : BExpr(t, column), id(var) {}
  Col eval(Lanes& lanes) const override { return lanes.vars[id]; }
};

// Applies `f(k, Slot a) -> Slot` to a column: once when it is uniform.
template <class F>
Col map1(const Col& a, int n, Slot* o, F&& f) {
  if (a.uniform) {
    o[0] = f(a.v[0]);
    return {o, true};
  }
  for (int k = 0; k < n; ++k) o[k] = f(a.v[k]);
  return {o, false};
}

template <class F>
Col map2(const Col& a, const Col& b, int n, Slot* o, F&& f) {
  if (a.uniform && b.uniform) {
    o[0] = f(a.v[0], b.v[0]);
    return {o, true};
  }
  size_t sa = !a.uniform, sb = !b.uniform;
  for (int k = 0; k < n; ++k) o[k] = f(a.v[size_t(k) * sa], b.v[size_t(k) * sb]);
  return {o, false};
}

struct CastB : BExpr {
  BExprPtr value;
  // Every value of the source dtype is one of the target's (float16 or bfloat16 to
  // float32 or float64, float32 to float64): finite lanes convert to themselves.
  bool widening;
  CastB(DataType t, int column, BExprPtr v) : BExpr(t, column), value(std::move(v)) {
    DataType from = value->dtype;
    bool half = from == DataType::Float16() || from == DataType::BFloat16();
    widening = (half && (t == DataType::Float32() || t == DataType::Float(64))) ||
               (from == DataType::Float32() && t == DataType::Float(64));
  }
  Col eval(Lanes& lanes) const override {
    DataType from = value->dtype, to = dtype;
    Col in = value->eval(lanes);
    if (widening && !in.uniform) {
      bool finite = true;
      for (int k = 0; k < lanes.n; ++k) finite &= std::fabs(in.v[k].f) <= DBL_MAX;
      if (finite) return in;
    }
    Col r =
        map1(in, lanes.n, lanes.column(out), [&](Slot s) { return convert_inline(s, from, to); });
    // An affine integer column whose first and last values fit the new integer type
    // converts to itself, lane by lane.
    int n = lanes.n;
    if (in.affine && n > 0 && from.is_integer() && fits(in.v[0].i, to) && fits(in.v[n - 1].i, to)) {
      r.affine = true;
      r.step = in.step;
    }
    return r;
  }
};

struct UnaryB : BExpr {
  UnaryOp op;
  BExprPtr a;
  UnaryB(DataType t, int column, UnaryOp o, BExprPtr x)
      : BExpr(t, column), op(o), a(std::move(x)) {}
  Col eval(Lanes& lanes) const override {
    DataType at = a->dtype, t = dtype;
    UnaryOp o = op;
    return map1(a->eval(lanes), lanes.n, lanes.column(out), [&](Slot v) {
      if (o == UnaryOp::kNot) return int_slot(to_int(v, at) == 0);
      if (t.is_float()) return float_slot(-v.f);
      return int_slot(wrap_to_dtype(int64_t(0 - uint64_t(v.i)), t));
    });
  }
};

// float32 x op y over the lanes as round_to_dtype_inline rounds it: the double result
// narrowed to float, when every result is finite and within float's range; false
// otherwise (o partly written), for the caller's per-element rounding.
template <class Op>
bool float32_lanes(const Col& x, const Col& y, int n, Slot* o, Op op) {
  size_t sx = !x.uniform, sy = !y.uniform;
  bool in_range = true;
  for (int k = 0; k < n; ++k) {
    double r = op(x.v[size_t(k) * sx].f, y.v[size_t(k) * sy].f);
    bool ok = std::fabs(r) <= FLT_MAX;
    in_range &= ok;
    o[k].f = double(float(ok ? r : 0.0));
  }
  return in_range;
}

// Arithmetic and comparisons, exactly as interp::arith; the frequent float and signed
// integer operations without its per-element dispatch.
struct BinaryB : BExpr {
  BinaryOp op;
  DataType operand;
  BExprPtr a, b;
  BinaryB(DataType t, int column, BinaryOp o, BExprPtr x, BExprPtr y)
      : BExpr(t, column), op(o), operand(x->dtype), a(std::move(x)), b(std::move(y)) {}
  Col eval(Lanes& lanes) const override {
    Col x = a->eval(lanes), y = b->eval(lanes);
    Slot* o = lanes.column(out);
    int n = lanes.n;
    DataType t = operand;
    if (t == DataType::Float32() && !(x.uniform && y.uniform)) {
      bool done = op == BinaryOp::kAdd   ? float32_lanes(x, y, n, o, std::plus<double>())
                  : op == BinaryOp::kSub ? float32_lanes(x, y, n, o, std::minus<double>())
                  : op == BinaryOp::kMul ? float32_lanes(x, y, n, o, std::multiplies<double>())
                  : op == BinaryOp::kDiv ? float32_lanes(x, y, n, o, std::divides<double>())
                                         : false;
      if (done) return {o, false};
    }
    if (t.is_float()) {
      switch (op) {
        case BinaryOp::kAdd:
          return map2(x, y, n, o, [t](Slot p, Slot q) {
            return float_slot(round_to_dtype_inline(p.f + q.f, t));
          });
        case BinaryOp::kSub:
          return map2(x, y, n, o, [t](Slot p, Slot q) {
            return float_slot(round_to_dtype_inline(p.f - q.f, t));
          });
        case BinaryOp::kMul:
          return map2(x, y, n, o, [t](Slot p, Slot q) {
            return float_slot(round_to_dtype_inline(p.f * q.f, t));
          });
        case BinaryOp::kDiv:
          return map2(x, y, n, o, [t](Slot p, Slot q) {
            return float_slot(round_to_dtype_inline(p.f / q.f, t));
          });
        case BinaryOp::kLT:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.f < q.f); });
        case BinaryOp::kGT:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.f > q.f); });
        default:
          break;
      }
    } else if (t.is_int() && t.bits <= 32) {
      // Exact in int64, then wrapped to the dtype, as int_binary does.
      switch (op) {
        case BinaryOp::kAdd:
          return mark_affine(
              map2(x, y, n, o,
                   [t](Slot p, Slot q) { return int_slot(wrap_to_dtype(p.i + q.i, t)); }),
              op, x, y, n, t);
        case BinaryOp::kSub:
          return mark_affine(
              map2(x, y, n, o,
                   [t](Slot p, Slot q) { return int_slot(wrap_to_dtype(p.i - q.i, t)); }),
              op, x, y, n, t);
        case BinaryOp::kMul:
          return mark_affine(
              map2(x, y, n, o,
                   [t](Slot p, Slot q) { return int_slot(wrap_to_dtype(p.i * q.i, t)); }),
              op, x, y, n, t);
        default:
          break;
      }
    }
    if (t.is_int() && is_comparison(op)) {
      switch (op) {
        case BinaryOp::kLT:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i < q.i); });
        case BinaryOp::kLE:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i <= q.i); });
        case BinaryOp::kGT:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i > q.i); });
        case BinaryOp::kGE:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i >= q.i); });
        case BinaryOp::kEQ:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i == q.i); });
        case BinaryOp::kNE:
          return map2(x, y, n, o, [](Slot p, Slot q) { return int_slot(p.i != q.i); });
        default:
          break;
      }
    }
    BinaryOp o2 = op;
    return map2(x, y, n, o, [o2, t](Slot p, Slot q) { return arith(o2, p, q, t); });
  }
};

// `and`/`or`: the right operand only on the lanes the left does not decide, as Python's
// short circuit does.
struct LogicB : BExpr {
  bool is_or;
  BExprPtr a, b;
  bool right_can_fail;
  int depth, sel, gather;
  LogicB(int column, bool o, BExprPtr x, BExprPtr y, bool fail, int d, int s, int g)
      : BExpr(DataType::Bool(), column),
        is_or(o),
        a(std::move(x)),
        b(std::move(y)),
        right_can_fail(fail),
        depth(d),
        sel(s),
        gather(g) {}
  Col eval(Lanes& lanes) const override {
    int n = lanes.n;
    Slot* o = lanes.column(out);
    Col left = truth(a->eval(lanes), a->dtype, n, o);
    if (left.uniform) {
      if ((left.v[0].i != 0) == is_or) return map1(left, n, o, [](Slot s) { return s; });
      Col right = truth(b->eval(lanes), b->dtype, n, o);
      return map1(right, n, o, [](Slot s) { return int_slot(s.i != 0); });
    }
    for (int k = 0; k < n; ++k) o[k].i = left.v[k].i != 0;
    Slot* s = lanes.column(sel);
    int m = select_lanes({o, false}, n, !is_or, s);  // lanes the left leaves open
    if (m == 0) return {o, false};
    auto merge = [&](const Col& right, bool compacted) {
      for (int k = 0; k < m; ++k) {
        int lane = int(s[k].i);
        o[lane].i = to_int(right.at(compacted ? k : lane), b->dtype) != 0;
      }
    };
    if (!right_can_fail) {
      merge(b->eval(lanes), false);
    } else {
      on_lanes(lanes, depth, gather, s, m, [&] { merge(b->eval(lanes), true); });
    }
    return {o, false};
  }
};

// T.if_then_else: each branch only on its lanes when it could fail there.
struct SelectB : BExpr {
  BExprPtr cond, t, f;
  bool can_fail;
  int depth, flags, sel, gather;
  SelectB(DataType type, int column, BExprPtr c, BExprPtr x, BExprPtr y, bool fail, int d,
          int first)
      : BExpr(type, column),
        cond(std::move(c)),
        t(std::move(x)),
        f(std::move(y)),
        can_fail(fail),
        depth(d),
        flags(first),
        sel(first + 1),
        gather(first + 2) {}
  Col eval(Lanes& lanes) const override {
    int n = lanes.n;
    Slot* o = lanes.column(out);
    Slot* c = lanes.column(flags);
    Col cv = truth(cond->eval(lanes), cond->dtype, n, c);
    if (cv.uniform) return (cv.v[0].i != 0 ? t : f)->eval(lanes);
    if (cv.v != c) std::copy(cv.v, cv.v + n, c);
    if (!can_fail) {
      Col x = t->eval(lanes), y = f->eval(lanes);
      for (int k = 0; k < n; ++k) o[k] = c[k].i != 0 ? x.at(k) : y.at(k);
      return {o, false};
    }
    Slot* s = lanes.column(sel);
    for (bool want : {true, false}) {
      int m = select_lanes({c, false}, n, want, s);
      if (m == 0) continue;
      const BExpr& branch = want ? *t : *f;
      on_lanes(lanes, depth, gather, s, m, [&] {
        Col r = branch.eval(lanes);
        for (int k = 0; k < m; ++k) o[s[k].i] = r.at(k);
      });
    }
    return {o, false};
  }
};

struct CallB : BExpr {
  std::string name;
  std::vector<BExprPtr> args;
  FloatMathFn function;
  CallB(DataType t, int column, std::string n, std::vector<BExprPtr> a)
      : BExpr(t, column),
        name(std::move(n)),
        args(std::move(a)),
        function(t.is_float() ? float_math_function(name) : nullptr) {}
  Col eval(Lanes& lanes) const override {
    Col in[3];
    bool uniform = true;
    for (size_t i = 0; i < args.size(); ++i) {
      in[i] = args[i]->eval(lanes);
      uniform = uniform && in[i].uniform;
    }
    Slot* o = lanes.column(out);
    int size = uniform ? 1 : lanes.n;
    if (function && args.size() == 1 && args[0]->dtype == dtype && !uniform) {
      // The common T.exp2(x)-like call: one float operand of the call's dtype.
      for (int k = 0; k < size; ++k) {
        double operands[3] = {in[0].v[k].f, 0, 0};
        o[k] = float_slot(round_to_dtype_inline(function(operands), dtype));
      }
      return {o, false};
    }
    for (int k = 0; k < size; ++k) {
      Slot values[3];
      for (size_t i = 0; i < args.size(); ++i) {
        values[i] = convert_inline(in[i].at(k), args[i]->dtype, dtype);
      }
      if (!function) {
        o[k] = math(name, values, dtype);
      } else {
        double operands[3] = {values[0].f, values[1].f, values[2].f};
        o[k] = float_slot(round_to_dtype_inline(function(operands), dtype));
      }
    }
    return {o, uniform};
  }
};

// Flat offsets of one access per lane, checked against the shape. True when they are
// affine, lane k at off[0] + k * *slope: every index uniform or affine (then only the
// first and last lanes are checked; between them each index is monotone). A run (slope
// 1) sets off[0] only: fill_run writes the rest for a caller that walks lanes.
bool lane_offsets(const BufferSlot& slot, const BufferInfo& info,
                  const std::vector<BExprPtr>& indices, Lanes& lanes, const char* what, Span span,
                  int64_t* off, int64_t* slope) {
  Col idx[8];
  size_t nd = indices.size();
  int n = lanes.n;
  int64_t base = 0;
  bool inside = true, affine = true;
  for (size_t d = 0; d < nd; ++d) {
    idx[d] = indices[d]->eval(lanes);
    affine = affine && (idx[d].uniform || idx[d].affine);
    if (!idx[d].uniform) continue;
    int64_t i = idx[d].v[0].i;
    inside = inside && i >= 0 && i < slot.shape[d];
    base += int64_t(uint64_t(i) * uint64_t(slot.strides[d]));
  }
  if (affine && inside && n > 0) {
    int64_t uniform_base = base, step = 0;
    for (size_t d = 0; d < nd && inside; ++d) {
      if (idx[d].uniform) continue;
      int64_t first = idx[d].v[0].i, last = idx[d].v[n - 1].i;
      inside = first >= 0 && first < slot.shape[d] && last >= 0 && last < slot.shape[d];
      base += first * slot.strides[d];
      step += idx[d].step * slot.strides[d];
    }
    if (inside) {
      off[0] = base;
      if (step != 1)
        for (int k = 1; k < n; ++k) off[k] = base + k * step;
      *slope = step;
      return true;
    }
    base = uniform_base;  // an index leaves the shape: lane by lane, to report the first
  }
  for (int k = 0; k < n; ++k) off[k] = base;
  // Dimension by dimension, so each is one tight loop; a lane outside is reported below
  // with its whole index.
  for (size_t d = 0; d < nd; ++d) {
    if (idx[d].uniform) continue;
    const Slot* v = idx[d].v;
    int64_t extent = slot.shape[d], stride = slot.strides[d];
    bool all = true;
    for (int k = 0; k < n; ++k) {
      all &= uint64_t(v[k].i) < uint64_t(extent);
      off[k] += int64_t(uint64_t(v[k].i) * uint64_t(stride));  // wraps only when outside
    }
    inside = inside && all;
  }
  if (!inside) {
    for (int k = 0; k < n; ++k) {
      int64_t index[8];
      bool lane_inside = true;
      for (size_t d = 0; d < nd; ++d) {
        index[d] = idx[d].at(k).i;
        lane_inside = lane_inside && index[d] >= 0 && index[d] < slot.shape[d];
      }
      if (!lane_inside) report_out_of_bounds(slot, info, index, nd, what, span);
    }
  }
  return false;
}

void fill_run(int64_t* off, int n) {
  for (int k = 1; k < n; ++k) off[k] = off[0] + k;
}

// Reports the first lane whose element of an allocation was never written.
void require_lanes_written(const BufferSlot& slot, const BufferInfo& info, const int64_t* off,
                           int n, bool run, Span span) {
  if (!slot.written) return;
  if (run) {
    if (n == 0 || !run_has_unwritten(slot, off[0], n)) return;
    for (int k = 0; k < n; ++k) require_written(slot, info, off[0] + k, span);
  }
  for (int k = 0; k < n; ++k) require_written(slot, info, off[k], span);
}

// The lanes' elements at `off`, read as the buffer's reader does; the dtype is chosen
// once per batch, not per element.
void read_lanes(const BufferInfo& info, const char* data, const int64_t* off, int n, Slot* o) {
  auto each = [&](auto load) {
    for (int k = 0; k < n; ++k) o[k].f = load(data, off[k]);
  };
  if (info.dtype == DataType::Float16())
    return each([](const char* d, int64_t at) { return load_float16(d, at); });
  if (info.dtype == DataType::BFloat16())
    return each([](const char* d, int64_t at) { return load_bfloat16(d, at); });
  if (info.dtype == DataType::Float32())
    return each([](const char* d, int64_t at) { return load_float32(d, at); });
  for (int k = 0; k < n; ++k) o[k] = info.read(data, off[k]);
}

// Stores `v` (already of the buffer's dtype) at lane k's offset at(k), in lane order, as
// the buffer's writer does.
template <class At>
void write_lanes(const BufferInfo& info, char* data, At at, int n, const Col& v) {
  auto each = [&](auto store) {
    for (int k = 0; k < n; ++k) store(data, at(k), v.at(k).f);
  };
  if (info.dtype == DataType::Float16())
    return each([](char* d, int64_t at, double x) { store_float16(d, at, x); });
  if (info.dtype == DataType::BFloat16())
    return each([](char* d, int64_t at, double x) { store_bfloat16(d, at, x); });
  if (info.dtype == DataType::Float32())
    return each([](char* d, int64_t at, double x) { store_float32(d, at, x); });
  for (int k = 0; k < n; ++k) info.write(data, at(k), v.at(k));
}

// The lanes' elements first .. first + n - 1 of a float16, bfloat16 or float32 buffer,
// widened as one run; false (o partly written) when the dtype is another or a value is an
// infinity or a NaN, which read_lanes then reads as the buffer's reader does.
bool read_run(const BufferInfo& info, const char* data, int64_t first, int n, Slot* o) {
  float values[kBatchLanes];
  DataType t = info.dtype;
  bool done = t == DataType::Float32()    ? widen_float32_run(data + 4 * first, n, values, 1)
              : t == DataType::Float16()  ? widen_float16_run(data + 2 * first, n, values, 1)
              : t == DataType::BFloat16() ? widen_bfloat16_run(data + 2 * first, n, values, 1)
                                          : false;
  if (!done) return false;
  for (int k = 0; k < n; ++k) o[k].f = double(values[k]);
  return true;
}

struct LoadB : BExpr {
  int buffer;
  const BufferInfo* info;
  std::vector<BExprPtr> indices;
  Span span;
  int offsets;  // scratch column of the lanes' offsets
  // Per index: the lane variable it is, -1 when it is uniform, -2 otherwise.
  std::vector<int> index_vars;
  // Whether every index is the same for all lanes (a sequential inner loop's variable
  // and the enclosing loops' only): evaluated as lane_offsets would, then tested.
  bool uniform_indices(Lanes& lanes) const {
    for (int var : index_vars)
      if (var == -2 || (var >= 0 && !lanes.vars[var].uniform)) return false;
    return true;
  }
  LoadB(const BufferInfo* i, int column, int b, std::vector<BExprPtr> idx, Span s, int off)
      : BExpr(i->dtype, column),
        buffer(b),
        info(i),
        indices(std::move(idx)),
        span(s),
        offsets(off) {
    for (const auto& index : indices) {
      auto* var = dynamic_cast<const LaneVarB*>(index.get());
      index_vars.push_back(dynamic_cast<const UniformB*>(index.get()) ? -1 : var ? var->id : -2);
    }
  }
  Col eval(Lanes& lanes) const override {
    const BufferSlot& slot = lanes.frame.buffers[size_t(buffer)];
    auto* off = reinterpret_cast<int64_t*>(lanes.column(offsets));
    Slot* o = lanes.column(out);
    int64_t slope = 0;
    if (uniform_indices(lanes)) {  // one element for every lane: read it once
      Lanes one{lanes.frame, lanes.scratch, lanes.vars, 1};
      lane_offsets(slot, *info, indices, one, "load from", span, off, &slope);
      require_written(slot, *info, off[0], span);
      o[0] = read_element(*info, slot.data, off[0]);
      return {o, true};
    }
    bool run =
        lane_offsets(slot, *info, indices, lanes, "load from", span, off, &slope) && slope == 1;
    require_lanes_written(slot, *info, off, lanes.n, run, span);
    if (run && read_run(*info, slot.data, off[0], lanes.n, o)) return {o, false};
    if (run) fill_run(off, lanes.n);
    read_lanes(*info, slot.data, off, lanes.n, o);
    return {o, false};
  }
};

// ---------------------------------------------------------------- statements

// A statement that writes one element per lane.
struct ElementWriteB : BStmt {
  int buffer;
  const BufferInfo* info;
  std::vector<BExprPtr> indices;
  BExprPtr value;
  Span span;
  int offsets;

 protected:
  // The value, then the lanes' checked offsets (the scalar form's order).
  // `run`: the lanes' elements are one run from off[0].
  const BufferSlot& prepare(Lanes& lanes, const char* what, Col& v, int64_t*& off,
                            bool& run) const {
    v = value->eval(lanes);
    const BufferSlot& slot = lanes.frame.buffers[size_t(buffer)];
    off = reinterpret_cast<int64_t*>(lanes.column(offsets));
    int64_t slope = 0;
    run = lane_offsets(slot, *info, indices, lanes, what, span, off, &slope) && slope == 1;
    return slot;
  }
};

struct StoreB : ElementWriteB {
  void run(Lanes& lanes) const override {
    Col v;
    int64_t* off;
    bool run;
    const BufferSlot& slot = prepare(lanes, "store to", v, off, run);
    if (run) {
      int64_t first = off[0];
      write_lanes(
          *info, slot.data, [first](int k) { return first + k; }, lanes.n, v);
      if (slot.written && lanes.n > 0) std::memset(slot.written + first, 1, size_t(lanes.n));
      return;
    }
    write_lanes(
        *info, slot.data, [off](int k) { return off[k]; }, lanes.n, v);
    if (slot.written)
      for (int k = 0; k < lanes.n; ++k) slot.written[off[k]] = 1;
  }
};

// An atomic update whose previous value is unused (T.atomic_add(...) as a statement):
// lane after lane, so updates of one element from several lanes each count once, in the
// scalar loop's order.
struct AtomicB : ElementWriteB {
  BinaryOp op;
  void run(Lanes& lanes) const override {
    Col v;
    int64_t* off;
    bool run;
    const BufferSlot& slot = prepare(lanes, "atomic update of", v, off, run);
    if (run) fill_run(off, lanes.n);
    for (int k = 0; k < lanes.n; ++k) {
      Slot old = info->read(slot.data, off[k]);
      info->write(slot.data, off[k], arith(op, old, v.at(k), info->dtype));
    }
  }
};

struct LetB : BStmt {
  int id;
  BExprPtr value;
  BStmtPtr body;
  void run(Lanes& lanes) const override {
    lanes.vars[id] = value->eval(lanes);
    body->run(lanes);
  }
};

// A sequential loop inside the batched body, with bounds that do not depend on the
// batched loop: each of its iterations runs its body on every lane, so each lane sees
// its statements in the scalar loop's order. Its variable is the same for every lane.
struct SerialForB : BStmt {
  CExprPtr begin, end;
  int64_t step;
  DataType var_type;
  int id, column;
  BStmtPtr body;
  std::string name;
  Span span;
  void run(Lanes& lanes) const override {
    int64_t b = begin->eval_int(lanes.frame), e = end->eval_int(lanes.frame);
    check_loop_range(b, e, step, var_type, name, span);
    Slot* value = lanes.column(column);
    for (int64_t i = b; step > 0 ? i < e : i > e; i += step) {
      value[0].i = i;
      lanes.vars[id] = {value, true};
      body->run(lanes);
    }
  }
};

struct SeqB : BStmt {
  std::vector<BStmtPtr> stmts;
  void run(Lanes& lanes) const override {
    for (const auto& s : stmts) s->run(lanes);
  }
};

struct IfB : BStmt {
  BExprPtr cond;
  BStmtPtr then_case, else_case;  // else may be null
  int depth, flags, sel, gather;
  void run(Lanes& lanes) const override {
    int n = lanes.n;
    Col c = truth(cond->eval(lanes), cond->dtype, n, lanes.column(flags));
    if (c.uniform) {
      const BStmt* branch = c.v[0].i != 0 ? then_case.get() : else_case.get();
      if (branch) branch->run(lanes);
      return;
    }
    if (c.v != lanes.column(flags)) std::copy(c.v, c.v + n, lanes.column(flags));
    Slot* s = lanes.column(sel);
    for (bool want : {true, false}) {
      const BStmt* branch = want ? then_case.get() : else_case.get();
      if (!branch) continue;
      int m = select_lanes({lanes.column(flags), false}, n, want, s);
      if (m == n) {
        branch->run(lanes);
      } else if (m > 0) {
        on_lanes(lanes, depth, gather, s, m, [&] { branch->run(lanes); });
      }
    }
  }
};

// ---------------------------------------------------------------- compiler

struct NotBatchable {};

// Whether evaluating `e` may throw (and so must not run on lanes that skip it).
bool can_fail(const Expr& e) {
  bool fail = false;
  post_order_visit(e, [&](const Expr& x) {
    if (x.as<LoadNode>()) fail = true;
    if (auto* b = x.as<BinaryNode>()) {
      bool division =
          b->op == BinaryOp::kDiv || b->op == BinaryOp::kFloorDiv || b->op == BinaryOp::kFloorMod;
      if (division && !b->a.dtype().is_float()) fail = true;
    }
    if (auto* c = x.as<CallNode>(); c && !c->dtype.is_float()) fail = true;
  });
  return fail;
}

class BatchCompiler : private ExprFunctor<BExprPtr()>, private StmtFunctor<BStmtPtr()> {
 public:
  BatchCompiler(BatchHooks& hooks, const Var& loop_var) : hooks_(hooks) { push(loop_var); }

  BStmtPtr stmt(const Stmt& s) {
    if (!s) throw NotBatchable{};
    return dispatch_stmt(s);
  }
  int num_columns() const { return columns_; }

 private:
  int column() { return columns_++; }
  int columns(int count) {
    int first = columns_;
    columns_ += count;
    return first;
  }
  void push(const Var& v) {
    lane_vars_[v.get()] = depth_++;
    if (depth_ > kMaxLaneVars) throw NotBatchable{};
  }
  void pop(const Var& v) {
    lane_vars_.erase(v.get());
    --depth_;
  }

  bool uses_lanes(const Expr& e) const {
    bool uses = false;
    post_order_visit(e, [&](const Expr& x) {
      if (auto* v = x.as<VarNode>(); v && lane_vars_.count(v)) uses = true;
      if (auto* c = x.as<CallNode>(); c && c->call_kind != CallKind::kIntrinsic)
        throw NotBatchable{};  // atomics, barriers, extern calls: the scalar form
    });
    return uses;
  }

  BExprPtr expr(const Expr& e) {
    if (!e || !e.dtype().is_scalar()) throw NotBatchable{};
    if (!uses_lanes(e)) return std::make_unique<UniformB>(hooks_.scalar_expr(e), column());
    return dispatch_expr(e);
  }
  BExprPtr as(DataType t, const Expr& e) {
    BExprPtr c = expr(e);
    if (c->dtype == t) return c;
    return std::make_unique<CastB>(t, column(), std::move(c));
  }
  std::vector<BExprPtr> indices(const Buffer& buffer, const std::vector<Expr>& idx) {
    if (int(idx.size()) != buffer->ndim() || idx.size() > 8) throw NotBatchable{};
    std::vector<BExprPtr> out;
    for (const auto& i : idx) {
      BExprPtr c = expr(i);
      if (c->dtype.is_float()) throw NotBatchable{};  // float indices: the scalar form's rules
      out.push_back(std::move(c));
    }
    return out;
  }

  // Lane-independent leaves never reach these (expr() makes them uniform).
  BExprPtr visit_expr(const IntImmNode*, const Expr&) override { throw NotBatchable{}; }
  BExprPtr visit_expr(const FloatImmNode*, const Expr&) override { throw NotBatchable{}; }
  BExprPtr visit_expr(const VarNode* n, const Expr&) override {
    return std::make_unique<LaneVarB>(n->dtype, column(), lane_vars_.at(n));
  }
  BExprPtr visit_expr(const BinaryNode* n, const Expr&) override {
    auto a = expr(n->a), b = expr(n->b);
    if (a->dtype != b->dtype) b = std::make_unique<CastB>(a->dtype, column(), std::move(b));
    if (n->op == BinaryOp::kAnd || n->op == BinaryOp::kOr) {
      int out = column(), sel = column(), gather = columns(depth_);
      return std::make_unique<LogicB>(out, n->op == BinaryOp::kOr, std::move(a), std::move(b),
                                      can_fail(n->b), depth_, sel, gather);
    }
    return std::make_unique<BinaryB>(n->dtype, column(), n->op, std::move(a), std::move(b));
  }
  BExprPtr visit_expr(const UnaryNode* n, const Expr&) override {
    return std::make_unique<UnaryB>(n->dtype, column(), n->op, expr(n->a));
  }
  BExprPtr visit_expr(const SelectNode* n, const Expr&) override {
    auto c = expr(n->cond);
    auto t = as(n->dtype, n->true_value), f = as(n->dtype, n->false_value);
    bool fail = can_fail(n->true_value) || can_fail(n->false_value);
    int out = column(), first = columns(2 + depth_);
    return std::make_unique<SelectB>(n->dtype, out, std::move(c), std::move(t), std::move(f), fail,
                                     depth_, first);
  }
  BExprPtr visit_expr(const CastNode* n, const Expr&) override {
    return std::make_unique<CastB>(n->dtype, column(), expr(n->value));
  }
  BExprPtr visit_expr(const LoadNode* n, const Expr& e) override {
    auto [buffer, info] = hooks_.buffer(n->buffer, e->span);
    auto idx = indices(n->buffer, n->indices);
    int out = column(), offsets = column();
    return std::make_unique<LoadB>(info, out, buffer, std::move(idx), e->span, offsets);
  }
  BExprPtr visit_expr(const CallNode* n, const Expr&) override {
    if (n->call_kind != CallKind::kIntrinsic || n->args.size() > 3 || !is_math_intrinsic(n->name))
      throw NotBatchable{};
    std::vector<BExprPtr> args;
    for (const auto& a : n->args) args.push_back(expr(a));
    return std::make_unique<CallB>(n->dtype, column(), n->name, std::move(args));
  }

  BStmtPtr visit_stmt(const StoreNode* n, const Stmt& s) override {
    auto out = std::make_unique<StoreB>();
    std::tie(out->buffer, out->info) = hooks_.buffer(n->buffer, s->span);
    out->indices = indices(n->buffer, n->indices);
    out->value = as(n->buffer->dtype, n->value);
    out->span = s->span;
    out->offsets = column();
    return out;
  }
  BStmtPtr visit_stmt(const LetNode* n, const Stmt&) override {
    auto out = std::make_unique<LetB>();
    out->value = as(n->var->dtype, n->value);
    out->id = depth_;
    push(n->var);
    out->body = stmt(n->body);
    pop(n->var);
    return out;
  }
  BStmtPtr visit_stmt(const IfNode* n, const Stmt&) override {
    auto out = std::make_unique<IfB>();
    out->cond = expr(n->cond);
    out->then_case = stmt(n->then_case);
    if (n->else_case) out->else_case = stmt(n->else_case);
    out->depth = depth_;
    out->flags = column();
    out->sel = column();
    out->gather = columns(depth_);
    return out;
  }
  BStmtPtr visit_stmt(const SeqNode* op, const Stmt&) override {
    auto out = std::make_unique<SeqB>();
    for (const auto& c : op->stmts) out->stmts.push_back(stmt(c));
    return out;
  }
  // Everything else runs in the scalar form.
  BStmtPtr visit_stmt(const ForNode* n, const Stmt& s) override {
    // A nested T.Parallel loop is batched itself (it is the innermost one); a sequential
    // loop runs inside this batch when its bounds are the same for every lane.
    bool sequential = n->for_kind == ForKind::kSerial || n->for_kind == ForKind::kUnrolled;
    if (!sequential || !n->var->dtype.is_integer() || n->step == 0 || uses_lanes(n->begin) ||
        uses_lanes(n->end))
      throw NotBatchable{};
    auto out = std::make_unique<SerialForB>();
    out->begin = hooks_.scalar_expr(n->begin);
    out->end = hooks_.scalar_expr(n->end);
    out->step = n->step;
    out->var_type = n->var->dtype;
    out->name = n->var.name();
    out->span = s->span;
    out->column = column();
    out->id = depth_;
    push(n->var);
    out->body = stmt(n->body);
    pop(n->var);
    return out;
  }
  BStmtPtr visit_stmt(const WhileNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const AllocateNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const EvaluateNode* n, const Stmt&) override {
    auto* call = n->value.as<CallNode>();
    if (!call || call->call_kind != CallKind::kAtomic) throw NotBatchable{};
    auto* element = call->args[0].as<LoadNode>();
    if (!element) throw NotBatchable{};
    auto out = std::make_unique<AtomicB>();
    out->op = atomic_op(*call);
    Span span = n->value->span;  // the scalar form reports at the call
    std::tie(out->buffer, out->info) = hooks_.buffer(element->buffer, span);
    out->value = as(call->dtype, call->args[1]);
    out->indices = indices(element->buffer, element->indices);
    out->span = span;
    out->offsets = column();
    return out;
  }
  BStmtPtr visit_stmt(const KernelNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const CopyNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const FillNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const GemmNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const ReduceNode*, const Stmt&) override { throw NotBatchable{}; }
  BStmtPtr visit_stmt(const LaunchNode*, const Stmt&) override { throw NotBatchable{}; }

  BatchHooks& hooks_;
  std::unordered_map<const VarNode*, int> lane_vars_;
  int depth_ = 0, columns_ = 1;  // column 0: the loop variable
};

struct BatchedForStmt : CStmt {
  DataType var_type;
  CExprPtr begin, end;
  int64_t step;
  BStmtPtr body;
  int num_columns;
  std::string name;
  Span span;
  void run(Frame& frame) const override {
    int64_t b = begin->eval_int(frame), e = end->eval_int(frame);
    check_loop_range(b, e, step, var_type, name, span);
    if (step > 0 ? b >= e : b <= e) return;
    uint64_t trips = step > 0 ? (uint64_t(e) - uint64_t(b) + uint64_t(step) - 1) / uint64_t(step)
                              : (uint64_t(b) - uint64_t(e) + uint64_t(-step) - 1) / uint64_t(-step);
    size_t need = size_t(num_columns) * kBatchLanes;
    if (frame.batch_columns.size() < need) frame.batch_columns.resize(need);
    Col vars[kMaxLaneVars];
    Lanes lanes{frame, frame.batch_columns.data(), vars, 0};
    Slot* loop_values = lanes.column(0);
    for (uint64_t first = 0; first < trips; first += kBatchLanes) {
      lanes.n = int(std::min<uint64_t>(kBatchLanes, trips - first));
      for (int k = 0; k < lanes.n; ++k) loop_values[k].i = b + int64_t(first + uint64_t(k)) * step;
      vars[0] = {loop_values, false, true, step};
      body->run(lanes);
    }
  }
};

}  // namespace

CStmtPtr make_batched_loop(const ForNode& loop, Span span, BatchHooks& hooks) {
  if (loop.for_kind != ForKind::kParallel || !loop.var->dtype.is_integer()) return nullptr;
  auto out = std::make_unique<BatchedForStmt>();
  try {
    BatchCompiler compiler(hooks, loop.var);
    out->body = compiler.stmt(loop.body);
    out->num_columns = compiler.num_columns();
  } catch (const NotBatchable&) {
    return nullptr;
  }
  out->var_type = loop.var->dtype;
  out->begin = hooks.scalar_expr(loop.begin);
  out->end = hooks.scalar_expr(loop.end);
  out->step = loop.step;
  out->name = loop.var.name();
  out->span = span;
  return out;
}

}  // namespace tilec::interp
