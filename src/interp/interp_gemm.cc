// T.gemm in the reference interpreter, by docs/semantics.md: the operands' shapes must
// agree; operands are converted to C's dtype (elements outside their tensor read as zero,
// unwritten elements of an allocation are an error); each C element accumulates its
// products in ascending k, each multiply and add rounded to C's dtype. float32 and float64
// accumulators run on machine floats (interp_gemm_kernel.h), bit for bit the same; other
// dtypes run element by element on Slots.
#include "interp_gemm_kernel.h"
#include "interp_program.h"
#include "interp_widen.h"

#include "tilec/ir/float8.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tilec::interp {
namespace {

// A gemm operand viewed as a rows x cols matrix over its last two dimensions.
struct Matrix {
  Box box;
  size_t row_dim = 0, col_dim = 0;
  int64_t rows = 0, cols = 0;
};

// Where a matrix's elements lie: the offset of its box's leading coordinates (row and
// column at 0; -1 when they are outside the tensor, or a dimension is empty, and then
// every element is), plus each row's and each column's own part (kOutside: that row or
// column is outside the tensor). Element (r, c) is at base + rows[r] + cols[c].
// dense_cols: every column is inside and one element after the last, so a row is one run.
constexpr int64_t kOutside = std::numeric_limits<int64_t>::min();
struct Layout {
  int64_t base = -1;
  std::vector<int64_t> rows, cols;
  bool dense_cols = false;
  int64_t offset(int64_t r, int64_t c) const {
    int64_t row = rows[size_t(r)], col = cols[size_t(c)];
    return base >= 0 && row != kOutside && col != kOutside ? base + row + col : -1;
  }
  // The offset of row r's first element when the row is one run inside the tensor, else -1.
  int64_t run_start(int64_t r) const {
    int64_t row = rows[size_t(r)];
    return dense_cols && !cols.empty() && base >= 0 && row != kOutside ? base + row + cols[0] : -1;
  }
};
Layout layout_of(const Matrix& mat) {
  const BufferSlot& slot = *mat.box.slot;
  Layout layout;
  std::vector<int64_t> index = mat.box.start;
  index[mat.row_dim] = index[mat.col_dim] = 0;
  layout.base = offset_or_minus_one(slot, index.data());
  auto parts = [&](size_t dim, int64_t count) {
    std::vector<int64_t> part(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) {
      int64_t at = mat.box.start[dim] + r;
      part[size_t(r)] = at >= 0 && at < slot.shape[dim] ? at * slot.strides[dim] : kOutside;
    }
    return part;
  };
  layout.rows = parts(mat.row_dim, mat.rows);
  layout.cols = parts(mat.col_dim, mat.cols);
  layout.dense_cols = true;
  for (size_t c = 0; c < layout.cols.size(); ++c)
    layout.dense_cols &=
        layout.cols[c] != kOutside && layout.cols[c] == layout.cols[0] + int64_t(c);
  return layout;
}

// Converts the matrix into `out`: element (r, c) to out[r * ld + c], or to out[c * ld + r]
// when `transposed`. A row that is one run goes through `widen` (false: it could not, and
// the row is converted element by element); other elements through `load`, zero when
// outside the tensor. False, with `out` partly filled, at an unwritten element (the caller
// reports it).
template <typename F, typename Load, typename Widen>
bool gather_machine(const Matrix& mat, const Layout& layout, bool transposed, F* out, int64_t ld,
                    Load load, Widen widen) {
  const BufferSlot& slot = *mat.box.slot;
  const uint8_t* written = slot.written;
  int64_t row_step = transposed ? 1 : ld, col_step = transposed ? ld : 1;
  for (int64_t r = 0; r < mat.rows; ++r) {
    F* dst = out + r * row_step;
    int64_t first = layout.run_start(r);
    if (first >= 0) {
      if (run_has_unwritten(slot, first, mat.cols)) return false;
      if (widen(slot.data, first, mat.cols, dst, col_step)) continue;
    }
    for (int64_t c = 0; c < mat.cols; ++c) {
      int64_t off = layout.offset(r, c);
      if (off < 0) {
        dst[c * col_step] = F(0);
        continue;
      }
      if (written && !written[off]) return false;
      dst[c * col_step] = load(slot.data, off);
    }
  }
  return true;
}

// The values of the 256 codes of a float8 dtype as floats (every one exact).
const float* float8_values(DataType dtype) {
  auto decode = [](DataType t) {
    std::array<float, 256> values;
    for (int bits = 0; bits < 256; ++bits)
      values[size_t(bits)] = float(float8_to_double(uint8_t(bits), t));
    return values;
  };
  static const std::array<float, 256> e4m3 = decode(DataType::Float8E4M3());
  static const std::array<float, 256> e5m2 = decode(DataType::Float8E5M2());
  return dtype == DataType::Float8E4M3() ? e4m3.data() : e5m2.data();
}

// A row widening for the operand's dtype when F is float (float16, bfloat16, float32 and
// float8 hold only values a float holds exactly); none otherwise.
template <typename F>
auto row_widening(DataType from) {
  return [from](const char* data, int64_t first, int64_t count, F* dst, int64_t step) {
    if constexpr (std::is_same_v<F, float>) {
      if (from == DataType::Float16()) return widen_float16_run(data + 2 * first, count, dst, step);
      if (from == DataType::BFloat16())
        return widen_bfloat16_run(data + 2 * first, count, dst, step);
      if (from == DataType::Float32()) return widen_float32_run(data + 4 * first, count, dst, step);
      if (from == DataType::Float8E4M3() || from == DataType::Float8E5M2()) {
        const float* values = float8_values(from);
        const auto* codes = reinterpret_cast<const uint8_t*>(data + first);
        bool nan = false;
        for (int64_t i = 0; i < count; ++i) {
          float v = values[codes[i]];
          nan |= v != v;
          dst[i * step] = v;
        }
        return !nan;
      }
    }
    (void)data, (void)first, (void)count, (void)dst, (void)step;
    return false;
  };
}

// gather_machine with the operand's dtype: each element as convert() to C's dtype `ct`
// (F's) makes it, runs widened directly where row_widening can.
template <typename F>
bool gather_operand(const Matrix& mat, bool transposed, F* out, int64_t ld, DataType ct) {
  const BufferInfo& info = *mat.box.info;
  DataType from = info.dtype;
  auto load = [&](const char* d, int64_t off) {
    return F(convert_inline(read_element(info, d, off), from, ct).f);
  };
  return gather_machine<F>(mat, layout_of(mat), transposed, out, ld, load, row_widening<F>(from));
}

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

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
    if (ct == DataType::Float32()) return run_machine<float>(a, b, c, m_size, n_size, k_size);
    if (ct == DataType::Float(64)) return run_machine<double>(a, b, c, m_size, n_size, k_size);
    run_slots(a, b, c, m_size, n_size, k_size);
  }

 private:
  // float32/float64 accumulation in the machine type: one IEEE multiply or add in
  // float is exactly round_float() of the same operation in double (the double
  // product of two floats is exact, and double rounding of a sum of two floats is
  // innocuous), so this is bit-identical to run_slots. A is gathered as [m][k] and B
  // as [k][n], padded with zeros to the kernel's blocks; C's elements outside its
  // tensor are computed and dropped.
  template <typename F>
  void run_machine(const Matrix& a, const Matrix& b, const Matrix& c, int64_t m_size,
                   int64_t n_size, int64_t k_size) const {
    DataType ct = c.box.info->dtype;
    int64_t m_pad = round_up(m_size, kGemmRowBlock), n_pad = round_up(n_size, kGemmColBlock<F>);
    std::vector<F> at(size_t(m_pad * k_size), F(0)), bt(size_t(k_size * n_pad), F(0));
    std::vector<F> acc(size_t(m_pad * n_pad), F(0));
    // At an unwritten element the Slot gathers, which visit A's and then B's elements in
    // the order the error has always named the first of, report it.
    if (!gather_operand(a, ta_, at.data(), k_size, ct))
      report_unwritten(a, ta_, m_size, k_size, ct);
    if (!gather_operand(b, tb_, bt.data(), n_pad, ct))
      report_unwritten(b, !tb_, n_size, k_size, ct);
    const BufferSlot& slot = *c.box.slot;
    const BufferInfo& info = *c.box.info;
    Layout layout = layout_of(c);
    // float32 rows of C move as runs; a run with an unwritten element, an infinity or a
    // NaN goes element by element (the first unwritten one is reported in row order).
    bool float_runs = std::is_same_v<F, float> && ct == DataType::Float32();
    for (int64_t m = 0; !clear_ && m < m_size; ++m) {
      F* row = acc.data() + m * n_pad;
      int64_t first = layout.run_start(m);
      if constexpr (std::is_same_v<F, float>) {
        if (float_runs && first >= 0 && !run_has_unwritten(slot, first, n_size) &&
            widen_float32_run(slot.data + 4 * first, n_size, row, 1))
          continue;
      }
      for (int64_t n = 0; n < n_size; ++n) {
        int64_t off = layout.offset(m, n);
        if (off < 0) continue;
        require_written(slot, info, off, span_);
        row[n] = F(read_element(info, slot.data, off).f);
      }
    }
    gemm_accumulate(at.data(), bt.data(), acc.data(), m_pad, n_pad, k_size);
    for (int64_t m = 0; m < m_size; ++m) {
      const F* row = acc.data() + m * n_pad;
      int64_t first = layout.run_start(m);
      if (float_runs && first >= 0) {
        // A float sum stored as float32 is its own bits (sums are never signalling NaNs).
        std::memcpy(slot.data + 4 * first, row, size_t(n_size) * sizeof(F));
        if (slot.written) std::memset(slot.written + first, 1, size_t(n_size));
        continue;
      }
      for (int64_t n = 0; n < n_size; ++n) {
        int64_t off = layout.offset(m, n);
        if (off < 0) continue;
        write_element(info, slot.data, off, float_slot(double(row[n])));
        mark_written(slot, off);
      }
    }
  }

  // The operand as Slots of C's dtype `ct`, [outer][inner] as gather_machine orders it;
  // reports the first unwritten element.
  std::vector<Slot> gather_slots(const Matrix& mat, bool transposed, int64_t outer, int64_t inner,
                                 DataType ct) const {
    std::vector<Slot> tile(size_t(outer * inner));
    const BufferSlot& slot = *mat.box.slot;
    DataType from = mat.box.info->dtype;
    Layout layout = layout_of(mat);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t off = transposed ? layout.offset(i, o) : layout.offset(o, i);
        require_written(slot, *mat.box.info, off, span_);
        Slot v = off >= 0 ? read_element(*mat.box.info, slot.data, off) : zero_slot(from);
        tile[size_t(o * inner + i)] = convert_inline(v, from, ct);
      }
    }
    return tile;
  }

  [[noreturn]] void report_unwritten(const Matrix& mat, bool transposed, int64_t outer,
                                     int64_t inner, DataType ct) const {
    gather_slots(mat, transposed, outer, inner, ct);
    throw IRError(
        fmt::format("{}internal error: T.gemm found an unwritten element of '{}' that "
                    "its reporting scan did not; please report this kernel",
                    where(span_), mat.box.info->name));
  }

  void run_slots(const Matrix& a, const Matrix& b, const Matrix& c, int64_t m_size, int64_t n_size,
                 int64_t k_size) const {
    DataType ct = c.box.info->dtype;
    std::vector<Slot> at = gather_slots(a, ta_, m_size, k_size, ct);   // [m][k]
    std::vector<Slot> bt = gather_slots(b, !tb_, n_size, k_size, ct);  // [n][k]
    Layout layout = layout_of(c);
    for (int64_t m = 0; m < m_size; ++m) {
      for (int64_t n = 0; n < n_size; ++n) {
        int64_t off = layout.offset(m, n);
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

}  // namespace

CStmtPtr make_gemm(CRegion a, CRegion b, CRegion c, bool transpose_a, bool transpose_b,
                   bool clear_accum, Span span) {
  return std::make_unique<GemmStmt>(std::move(a), std::move(b), std::move(c), transpose_a,
                                    transpose_b, clear_accum, span);
}

}  // namespace tilec::interp
