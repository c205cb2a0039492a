// Explicit vectorization of kVectorized loops (see ir_emitter.h). The loop variable
// becomes a vector of lanes; every value is either uniform (a scalar, the same in every
// lane) or varying (a vector). A body qualifies when every branch, loop bound and store
// index that must be uniform is, and nothing that would run per lane in the scalar loop
// (extern calls, memory reads on only one side of a varying condition) depends on the
// lane; otherwise the loop is emitted as a loop for LLVM's own vectorizer.
#include "ir_emitter.h"
#include "tilec/ir/bounds_call.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <unordered_set>

namespace tilec::cpu::llvm_codegen {

using namespace ir;

namespace {

// One vector register of the widest AVX-512 width, in bits.
constexpr int64_t kVectorBits = 512;
// At most this many lanes for a whole loop turned into one vector body.
constexpr int64_t kMaxLanes = 64;

bool reads_memory(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (x.kind() == ExprKind::kLoad) found = true;
  });
  return found;
}

// Decides whether a loop body can be emitted as one vector body, tracking which
// variables and tiles vary between lanes.
class VectorBodyCheck : private StmtFunctor<void()> {
 public:
  explicit VectorBodyCheck(const VarNode* lane) { varying_vars_.insert(lane); }

  bool ok(const Stmt& body) {
    visit(body);
    return ok_;
  }
  int64_t widest_bits() const { return widest_bits_; }

 private:
  bool varying(const Expr& e) {
    bool found = false;
    post_order_visit(e, [&](const Expr& x) {
      if (auto* v = x.as<VarNode>(); v && varying_vars_.count(v)) found = true;
      if (auto* l = x.as<LoadNode>()) {
        if (per_lane_.count(l->buffer.get())) found = true;
        for (const auto& i : l->indices)
          if (varying(i)) found = true;
      }
    });
    return found;
  }

  void check_expr(const Expr& e) {
    post_order_visit(e, [&](const Expr& x) {
      if (auto* l = x.as<LoadNode>(); l && masked_depth_ && !per_lane_.count(l->buffer.get())) {
        // Under a per-lane condition a read of shared memory is a masked vector read; one
        // the same for every lane would run unmasked, maybe where no lane may read.
        bool varying_index = false;
        for (const auto& i : l->indices) varying_index = varying_index || varying(i);
        if (!varying_index) ok_ = false;
      }
      if (!x.dtype().is_bool()) widest_bits_ = std::max<int64_t>(widest_bits_, x.dtype().bits);
      if (auto* c = x.as<CallNode>()) {
        bool any_varying = false;
        for (const auto& a : c->args) any_varying = any_varying || varying(a);
        // Extern functions and libm's calls (tanh, erf, ...) have no vector form here.
        if (any_varying && (c->call_kind != CallKind::kIntrinsic || is_libm_call(c->name)))
          ok_ = false;
      }
      if (auto* s = x.as<SelectNode>(); s && varying(s->cond)) {
        // Both sides run in every lane: only when that cannot read outside a tensor.
        if (reads_memory(s->true_value) || reads_memory(s->false_value)) ok_ = false;
      }
      if (auto* b = x.as<BinaryNode>();
          b && (b->op == BinaryOp::kAnd || b->op == BinaryOp::kOr) && varying(b->a)) {
        if (reads_memory(b->b)) ok_ = false;
      }
    });
  }

  void visit(const Stmt& s) {
    if (!s || !ok_) return;
    dispatch_stmt(s);
  }

  void visit_stmt(const StoreNode* op, const Stmt&) override {
    for (const auto& i : op->indices) check_expr(i);
    check_expr(op->value);
    widest_bits_ = std::max<int64_t>(widest_bits_, op->buffer->dtype.bits);
    bool private_tile = per_lane_.count(op->buffer.get()) > 0;
    bool varying_index = false;
    for (const auto& i : op->indices) varying_index = varying_index || varying(i);
    if (private_tile && varying_index) ok_ = false;  // lanes index their own tile alike
    if (!private_tile && !varying_index && (varying(op->value) || masked_depth_)) ok_ = false;
  }
  void visit_stmt(const LetNode* op, const Stmt&) override {
    check_expr(op->value);
    if (varying(op->value)) varying_vars_.insert(op->var.get());
    return visit(op->body);
  }
  void visit_stmt(const ForNode* op, const Stmt&) override {
    if (masked_depth_) ok_ = false;  // a loop under a per-lane condition
    check_expr(op->begin);
    check_expr(op->end);
    if (varying(op->begin) || varying(op->end)) ok_ = false;
    return visit(op->body);
  }
  void visit_stmt(const IfNode* op, const Stmt&) override {
    check_expr(op->cond);
    // A lane-dependent condition masks its branches' loads and stores per lane.
    bool masked = varying(op->cond);
    masked_depth_ += masked;
    visit(op->then_case);
    visit(op->else_case);
    masked_depth_ -= masked;
  }
  void visit_stmt(const SeqNode* op, const Stmt&) override {
    for (const auto& child : op->stmts) visit(child);
  }
  // Lanes would leave a while loop at different iterations: the loop keeps its scalar form.
  void visit_stmt(const WhileNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const AllocateNode* op, const Stmt&) override {
    if (masked_depth_) ok_ = false;
    int64_t count = 1;
    for (const auto& d : op->buffer->shape) {
      const int64_t* c = as_const_int(d);
      if (!c) {
        ok_ = false;
        return;
      }
      count *= *c;
    }
    if (count * op->buffer->dtype.bytes() * kMaxLanes > kMaxStackBytes) ok_ = false;
    if (op->init) check_expr(*op->init);
    per_lane_.insert(op->buffer.get());
    return visit(op->body);
  }
  void visit_stmt(const EvaluateNode* op, const Stmt&) override {
    const Expr& value = op->value;
    if (as_barrier(value)) return;
    if (as_bounds_call(value)) {  // an early return: no vector form
      ok_ = false;
      return;
    }
    check_expr(value);
    if (varying(value)) ok_ = false;
  }
  void visit_stmt(const KernelNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const CopyNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const FillNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const GemmNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const ReduceNode*, const Stmt&) override { ok_ = false; }
  void visit_stmt(const LaunchNode*, const Stmt&) override { ok_ = false; }

  std::unordered_set<const VarNode*> varying_vars_;
  std::unordered_set<const BufferNode*> per_lane_;
  int64_t widest_bits_ = 8;
  int masked_depth_ = 0;  // inside branches of lane-dependent conditions
  bool ok_ = true;
};

}  // namespace

void IREmitter::emit_masked_if(const IfNode* op, llvm::Value* cond) {
  if (!lane_mask_ && versioned_ifs_ < kMaxVersionedIfDepth) return emit_versioned_if(op, cond);
  emit_branches_under_masks(op, cond);
}

void IREmitter::emit_branches_under_masks(const IfNode* op, llvm::Value* cond) {
  // Both branches run, each for the lanes its side of the condition selects.
  llvm::Value* outer = lane_mask_;
  llvm::Value* taken = outer ? builder_.CreateAnd(outer, cond) : cond;
  lane_mask_ = taken;
  emit_stmt(op->then_case);
  if (op->else_case) {
    llvm::Value* other = builder_.CreateNot(cond);
    lane_mask_ = outer ? builder_.CreateAnd(outer, other) : other;
    emit_stmt(op->else_case);
  }
  lane_mask_ = outer;
}

void IREmitter::emit_versioned_if(const IfNode* op, llvm::Value* cond) {
  // Masked stores are slow on many CPUs (microcoded on AMD Zen), and an edge-tile guard
  // holds for every lane in all vectors but the last: a vector whose lanes agree runs its
  // branch unmasked, and only a mixed one runs both branches under masks.
  llvm::BasicBlock* all_then = llvm::BasicBlock::Create(ctx_, "lanes.all", fn_);
  llvm::BasicBlock* not_all = llvm::BasicBlock::Create(ctx_, "lanes.notall", fn_);
  llvm::BasicBlock* mixed = llvm::BasicBlock::Create(ctx_, "lanes.mixed", fn_);
  llvm::BasicBlock* none_then =
      op->else_case ? llvm::BasicBlock::Create(ctx_, "lanes.none", fn_) : nullptr;
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "lanes.end", fn_);
  builder_.CreateCondBr(builder_.CreateAndReduce(cond), all_then, not_all);
  ++versioned_ifs_;
  builder_.SetInsertPoint(all_then);
  emit_stmt(op->then_case);
  builder_.CreateBr(done);
  builder_.SetInsertPoint(not_all);
  builder_.CreateCondBr(builder_.CreateOrReduce(cond), mixed, none_then ? none_then : done);
  if (none_then) {
    builder_.SetInsertPoint(none_then);
    emit_stmt(op->else_case);
    builder_.CreateBr(done);
  }
  --versioned_ifs_;
  builder_.SetInsertPoint(mixed);
  emit_branches_under_masks(op, cond);
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

llvm::Type* IREmitter::like(llvm::Value* v, llvm::Type* scalar) {
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(v->getType()))
    return llvm::FixedVectorType::get(scalar, vector->getNumElements());
  return scalar;
}

llvm::Value* IREmitter::splat(llvm::Value* v, unsigned lanes) {
  if (v->getType()->isVectorTy()) return v;
  return builder_.CreateVectorSplat(lanes, v);
}

void IREmitter::unify(llvm::Value*& a, llvm::Value*& b) {
  auto* va = llvm::dyn_cast<llvm::FixedVectorType>(a->getType());
  auto* vb = llvm::dyn_cast<llvm::FixedVectorType>(b->getType());
  if (va && !vb) b = splat(b, va->getNumElements());
  if (vb && !va) a = splat(a, vb->getNumElements());
}

std::optional<int64_t> IREmitter::lane_stride(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return 0;
    case ExprKind::kVar: {
      auto it = lane_strides_.find(e.as<VarNode>());
      return it == lane_strides_.end() ? std::optional<int64_t>(0) : it->second;
    }
    case ExprKind::kCast: {
      auto* c = e.as<CastNode>();
      // Integer widening keeps the stride (indices do not wrap).
      if (c->dtype.is_integer() && c->value.dtype().is_integer() &&
          c->dtype.bits >= c->value.dtype().bits)
        return lane_stride(c->value);
      break;
    }
    case ExprKind::kBinary: {
      auto* b = e.as<BinaryNode>();
      if (!b->dtype.is_integer()) break;
      std::optional<int64_t> sa = lane_stride(b->a), sb = lane_stride(b->b);
      if (b->op == BinaryOp::kAdd && sa && sb) return *sa + *sb;
      if (b->op == BinaryOp::kSub && sa && sb) return *sa - *sb;
      if (b->op == BinaryOp::kMul && sa && sb) {
        if (*sa == 0 && *sb == 0) return 0;
        if (auto* c = as_const_int(b->b); c && *sb == 0) return *sa * *c;
        if (auto* c = as_const_int(b->a); c && *sa == 0) return *sb * *c;
        return std::nullopt;
      }
      break;
    }
    default:
      break;
  }
  // Anything else is uniform exactly when nothing in it varies.
  bool varies = false;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* v = x.as<VarNode>()) {
      auto it = lane_strides_.find(v);
      if (it != lane_strides_.end() && it->second != std::optional<int64_t>(0)) varies = true;
    }
    if (auto* l = x.as<LoadNode>()) {
      auto slot = buffers_.find(l->buffer.get());
      if (slot != buffers_.end() && slot->second.lanes) varies = true;
    }
  });
  return varies ? std::nullopt : std::optional<int64_t>(0);
}

llvm::Value* IREmitter::first_lane(const Expr& e) {
  // Only integer arithmetic on variables: anything else would emit differently (or
  // twice) outside the vector body.
  std::vector<const VarNode*> varying;
  bool ok = true;
  post_order_visit(e, [&](const Expr& x) {
    if (x.kind() == ExprKind::kLoad || x.kind() == ExprKind::kCall ||
        x.kind() == ExprKind::kSelect || !x.dtype().is_integer())
      ok = false;
    if (auto* v = x.as<VarNode>()) {
      auto stride = lane_strides_.find(v);
      if (stride == lane_strides_.end() || stride->second == std::optional<int64_t>(0)) return;
      if (first_lanes_.count(v)) {
        varying.push_back(v);
      } else {
        ok = false;
      }
    }
  });
  if (!ok) return nullptr;
  std::vector<std::pair<const VarNode*, llvm::Value*>> saved;
  for (const VarNode* v : varying) {
    saved.emplace_back(v, vars_[v]);
    vars_[v] = first_lanes_[v];
  }
  unsigned lanes = vector_lanes_;
  vector_lanes_ = 0;
  llvm::Value* scalar = emit(e);
  vector_lanes_ = lanes;
  for (const auto& [v, value] : saved) vars_[v] = value;
  return scalar->getType()->isVectorTy() ? nullptr : scalar;
}

unsigned IREmitter::vector_lanes_for(const ForNode* op, int64_t extent) {
  VectorBodyCheck check(op->var.get());
  if (!check.ok(op->body)) return 0;
  int64_t natural = std::max<int64_t>(2, kVectorBits / std::max<int64_t>(8, check.widest_bits()));
  if (extent <= kMaxLanes) return unsigned(extent);
  return extent % natural == 0 ? unsigned(natural) : 0;
}

bool IREmitter::try_vectorize(const ForNode* op) {
  const int64_t* lo = as_const_int(op->begin);
  const int64_t* hi = as_const_int(op->end);
  if (!lo || !hi || op->step != 1 || !op->var.dtype().is_integer()) return false;
  int64_t extent = *hi - *lo;
  if (extent < 2) return false;
  unsigned lanes = vector_lanes_for(op, extent);
  if (lanes == 0) return false;
  llvm::Type* type = value_type(op->var.dtype());
  std::vector<llvm::Constant*> offsets;
  for (unsigned i = 0; i < lanes; ++i) offsets.push_back(llvm::ConstantInt::get(type, i));
  llvm::Constant* lane_offsets = llvm::ConstantVector::get(offsets);
  auto body = [&](llvm::Value* first) {
    vector_lanes_ = lanes;
    lane_strides_[op->var.get()] = 1;
    var_bounds_[op->var.get()] = {*lo, *hi - 1};
    bind_var(op->var, builder_.CreateAdd(splat(first, lanes), lane_offsets, op->var.name()));
    first_lanes_[op->var.get()] = first;
    emit_stmt(op->body);
    vector_lanes_ = 0;
    lane_strides_.clear();
    first_lanes_.clear();
  };
  if (extent == lanes) {
    body(llvm::ConstantInt::get(type, static_cast<uint64_t>(*lo), true));
  } else {
    // Strip-mined: one vector of lanes per iteration (extent is a multiple of lanes).
    emit_counted_loop(llvm::ConstantInt::get(type, static_cast<uint64_t>(*lo), true),
                      llvm::ConstantInt::get(type, static_cast<uint64_t>(*hi), true), lanes,
                      !op->var.dtype().is_uint(), op->var.name(), body);
  }
  return true;
}

IREmitter::VectorAccess IREmitter::vector_access(const Buffer& buffer, const Expr& index_expr,
                                                 const BufferSlot& slot, llvm::Value* index) {
  llvm::Type* element = storage_type(buffer->dtype);
  VectorAccess access;
  access.align = llvm::Align(std::max(1, buffer->dtype.bytes()));
  if (slot.lanes) {
    // A per-lane tile: element `index` (uniform) is one vector of lanes.
    access.type = llvm::FixedVectorType::get(element, slot.lanes);
    access.address =
        builder_.CreateInBoundsGEP(access.type, slot.ptr, builder_.CreateSExtOrTrunc(index, i64()));
    return access;
  }
  access.type = llvm::FixedVectorType::get(element, vector_lanes_);
  if (lane_stride(index_expr) == std::optional<int64_t>(1)) {
    llvm::Value* first = first_lane(index_expr);
    if (!first) first = builder_.CreateExtractElement(index, uint64_t(0));
    access.address =
        builder_.CreateInBoundsGEP(element, slot.ptr, builder_.CreateSExtOrTrunc(first, i64()));
    return access;
  }
  index = splat(index, vector_lanes_);
  access.address = builder_.CreateInBoundsGEP(
      element, slot.ptr, builder_.CreateSExtOrTrunc(index, like(index, i64())));
  access.gather = true;
  return access;
}

llvm::Value* IREmitter::vector_load(const LoadNode* op, const BufferSlot& slot,
                                    llvm::Value* index) {
  VectorAccess access = vector_access(op->buffer, op->indices[0], slot, index);
  if (slot.lanes) return builder_.CreateAlignedLoad(access.type, access.address, access.align);
  // Inactive lanes (lane_mask_) read nothing: a guard may be all that keeps them in bounds.
  if (access.gather)
    return builder_.CreateMaskedGather(access.type, access.address, access.align, lane_mask_);
  if (lane_mask_)
    return builder_.CreateMaskedLoad(access.type, access.address, access.align, lane_mask_);
  return builder_.CreateAlignedLoad(access.type, access.address, access.align);
}

void IREmitter::vector_store(const StoreNode* op, const BufferSlot& slot, llvm::Value* index,
                             llvm::Value* stored) {
  VectorAccess access = vector_access(op->buffer, op->indices[0], slot, index);
  stored = splat(stored, llvm::cast<llvm::FixedVectorType>(access.type)->getNumElements());
  if (slot.lanes && lane_mask_) {
    // A lane's own tile: inactive lanes keep their element.
    llvm::Value* old = builder_.CreateAlignedLoad(access.type, access.address, access.align);
    stored = builder_.CreateSelect(lane_mask_, stored, old);
  }
  if (access.gather) {
    builder_.CreateMaskedScatter(stored, access.address, access.align, lane_mask_);
  } else if (lane_mask_ && !slot.lanes) {
    builder_.CreateMaskedStore(stored, access.address, access.align, lane_mask_);
  } else {
    builder_.CreateAlignedStore(stored, access.address, access.align);
  }
}

}  // namespace tilec::cpu::llvm_codegen
