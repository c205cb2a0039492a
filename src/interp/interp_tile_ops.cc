// Tile operations of the reference interpreter, by docs/semantics.md: T.copy with
// its region rules and edge masking, and T.fill (T.gemm: interp_gemm.cc; the
// reductions: interp_reduce.cc).
#include "interp_program.h"
#include "interp_widen.h"

#include "tilec/ir/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tilec::interp {

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

std::string box_str(const Box& b) {
  return fmt::format("{}[start {}, extent {}]", b.info->name, fmt::join(b.start, ", "),
                     fmt::join(b.extent, ", "));
}

namespace {

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

// Fills count elements of elem bytes from `first` with a copy of the first one, doubling
// the filled part.
void repeat_first(char* first, size_t elem, size_t count) {
  size_t total = count * elem;
  for (size_t have = elem; have < total; have *= 2)
    std::memcpy(first + have, first, std::min(have, total - have));
}

// Whether the box is its whole buffer, stored densely in row-major order.
bool whole_dense(const Box& b) {
  const BufferSlot& slot = *b.slot;
  if (b.point || b.extent != slot.shape || slot.strides.size() != slot.shape.size()) return false;
  int64_t stride = 1;
  for (size_t k = slot.shape.size(); k-- > 0;) {
    if (b.start[k] != 0 || slot.strides[k] != stride) return false;
    stride *= slot.shape[k];
  }
  return stride == slot.numel;
}

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
    // float16 and bfloat16 rows into float32 ones are widened as runs (interp_widen.h).
    auto widen = from == DataType::Float16()    ? widen_float16_run
                 : from == DataType::BFloat16() ? widen_bfloat16_run
                                                : nullptr;
    bool rows_widen = !shape.empty() && widen && to == DataType::Float32() &&
                      ss.strides[sd[inner]] == 1 && ds.strides[dd[inner]] == 1;
    size_t elem = size_t(from.bytes());
    while (true) {
      for (size_t k = 0; k < shape.size(); ++k) {
        si[sd[k]] = s.start[sd[k]] + li[k];
        di[dd[k]] = d.start[dd[k]] + li[k];
      }
      int64_t so = offset_or_minus_one(ss, si.data());
      int64_t dof = offset_or_minus_one(ds, di.data());
      bool row_inside = !shape.empty() && so >= 0 && dof >= 0 &&
                        si[sd[inner]] + row <= ss.shape[sd[inner]] &&
                        di[dd[inner]] + row <= ds.shape[dd[inner]];
      if (rows_as_bytes && row_inside) {
        if (run_has_unwritten(ss, so, row))  // then report the first one
          for (int64_t i = 0; i < row; ++i) require_written(ss, *s.info, so + i, span_);
        std::memcpy(ds.data + size_t(dof) * elem, ss.data + size_t(so) * elem, size_t(row) * elem);
        if (ds.written) std::memset(ds.written + dof, 1, size_t(row));
      } else if (rows_widen && row_inside && !run_has_unwritten(ss, so, row) &&
                 widen(ss.data + size_t(so) * elem, row, reinterpret_cast<float*>(ds.data) + dof,
                       1)) {
        // Widened (a run with an unwritten element, an infinity or a NaN goes element by
        // element below instead, which reports or converts it).
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
        int64_t dst_first = dst_row.offset(d.start[dd[inner]]);
        if (!src_row.inside && dst_first >= 0 && ds.strides[dd[inner]] == 1 && to.bytes() > 0 &&
            d.start[dd[inner]] + row <= ds.shape[dd[inner]]) {
          // A source row wholly outside its tensor into one run of the destination: every
          // element is the converted zero, encoded once and repeated.
          size_t dst_elem = size_t(to.bytes());
          write_element(*d.info, ds.data, dst_first, convert_inline(zero_slot(from), from, to));
          repeat_first(ds.data + size_t(dst_first) * dst_elem, dst_elem, size_t(row));
          if (ds.written) std::memset(ds.written + dst_first, 1, size_t(row));
        } else {
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
    const BufferSlot& slot = *d.slot;
    size_t elem = size_t(d.info->dtype.bytes());
    if (whole_dense(d) && elem > 0 && slot.numel > 0) {
      // The whole buffer (T.clear of a tile): the value encoded once and repeated.
      d.info->write(slot.data, 0, v);
      repeat_first(slot.data, elem, size_t(slot.numel));
      if (slot.written) std::memset(slot.written, 1, size_t(slot.numel));
      return;
    }
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

}  // namespace

CStmtPtr make_copy(CRegion src, CRegion dst, Span span) {
  return std::make_unique<CopyStmt>(std::move(src), std::move(dst), span);
}
CStmtPtr make_fill(CRegion dst, CExprPtr value, Span span) {
  return std::make_unique<FillStmt>(std::move(dst), std::move(value), span);
}

}  // namespace tilec::interp
