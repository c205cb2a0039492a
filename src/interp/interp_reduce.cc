// T.reduce_{sum,max,min,abssum,absmax} in the reference interpreter, by docs/semantics.md:
// each output element starts from the destination (or the identity with clear=True) and
// combines the source elements along `dim` in ascending order, each step rounded to the
// destination's dtype; reading an unwritten element of an allocation is an error.
// float32 into float32 runs on machine floats, several outputs at a time (bit for bit the
// same); everything else, and any reduction that would read an unwritten element, runs
// element by element on Slots.
#include "interp_program.h"

#include "tilec/ir/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::interp {
namespace {

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

// Every element of an allocation written (parameters have no flags: always).
bool all_written(const BufferSlot& slot) {
  return !slot.written || std::memchr(slot.written, 0, size_t(slot.numel)) == nullptr;
}

// acc[i] = combine(acc[i], row[i * step]) for the w outputs of a block. One float add is
// exactly round_float() of the double add (double rounding of a sum of two floats is
// innocuous); max and min go through double as the Slot path does, and are exact.
template <ReduceKind kKind>
void combine_row(float* acc, const char* row, int64_t w, int64_t step) {
  for (int64_t i = 0; i < w; ++i) {
    float v = float(load_float32(row, i * step));  // exact: a float32 widened and back
    if constexpr (kKind == ReduceKind::kAbsSum || kKind == ReduceKind::kAbsMax) v = std::fabs(v);
    if constexpr (kKind == ReduceKind::kSum || kKind == ReduceKind::kAbsSum) {
      acc[i] += v;  // an add: never a signalling NaN
    } else if constexpr (kKind == ReduceKind::kMin) {
      acc[i] = float(std::fmin(double(acc[i]), double(v)));
    } else {
      acc[i] = float(std::fmax(double(acc[i]), double(v)));
    }
  }
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
    for (size_t k = 0; k < s.shape.size(); ++k)
      if (s.shape[k] == 0 && int(k) != dim) return;  // no outputs
    if (run_float32(s, d, dim, keep_dim)) return;
    run_slots(s, d, dim, keep_dim);
  }

 private:
  Slot identity(DataType to) const {
    return kind_ == ReduceKind::kMax   ? lowest(to)
           : kind_ == ReduceKind::kMin ? highest(to)
                                       : zero_slot(to);
  }

  // float32 into float32 when every element it reads is written (so nothing can fail):
  // the outputs along the innermost kept dimension `j` in blocks, each block's
  // accumulators walking `dim` in ascending order together. Independent chains interleave
  // (and vectorize when j is contiguous) instead of one latency-bound chain at a time.
  bool run_float32(const BufferSlot& s, const BufferSlot& d, int dim, bool keep_dim) const {
    if (src_info_->dtype != DataType::Float32() || dst_info_->dtype != DataType::Float32() ||
        s.data == d.data || !all_written(s) || (!clear_ && !all_written(d)))
      return false;
    switch (kind_) {
      case ReduceKind::kSum:
        return blocks<ReduceKind::kSum>(s, d, dim, keep_dim), true;
      case ReduceKind::kAbsSum:
        return blocks<ReduceKind::kAbsSum>(s, d, dim, keep_dim), true;
      case ReduceKind::kMax:
        return blocks<ReduceKind::kMax>(s, d, dim, keep_dim), true;
      case ReduceKind::kMin:
        return blocks<ReduceKind::kMin>(s, d, dim, keep_dim), true;
      case ReduceKind::kAbsMax:
        return blocks<ReduceKind::kAbsMax>(s, d, dim, keep_dim), true;
    }
    return false;
  }

  template <ReduceKind kKind>
  void blocks(const BufferSlot& s, const BufferSlot& d, int dim, bool keep_dim) const {
    constexpr int64_t kBlock = 64;
    int nd = int(s.shape.size());
    auto dst_dim = [&](int k) { return size_t(keep_dim || k < dim ? k : k - 1); };
    int j = dim == nd - 1 ? nd - 2 : nd - 1;  // -1: a 1-d source has one output
    int64_t width = j >= 0 ? s.shape[size_t(j)] : 1;
    int64_t src_j = j >= 0 ? s.strides[size_t(j)] : 0, dst_j = j >= 0 ? d.strides[dst_dim(j)] : 0;
    int64_t extent = s.shape[size_t(dim)], src_r = s.strides[size_t(dim)];
    float init = float(identity(DataType::Float32()).f), acc[kBlock];
    std::vector<int64_t> index(size_t(nd), 0);  // over the dimensions other than dim and j
    while (true) {
      int64_t src_base = 0, dst_base = 0;
      for (int k = 0; k < nd; ++k) {
        if (k == dim || k == j) continue;
        src_base += index[size_t(k)] * s.strides[size_t(k)];
        dst_base += index[size_t(k)] * d.strides[dst_dim(k)];
      }
      for (int64_t j0 = 0; j0 < width; j0 += kBlock) {
        int64_t w = std::min(kBlock, width - j0);
        for (int64_t i = 0; i < w; ++i)
          acc[i] = clear_ ? init : float(load_float32(d.data, dst_base + (j0 + i) * dst_j));
        const char* first = s.data + (src_base + j0 * src_j) * 4;
        for (int64_t r = 0; r < extent; ++r)
          combine_row<kKind>(acc, first + r * src_r * 4, w, src_j);
        for (int64_t i = 0; i < w; ++i) {
          int64_t off = dst_base + (j0 + i) * dst_j;
          std::memcpy(d.data + off * 4, &acc[i], 4);  // a float is its own float32 bits
          mark_written(d, off);
        }
      }
      // The next outer index, the last dimension fastest; done after the last one.
      int k = nd - 1;
      for (; k >= 0; --k) {
        if (k == dim || k == j) continue;
        if (++index[size_t(k)] < s.shape[size_t(k)]) break;
        index[size_t(k)] = 0;
      }
      if (k < 0) return;
    }
  }

  void run_slots(const BufferSlot& s, const BufferSlot& d, int dim, bool keep_dim) const {
    int nd = int(s.shape.size());
    DataType from = src_info_->dtype, to = dst_info_->dtype;
    bool absolute = kind_ == ReduceKind::kAbsSum || kind_ == ReduceKind::kAbsMax;
    BinaryOp combine = kind_ == ReduceKind::kMax || kind_ == ReduceKind::kAbsMax ? BinaryOp::kMax
                       : kind_ == ReduceKind::kMin                               ? BinaryOp::kMin
                                                                                 : BinaryOp::kAdd;
    Slot start = identity(to);
    std::vector<int64_t> outer_shape = s.shape;
    outer_shape[size_t(dim)] = 1;
    std::vector<int64_t> li(size_t(nd), 0), di;
    int64_t extent = s.shape[size_t(dim)], stride = s.strides[size_t(dim)];
    while (true) {
      // Destination index: the source index without `dim` (or with 0 there).
      di.clear();
      for (int k = 0; k < nd; ++k)
        if (k != dim || keep_dim) di.push_back(k == dim ? 0 : li[size_t(k)]);
      int64_t doff = offset_or_minus_one(d, di.data());
      if (!clear_) require_written(d, *dst_info_, doff, span_);
      Slot acc = clear_ ? start : dst_info_->read(d.data, doff);
      // The reduced dimension is walked by its stride: every index is inside the shape.
      int64_t base = extent > 0 ? offset_or_minus_one(s, li.data()) : 0;
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

CStmtPtr make_reduce(ReduceKind kind, int src, const BufferInfo* src_info, int dst,
                     const BufferInfo* dst_info, int dim, bool clear, Span span) {
  return std::make_unique<ReduceStmt>(kind, src, src_info, dst, dst_info, dim, clear, span);
}

}  // namespace tilec::interp
