// Tile operations of the reference interpreter, by docs/semantics.md: T.copy with
// its region rules and edge masking, T.fill, T.gemm and the reductions.
#include "interp_program.h"

#include "tilec/ir/tensor.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::ir::interp {

void report_uninitialized_read(const BufferSlot& slot, const BufferInfo& info, int64_t off,
                               Span span) {
  std::vector<int64_t> index(slot.shape.size());
  for (size_t d = 0; d < slot.shape.size(); ++d) {
    index[d] = slot.strides[d] ? off / slot.strides[d] : 0;
    off -= index[d] * slot.strides[d];
  }
  throw IRError(fmt::format(
      "{}read of '{}' at index [{}] (shape [{}]) before anything wrote it: allocations start "
      "uninitialised; write the element first (T.clear / T.fill / T.copy, or clear_accum=True "
      "on T.gemm)",
      where(span), info.name, fmt::join(index, ", "), fmt::join(slot.shape, ", ")));
}

std::string where(Span span) {
  return span.known() ? fmt::format("line {}:{}: ", span.line, span.col) : std::string();
}

Box resolve(const CRegion& region, Frame& frame, Span span) {
  Box box;
  box.slot = &frame.buffers[region.buffer];
  box.info = region.info;
  size_t nd = box.slot->shape.size();
  if (region.dims.empty()) {
    box.start.assign(nd, 0);
    box.extent = box.slot->shape;
    return box;
  }
  box.point = true;
  for (const auto& d : region.dims) {
    int64_t start = d.start->eval_int(frame);
    int64_t extent = 1;
    if (d.stop) {
      box.point = false;
      extent = d.stop->eval_int(frame) - start;
      if (extent < 0) {
        throw IRError(fmt::format("{}slice of '{}' has negative extent {} (stop before start)",
                                  where(span), region.info->name, extent));
      }
    }
    box.start.push_back(start);
    box.extent.push_back(extent);
  }
  return box;
}

namespace {

std::string box_str(const Box& b) {
  return fmt::format("{}[start {}, extent {}]", b.info->name, fmt::join(b.start, ", "),
                     fmt::join(b.extent, ", "));
}

// Dimensions with extent other than 1, in order: the region's logical shape.
std::vector<size_t> non_unit_dims(const Box& b) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < b.extent.size(); ++d)
    if (b.extent[d] != 1) dims.push_back(d);
  return dims;
}

// A point operand takes the other side's extents, right-aligned to its own rank
// (leading unit extents of the other side are dropped or padded), as TileLang does.
void adopt_extent(Box& point, std::vector<int64_t> extent, Span span) {
  size_t nd = point.start.size();
  while (extent.size() > nd && extent.front() == 1) extent.erase(extent.begin());
  if (extent.size() > nd) {
    throw IRError(
        fmt::format("{}T.copy: '{}' is indexed at one element of a {}-d buffer but the other side "
                    "has extent [{}]; give '{}' a slice per dimension instead",
                    where(span), point.info->name, nd, fmt::join(extent, ", "), point.info->name));
  }
  extent.insert(extent.begin(), nd - extent.size(), 1);
  point.extent = std::move(extent);
  point.point = false;
}

// Calls fn(offset-or-minus-one) for every element of the box, in row-major order of
// `dims` (the other dimensions stay at their start).
template <class Fn>
void for_each_in(const Box& box, const std::vector<size_t>& dims, std::vector<int64_t>& index,
                 size_t k, const Fn& fn) {
  if (k == dims.size()) {
    fn(offset_or_minus_one(*box.slot, index.data()));
    return;
  }
  size_t d = dims[k];
  for (int64_t i = 0; i < box.extent[d]; ++i) {
    index[d] = box.start[d] + i;
    for_each_in(box, dims, index, k + 1, fn);
  }
}

// Offsets of the elements of one row of a buffer: every coordinate but `dim` fixed.
struct RowWalk {
  const BufferSlot& slot;
  size_t dim;
  int64_t base = 0;
  bool inside = true;  // the fixed coordinates are inside the shape
  RowWalk(const BufferSlot& s, const std::vector<int64_t>& index, size_t d) : slot(s), dim(d) {
    for (size_t k = 0; k < index.size(); ++k) {
      if (k == dim) continue;
      inside = inside && index[k] >= 0 && index[k] < slot.shape[k];
      base += index[k] * slot.strides[k];
    }
  }
  // Offset with coordinate `c` along `dim`, or -1 outside the shape.
  int64_t offset(int64_t c) const {
    return inside && c >= 0 && c < slot.shape[dim] ? base + c * slot.strides[dim] : -1;
  }
};

class CopyStmt : public CStmt {
 public:
  CopyStmt(CRegion src, CRegion dst, Span span)
      : src_(std::move(src)), dst_(std::move(dst)), span_(span) {}
  void run(Frame& frame) const override {
    Box s = resolve(src_, frame, span_), d = resolve(dst_, frame, span_);
    if (s.point && !d.point) adopt_extent(s, d.extent, span_);
    if (d.point && !s.point) adopt_extent(d, s.extent, span_);
    std::vector<size_t> sd = non_unit_dims(s), dd = non_unit_dims(d);
    bool agree = sd.size() == dd.size();
    for (size_t k = 0; agree && k < sd.size(); ++k) agree = s.extent[sd[k]] == d.extent[dd[k]];
    if (!agree) {
      throw IRError(fmt::format(
          "{}T.copy extents do not agree once unit dimensions are dropped: source {} vs "
          "destination {}",
          where(span_), box_str(s), box_str(d)));
    }
    DataType from = s.info->dtype, to = d.info->dtype;
    Reader read = s.info->read;
    Writer write = d.info->write;
    std::vector<int64_t> si = s.start, di = d.start;
    const BufferSlot& ss = *s.slot;
    const BufferSlot& ds = *d.slot;
    // Walk the logical shape once, moving both sides' indices together.
    std::vector<int64_t> shape;
    for (size_t k : sd) shape.push_back(s.extent[k]);
    std::vector<int64_t> li(shape.size(), 0);
    for (int64_t e : shape)
      if (e == 0) return;
    // Rows of the innermost logical dimension: a row that is contiguous and in bounds on
    // both sides, between distinct buffers of one dtype, is moved as bytes (the same
    // values the element loop writes, with the same written-flag checks); any other row
    // goes element by element, where out-of-bounds sources read as zero.
    size_t inner = shape.empty() ? 0 : shape.size() - 1;
    int64_t row = shape.empty() ? 1 : shape[inner];
    bool rows_as_bytes = !shape.empty() && from == to && ss.data != ds.data &&
                         ss.strides[sd[inner]] == 1 && ds.strides[dd[inner]] == 1;
    size_t elem = size_t(from.bytes());
    while (true) {
      for (size_t k = 0; k < shape.size(); ++k) {
        si[sd[k]] = s.start[sd[k]] + li[k];
        di[dd[k]] = d.start[dd[k]] + li[k];
      }
      int64_t so = offset_or_minus_one(ss, si.data());
      int64_t dof = offset_or_minus_one(ds, di.data());
      if (rows_as_bytes && so >= 0 && dof >= 0 && si[sd[inner]] + row <= ss.shape[sd[inner]] &&
          di[dd[inner]] + row <= ds.shape[dd[inner]]) {
        for (int64_t i = 0; ss.written && i < row; ++i) require_written(ss, *s.info, so + i, span_);
        std::memcpy(ds.data + size_t(dof) * elem, ss.data + size_t(so) * elem, size_t(row) * elem);
        if (ds.written) std::memset(ds.written + dof, 1, size_t(row));
      } else if (shape.empty()) {  // a point copy: one element
        if (dof >= 0) {
          require_written(ss, *s.info, so, span_);
          Slot v = so >= 0 ? read(ss.data, so) : zero_slot(from);
          write(ds.data, dof, convert(v, from, to));
          mark_written(ds, dof);
        }
      } else {
        // Each side's offset along the row: the row's other coordinates once, then the
        // innermost coordinate per element (-1 where either falls outside).
        RowWalk src_row(ss, si, sd[inner]), dst_row(ds, di, dd[inner]);
        for (int64_t i = 0; i < row; ++i) {
          dof = dst_row.offset(d.start[dd[inner]] + i);
          if (dof < 0) continue;
          so = src_row.offset(s.start[sd[inner]] + i);
          require_written(ss, *s.info, so, span_);
          Slot v = so >= 0 ? read_element(*s.info, ss.data, so) : zero_slot(from);
          write_element(*d.info, ds.data, dof, convert_inline(v, from, to));
          mark_written(ds, dof);
        }
      }
      // Next row: advance the outer logical dimensions only (a point copy has one row).
      size_t k = shape.empty() ? 0 : inner;
      while (k > 0 && ++li[k - 1] == shape[k - 1]) li[--k] = 0;
      if (k == 0) break;
    }
  }

 private:
  CRegion src_, dst_;
  Span span_;
};

class FillStmt : public CStmt {
 public:
  FillStmt(CRegion dst, CExprPtr value, Span span)
      : dst_(std::move(dst)), value_(std::move(value)), span_(span) {}
  void run(Frame& frame) const override {
    Box d = resolve(dst_, frame, span_);
    Slot v = convert(value_->eval(frame), value_->dtype, d.info->dtype);
    std::vector<size_t> dims(d.extent.size());
    for (size_t k = 0; k < dims.size(); ++k) dims[k] = k;
    std::vector<int64_t> index = d.start;
    char* data = d.slot->data;
    Writer write = d.info->write;
    for_each_in(d, dims, index, 0, [&](int64_t off) {
      if (off >= 0) {
        write(data, off, v);
        mark_written(*d.slot, off);
      }
    });
  }

 private:
  CRegion dst_;
  CExprPtr value_;
  Span span_;
};

// A gemm operand viewed as a rows x cols matrix over its last two dimensions.
struct Matrix {
  Box box;
  size_t row_dim = 0, col_dim = 0;
  int64_t rows = 0, cols = 0;
  int64_t offset(int64_t r, int64_t c, std::vector<int64_t>& index) const {
    index[row_dim] = box.start[row_dim] + r;
    index[col_dim] = box.start[col_dim] + c;
    return offset_or_minus_one(*box.slot, index.data());
  }
};

class GemmStmt : public CStmt {
 public:
  GemmStmt(CRegion a, CRegion b, CRegion c, bool ta, bool tb, bool clear, Span span)
      : a_(std::move(a)),
        b_(std::move(b)),
        c_(std::move(c)),
        ta_(ta),
        tb_(tb),
        clear_(clear),
        span_(span) {}

  void run(Frame& frame) const override {
    Matrix a = matrix(a_, "A", frame), b = matrix(b_, "B", frame), c = matrix(c_, "C", frame);
    int64_t m_size = c.rows, n_size = c.cols;
    int64_t a_m = ta_ ? a.cols : a.rows, a_k = ta_ ? a.rows : a.cols;
    int64_t b_k = tb_ ? b.cols : b.rows, b_n = tb_ ? b.rows : b.cols;
    if (a_m != m_size || b_n != n_size || a_k != b_k) {
      throw IRError(fmt::format(
          "{}T.gemm shapes do not agree: A is {}x{} (transpose_A={}, read as M x K = {}x{}), "
          "B is {}x{} (transpose_B={}, read as K x N = {}x{}), C is {}x{} (M x N)",
          where(span_), a.rows, a.cols, ta_ ? "True" : "False", a_m, a_k, b.rows, b.cols,
          tb_ ? "True" : "False", b_k, b_n, m_size, n_size));
    }
    int64_t k_size = a_k;
    DataType ct = c.box.info->dtype;
    // Operands converted to C's dtype once; out-of-bounds elements read as zero.
    auto gather = [&](const Matrix& mat, bool transposed, int64_t outer, int64_t inner) {
      std::vector<Slot> tile(size_t(outer * inner));
      const BufferSlot& slot = *mat.box.slot;
      DataType from = mat.box.info->dtype;
      // The offset of the box's leading coordinates (row and column at 0; -1 when they
      // are outside, or a dimension is empty, and then every element is), and each row's
      // and column's own part (kOutside: outside the tensor).
      constexpr int64_t kOutside = std::numeric_limits<int64_t>::min();
      std::vector<int64_t> index = mat.box.start;
      index[mat.row_dim] = index[mat.col_dim] = 0;
      int64_t base = offset_or_minus_one(slot, index.data());
      auto parts = [&](size_t dim, int64_t count) {
        std::vector<int64_t> part(static_cast<size_t>(count));
        for (int64_t r = 0; r < count; ++r) {
          int64_t at = mat.box.start[dim] + r;
          part[size_t(r)] = at >= 0 && at < slot.shape[dim] ? at * slot.strides[dim] : kOutside;
        }
        return part;
      };
      std::vector<int64_t> rows = parts(mat.row_dim, mat.rows), cols = parts(mat.col_dim, mat.cols);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t row = rows[size_t(transposed ? i : o)], col = cols[size_t(transposed ? o : i)];
          int64_t off = base >= 0 && row != kOutside && col != kOutside ? base + row + col : -1;
          require_written(slot, *mat.box.info, off, span_);
          Slot v = off >= 0 ? read_element(*mat.box.info, slot.data, off) : zero_slot(from);
          tile[size_t(o * inner + i)] = convert_inline(v, from, ct);
        }
      }
      return tile;
    };
    std::vector<Slot> at = gather(a, ta_, m_size, k_size);   // [m][k]
    std::vector<Slot> bt = gather(b, !tb_, n_size, k_size);  // [n][k]
    if (ct == DataType::Float32())
      return native_float_gemm<float>(c, at, bt, m_size, n_size, k_size);
    if (ct == DataType::Float(64))
      return native_float_gemm<double>(c, at, bt, m_size, n_size, k_size);
    std::vector<int64_t> index = c.box.start;
    for (int64_t m = 0; m < m_size; ++m) {
      for (int64_t n = 0; n < n_size; ++n) {
        int64_t off = c.offset(m, n, index);
        Slot acc = zero_slot(ct);
        if (!clear_ && off >= 0) {
          require_written(*c.box.slot, *c.box.info, off, span_);
          acc = c.box.info->read(c.box.slot->data, off);
        }
        const Slot* ar = at.data() + m * k_size;  // at/bt are empty when K = 0
        const Slot* br = bt.data() + n * k_size;
        if (ct.is_float()) {
          double sum = acc.f;
          for (int64_t k = 0; k < k_size; ++k)
            sum = round_float(sum + round_float(ar[k].f * br[k].f, ct), ct);
          acc.f = sum;
        } else {
          for (int64_t k = 0; k < k_size; ++k)
            acc = arith(BinaryOp::kAdd, acc, arith(BinaryOp::kMul, ar[k], br[k], ct), ct);
        }
        if (off >= 0) {
          c.box.info->write(c.box.slot->data, off, acc);
          mark_written(*c.box.slot, off);
        }
      }
    }
  }

 private:
  // float32/float64 accumulation in the machine type: one IEEE multiply or add in
  // float is exactly round_float() of the same operation in double (the double
  // product of two floats is exact, and double rounding of a sum of two floats is
  // innocuous), so this is bit-identical to the Slot loop, with the same ascending-k
  // order per element, but laid out n-innermost so the compiler can vectorise over n
  // (the interpreter is built with -ffp-contract=off: no fused multiply-adds).
  template <typename F>
  void native_float_gemm(const Matrix& c, const std::vector<Slot>& at, const std::vector<Slot>& bt,
                         int64_t m_size, int64_t n_size, int64_t k_size) const {
    std::vector<F> a(static_cast<size_t>(m_size * k_size));
    std::vector<F> b(static_cast<size_t>(k_size * n_size));
    std::vector<F> acc(static_cast<size_t>(n_size));
    for (size_t i = 0; i < a.size(); ++i) a[i] = F(at[i].f);
    for (int64_t n = 0; n < n_size; ++n)  // bt is [n][k]; b becomes [k][n]
      for (int64_t k = 0; k < k_size; ++k)
        b[size_t(k * n_size + n)] = F(bt[size_t(n * k_size + k)].f);
    std::vector<int64_t> index = c.box.start;
    std::vector<int64_t> offsets(static_cast<size_t>(n_size));
    for (int64_t m = 0; m < m_size; ++m) {
      for (int64_t n = 0; n < n_size; ++n) {
        int64_t off = c.offset(m, n, index);
        offsets[size_t(n)] = off;
        if (!clear_) require_written(*c.box.slot, *c.box.info, off, span_);
        acc[size_t(n)] = !clear_ && off >= 0 ? F(c.box.info->read(c.box.slot->data, off).f) : F(0);
      }
      F* sum = acc.data();
      const F* arow = a.data() + m * k_size;  // not &a[..]: a is empty when K = 0
      for (int64_t k = 0; k < k_size; ++k) {
        F ak = arow[k];
        const F* brow = b.data() + k * n_size;
        for (int64_t n = 0; n < n_size; ++n) sum[n] = sum[n] + ak * brow[n];
      }
      for (int64_t n = 0; n < n_size; ++n)
        if (offsets[size_t(n)] >= 0) {
          c.box.info->write(c.box.slot->data, offsets[size_t(n)], float_slot(double(sum[n])));
          mark_written(*c.box.slot, offsets[size_t(n)]);
        }
    }
  }

  Matrix matrix(const CRegion& region, const char* role, Frame& frame) const {
    Matrix mat;
    mat.box = resolve(region, frame, span_);
    size_t nd = mat.box.extent.size();
    bool leading_unit = true;
    for (size_t d = 0; d + 2 < nd; ++d) leading_unit &= mat.box.extent[d] == 1;
    if (mat.box.point || nd < 2 || !leading_unit) {
      throw IRError(fmt::format(
          "{}T.gemm operand {} ('{}') must be a 2-d tile (a whole buffer or slices, with any "
          "leading dimensions of extent 1); got {}",
          where(span_), role, mat.box.info->name, box_str(mat.box)));
    }
    mat.row_dim = nd - 2;
    mat.col_dim = nd - 1;
    mat.rows = mat.box.extent[nd - 2];
    mat.cols = mat.box.extent[nd - 1];
    return mat;
  }

  CRegion a_, b_, c_;
  bool ta_, tb_, clear_;
  Span span_;
};

Slot lowest(DataType t) {
  if (t.is_float()) return float_slot(-INFINITY);
  if (t.is_bool() || t.is_uint()) return int_slot(0);
  return int_slot(t.bits >= 64 ? std::numeric_limits<int64_t>::min()
                               : -(int64_t(1) << (t.bits - 1)));
}
Slot highest(DataType t) {
  if (t.is_float()) return float_slot(INFINITY);
  if (t.is_bool()) return int_slot(1);
  if (t.is_uint()) return int_slot(t.bits >= 64 ? -1 : int64_t((uint64_t(1) << t.bits) - 1));
  return int_slot(t.bits >= 64 ? std::numeric_limits<int64_t>::max()
                               : int64_t((uint64_t(1) << (t.bits - 1)) - 1));
}

class ReduceStmt : public CStmt {
 public:
  ReduceStmt(ReduceKind kind, int src, const BufferInfo* src_info, int dst,
             const BufferInfo* dst_info, int dim, bool clear, Span span)
      : kind_(kind),
        src_(src),
        dst_(dst),
        src_info_(src_info),
        dst_info_(dst_info),
        dim_(dim),
        clear_(clear),
        span_(span) {}

  void run(Frame& frame) const override {
    const BufferSlot& s = frame.buffers[src_];
    const BufferSlot& d = frame.buffers[dst_];
    int nd = int(s.shape.size());
    int dim = dim_ < 0 ? dim_ + nd : dim_;
    if (dim < 0 || dim >= nd) {
      throw IRError(
          fmt::format("{}T.reduce_{}: dim={} is out of range for '{}' with {} dimension(s)",
                      where(span_), to_string(kind_), dim_, src_info_->name, nd));
    }
    std::vector<int64_t> reduced = s.shape;
    reduced.erase(reduced.begin() + dim);
    std::vector<int64_t> kept = s.shape;
    kept[size_t(dim)] = 1;
    bool keep_dim = d.shape == kept && d.shape != reduced;
    if (d.shape != reduced && !keep_dim) {
      throw IRError(fmt::format(
          "{}T.reduce_{}: '{}' has shape [{}] but reducing '{}' [{}] over dim {} gives [{}]",
          where(span_), to_string(kind_), dst_info_->name, fmt::join(d.shape, ", "),
          src_info_->name, fmt::join(s.shape, ", "), dim, fmt::join(reduced, ", ")));
    }
    DataType from = src_info_->dtype, to = dst_info_->dtype;
    bool absolute = kind_ == ReduceKind::kAbsSum || kind_ == ReduceKind::kAbsMax;
    BinaryOp combine = kind_ == ReduceKind::kMax || kind_ == ReduceKind::kAbsMax ? BinaryOp::kMax
                       : kind_ == ReduceKind::kMin                               ? BinaryOp::kMin
                                                                                 : BinaryOp::kAdd;
    Slot identity = kind_ == ReduceKind::kMax   ? lowest(to)
                    : kind_ == ReduceKind::kMin ? highest(to)
                                                : zero_slot(to);
    std::vector<int64_t> outer_shape = s.shape;
    outer_shape[size_t(dim)] = 1;
    std::vector<int64_t> si(size_t(nd), 0), li(size_t(nd), 0);
    for (int64_t e : outer_shape)
      if (e == 0) return;
    while (true) {
      // Destination index: the source index without `dim` (or with 0 there).
      std::vector<int64_t> di;
      for (int k = 0; k < nd; ++k)
        if (k != dim || keep_dim) di.push_back(k == dim ? 0 : li[size_t(k)]);
      int64_t doff = offset_or_minus_one(d, di.data());
      if (!clear_) require_written(d, *dst_info_, doff, span_);
      Slot acc = clear_ ? identity : dst_info_->read(d.data, doff);
      si = li;
      // The reduced dimension is walked by its stride: every index is inside the shape.
      int64_t extent = s.shape[size_t(dim)], stride = s.strides[size_t(dim)];
      int64_t base = extent > 0 ? offset_or_minus_one(s, si.data()) : 0;
      for (int64_t r = 0; r < extent; ++r) {
        int64_t soff = base + r * stride;
        require_written(s, *src_info_, soff, span_);
        Slot v = read_element(*src_info_, s.data, soff);
        v = convert_inline(v, from, to);
        if (absolute) v = absolute_value(v, to);
        if (!to.is_float()) {
          acc = arith(combine, acc, v, to);
        } else if (combine == BinaryOp::kAdd) {
          acc.f = round_to_dtype_inline(acc.f + v.f, to);  // arith's float add
        } else {
          acc.f = combine == BinaryOp::kMax ? std::fmax(acc.f, v.f) : std::fmin(acc.f, v.f);
        }
      }
      dst_info_->write(d.data, doff, acc);
      mark_written(d, doff);
      int k = nd;
      while (k > 0 && ++li[size_t(k - 1)] == outer_shape[size_t(k - 1)]) li[size_t(--k)] = 0;
      if (k == 0) break;
    }
  }

 private:
  static Slot absolute_value(Slot v, DataType t) {
    if (t.is_float()) return float_slot(std::fabs(v.f));
    if (t.is_uint() || t.is_bool()) return v;
    return int_slot(wrap_to_dtype(int64_t(v.i < 0 ? 0 - uint64_t(v.i) : uint64_t(v.i)), t));
  }

  ReduceKind kind_;
  int src_, dst_;
  const BufferInfo *src_info_, *dst_info_;
  int dim_;
  bool clear_;
  Span span_;
};

}  // namespace

CStmtPtr make_copy(CRegion src, CRegion dst, Span span) {
  return std::make_unique<CopyStmt>(std::move(src), std::move(dst), span);
}
CStmtPtr make_fill(CRegion dst, CExprPtr value, Span span) {
  return std::make_unique<FillStmt>(std::move(dst), std::move(value), span);
}
CStmtPtr make_gemm(CRegion a, CRegion b, CRegion c, bool transpose_a, bool transpose_b,
                   bool clear_accum, Span span) {
  return std::make_unique<GemmStmt>(std::move(a), std::move(b), std::move(c), transpose_a,
                                    transpose_b, clear_accum, span);
}
CStmtPtr make_reduce(ReduceKind kind, int src, const BufferInfo* src_info, int dst,
                     const BufferInfo* dst_info, int dim, bool clear, Span span) {
  return std::make_unique<ReduceStmt>(kind, src, src_info, dst, dst_info, dim, clear, span);
}

}  // namespace tilec::ir::interp
