// Compiles a PrimFunc into the slot-resolved program of interp_program.h and runs it.
#include "tilec/interp/interpreter.h"
#include "tilec/transform/work_item_loops.h"

#include "interp_batch.h"
#include "interp_program.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/index_type.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/scoped_bindings.h"

#include "tilec/ir/visitor.h"
#include "tilec/ir/writes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace tilec::ir {

using namespace interp;

namespace {

// ---------------------------------------------------------------- expressions

struct ConstExpr : CExpr {
  Slot value;
  ConstExpr(DataType t, Slot v) : CExpr(t), value(v) {}
  Slot eval(Frame&) const override { return value; }
};

struct VarExpr : CExpr {
  int slot;
  VarExpr(DataType t, int s) : CExpr(t), slot(s) {}
  Slot eval(Frame& frame) const override { return frame.vars[size_t(slot)]; }
};

struct BinaryExpr : CExpr {
  BinaryOp op;
  DataType operand;
  CExprPtr a, b;
  BinaryExpr(DataType t, BinaryOp o, CExprPtr x, CExprPtr y)
      : CExpr(t), op(o), operand(x->dtype), a(std::move(x)), b(std::move(y)) {}
  Slot eval(Frame& frame) const override {
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {  // short-circuit, as Python does
      bool left = to_int(a->eval(frame), a->dtype) != 0;
      if (left == (op == BinaryOp::kOr)) return int_slot(left);
      return int_slot(to_int(b->eval(frame), b->dtype) != 0);
    }
    return arith(op, a->eval(frame), b->eval(frame), operand);
  }
};

struct UnaryExpr : CExpr {
  UnaryOp op;
  CExprPtr a;
  UnaryExpr(DataType t, UnaryOp o, CExprPtr x) : CExpr(t), op(o), a(std::move(x)) {}
  Slot eval(Frame& frame) const override {
    Slot v = a->eval(frame);
    if (op == UnaryOp::kNot) return int_slot(to_int(v, a->dtype) == 0);
    if (dtype.is_float()) return float_slot(-v.f);
    return int_slot(wrap_to_dtype(int64_t(0 - uint64_t(v.i)), dtype));
  }
};

struct SelectExpr : CExpr {
  CExprPtr cond, t, f;
  SelectExpr(DataType type, CExprPtr c, CExprPtr x, CExprPtr y)
      : CExpr(type), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
  Slot eval(Frame& frame) const override {
    return to_int(cond->eval(frame), cond->dtype) != 0 ? t->eval(frame) : f->eval(frame);
  }
};

struct CastExpr : CExpr {
  CExprPtr value;
  CastExpr(DataType t, CExprPtr v) : CExpr(t), value(std::move(v)) {}
  Slot eval(Frame& frame) const override {
    return convert(value->eval(frame), value->dtype, dtype);
  }
};

struct CallExpr : CExpr {
  std::string name;
  std::vector<CExprPtr> args;
  // Resolved once for float calls (the name lookup would otherwise run per element);
  // nullptr leaves integer abs and unknown names (an error when reached) to math().
  FloatMathFn function;
  CallExpr(DataType t, std::string n, std::vector<CExprPtr> a)
      : CExpr(t),
        name(std::move(n)),
        args(std::move(a)),
        function(t.is_float() ? float_math_function(name) : nullptr) {}
  Slot eval(Frame& frame) const override {
    Slot values[3];
    for (size_t i = 0; i < args.size() && i < 3; ++i)
      values[i] = convert(args[i]->eval(frame), args[i]->dtype, dtype);
    if (!function) return math(name, values, dtype);
    double operands[3] = {values[0].f, values[1].f, values[2].f};
    return float_slot(round_float(function(operands), dtype));
  }
};

}  // namespace

}  // namespace tilec::ir

// Declared in interp_program.h; they use this file's where().
namespace tilec::interp {

void report_out_of_bounds(const BufferSlot& slot, const BufferInfo& info, const int64_t* index,
                          size_t ndim, const char* what, Span span) {
  throw IRError(fmt::format(
      "{}{} '{}' at index [{}] is outside its shape [{}]; guard the access with an if, or "
      "use T.copy, which masks elements outside the tensor",
      ir::where(span), what, info.name, fmt::join(index, index + ndim, ", "),
      fmt::join(slot.shape, ", ")));
}

void check_loop_range(int64_t b, int64_t e, int64_t step, DataType var_type,
                      const std::string& name, Span span) {
  // docs/semantics.md "Integer widths": the variable never wraps; a loop whose
  // values its dtype cannot hold is refused before the first iteration.
  int64_t last = step > 0 ? e - 1 : e + 1;
  if ((step > 0 ? b < e : b > e) &&
      (wrap_to_dtype(b, var_type) != b || wrap_to_dtype(last, var_type) != last)) {
    throw IRError(fmt::format(
        "{}loop variable '{}' is {} but the loop runs from {} to {}, past what {} holds",
        ir::where(span), name, var_type.str(), b, e, var_type.str()));
  }
}

}  // namespace tilec::interp

namespace tilec::ir {

namespace {

// Flat offset of an element access, or an IRError naming buffer and index.
int64_t checked_offset(const BufferSlot& slot, const BufferInfo& info,
                       const std::vector<CExprPtr>& indices, Frame& frame, const char* what,
                       Span span) {
  int64_t index[8];
  std::vector<int64_t> big;
  int64_t* idx = index;
  if (indices.size() > 8) {
    big.resize(indices.size());
    idx = big.data();
  }
  for (size_t d = 0; d < indices.size(); ++d) idx[d] = indices[d]->eval_int(frame);
  int64_t off = offset_or_minus_one(slot, idx);
  if (off < 0) report_out_of_bounds(slot, info, idx, indices.size(), what, span);
  return off;
}

struct LoadExpr : CExpr {
  int buffer;
  const BufferInfo* info;
  std::vector<CExprPtr> indices;
  Span span;
  LoadExpr(const BufferInfo* i, int b, std::vector<CExprPtr> idx, Span s)
      : CExpr(i->dtype), buffer(b), info(i), indices(std::move(idx)), span(s) {}
  Slot eval(Frame& frame) const override {
    const BufferSlot& slot = frame.buffers[size_t(buffer)];
    int64_t off = checked_offset(slot, *info, indices, frame, "load from", span);
    require_written(slot, *info, off, span);
    return info->read(slot.data, off);
  }
};

// An atomic update (ir::atomic_update): the interpreter runs one block at a time, so a
// plain read-modify-write is already indivisible. Yields the previous value.
struct AtomicExpr : CExpr {
  BinaryOp op;
  int buffer;
  const BufferInfo* info;
  std::vector<CExprPtr> indices;
  CExprPtr value;
  Span span;
  AtomicExpr(BinaryOp o, const BufferInfo* i, int b, std::vector<CExprPtr> idx, CExprPtr v, Span s)
      : CExpr(i->dtype),
        op(o),
        buffer(b),
        info(i),
        indices(std::move(idx)),
        value(std::move(v)),
        span(s) {}
  Slot eval(Frame& frame) const override {
    Slot v = value->eval(frame);
    const BufferSlot& slot = frame.buffers[size_t(buffer)];
    int64_t at = checked_offset(slot, *info, indices, frame, "atomic update of", span);
    Slot old = info->read(slot.data, at);
    info->write(slot.data, at, arith(op, old, v, info->dtype));
    return old;
  }
};

// ---------------------------------------------------------------- statements

struct StoreStmt : CStmt {
  int buffer;
  const BufferInfo* info;
  std::vector<CExprPtr> indices;
  CExprPtr value;  // already of the buffer's dtype
  Span span;
  void run(Frame& frame) const override {
    Slot v = value->eval(frame);
    const BufferSlot& slot = frame.buffers[size_t(buffer)];
    int64_t off = checked_offset(slot, *info, indices, frame, "store to", span);
    info->write(slot.data, off, v);
    mark_written(slot, off);
  }
};

struct LetStmt : CStmt {
  int slot;
  CExprPtr value;
  CStmtPtr body;
  void run(Frame& frame) const override {
    frame.vars[size_t(slot)] = value->eval(frame);
    body->run(frame);
  }
};

struct ForStmt : CStmt {
  int slot;
  DataType var_type;
  CExprPtr begin, end;
  int64_t step;
  CStmtPtr body;
  std::string name;
  Span span;
  void run(Frame& frame) const override {
    int64_t b = begin->eval_int(frame), e = end->eval_int(frame);
    Slot& var = frame.vars[size_t(slot)];
    check_loop_range(b, e, step, var_type, name, span);
    if (step > 0) {
      for (int64_t i = b; i < e; i += step) {
        var = int_slot(i);
        body->run(frame);
      }
    } else {
      for (int64_t i = b; i > e; i += step) {
        var = int_slot(i);
        body->run(frame);
      }
    }
  }
};

struct IfStmt : CStmt {
  CExprPtr cond;
  CStmtPtr then_case, else_case;  // else may be null
  void run(Frame& frame) const override {
    if (to_int(cond->eval(frame), cond->dtype) != 0) {
      then_case->run(frame);
    } else if (else_case) {
      else_case->run(frame);
    }
  }
};

struct WhileStmt : CStmt {
  CExprPtr cond;
  CStmtPtr body;
  void run(Frame& frame) const override {
    while (to_int(cond->eval(frame), cond->dtype) != 0) body->run(frame);
  }
};

struct SeqStmt : CStmt {
  std::vector<CStmtPtr> stmts;
  void run(Frame& frame) const override {
    for (const auto& s : stmts) s->run(frame);
  }
};

struct NopStmt : CStmt {
  void run(Frame&) const override {}
};

struct EvaluateStmt : CStmt {
  CExprPtr value;
  void run(Frame& frame) const override { (void)value->eval(frame); }
};

// One allocation never exceeds this (16 GiB): beyond it the kernel is wrong, not big.
constexpr int64_t kMaxAllocationBytes = int64_t(1) << 34;

// Fresh storage per execution, poisoned so reads before writes show: NaN for floats,
// 0xA5 bytes for integers.
struct AllocateStmt : CStmt {
  int buffer;
  const BufferInfo* info;
  std::vector<CExprPtr> shape;
  CExprPtr init;  // of the buffer's dtype; may be null
  CStmtPtr body;
  Span span;
  void run(Frame& frame) const override {
    BufferSlot slot;
    slot.numel = 1;
    for (const auto& d : shape) {
      int64_t extent = d->eval_int(frame);
      if (extent < 0) {
        throw IRError(fmt::format("{}allocation '{}' has negative extent {}", where(span),
                                  info->name, extent));
      }
      slot.shape.push_back(extent);
      if (extent != 0 && slot.numel > kMaxAllocationBytes / extent) slot.numel = -1;
      if (slot.numel >= 0) slot.numel *= extent;
    }
    if (slot.numel < 0 || slot.numel > kMaxAllocationBytes / info->dtype.bytes()) {
      throw IRError(
          fmt::format("{}allocation '{}' of shape [{}] is larger than the "
                      "interpreter's limit of {} bytes",
                      where(span), info->name, fmt::join(slot.shape, ", "), kMaxAllocationBytes));
    }
    slot.strides.assign(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) slot.strides[d - 1] = slot.strides[d] * slot.shape[d];
    size_t bytes = size_t(slot.numel) * size_t(info->dtype.bytes());
    std::vector<uint64_t> storage((bytes + 7) / 8 + 1);
    slot.data = reinterpret_cast<char*>(storage.data());
    std::vector<uint8_t> written(init ? 0
                                      : size_t(slot.numel));  // T.alloc_var(init=) starts written
    if (!init) slot.written = written.data();
    if (init || info->dtype.is_float()) {
      // One element encoded, then its bytes repeated (the encoding is per dtype, not per
      // element).
      Slot v = init ? init->eval(frame) : float_slot(NAN);
      size_t element = size_t(info->dtype.bytes());
      if (element == 0) {  // sub-byte storage: element by element
        for (int64_t i = 0; i < slot.numel; ++i) info->write(slot.data, i, v);
      } else if (slot.numel > 0) {
        info->write(slot.data, 0, v);
      }
      for (size_t done = element; element > 0 && done < bytes;) {
        size_t chunk = std::min(done, bytes - done);
        std::memcpy(slot.data + done, slot.data, chunk);
        done += chunk;
      }
    } else {
      std::memset(slot.data, 0xA5, bytes);
    }
    BufferSlot saved = std::move(frame.buffers[size_t(buffer)]);
    frame.buffers[size_t(buffer)] = std::move(slot);
    body->run(frame);
    frame.buffers[size_t(buffer)] = std::move(saved);
  }
};

struct KernelStmt : CStmt {
  std::vector<CExprPtr> grid;
  std::vector<int> block_slots;
  CStmtPtr body;
  Span span;
  void run(Frame& frame) const override {
    int64_t extent[3] = {1, 1, 1};
    for (size_t d = 0; d < grid.size(); ++d) {
      extent[d] = grid[d]->eval_int(frame);
      if (extent[d] < 0) {
        throw IRError(
            fmt::format("{}T.Kernel grid extent {} is negative ({})", where(span), d, extent[d]));
      }
      // docs/semantics.md "Integer widths": block indices are int32; never wrapped.
      if (extent[d] > kMaxGridExtent) {
        throw IRError(fmt::format(
            "{}the grid has {} blocks along {}, more than {} (2^31 - 1) for these arguments",
            where(span), extent[d], "xyz"[d], kMaxGridExtent));
      }
    }
    if (frame.progress) {
      frame.progress->blocks_total += extent[0] * extent[1] * extent[2];
      ++frame.progress->kernels_started;
    }
    // Blocks are independent; run them in a fixed order (x fastest).
    for (int64_t z = 0; z < extent[2]; ++z) {
      for (int64_t y = 0; y < extent[1]; ++y) {
        for (int64_t x = 0; x < extent[0]; ++x) {
          int64_t ids[3] = {x, y, z};
          for (size_t d = 0; d < block_slots.size(); ++d)
            frame.vars[size_t(block_slots[d])] = int_slot(ids[d]);
          body->run(frame);
          if (frame.progress) frame.progress->blocks_done.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
  }
};

// ---------------------------------------------------------------- compiler

class Compiler : private ExprFunctor<CExprPtr()>, private StmtFunctor<CStmtPtr()> {
 public:
  int bind_var(const Var& var) {
    if (!var.get()) throw IRError("a binding has an undefined variable");
    int slot = num_vars_++;
    vars_.bind(var.get(), slot);
    return slot;
  }
  int bind_buffer(const Buffer& buffer) {
    auto info = std::make_unique<BufferInfo>();
    info->name = buffer->name;
    info->dtype = buffer->dtype;
    info->read = reader_for(buffer->dtype);
    info->write = writer_for(buffer->dtype);
    infos_.push_back(std::move(info));
    int slot = num_buffers_++;
    buffers_.bind(buffer.get(), slot);
    slot_info_[slot] = infos_.back().get();
    return slot;
  }
  int var_slot(const VarNode* v) const {
    if (const int* slot = vars_.find(v)) return *slot;
    throw std::out_of_range("unbound variable slot");
  }
  int num_vars() const { return num_vars_; }
  int num_buffers() const { return num_buffers_; }
  std::vector<std::unique_ptr<BufferInfo>> take_infos() { return std::move(infos_); }

  CExprPtr expr(const Expr& e) {
    if (!e) throw IRError("the function contains an undefined expression");
    if (!e.dtype().is_scalar()) {
      throw IRError(where(e->span) + "the interpreter runs scalar code only; got a " +
                    e.dtype().str() + " expression (interpret the function before vectorization)");
    }
    return dispatch_expr(e);
  }

  CExprPtr visit_expr(const IntImmNode* n, const Expr&) override {
    Slot v = n->dtype.is_float() ? float_slot(double(n->value))
                                 : int_slot(wrap_to_dtype(n->value, n->dtype));
    return std::make_unique<ConstExpr>(n->dtype, v);
  }
  CExprPtr visit_expr(const FloatImmNode* n, const Expr&) override {
    Slot v = n->dtype.is_float() ? float_slot(round_float(n->value, n->dtype))
                                 : int_slot(float_to_integer(n->value, n->dtype));
    return std::make_unique<ConstExpr>(n->dtype, v);
  }
  CExprPtr visit_expr(const VarNode* n, const Expr& e) override {
    const int* slot = vars_.find(n);
    if (!slot) {
      throw IRError(fmt::format("{}variable '{}' is used outside the scope that binds it",
                                where(e->span), n->name));
    }
    return std::make_unique<VarExpr>(n->dtype, *slot);
  }
  CExprPtr visit_expr(const BinaryNode* n, const Expr&) override {
    auto a = expr(n->a), b = expr(n->b);
    if (a->dtype != b->dtype) b = std::make_unique<CastExpr>(a->dtype, std::move(b));
    return std::make_unique<BinaryExpr>(n->dtype, n->op, std::move(a), std::move(b));
  }
  CExprPtr visit_expr(const UnaryNode* n, const Expr&) override {
    return std::make_unique<UnaryExpr>(n->dtype, n->op, expr(n->a));
  }
  CExprPtr visit_expr(const SelectNode* n, const Expr&) override {
    return std::make_unique<SelectExpr>(n->dtype, expr(n->cond), as(n->dtype, n->true_value),
                                        as(n->dtype, n->false_value));
  }
  CExprPtr visit_expr(const CastNode* n, const Expr&) override {
    return std::make_unique<CastExpr>(n->dtype, expr(n->value));
  }
  CExprPtr visit_expr(const LoadNode* n, const Expr& e) override {
    int buffer = buffer_slot(n->buffer, e->span);
    return std::make_unique<LoadExpr>(slot_info_.at(buffer), buffer,
                                      indices(n->buffer, n->indices, e->span), e->span);
  }
  CExprPtr visit_expr(const CallNode* n, const Expr& e) override {
    // The CPU model runs the threads of a block as one sequential program, so
    // every barrier is already satisfied.
    if (n->call_kind == CallKind::kBarrier)
      return std::make_unique<ConstExpr>(n->dtype, int_slot(0));
    if (n->call_kind == CallKind::kAtomic) {
      auto* element = n->args[0].as<LoadNode>();
      int buffer = buffer_slot(element->buffer, e->span);
      return std::make_unique<AtomicExpr>(atomic_op(*n), slot_info_.at(buffer), buffer,
                                          indices(element->buffer, element->indices, e->span),
                                          as(n->dtype, n->args[1]), e->span);
    }
    if (n->call_kind == CallKind::kExtern) {
      throw IRError(where(e->span) + "the interpreter cannot run the extern call '" + n->name +
                    "': it only knows the math intrinsics, not functions the device code "
                    "links against; check this kernel on a backend that compiles it");
    }
    if (n->args.size() > 3 || !is_math_intrinsic(n->name)) {
      throw IRError(where(e->span) + "the interpreter does not know the call '" + n->name +
                    "' with " + std::to_string(n->args.size()) + " argument(s)");
    }
    std::vector<CExprPtr> args;
    for (const auto& a : n->args) args.push_back(expr(a));
    return std::make_unique<CallExpr>(n->dtype, n->name, std::move(args));
  }

  CStmtPtr stmt(const Stmt& s) {
    if (!s) return std::make_unique<NopStmt>();
    return dispatch_stmt(s);
  }

  CStmtPtr visit_stmt(const StoreNode* n, const Stmt& s) override {
    auto out = std::make_unique<StoreStmt>();
    out->buffer = buffer_slot(n->buffer, s->span);
    out->info = slot_info_.at(out->buffer);
    out->indices = indices(n->buffer, n->indices, s->span);
    out->value = as(n->buffer->dtype, n->value);
    out->span = s->span;
    return out;
  }
  CStmtPtr visit_stmt(const LetNode* n, const Stmt&) override {
    auto out = std::make_unique<LetStmt>();
    out->value = as(n->var->dtype, n->value);
    Scope scope(*this);
    out->slot = bind_var(n->var);
    out->body = stmt(n->body);
    return out;
  }
  CStmtPtr visit_stmt(const ForNode* n, const Stmt& s) override {
    if (!n->var->dtype.is_integer()) {
      throw IRError(where(s->span) + "loop variable '" + n->var.name() + "' has dtype " +
                    n->var->dtype.str() + "; loops need an integer variable");
    }
    auto out = std::make_unique<ForStmt>();
    out->var_type = n->var->dtype;
    out->begin = expr(n->begin);
    out->end = expr(n->end);
    out->step = n->step;
    out->name = n->var.name();
    out->span = s->span;
    if (n->step == 0) throw IRError(where(s->span) + "loop step must not be zero");
    if (n->for_kind == ForKind::kParallel) {
      BatchHooks hooks{[this](const Expr& e) { return expr(e); },
                       [this](const Buffer& b, Span span) {
                         int slot = buffer_slot(b, span);
                         return std::pair<int, const BufferInfo*>{slot, slot_info_.at(slot)};
                       }};
      if (CStmtPtr batched = make_batched_loop(*n, s->span, hooks)) return batched;
    }
    Scope scope(*this);
    out->slot = bind_var(n->var);
    out->body = stmt(n->body);
    return out;
  }
  CStmtPtr visit_stmt(const IfNode* n, const Stmt&) override {
    auto out = std::make_unique<IfStmt>();
    out->cond = expr(n->cond);
    out->then_case = stmt(n->then_case);
    if (n->else_case) out->else_case = stmt(n->else_case);
    return out;
  }
  CStmtPtr visit_stmt(const WhileNode* n, const Stmt&) override {
    auto out = std::make_unique<WhileStmt>();
    out->cond = expr(n->cond);
    out->body = stmt(n->body);
    return out;
  }
  CStmtPtr visit_stmt(const SeqNode* op, const Stmt&) override {
    auto out = std::make_unique<SeqStmt>();
    for (const auto& c : op->stmts) out->stmts.push_back(stmt(c));
    return out;
  }
  CStmtPtr visit_stmt(const AllocateNode* n, const Stmt& s) override {
    if (!n->buffer) throw IRError(where(s->span) + "allocation of an undefined buffer");
    auto out = std::make_unique<AllocateStmt>();
    for (const auto& d : n->buffer->shape) out->shape.push_back(expr(d));
    if (n->init) out->init = as(n->buffer->dtype, *n->init);
    out->span = s->span;
    Scope scope(*this);
    out->buffer = bind_buffer(n->buffer);
    out->info = slot_info_.at(out->buffer);
    out->body = stmt(n->body);
    return out;
  }
  CStmtPtr visit_stmt(const EvaluateNode* op, const Stmt&) override {
    auto out = std::make_unique<EvaluateStmt>();
    out->value = expr(op->value);
    return out;
  }
  CStmtPtr visit_stmt(const KernelNode* n, const Stmt& s) override {
    if (in_kernel_) {
      throw IRError(where(s->span) +
                    "T.Kernel is nested inside another T.Kernel; a kernel body cannot launch "
                    "kernels: move the inner one out");
    }
    if (n->grid.empty() || n->grid.size() > 3 || n->grid.size() != n->block_vars.size()) {
      throw IRError(
          fmt::format("{}T.Kernel needs 1 to 3 grid extents and one block variable "
                      "each; got {} extent(s) and {} variable(s)",
                      where(s->span), n->grid.size(), n->block_vars.size()));
    }
    auto out = std::make_unique<KernelStmt>();
    for (const auto& g : n->grid) out->grid.push_back(expr(g));
    out->span = s->span;
    Scope scope(*this);
    for (const auto& v : n->block_vars) out->block_slots.push_back(bind_var(v));
    in_kernel_ = true;
    out->body = stmt(n->body);
    in_kernel_ = false;
    return out;
  }
  CStmtPtr visit_stmt(const CopyNode* n, const Stmt& s) override {
    return make_copy(region(n->src, s->span), region(n->dst, s->span), s->span);
  }
  CStmtPtr visit_stmt(const FillNode* n, const Stmt& s) override {
    return make_fill(region(n->dst, s->span), expr(n->value), s->span);
  }
  CStmtPtr visit_stmt(const GemmNode* n, const Stmt& s) override {
    return make_gemm(region(n->a, s->span), region(n->b, s->span), region(n->c, s->span),
                     n->transpose_a, n->transpose_b, n->clear_accum, s->span);
  }
  CStmtPtr visit_stmt(const ReduceNode* n, const Stmt& s) override {
    int src = buffer_slot(n->src, s->span), dst = buffer_slot(n->dst, s->span);
    return make_reduce(n->reduce_kind, src, slot_info_.at(src), dst, slot_info_.at(dst), n->dim,
                       n->clear, s->span);
  }
  CStmtPtr visit_stmt(const LaunchNode* op, const Stmt& s) override {
    throw IRError(where(s->span) +
                  "the interpreter runs unlowered functions, but this one "
                  "launches '" +
                  op->callee + "' (produced by lowering): interpret the function before lowering");
  }

  // Bindings made while a Scope is open are dropped when it closes.
  class Scope {
   public:
    explicit Scope(Compiler& c) : vars_(c.vars_), buffers_(c.buffers_) {}

   private:
    ScopedBindings<VarNode, int>::Mark vars_;
    ScopedBindings<BufferNode, int>::Mark buffers_;
  };

 private:
  CExprPtr as(DataType t, const Expr& e) {
    CExprPtr c = expr(e);
    if (c->dtype == t) return c;
    return std::make_unique<CastExpr>(t, std::move(c));
  }

  int buffer_slot(const Buffer& buffer, Span span) {
    if (!buffer) throw IRError(where(span) + "reference to an undefined buffer");
    const int* slot = buffers_.find(buffer.get());
    if (!slot) {
      throw IRError(fmt::format(
          "{}buffer '{}' is used outside its scope: it is neither a parameter nor allocated "
          "around this use",
          where(span), buffer->name));
    }
    return *slot;
  }

  std::vector<CExprPtr> indices(const Buffer& buffer, const std::vector<Expr>& idx, Span span) {
    if (int(idx.size()) != buffer->ndim()) {
      throw IRError(fmt::format("{}buffer '{}' has {} dimension(s) but is indexed with {}",
                                where(span), buffer->name, buffer->ndim(), idx.size()));
    }
    std::vector<CExprPtr> out;
    for (const auto& i : idx) out.push_back(expr(i));
    return out;
  }

  CRegion region(const TileRegion& r, Span span) {
    CRegion out;
    out.buffer = buffer_slot(r.buffer, span);
    out.info = slot_info_.at(out.buffer);
    if (!r.dims.empty() && int(r.dims.size()) != r.buffer->ndim()) {
      throw IRError(fmt::format("{}tile operand '{}' has {} dimension(s) but {} subscript(s)",
                                where(span), r.buffer->name, r.buffer->ndim(), r.dims.size()));
    }
    for (const auto& d : r.dims) {
      CRegion::Dim dim;
      dim.start = expr(d.start);
      if (d.stop) dim.stop = expr(*d.stop);
      out.dims.push_back(std::move(dim));
    }
    return out;
  }

  ScopedBindings<VarNode, int> vars_;
  ScopedBindings<BufferNode, int> buffers_;
  std::unordered_map<int, const BufferInfo*> slot_info_;
  std::vector<std::unique_ptr<BufferInfo>> infos_;
  int num_vars_ = 0, num_buffers_ = 0;
  bool in_kernel_ = false;
};

}  // namespace

struct Interpreter::Program {
  struct Dim {
    int64_t constant = 0;
    int var_slot = -1;  // a symbolic dim
    CExprPtr expr;      // any other expression, checked after binding
  };
  struct ParamBinding {
    std::string name;
    DataType dtype;
    int var_slot = -1;     // scalar parameter
    int buffer_slot = -1;  // buffer parameter
    std::vector<Dim> dims;
    std::vector<CExprPtr> strides;  // empty: row-major
  };
  PrimFunc func;
  std::vector<ParamBinding> params;
  std::vector<std::unique_ptr<BufferInfo>> infos;
  CStmtPtr body;
  int num_vars = 0, num_buffers = 0;
};

Interpreter::Interpreter(const PrimFunc& source) : program_(std::make_unique<Program>()) {
  if (!source) throw IRError("cannot interpret an undefined function");
  // Per-thread code means what the shared work-item-loop pass makes of it, exactly as on
  // the CPU backends (docs/semantics.md, "Per-thread code").
  PrimFunc func = transform::work_item_loops(source);
  Program& p = *program_;
  p.func = func;
  Compiler c;
  Compiler::Scope scope(c);
  for (const auto& param : func->params) {
    if (param.is_buffer()) continue;
    Program::ParamBinding b;
    b.name = param.name();
    b.dtype = param.var->dtype;
    b.var_slot = c.bind_var(param.var);
    p.params.push_back(std::move(b));
  }
  std::unordered_set<const VarNode*> scalar_vars;
  for (const auto& param : func->params)
    if (!param.is_buffer()) scalar_vars.insert(param.var.get());
  for (const auto& v : symbolic_shape_vars(func))
    if (!scalar_vars.count(v.get())) c.bind_var(v);
  std::vector<Program::ParamBinding> buffer_params;
  for (const auto& param : func->params) {
    if (!param.is_buffer()) continue;
    Program::ParamBinding b;
    b.name = param.buffer->name;
    b.dtype = param.buffer->dtype;
    for (const auto& d : param.buffer->shape) {
      Program::Dim dim;
      if (auto* v = as_const_int(d)) {
        dim.constant = *v;
      } else if (auto* var = d.as<VarNode>()) {
        dim.var_slot = c.var_slot(var);
      } else {
        dim.expr = c.expr(d);
      }
      b.dims.push_back(std::move(dim));
    }
    for (const auto& s : param.buffer->strides) b.strides.push_back(c.expr(s));
    b.buffer_slot = c.bind_buffer(param.buffer);
    buffer_params.push_back(std::move(b));
  }
  p.body = c.stmt(func->body);
  // Parameters in declaration order for argument binding.
  std::vector<Program::ParamBinding> ordered;
  size_t si = 0, bi = 0;
  for (const auto& param : func->params)
    ordered.push_back(std::move(param.is_buffer() ? buffer_params[bi++] : p.params[si++]));
  p.params = std::move(ordered);
  p.num_vars = c.num_vars();
  p.num_buffers = c.num_buffers();
  p.infos = c.take_infos();
}

Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

void Interpreter::run(const std::vector<ArgValue>& args, InterpretProgress* progress) const {
  const Program& p = *program_;
  const std::string& fname = p.func->name;
  if (args.size() != p.params.size()) {
    std::string names;
    for (const auto& b : p.params) names += (names.empty() ? "" : ", ") + b.name;
    throw IRError(fmt::format("'{}' takes {} argument(s) ({}) but got {}", fname, p.params.size(),
                              names, args.size()));
  }
  Frame frame;
  frame.progress = progress;
  frame.vars.assign(size_t(p.num_vars), int_slot(0));
  frame.buffers.resize(size_t(p.num_buffers));
  std::vector<bool> bound(size_t(p.num_vars), false);
  std::vector<std::string> bound_by(size_t(p.num_vars));
  auto arg_name = [&](size_t i) {
    return fmt::format("argument {} ('{}') of '{}'", i, p.params[i].name, fname);
  };
  // Scalars first: a scalar parameter may also name a symbolic dim.
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& b = p.params[i];
    if (b.var_slot < 0) continue;
    Slot v;
    if (auto* n = std::get_if<int64_t>(&args[i])) {
      v = convert(int_slot(*n), DataType::Int64(), b.dtype);
    } else if (auto* d = std::get_if<double>(&args[i])) {
      if (!b.dtype.is_float() && *d != std::trunc(*d)) {
        throw IRError(
            fmt::format("{} is {} but {} is not an integer", arg_name(i), b.dtype.str(), *d));
      }
      v = convert(float_slot(*d), DataType::Float(64), b.dtype);
    } else {
      throw IRError(fmt::format("{} is a scalar of dtype {} but a tensor was passed", arg_name(i),
                                b.dtype.str()));
    }
    frame.vars[size_t(b.var_slot)] = v;
    bound[size_t(b.var_slot)] = true;
    bound_by[size_t(b.var_slot)] = b.name;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& b = p.params[i];
    if (b.buffer_slot < 0) continue;
    auto* t = std::get_if<TensorView>(&args[i]);
    if (!t) throw IRError(fmt::format("{} is a tensor but a scalar was passed", arg_name(i)));
    if (t->dtype != b.dtype) {
      throw IRError(
          fmt::format("{} must be a {} tensor; got {}", arg_name(i), b.dtype.str(), t->str()));
    }
    if (t->shape.size() != b.dims.size()) {
      throw IRError(fmt::format("{} must have {} dimension(s); got {}", arg_name(i), b.dims.size(),
                                t->str()));
    }
    for (size_t d = 0; d < b.dims.size(); ++d) {
      const auto& dim = b.dims[d];
      int64_t actual = t->shape[d];
      if (dim.var_slot >= 0) {
        Slot& var = frame.vars[size_t(dim.var_slot)];
        if (!bound[size_t(dim.var_slot)]) {
          var = int_slot(actual);
          bound[size_t(dim.var_slot)] = true;
          bound_by[size_t(dim.var_slot)] = b.name;
        } else if (var.i != actual) {
          throw IRError(
              fmt::format("{}: dimension {} is {} but it is the symbolic dim bound to "
                          "{} by '{}'",
                          arg_name(i), d, actual, var.i, bound_by[size_t(dim.var_slot)]));
        }
      } else if (!dim.expr && actual != dim.constant) {
        throw IRError(fmt::format("{}: dimension {} is {} but the parameter declares {}",
                                  arg_name(i), d, actual, dim.constant));
      }
    }
    if (!t->data && t->numel() > 0) throw IRError(arg_name(i) + " has no data (null pointer)");
    BufferSlot& slot = frame.buffers[size_t(b.buffer_slot)];
    slot.data = static_cast<char*>(t->data);
    slot.shape = t->shape;
    slot.numel = t->numel();
    slot.strides.assign(t->shape.size(), 1);
    for (size_t d = t->shape.size(); d-- > 1;) slot.strides[d - 1] = slot.strides[d] * t->shape[d];
  }
  // Dims given by expressions of symbolic names, and explicit strides.
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& b = p.params[i];
    if (b.buffer_slot < 0) continue;
    BufferSlot& slot = frame.buffers[size_t(b.buffer_slot)];
    for (size_t d = 0; d < b.dims.size(); ++d) {
      if (!b.dims[d].expr) continue;
      int64_t expected = b.dims[d].expr->eval_int(frame);
      if (expected != slot.shape[d]) {
        throw IRError(fmt::format("{}: dimension {} is {} but the parameter's shape gives {}",
                                  arg_name(i), d, slot.shape[d], expected));
      }
    }
    if (!b.strides.empty()) {
      for (size_t d = 0; d < b.strides.size() && d < slot.strides.size(); ++d)
        slot.strides[d] = b.strides[d]->eval_int(frame);
    }
  }
  p.body->run(frame);
}

void interpret(const PrimFunc& func, const std::vector<ArgValue>& args,
               InterpretProgress* progress) {
  Interpreter(func).run(args, progress);
}

namespace {
// Parameter buffers a function writes (store, copy/fill/gemm/reduce destination).
class WrittenBuffers : public StmtVisitor {
 public:
  std::unordered_set<const BufferNode*> written;

  using StmtVisitor::visit;
  void visit(const Stmt& s) override {
    for_each_write(s, [&](const Write& w) { written.insert(w.buffer.get()); });
    StmtVisitor::visit(s);
  }
};

// Integer parameter buffers whose elements are read inside an index of another
// access (`A[offsets[i]]`), with the smallest extent of the dimensions they index.
class IndexData : public StmtVisitor {
 public:
  explicit IndexData(const std::map<std::string, int64_t>& values) : values_(values) {}
  std::unordered_map<const BufferNode*, int64_t> bound;

 protected:
  void visit_load(const LoadNode* op) override {
    note(op->buffer, op->indices);
    StmtVisitor::visit_load(op);
  }
  void visit_store(const StoreNode* op) override {
    note(op->buffer, op->indices);
    StmtVisitor::visit_store(op);
  }

 private:
  void note(const Buffer& buffer, const std::vector<Expr>& indices) {
    for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
      std::optional<int64_t> extent;
      if (auto* c = as_const_int(buffer->shape[d])) extent = *c;
      if (auto* v = buffer->shape[d].as<VarNode>())
        if (auto it = values_.find(v->name); it != values_.end()) extent = it->second;
      if (!extent) continue;
      post_order_visit(indices[d], [&](const Expr& e) {
        auto* load = e.as<LoadNode>();
        if (!load || !load->buffer->dtype.is_integer()) return;
        auto [it, fresh] = bound.emplace(load->buffer.get(), *extent);
        if (!fresh) it->second = std::min(it->second, *extent);
      });
    }
  }
  const std::map<std::string, int64_t>& values_;
};
}  // namespace

RandomArgs make_random_args(const PrimFunc& func, const std::map<std::string, int64_t>& given,
                            uint64_t seed) {
  // A scalar parameter without a given value takes its default (param_default.h), also
  // where it names a symbolic dim; a float default is passed as written.
  std::map<std::string, int64_t> values = given;
  std::map<std::string, double> float_defaults;
  for (const auto& p : func->params) {
    if (p.is_buffer() || values.count(p.name())) continue;
    std::optional<AttrValue> d = param_default(*func.get(), p.name());
    if (!d) continue;
    if (const auto* i = std::get_if<int64_t>(&*d)) values[p.name()] = *i;
    if (const auto* f = std::get_if<double>(&*d)) float_defaults[p.name()] = *f;
  }
  WrittenBuffers writes;
  writes.visit(func->body);
  IndexData index_data(values);
  index_data.visit(func->body);
  RandomArgs out;
  auto missing = [&](const std::string& what, const std::string& name) {
    std::vector<std::string> needed;
    for (const auto& v : symbolic_shape_vars(func)) needed.push_back(v.name());
    for (const auto& p : func->params)
      if (!p.is_buffer()) needed.push_back(p.name());
    return IRError(
        fmt::format("'{}' needs a value for {} '{}'; it needs values for: {}; pass "
                    "them as NAME=VALUE (tilec interp --shape {}=...)",
                    func->name, what, name, fmt::join(needed, ", "), name));
  };
  out.tensors.reserve(func->params.size());
  for (size_t i = 0; i < func->params.size(); ++i) {
    const auto& p = func->params[i];
    if (!p.is_buffer()) continue;
    std::vector<int64_t> shape;
    for (const auto& d : p.buffer->shape) {
      if (auto* c = as_const_int(d)) {
        shape.push_back(*c);
      } else if (auto* v = d.as<VarNode>()) {
        auto it = values.find(v->name);
        if (it == values.end()) throw missing("symbolic dim", v->name);
        shape.push_back(it->second);
      } else {
        throw IRError("parameter '" + p.buffer->name +
                      "' has a shape expression that is neither a constant nor a name; random "
                      "arguments need plain dims");
      }
    }
    HostTensor t(p.buffer->dtype, shape);
    bool written = writes.written.count(p.buffer.get()) > 0;
    if (auto it = index_data.bound.find(p.buffer.get()); !written && it != index_data.bound.end())
      fill_random_indices(t.view(), seed + i, it->second);
    else if (!written)
      fill_random(t.view(), seed + i);
    out.written.push_back(written);
    out.tensors.push_back(std::move(t));
  }
  size_t ti = 0;
  for (const auto& p : func->params) {
    if (p.is_buffer()) {
      out.args.emplace_back(out.tensors[ti++].view());
      continue;
    }
    if (auto f = float_defaults.find(p.name()); f != float_defaults.end()) {
      out.args.emplace_back(f->second);
      continue;
    }
    auto it = values.find(p.name());
    if (it == values.end()) throw missing("scalar parameter", p.name());
    if (p.var->dtype.is_float()) {
      out.args.emplace_back(double(it->second));
    } else {
      out.args.emplace_back(it->second);
    }
  }
  return out;
}

}  // namespace tilec::ir
