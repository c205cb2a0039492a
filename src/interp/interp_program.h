// The interpreter's executable form: expressions and statements compiled into trees
// of small objects whose variables and buffers are slot indices into a Frame, so
// execution does no name or map lookups. Built by interpreter.cc; tile operations
// are in interp_tile_ops.cc.
#pragma once

#include "interp_value.h"

#include "tilec/ir/stmt.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace tilec::ir {
struct InterpretProgress;  // tilec/interp/interpreter.h
}

namespace tilec::interp {

// The interpreter runs tile IR: its code names the IR's types unqualified.
using namespace ::tilec::ir;

// A buffer while it is live: a parameter tensor or an allocation.
struct BufferSlot {
  char* data = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  int64_t numel = 0;
  // Allocations only (null for parameters): one flag per element, set when the
  // element is written, so a read before any write is reported, not a silent NaN.
  uint8_t* written = nullptr;
};

struct Frame {
  std::vector<Slot> vars;
  std::vector<BufferSlot> buffers;
  std::vector<Slot> batch_columns;        // scratch of the batched T.Parallel loop running now
  InterpretProgress* progress = nullptr;  // counted per block when a caller watches
};

struct CExpr {
  DataType dtype;
  explicit CExpr(DataType t) : dtype(t) {}
  virtual ~CExpr() = default;
  virtual Slot eval(Frame& frame) const = 0;
  int64_t eval_int(Frame& frame) const { return to_int(eval(frame), dtype); }
};
using CExprPtr = std::unique_ptr<CExpr>;

struct CStmt {
  virtual ~CStmt() = default;
  virtual void run(Frame& frame) const = 0;
};
using CStmtPtr = std::unique_ptr<CStmt>;

// Static facts about a buffer slot, fixed at compile time.
struct BufferInfo {
  std::string name;
  DataType dtype;
  Reader read = nullptr;
  Writer write = nullptr;
};

// Element `off` of a float16, bfloat16 or float32 buffer as a double, and the stores back: the
// readers' and writers' work without their call, for per-element loops.
inline double load_float16(const char* data, int64_t off) {
  uint16_t bits;
  std::memcpy(&bits, data + off * 2, 2);
  return half_to_double_inline(bits);
}
inline double load_float32(const char* data, int64_t off) {
  float v;
  std::memcpy(&v, data + off * 4, 4);
  return v;
}
inline double load_bfloat16(const char* data, int64_t off) {
  uint16_t bits;
  std::memcpy(&bits, data + off * 2, 2);
  return bfloat16_to_double_inline(bits);
}
inline void store_bfloat16(char* data, int64_t off, double v) {
  uint16_t bits = double_to_bfloat16_inline(v);
  std::memcpy(data + off * 2, &bits, 2);
}
inline void store_float16(char* data, int64_t off, double v) {
  uint16_t bits = double_to_half_inline(v);
  std::memcpy(data + off * 2, &bits, 2);
}
inline void store_float32(char* data, int64_t off, double v) {
  float f = float(v);
  std::memcpy(data + off * 4, &f, 4);
}
// info.read(data, off) and info.write(data, off, v), with float16, bfloat16 and float32
// inline (always: they are the body of per-element loops).
[[gnu::always_inline]] inline Slot read_element(const BufferInfo& info, const char* data,
                                                int64_t off) {
  if (info.dtype == DataType::Float16()) return float_slot(load_float16(data, off));
  if (info.dtype == DataType::BFloat16()) return float_slot(load_bfloat16(data, off));
  if (info.dtype == DataType::Float32()) return float_slot(load_float32(data, off));
  return info.read(data, off);
}
[[gnu::always_inline]] inline void write_element(const BufferInfo& info, char* data, int64_t off,
                                                 Slot v) {
  if (info.dtype == DataType::Float16()) return store_float16(data, off, v.f);
  if (info.dtype == DataType::BFloat16()) return store_bfloat16(data, off, v.f);
  if (info.dtype == DataType::Float32()) return store_float32(data, off, v.f);
  info.write(data, off, v);
}

// A tile operand: whole buffer (no dims) or one entry per buffer dimension.
struct CRegion {
  int buffer = -1;
  const BufferInfo* info = nullptr;
  struct Dim {
    CExprPtr start;
    CExprPtr stop;  // null: an index (unit dimension)
  };
  std::vector<Dim> dims;
};

// A region evaluated for one execution: start and extent per buffer dimension.
struct Box {
  const BufferSlot* slot = nullptr;
  const BufferInfo* info = nullptr;
  std::vector<int64_t> start, extent;
  bool point = false;  // every dimension an index: extent comes from the other side
};
Box resolve(const CRegion& region, Frame& frame, Span span);
// "name[start ..., extent ...]", for errors about a region.
std::string box_str(const Box& box);

// Offset of `index` in `slot`, or -1 when any coordinate is out of bounds.
inline int64_t offset_or_minus_one(const BufferSlot& slot, const int64_t* index) {
  int64_t off = 0;
  for (size_t d = 0; d < slot.shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= slot.shape[d]) return -1;
    off += index[d] * slot.strides[d];
  }
  return off;
}

// Records a write of element `off` of an allocation (a no-op for parameters).
inline void mark_written(const BufferSlot& slot, int64_t off) {
  if (slot.written && off >= 0) slot.written[off] = 1;
}

// True when a run of `count` elements of an allocation from `first` holds one that nothing
// wrote (false for parameters); the fast paths then go element by element, which reports it.
inline bool run_has_unwritten(const BufferSlot& slot, int64_t first, int64_t count) {
  return slot.written && std::memchr(slot.written + first, 0, size_t(count)) != nullptr;
}

// Throws IRError, with the place in the kernel, when element `off` of an allocation
// is read before anything wrote it.
void report_uninitialized_read(const BufferSlot& slot, const BufferInfo& info, int64_t off,
                               Span span);
inline void require_written(const BufferSlot& slot, const BufferInfo& info, int64_t off,
                            Span span) {
  if (slot.written && off >= 0 && !slot.written[off])
    report_uninitialized_read(slot, info, off, span);
}

// Throws IRError naming the buffer, the index and the shape of an access outside it.
[[noreturn]] void report_out_of_bounds(const BufferSlot& slot, const BufferInfo& info,
                                       const int64_t* index, size_t ndim, const char* what,
                                       Span span);

// Throws IRError when a loop from `begin` to `end` by `step` runs through a value that
// its variable's dtype cannot hold (docs/semantics.md "Integer widths": no wrap).
void check_loop_range(int64_t begin, int64_t end, int64_t step, DataType var_type,
                      const std::string& name, Span span);

CStmtPtr make_copy(CRegion src, CRegion dst, Span span);
CStmtPtr make_fill(CRegion dst, CExprPtr value, Span span);
CStmtPtr make_gemm(CRegion a, CRegion b, CRegion c, bool transpose_a, bool transpose_b,
                   bool clear_accum, Span span);
CStmtPtr make_reduce(ReduceKind kind, int src, const BufferInfo* src_info, int dst,
                     const BufferInfo* dst_info, int dim, bool clear, Span span);

// "at line L:C: " when the span is known, else "".
std::string where(Span span);

}  // namespace tilec::interp
