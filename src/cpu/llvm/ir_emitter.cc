#include "ir_emitter.h"
#include "tilec/cpu/prefetch.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/ir/float16.h"
#include "tilec/ir/functor.h"

#include <fmt/format.h>
#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>
#include <set>
#include <string>

namespace tilec::cpu::llvm_codegen {

using namespace ir;

namespace {

// Full unrolling up to this trip count (the C printer's "#pragma GCC unroll 8" unrolls
// the gemm micro-kernel's rows and groups completely; LLVM is told so directly).
constexpr int64_t kFullUnrollLimit = 64;
constexpr unsigned kTileAlignment = 64;

}  // namespace

std::string verified_module_text(llvm::Module& module, const std::string& what) {
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(module, &problem_stream)) {
    throw IRError(fmt::format("llvm codegen: the {} module is invalid LLVM IR: {}", what,
                              problem_stream.str()));
  }
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return out.str();
}

IREmitter::IREmitter(llvm::LLVMContext& context, llvm::Module& module)
    : ctx_(context), module_(module), builder_(context) {}

IREmitter::~IREmitter() = default;

void IREmitter::fail(const std::string& message) const {
  throw IRError(
      fmt::format("llvm codegen: {} (in function '{}')", message, func_ ? func_->name : "?"));
}

// ---------------------------------------------------------------- types

llvm::Type* IREmitter::value_type(DataType t) {
  if (t.lanes != 1)
    fail("vector dtype " + t.str() + " is not produced by the cpu lowering and has no lowering");
  if (t.is_bool()) return builder_.getInt1Ty();
  if (t.is_float()) return t.bits == 64 ? builder_.getDoubleTy() : builder_.getFloatTy();
  return builder_.getIntNTy(t.bits);
}

llvm::Type* IREmitter::storage_type(DataType t) {
  if (t.is_bool()) return builder_.getInt8Ty();
  if (t.is_narrow_float()) return builder_.getIntNTy(t.bits);
  return value_type(t);
}

// ---------------------------------------------------------------- helpers

llvm::Constant* IREmitter::c_string(const std::string& text) {
  return builder_.CreateGlobalStringPtr(text, "str", 0, &module_);
}

llvm::FunctionCallee IREmitter::runtime_function(const std::string& name, llvm::Type* ret,
                                                 std::vector<llvm::Type*> params, bool var_arg) {
  return module_.getOrInsertFunction(name, llvm::FunctionType::get(ret, params, var_arg));
}

void IREmitter::continue_in_new_block(const char* name) {
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, name, fn_));
}

void IREmitter::return_if(llvm::Value* cond, llvm::Value* status) {
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "fail", fn_);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx_, "ok", fn_);
  builder_.CreateCondBr(cond, exit, next);
  builder_.SetInsertPoint(exit);
  builder_.CreateRet(status);
  builder_.SetInsertPoint(next);
}

llvm::AllocaInst* IREmitter::entry_alloca(llvm::Type* type, llvm::Value* count,
                                          const std::string& name, unsigned align) {
  llvm::IRBuilder<> at_entry(entry_, entry_->begin());
  llvm::AllocaInst* slot = at_entry.CreateAlloca(type, count, name);
  slot->setAlignment(llvm::Align(align));
  return slot;
}

void IREmitter::bind_var(const Var& var, llvm::Value* value) {
  vars_[var.get()] = value;
}

void IREmitter::bind_param_buffer(const Buffer& buffer, llvm::Value* data) {
  BufferSlot slot{data, 0, 0};
  buffers_[buffer.get()] = slot;
  param_buffers_[buffer->name] = slot;
}

llvm::Value* IREmitter::var_value(const Var& v) {
  auto it = vars_.find(v.get());
  if (it != vars_.end()) return it->second;
  fail(
      fmt::format("variable '{}' is used but never defined (not a parameter, loop variable, let or "
                  "symbolic dimension); the lowering left it free",
                  v.name()));
}

const IREmitter::BufferSlot& IREmitter::buffer_slot(const Buffer& b) {
  auto it = buffers_.find(b.get());
  if (it != buffers_.end()) return it->second;
  if (b->scope == StorageScope::kGlobal) {
    auto p = param_buffers_.find(b->name);
    if (p != param_buffers_.end()) return p->second;
  }
  fail(fmt::format("buffer '{}' ({}) is neither a parameter nor allocated in scope", b->name,
                   to_string(b->scope)));
}

bool IREmitter::provably_non_negative(const Expr& e) {
  return transform::bounds_of(e, var_bounds_).non_negative();
}

void IREmitter::set_loop_bounds(const ForNode* op) {
  var_bounds_[op->var.get()] = transform::loop_var_bounds(*op, var_bounds_);
}

// ---------------------------------------------------------------- narrow floats

// float8 as the C helpers (codegen/narrow_float.cc) and ir::double_to_float8 do it, on
// integers so that vector lanes convert alike: see float8_helper_source for the steps.
llvm::Value* IREmitter::f32_to_float8(llvm::Value* v, DataType t) {
  bool e4m3 = t.code == TypeCode::kFloat8E4M3;
  const uint32_t m = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  auto& B = builder_;
  llvm::Value* u = B.CreateBitCast(v, like(v, i32()));
  auto c = [&](uint32_t x) { return llvm::ConstantInt::get(u->getType(), x); };
  llvm::Value* a = B.CreateAnd(u, c(0x7FFFFFFF));
  llvm::Value* sign = B.CreateAnd(B.CreateLShr(u, c(24)), c(0x80));
  llvm::Value* scaled =
      B.CreateFMul(B.CreateBitCast(a, v->getType()),
                   llvm::ConstantFP::get(v->getType(), std::ldexp(1.0, int(bias + m - 1))));
  llvm::Value* subnormal =
      B.CreateFPToUI(B.CreateUnaryIntrinsic(llvm::Intrinsic::rint, scaled), u->getType());
  const uint32_t shift = 23 - m;
  llvm::Value* rounded = B.CreateLShr(B.CreateAdd(B.CreateAdd(a, c((1u << (shift - 1)) - 1)),
                                                  B.CreateAnd(B.CreateLShr(a, c(shift)), c(1))),
                                      c(shift));
  llvm::Value* normal = B.CreateSub(rounded, c((127 - bias) << m));
  llvm::Value* r = B.CreateSelect(B.CreateICmpULT(a, c((128 - bias) << 23)), subnormal, normal);
  r = B.CreateSelect(B.CreateICmpUGE(a, c(e4m3 ? 0x43E00000 : 0x47600000)), c(e4m3 ? 0x7E : 0x7B),
                     r);
  r = B.CreateOr(r, sign);
  r = B.CreateSelect(B.CreateICmpUGT(a, c(0x7F800000)), c(0x7F), r);
  return B.CreateTrunc(r, like(v, B.getInt8Ty()));
}

llvm::Value* IREmitter::float8_to_f32(llvm::Value* bits, DataType t) {
  bool e4m3 = t.code == TypeCode::kFloat8E4M3;
  const uint32_t m = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  auto& B = builder_;
  llvm::Type* f32 = like(bits, B.getFloatTy());
  llvm::Value* w = B.CreateZExt(bits, like(bits, i32()));
  auto c = [&](uint32_t x) { return llvm::ConstantInt::get(w->getType(), x); };
  llvm::Value* sign = B.CreateShl(B.CreateAnd(w, c(0x80)), c(24));
  llvm::Value* mag = B.CreateAnd(w, c(0x7F));
  llvm::Value* subnormal =
      B.CreateBitCast(B.CreateFMul(B.CreateUIToFP(mag, f32),
                                   llvm::ConstantFP::get(f32, std::ldexp(1.0, -int(bias + m - 1)))),
                      w->getType());
  llvm::Value* normal = B.CreateAdd(B.CreateShl(mag, c(23 - m)), c((127 - bias) << 23));
  llvm::Value* r =
      B.CreateOr(sign, B.CreateSelect(B.CreateICmpULT(mag, c(1u << m)), subnormal, normal));
  if (e4m3) {
    r = B.CreateSelect(B.CreateICmpEQ(mag, c(0x7F)), c(0x7FC00000), r);
  } else {
    r = B.CreateSelect(B.CreateICmpEQ(mag, c(0x7C)), B.CreateOr(sign, c(0x7F800000)), r);
    r = B.CreateSelect(B.CreateICmpUGT(mag, c(0x7C)), c(0x7FC00000), r);
  }
  return B.CreateBitCast(r, f32);
}

llvm::Value* IREmitter::f32_to_narrow_bits(llvm::Value* v, DataType t) {
  if (t.is_float8()) return f32_to_float8(v, t);
  llvm::Type* i16 = like(v, builder_.getInt16Ty());
  if (!t.is_bfloat16()) {
    // fptrunc rounds to nearest-even, as the C helper does.
    return builder_.CreateBitCast(builder_.CreateFPTrunc(v, like(v, builder_.getHalfTy())), i16);
  }
  // The C helper's bfloat16 rounding: NaN stays a quiet NaN, else round to nearest-even.
  llvm::Value* u = builder_.CreateBitCast(v, like(v, i32()));
  auto c = [&](uint32_t x) { return llvm::ConstantInt::get(u->getType(), x); };
  llvm::Value* is_nan = builder_.CreateICmpUGT(builder_.CreateAnd(u, c(0x7FFFFFFF)), c(0x7F800000));
  llvm::Value* nan_bits = builder_.CreateOr(builder_.CreateLShr(u, c(16)), c(0x40));
  llvm::Value* lsb = builder_.CreateAnd(builder_.CreateLShr(u, c(16)), c(1));
  llvm::Value* rounded =
      builder_.CreateLShr(builder_.CreateAdd(builder_.CreateAdd(u, c(0x7FFF)), lsb), c(16));
  return builder_.CreateTrunc(builder_.CreateSelect(is_nan, nan_bits, rounded), i16);
}

llvm::Value* IREmitter::narrow_bits_to_f32(llvm::Value* bits, DataType t) {
  if (t.is_float8()) return float8_to_f32(bits, t);
  llvm::Type* f32 = like(bits, builder_.getFloatTy());
  if (!t.is_bfloat16()) {
    return builder_.CreateFPExt(builder_.CreateBitCast(bits, like(bits, builder_.getHalfTy())),
                                f32);
  }
  llvm::Value* wide = builder_.CreateZExt(bits, like(bits, i32()));
  return builder_.CreateBitCast(
      builder_.CreateShl(wide, llvm::ConstantInt::get(wide->getType(), 16)), f32);
}

llvm::Value* IREmitter::round_to_dtype(llvm::Value* v, DataType t) {
  if (!t.is_narrow_float()) return v;
  return narrow_bits_to_f32(f32_to_narrow_bits(v, t), t);
}

// ---------------------------------------------------------------- conversions

llvm::Value* IREmitter::convert(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  llvm::Type* target = like(v, value_type(to));
  if (to.is_bool()) {
    if (from.is_float()) return builder_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return builder_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (to.is_float()) {
    if (to.is_narrow_float()) {
      // Through float first, as the C cast (float)x does, then rounded.
      llvm::Value* as_float =
          from.is_float() && from.bits != 64 ? v : convert(v, from, DataType::Float32());
      return round_to_dtype(as_float, to);
    }
    if (from.is_float()) {
      if (v->getType() == target) return v;
      return target->getScalarSizeInBits() > v->getType()->getScalarSizeInBits()
                 ? builder_.CreateFPExt(v, target)
                 : builder_.CreateFPTrunc(v, target);
    }
    return from.is_int() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  }
  // Integer destination.
  if (from.is_float()) {
    return to.is_int() ? builder_.CreateFPToSI(v, target) : builder_.CreateFPToUI(v, target);
  }
  return from.is_int() ? builder_.CreateSExtOrTrunc(v, target)
                       : builder_.CreateZExtOrTrunc(v, target);
}

llvm::Value* IREmitter::cast_value(DataType to, const Expr& e) {
  return convert(emit(e), e.dtype(), to);
}

// ---------------------------------------------------------------- expressions

llvm::Value* IREmitter::emit_float_imm(const FloatImmNode* op) {
  DataType t = op->dtype;
  if (t.bits == 64) return llvm::ConstantFP::get(builder_.getDoubleTy(), op->value);
  llvm::APFloat value(static_cast<float>(op->value));
  if (t.is_float8()) {  // (float)literal rounded as a float8 store would, at compile time
    value = llvm::APFloat(static_cast<float>(ir::round_to_dtype(static_cast<float>(op->value), t)));
  } else if (t.is_narrow_float()) {
    // As C does it: (float)literal, then rounded to nearest-even in 16 bits, at compile time.
    bool lost = false;
    value.convert(t.is_bfloat16() ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    value.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  }
  return llvm::ConstantFP::get(ctx_, value);
}

// Each node kind goes to its emitter; tile-level statements must have been lowered
// before code generation.
class IREmitter::Dispatch final : public ExprFunctor<llvm::Value*()>, public StmtFunctor<void()> {
 public:
  explicit Dispatch(IREmitter& em) : em_(em) {}

 private:
  llvm::Value* visit_expr(const IntImmNode* i, const Expr&) override {
    return llvm::ConstantInt::get(em_.value_type(i->dtype), static_cast<uint64_t>(i->value),
                                  i->dtype.is_int());
  }
  llvm::Value* visit_expr(const FloatImmNode* op, const Expr&) override {
    return em_.emit_float_imm(op);
  }
  llvm::Value* visit_expr(const VarNode*, const Expr& e) override {
    return em_.var_value(Var(std::static_pointer_cast<const VarNode>(e.node())));
  }
  llvm::Value* visit_expr(const BinaryNode* op, const Expr&) override {
    return em_.emit_binary(op);
  }
  llvm::Value* visit_expr(const UnaryNode* op, const Expr&) override {
    llvm::Value* a = em_.emit(op->a);
    if (op->op == UnaryOp::kNot) return em_.builder_.CreateNot(a);
    if (op->dtype.is_float()) return em_.builder_.CreateFNeg(a);
    return em_.builder_.CreateNeg(a);
  }
  llvm::Value* visit_expr(const SelectNode* op, const Expr&) override {
    return em_.emit_select(op);
  }
  llvm::Value* visit_expr(const CastNode* op, const Expr&) override {
    return em_.cast_value(op->dtype, op->value);
  }
  llvm::Value* visit_expr(const LoadNode* op, const Expr&) override { return em_.emit_load(op); }
  llvm::Value* visit_expr(const CallNode* op, const Expr&) override { return em_.emit_call(op); }

  void visit_stmt(const StoreNode* op, const Stmt&) override { em_.emit_store(op); }
  void visit_stmt(const LetNode* op, const Stmt&) override { em_.emit_let(op); }
  void visit_stmt(const ForNode* op, const Stmt&) override { em_.emit_for(op); }
  void visit_stmt(const IfNode* op, const Stmt&) override { em_.emit_if(op); }
  void visit_stmt(const WhileNode* op, const Stmt&) override { em_.emit_while(op); }
  void visit_stmt(const SeqNode* op, const Stmt&) override {
    for (const auto& child : op->stmts) em_.emit_stmt(child);
  }
  void visit_stmt(const AllocateNode* op, const Stmt&) override { em_.emit_allocate(op); }
  void visit_stmt(const EvaluateNode* op, const Stmt&) override {
    const Expr& value = op->value;
    if (as_barrier(value)) return;  // the threads of a block run in order on the CPU
    if (auto bounds = as_bounds_call(value)) return em_.emit_bounds_call(*bounds);
    em_.emit(value);
  }
  void visit_stmt(const LaunchNode* op, const Stmt&) override { em_.emit_launch(op); }
  void visit_stmt(const KernelNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const CopyNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const FillNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const GemmNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const ReduceNode*, const Stmt&) override { tile_level(); }

  [[noreturn]] void tile_level() {
    em_.fail(
        "the function still contains a tile-level statement (T.Kernel/copy/fill/gemm/reduce); "
        "run the backend's lowering pipeline before code generation");
  }

  IREmitter& em_;
};

llvm::Value* IREmitter::emit(const Expr& e) {
  if (!e) fail("undefined expression");
  return Dispatch(*this).dispatch_expr(e);
}

llvm::Value* IREmitter::emit_logical(const BinaryNode* op) {
  // Short-circuit, as C's && and || are: the right side may read memory only the left
  // side's answer makes valid (idx < N and A[idx] > 0).
  bool is_and = op->op == BinaryOp::kAnd;
  llvm::Value* a = emit(op->a);
  if (a->getType()->isVectorTy()) {
    // Lanes decide separately; the vectorizer allows this only when op->b reads no memory.
    llvm::Value* b = emit(op->b);
    unify(a, b);
    return is_and ? builder_.CreateAnd(a, b) : builder_.CreateOr(a, b);
  }
  llvm::BasicBlock* from = builder_.GetInsertBlock();
  llvm::BasicBlock* rhs = llvm::BasicBlock::Create(ctx_, is_and ? "and.rhs" : "or.rhs", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, is_and ? "and.end" : "or.end", fn_);
  if (is_and) {
    builder_.CreateCondBr(a, rhs, done);
  } else {
    builder_.CreateCondBr(a, done, rhs);
  }
  builder_.SetInsertPoint(rhs);
  llvm::Value* b = emit(op->b);
  llvm::BasicBlock* rhs_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
  llvm::PHINode* phi = builder_.CreatePHI(b->getType(), 2);
  llvm::Value* skipped = builder_.getInt1(!is_and);
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(b->getType()))
    skipped = llvm::ConstantVector::getSplat(vector->getElementCount(), builder_.getInt1(!is_and));
  phi->addIncoming(skipped, from);
  phi->addIncoming(b, rhs_end);
  return phi;
}

llvm::Value* IREmitter::emit_select(const SelectNode* op) {
  // Only the chosen side is evaluated.
  llvm::Value* cond = emit(op->cond);
  if (cond->getType()->isVectorTy()) {
    // Lanes choose separately; the vectorizer allows this only when neither side reads memory.
    llvm::Value* t = cast_value(op->dtype, op->true_value);
    llvm::Value* f = cast_value(op->dtype, op->false_value);
    unify(t, f);
    unify(cond, t);
    unify(cond, f);  // two uniform sides (T.if_then_else(c, 0, -inf)) follow the condition
    return builder_.CreateSelect(cond, t, f);
  }
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(ctx_, "sel.true", fn_);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(ctx_, "sel.false", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "sel.end", fn_);
  builder_.CreateCondBr(cond, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  llvm::Value* t = cast_value(op->dtype, op->true_value);
  if (vector_lanes_) t = splat(t, vector_lanes_);  // both sides one type in a vector body
  llvm::BasicBlock* then_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(else_block);
  llvm::Value* f = cast_value(op->dtype, op->false_value);
  if (vector_lanes_) f = splat(f, vector_lanes_);
  llvm::BasicBlock* else_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
  llvm::PHINode* phi = builder_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_end);
  phi->addIncoming(f, else_end);
  return phi;
}

llvm::Value* IREmitter::emit_int_division(const BinaryNode* op, llvm::Value* a, llvm::Value* b) {
  DataType t = op->a.dtype();
  bool div = op->op == BinaryOp::kFloorDiv;
  // Sub-int32 integers divide as int32 (C's promotion), so INT8_MIN // -1 wraps as there.
  llvm::Type* wide = t.bits < 32 ? like(a, i32()) : a->getType();
  if (wide != a->getType()) {
    a = t.is_int() ? builder_.CreateSExt(a, wide) : builder_.CreateZExt(a, wide);
    b = t.is_int() ? builder_.CreateSExt(b, wide) : builder_.CreateZExt(b, wide);
  }
  llvm::Value* zero = llvm::ConstantInt::get(wide, 0);
  llvm::Value* one = llvm::ConstantInt::get(wide, 1);
  const int64_t* divisor = as_const_int(op->b);
  bool divisor_nonzero = divisor && *divisor != 0;
  llvm::Value* result = nullptr;
  bool plain = t.is_uint() || (provably_non_negative(op->a) && provably_non_negative(op->b));
  if (divisor_nonzero && plain) {
    // Both sides non-negative: truncation is floor, and a constant divisor folds.
    result = div ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
  } else {
    llvm::Value* is_zero = builder_.CreateICmpEQ(b, zero);
    llvm::Value* unsafe = is_zero;
    if (t.is_int()) {
      // INT_MIN / -1 overflows the hardware divide; dividing by 1 gives the wrapped answer.
      llvm::Value* min =
          llvm::ConstantInt::get(wide, llvm::APInt::getSignedMinValue(wide->getScalarSizeInBits()));
      unsafe = builder_.CreateOr(
          unsafe,
          builder_.CreateAnd(builder_.CreateICmpEQ(a, min),
                             builder_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(wide, -1))));
    }
    llvm::Value* safe_b = builder_.CreateSelect(unsafe, one, b);
    llvm::Value* q;
    llvm::Value* r;
    if (t.is_uint()) {
      q = builder_.CreateUDiv(a, safe_b);
      r = builder_.CreateURem(a, safe_b);
    } else {
      q = builder_.CreateSDiv(a, safe_b);
      r = builder_.CreateSRem(a, safe_b);
      // Floor: when the remainder's sign differs from the divisor's, step down.
      llvm::Value* adjust =
          builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                             builder_.CreateICmpNE(builder_.CreateICmpSLT(r, zero),
                                                   builder_.CreateICmpSLT(safe_b, zero)));
      q = builder_.CreateSelect(adjust, builder_.CreateSub(q, one), q);
      r = builder_.CreateSelect(adjust, builder_.CreateAdd(r, safe_b), r);
    }
    result = builder_.CreateSelect(is_zero, zero, div ? q : r);
    if (!divisor_nonzero) {
      if (!division_flag_) {
        division_flag_ = entry_alloca(builder_.getInt1Ty(), nullptr, "division_by_zero", 1);
        llvm::IRBuilder<> at_entry(entry_, std::next(llvm::BasicBlock::iterator(division_flag_)));
        at_entry.CreateStore(builder_.getFalse(), division_flag_);
      }
      llvm::Value* seen = builder_.CreateLoad(builder_.getInt1Ty(), division_flag_);
      // Only active lanes divide (an inactive lane's zero is what its guard excludes).
      llvm::Value* lanes_zero = lane_mask_ ? builder_.CreateAnd(is_zero, lane_mask_) : is_zero;
      llvm::Value* any_zero =
          lanes_zero->getType()->isVectorTy() ? builder_.CreateOrReduce(lanes_zero) : lanes_zero;
      builder_.CreateStore(builder_.CreateOr(seen, any_zero), division_flag_);
    }
  }
  return builder_.CreateTrunc(result, like(result, value_type(t)));
}

llvm::Value* IREmitter::emit_binary(const BinaryNode* op) {
  if (op->op == BinaryOp::kAnd || op->op == BinaryOp::kOr) return emit_logical(op);
  DataType t = op->a.dtype();  // operands share a dtype; op->dtype is bool for comparisons
  llvm::Value* a = emit(op->a);
  llvm::Value* b = emit(op->b);
  unify(a, b);
  bool f = t.is_float();
  bool s = t.is_int();
  auto& B = builder_;
  switch (op->op) {
    case BinaryOp::kAdd:
      return f ? round_to_dtype(B.CreateFAdd(a, b), op->dtype) : B.CreateAdd(a, b);
    case BinaryOp::kSub:
      return f ? round_to_dtype(B.CreateFSub(a, b), op->dtype) : B.CreateSub(a, b);
    case BinaryOp::kMul:
      return f ? round_to_dtype(B.CreateFMul(a, b), op->dtype) : B.CreateMul(a, b);
    case BinaryOp::kDiv:
      if (!f) fail("'/' on integers (the front end rejects it; use '//')");
      return round_to_dtype(B.CreateFDiv(a, b), op->dtype);
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      if (!f) return emit_int_division(op, a, b);
      llvm::Function* floor =
          llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::floor, {a->getType()});
      llvm::Value* q = B.CreateCall(floor, {B.CreateFDiv(a, b)});
      llvm::Value* r = op->op == BinaryOp::kFloorDiv ? q : B.CreateFSub(a, B.CreateFMul(q, b));
      return round_to_dtype(r, op->dtype);
    }
    case BinaryOp::kMin: {  // b < a ? b : a, so NaN behaves as in the interpreter
      llvm::Value* less = f   ? B.CreateFCmpOLT(b, a)
                          : s ? B.CreateICmpSLT(b, a)
                              : B.CreateICmpULT(b, a);
      return B.CreateSelect(less, b, a);
    }
    case BinaryOp::kMax: {  // a < b ? b : a
      llvm::Value* less = f   ? B.CreateFCmpOLT(a, b)
                          : s ? B.CreateICmpSLT(a, b)
                              : B.CreateICmpULT(a, b);
      return B.CreateSelect(less, b, a);
    }
    case BinaryOp::kEQ:
      return f ? B.CreateFCmpOEQ(a, b) : B.CreateICmpEQ(a, b);
    case BinaryOp::kNE:
      return f ? B.CreateFCmpUNE(a, b) : B.CreateICmpNE(a, b);
    case BinaryOp::kLT:
      return f ? B.CreateFCmpOLT(a, b) : s ? B.CreateICmpSLT(a, b) : B.CreateICmpULT(a, b);
    case BinaryOp::kLE:
      return f ? B.CreateFCmpOLE(a, b) : s ? B.CreateICmpSLE(a, b) : B.CreateICmpULE(a, b);
    case BinaryOp::kGT:
      return f ? B.CreateFCmpOGT(a, b) : s ? B.CreateICmpSGT(a, b) : B.CreateICmpUGT(a, b);
    case BinaryOp::kGE:
      return f ? B.CreateFCmpOGE(a, b) : s ? B.CreateICmpSGE(a, b) : B.CreateICmpUGE(a, b);
    case BinaryOp::kBitAnd:
      return B.CreateAnd(a, b);
    case BinaryOp::kBitOr:
      return B.CreateOr(a, b);
    case BinaryOp::kBitXor:
      return B.CreateXor(a, b);
    case BinaryOp::kShl:
    case BinaryOp::kShr: {  // the count modulo the width, as the IR defines it
      llvm::Value* count = B.CreateAnd(b, llvm::ConstantInt::get(b->getType(), t.bits - 1));
      if (op->op == BinaryOp::kShl) return B.CreateShl(a, count);
      return s ? B.CreateAShr(a, count) : B.CreateLShr(a, count);
    }
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      break;
  }
  fail(std::string("unknown binary operator ") + to_string(op->op));
}

llvm::Value* IREmitter::emit_call(const CallNode* op) {
  switch (op->call_kind) {
    case CallKind::kIntrinsic:
      return emit_intrinsic(op);
    case CallKind::kExtern:
      return emit_extern(op);
    case CallKind::kAtomic:
      return emit_atomic(op);
    case CallKind::kBarrier:
      break;
  }
  fail(
      fmt::format("a {} barrier is used as a value; a barrier is a statement: "
                  "evaluate(barrier(scope))",
                  op->name));
}

llvm::Value* IREmitter::emit_atomic(const CallNode* op) {
  auto* element = op->args[0].as<LoadNode>();
  DataType t = op->dtype;
  llvm::Value* address =
      element->buffer->scope == StorageScope::kVar ? buffer_slot(element->buffer).ptr : [&] {
        const BufferSlot* slot = nullptr;
        return element_pointer(element->buffer, element->indices, &slot);
      }();
  llvm::Value* value = cast_value(t, op->args[1]);
  BinaryOp combine = atomic_op(*op);
  if (t.is_float() && t.bits == 16) return emit_atomic16(combine, address, value, t);
  using Rmw = llvm::AtomicRMWInst;
  Rmw::BinOp rmw = combine == BinaryOp::kAdd      ? (t.is_float() ? Rmw::FAdd : Rmw::Add)
                   : combine == BinaryOp::kMax    ? (t.is_float() ? Rmw::FMax
                                                     : t.is_int() ? Rmw::Max
                                                                  : Rmw::UMax)
                   : combine == BinaryOp::kBitAnd ? Rmw::And
                   : combine == BinaryOp::kBitOr  ? Rmw::Or
                   : combine == BinaryOp::kBitXor ? Rmw::Xor
                                                  : (t.is_float() ? Rmw::FMin
                                                     : t.is_int() ? Rmw::Min
                                                                  : Rmw::UMin);
  return builder_.CreateAtomicRMW(rmw, address, value, llvm::MaybeAlign(t.bytes()),
                                  llvm::AtomicOrdering::Monotonic);
}

// A 16-bit float element: a compare-and-swap loop on its 16 bits that combines in
// float32 and rounds to the dtype, as the C helper does (TILEC_ATOMIC16).
llvm::Value* IREmitter::emit_atomic16(BinaryOp combine, llvm::Value* address, llvm::Value* value,
                                      DataType t) {
  llvm::Type* i16 = builder_.getInt16Ty();
  llvm::LoadInst* first = builder_.CreateAlignedLoad(i16, address, llvm::MaybeAlign(2));
  first->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* entry = builder_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "atomic16.loop", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "atomic16.done", fn_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode* seen = builder_.CreatePHI(i16, 2);
  seen->addIncoming(first, entry);
  llvm::Value* cur = narrow_bits_to_f32(seen, t);
  llvm::Value* next = combine == BinaryOp::kAdd ? builder_.CreateFAdd(cur, value)
                      : combine == BinaryOp::kMax
                          ? builder_.CreateSelect(builder_.CreateFCmpOLT(cur, value), value, cur)
                          : builder_.CreateSelect(builder_.CreateFCmpOLT(value, cur), value, cur);
  llvm::Value* pair = builder_.CreateAtomicCmpXchg(
      address, seen, f32_to_narrow_bits(next, t), llvm::MaybeAlign(2),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  seen->addIncoming(builder_.CreateExtractValue(pair, 0), builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateExtractValue(pair, 1), done, loop);
  builder_.SetInsertPoint(done);
  return cur;
}

llvm::Value* IREmitter::emit_extern(const CallNode* op) {
  if (const LoadNode* element = prefetch_element(*op)) {
    // cpu/prefetch.h: the element's line is asked for (read, all cache levels), not loaded.
    const BufferSlot* slot = nullptr;
    llvm::Value* address = element_pointer(element->buffer, element->indices, &slot);
    builder_.CreateIntrinsic(
        llvm::Intrinsic::prefetch, {address->getType()},
        {address, builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});
    return builder_.getInt32(0);
  }
  if (auto tile = as_transpose_tile(*op)) {
    emit_transpose_tile(*tile);
    return builder_.getInt32(0);
  }
  std::vector<llvm::Type*> types;
  std::vector<llvm::Value*> args;
  for (const auto& a : op->args) {
    args.push_back(emit(a));
    types.push_back(args.back()->getType());
  }
  llvm::FunctionType* type = llvm::FunctionType::get(value_type(op->dtype), types, false);
  if (llvm::Function* existing = module_.getFunction(op->name);
      existing && existing->getFunctionType() != type) {
    fail(
        fmt::format("extern function '{}' is called with two different signatures; cast the "
                    "arguments to the same dtypes",
                    op->name));
  }
  return builder_.CreateCall(module_.getOrInsertFunction(op->name, type), args);
}

bool is_libm_call(const std::string& name) {
  static const std::set<std::string> names = {"tanh",  "expm1", "log1p", "erf",   "tan",
                                              "asin",  "acos",  "atan",  "sinh",  "cosh",
                                              "asinh", "acosh", "atanh", "atan2", "hypot"};
  return names.count(name) != 0;
}

llvm::Value* IREmitter::emit_intrinsic(const CallNode* op) {
  DataType t = op->dtype;
  const std::string& n = op->name;
  std::vector<llvm::Value*> args;
  for (const auto& a : op->args) args.push_back(cast_value(t, a));
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 1; i < args.size(); ++i) unify(args[0], args[i]);
  auto& B = builder_;
  if (!t.is_float()) {
    if (n == "abs") {
      llvm::Value* x = args.at(0);
      if (t.is_uint()) return x;
      return B.CreateSelect(B.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)),
                            B.CreateNeg(x), x);
    }
    fail(fmt::format("math function '{}' on {} (only abs takes integers)", n, t.str()));
  }
  llvm::Type* type = args.empty() ? value_type(t) : args[0]->getType();
  auto intrinsic = [&](llvm::Intrinsic::ID id) -> llvm::Value* {
    return B.CreateCall(llvm::Intrinsic::getDeclaration(&module_, id, {type}), args);
  };
  auto libm = [&](const char* name) -> llvm::Value* {
    std::string symbol = type->isDoubleTy() ? name : std::string(name) + "f";
    std::vector<llvm::Type*> params(args.size(), type);
    llvm::CallInst* call = B.CreateCall(runtime_function(symbol, type, params), args);
    // Kernels never read errno (c compiles with -fno-math-errno): without memory effects
    // the call vectorizes, to libmvec's variant where there is one (exec/llvm/vector_library.h).
    call->setDoesNotAccessMemory();
    return call;
  };
  llvm::Constant* one = llvm::ConstantFP::get(type, 1.0);
  llvm::Value* r = nullptr;
  if (n == "exp")
    r = intrinsic(llvm::Intrinsic::exp);
  else if (n == "exp2")
    r = intrinsic(llvm::Intrinsic::exp2);
  else if (n == "log")
    r = intrinsic(llvm::Intrinsic::log);
  else if (n == "log2")
    r = intrinsic(llvm::Intrinsic::log2);
  else if (n == "sqrt")
    r = intrinsic(llvm::Intrinsic::sqrt);
  else if (n == "abs")
    r = intrinsic(llvm::Intrinsic::fabs);
  else if (n == "pow")
    r = intrinsic(llvm::Intrinsic::pow);
  else if (n == "floor")
    r = intrinsic(llvm::Intrinsic::floor);
  else if (n == "ceil")
    r = intrinsic(llvm::Intrinsic::ceil);
  else if (n == "fma")
    r = intrinsic(llvm::Intrinsic::fma);
  else if (n == "sin")
    r = intrinsic(llvm::Intrinsic::sin);
  else if (n == "cos")
    r = intrinsic(llvm::Intrinsic::cos);
  else if (n == "log10")
    r = intrinsic(llvm::Intrinsic::log10);
  else if (n == "trunc")
    r = intrinsic(llvm::Intrinsic::trunc);
  else if (n == "round")
    r = intrinsic(llvm::Intrinsic::round);
  else if (n == "nearbyint")
    r = intrinsic(llvm::Intrinsic::nearbyint);
  else if (n == "copysign")
    r = intrinsic(llvm::Intrinsic::copysign);
  else if (n == "fmod")
    r = B.CreateFRem(args.at(0), args.at(1));  // frem is C's fmod
  else if (n == "exp10")
    r = B.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::pow, {type}),
                     {llvm::ConstantFP::get(type, 10.0), args.at(0)});
  else if (is_libm_call(n))
    r = libm(n.c_str());
  else if (n == "rsqrt") {
    r = B.CreateFDiv(
        one, B.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::sqrt, {type}),
                          {args.at(0)}));
  } else if (n == "sigmoid") {
    llvm::Value* e =
        B.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::exp, {type}),
                     {B.CreateFNeg(args.at(0))});
    r = B.CreateFDiv(one, B.CreateFAdd(one, e));
  } else {
    fail(fmt::format("math intrinsic '{}' has no LLVM lowering", n));
  }
  return round_to_dtype(r, t);
}

llvm::Value* IREmitter::element_pointer(const Buffer& b, const std::vector<Expr>& indices,
                                        const BufferSlot** slot_out) {
  const BufferSlot& slot = buffer_slot(b);
  *slot_out = &slot;
  if (indices.size() != 1) {
    fail(
        fmt::format("buffer '{}' is accessed with {} indices; LLVM code needs flat 1-D "
                    "accesses (run the flatten_buffers pass first)",
                    b->name, indices.size()));
  }
  // In a vector body, per-lane tiles and varying indices go through vector_load/store.
  if (vector_lanes_ && (slot.lanes || lane_stride(indices[0]) != std::optional<int64_t>(0)))
    return nullptr;
  llvm::Value* index = emit(indices[0]);
  index = indices[0].dtype().is_uint() ? builder_.CreateZExtOrTrunc(index, i64())
                                       : builder_.CreateSExtOrTrunc(index, i64());
  return builder_.CreateInBoundsGEP(storage_type(b->dtype), slot.ptr, index);
}

void IREmitter::tag_parallel_access(llvm::Instruction* access, const BufferSlot& slot) {
  // Only loops entered before the buffer was allocated: a tile allocated inside a loop
  // body is private to each iteration, which parallel-access metadata cannot say.
  if (slot.loop_depth >= parallel_loops_.size()) return;
  std::vector<llvm::Metadata*> groups;
  for (size_t i = slot.loop_depth; i < parallel_loops_.size(); ++i)
    groups.push_back(parallel_loops_[i].access_group);
  access->setMetadata(llvm::LLVMContext::MD_access_group, groups.size() == 1
                                                              ? llvm::cast<llvm::MDNode>(groups[0])
                                                              : llvm::MDNode::get(ctx_, groups));
}

llvm::Value* IREmitter::emit_load(const LoadNode* op) {
  DataType t = op->buffer->dtype;
  if (op->buffer->scope == StorageScope::kVar) {
    const BufferSlot& slot = buffer_slot(op->buffer);
    llvm::Type* type =
        slot.lanes ? llvm::FixedVectorType::get(value_type(t), slot.lanes) : value_type(t);
    return builder_.CreateLoad(type, slot.ptr, op->buffer->name);
  }
  const BufferSlot* slot = nullptr;
  llvm::Value* address = element_pointer(op->buffer, op->indices, &slot);
  llvm::Value* raw;
  if (address == nullptr) {
    raw = vector_load(op, *slot, emit(op->indices[0]));
  } else {
    llvm::LoadInst* load = builder_.CreateLoad(storage_type(t), address);
    tag_parallel_access(load, *slot);
    raw = load;
  }
  if (t.is_bool()) return builder_.CreateICmpNE(raw, llvm::ConstantInt::get(raw->getType(), 0));
  if (t.is_narrow_float()) return narrow_bits_to_f32(raw, t);
  return raw;
}

// ---------------------------------------------------------------- statements

void IREmitter::emit_store(const StoreNode* op) {
  DataType t = op->buffer->dtype;
  if (op->buffer->scope == StorageScope::kVar) {
    const BufferSlot& slot = buffer_slot(op->buffer);
    llvm::Value* value = cast_value(t, op->value);
    if (slot.lanes) value = splat(value, slot.lanes);
    if (slot.lanes && lane_mask_) {  // inactive lanes keep their value
      value =
          builder_.CreateSelect(lane_mask_, value, builder_.CreateLoad(value->getType(), slot.ptr));
    }
    builder_.CreateStore(value, slot.ptr);
    return;
  }
  llvm::Value* stored;
  auto* same_type_load = op->value.as<LoadNode>();
  if (!vector_lanes_ && t.is_narrow_float() && same_type_load && same_type_load->dtype == t &&
      same_type_load->buffer->scope != StorageScope::kVar) {
    // A narrow float copied between buffers keeps its bits: no conversion round trip.
    const BufferSlot* from = nullptr;
    llvm::Value* source = element_pointer(same_type_load->buffer, same_type_load->indices, &from);
    llvm::LoadInst* bits = builder_.CreateLoad(builder_.getIntNTy(t.bits), source);
    tag_parallel_access(bits, *from);
    stored = bits;
  } else {
    llvm::Value* value = cast_value(t, op->value);
    stored = t.is_bool()           ? builder_.CreateZExt(value, like(value, builder_.getInt8Ty()))
             : t.is_narrow_float() ? f32_to_narrow_bits(value, t)
                                   : value;
  }
  const BufferSlot* slot = nullptr;
  llvm::Value* address = element_pointer(op->buffer, op->indices, &slot);
  if (address == nullptr) return vector_store(op, *slot, emit(op->indices[0]), stored);
  if (stored->getType()->isVectorTy())
    fail("a value that differs between vector lanes is stored at one index of buffer '" +
         op->buffer->name + "'");
  tag_parallel_access(builder_.CreateStore(stored, address), *slot);
}

void IREmitter::emit_let(const LetNode* op) {
  llvm::Value* value = emit(op->value);
  if (vector_lanes_) {
    std::optional<int64_t> stride = lane_stride(op->value);
    lane_strides_[op->var.get()] = stride;
    if (stride && *stride != 0)
      if (llvm::Value* first = first_lane(op->value)) first_lanes_[op->var.get()] = first;
  }
  value->setName(op->var.name());
  var_bounds_[op->var.get()] = transform::bounds_of(op->value, var_bounds_);
  bind_var(op->var, value);
  emit_stmt(op->body);
}

llvm::BranchInst* IREmitter::emit_counted_loop(llvm::Value* begin, llvm::Value* end, int64_t step,
                                               bool is_signed, const std::string& name,
                                               const std::function<void(llvm::Value*)>& body) {
  llvm::Type* type = begin->getType();
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for." + name, fn_);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
  llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "for.latch", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "for.end", fn_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* var = builder_.CreatePHI(type, 2, name);
  var->addIncoming(begin, preheader);
  llvm::Value* more =
      step > 0 ? (is_signed ? builder_.CreateICmpSLT(var, end) : builder_.CreateICmpULT(var, end))
               : (is_signed ? builder_.CreateICmpSGT(var, end) : builder_.CreateICmpUGT(var, end));
  builder_.CreateCondBr(more, body_block, exit);
  builder_.SetInsertPoint(body_block);
  body(var);
  builder_.CreateBr(latch);
  builder_.SetInsertPoint(latch);
  llvm::Value* next =
      builder_.CreateAdd(var, llvm::ConstantInt::get(type, step, true), name + ".next");
  llvm::BranchInst* back = builder_.CreateBr(header);
  var->addIncoming(next, latch);
  builder_.SetInsertPoint(exit);
  return back;
}

bool IREmitter::try_unroll(const ForNode* op) {
  // Small constant loops are unrolled here, so the tiles they index are constant-indexed
  // (registers after SROA), as the C printer's "#pragma GCC unroll" achieves with gcc.
  const int64_t* lo = as_const_int(op->begin);
  const int64_t* hi = as_const_int(op->end);
  if (!lo || !hi || op->step == 0) return false;
  int64_t trips =
      op->step > 0 ? (*hi - *lo + op->step - 1) / op->step : (*lo - *hi - op->step - 1) / -op->step;
  if (trips < 0 || trips > kFullUnrollLimit) return false;
  for (int64_t i = 0; i < trips; ++i) {
    int64_t value = *lo + i * op->step;
    var_bounds_[op->var.get()] = {value, value};
    bind_var(op->var,
             llvm::ConstantInt::get(value_type(op->var.dtype()), static_cast<uint64_t>(value),
                                    op->var.dtype().is_int()));
    emit_stmt(op->body);
  }
  return true;
}

void IREmitter::emit_for(const ForNode* op) {
  if (op->for_kind == ForKind::kUnrolled && try_unroll(op)) return;
  if (op->for_kind == ForKind::kVectorized && !vector_lanes_ && try_vectorize(op)) return;
  llvm::Value* begin = cast_value(op->var.dtype(), op->begin);
  llvm::Value* end = cast_value(op->var.dtype(), op->end);
  if (begin->getType()->isVectorTy() || end->getType()->isVectorTy())
    fail("loop '" + op->var.name() + "' has bounds that differ between vector lanes");
  // In a vector body an inner vectorized loop runs as a plain loop.
  bool parallel = op->for_kind == ForKind::kVectorized && !vector_lanes_;
  llvm::MDNode* access_group = nullptr;
  llvm::BranchInst* back = emit_counted_loop(begin, end, op->step, !op->var.dtype().is_uint(),
                                             op->var.name(), [&](llvm::Value* var) {
                                               set_loop_bounds(op);
                                               bind_var(op->var, var);
                                               if (parallel) {
                                                 access_group = llvm::MDNode::getDistinct(ctx_, {});
                                                 parallel_loops_.push_back({access_group});
                                               }
                                               emit_stmt(op->body);
                                               if (parallel) parallel_loops_.pop_back();
                                             });

  std::vector<llvm::Metadata*> loop_md = {nullptr};
  auto flag = [&](const char* name, llvm::Metadata* value) {
    loop_md.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, name), value}));
  };
  if (parallel) {
    flag("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(builder_.getTrue()));
    flag("llvm.loop.parallel_accesses", access_group);
  } else if (op->for_kind == ForKind::kUnrolled) {
    flag("llvm.loop.unroll.count", llvm::ConstantAsMetadata::get(builder_.getInt32(8)));
  }
  if (loop_md.size() > 1) {
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, loop_md);
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
}

void IREmitter::emit_if(const IfNode* op) {
  llvm::Value* cond = emit(op->cond);
  if (cond->getType()->isVectorTy()) return emit_masked_if(op, cond);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
  llvm::BasicBlock* else_block =
      op->else_case ? llvm::BasicBlock::Create(ctx_, "if.else", fn_) : nullptr;
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "if.end", fn_);
  builder_.CreateCondBr(cond, then_block, else_block ? else_block : done);
  builder_.SetInsertPoint(then_block);
  emit_stmt(op->then_case);
  builder_.CreateBr(done);
  if (else_block) {
    builder_.SetInsertPoint(else_block);
    emit_stmt(op->else_case);
    builder_.CreateBr(done);
  }
  builder_.SetInsertPoint(done);
}

void IREmitter::emit_while(const WhileNode* op) {
  llvm::BasicBlock* test = llvm::BasicBlock::Create(ctx_, "while.cond", fn_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "while.body", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "while.end", fn_);
  builder_.CreateBr(test);
  builder_.SetInsertPoint(test);
  llvm::Value* cond = emit(op->cond);
  if (cond->getType()->isVectorTy())
    fail("a while loop in a vectorized loop's body (its lanes would leave it apart)");
  builder_.CreateCondBr(cond, body, done);
  builder_.SetInsertPoint(body);
  emit_stmt(op->body);
  builder_.CreateBr(test);
  builder_.SetInsertPoint(done);
}

void IREmitter::emit_allocate(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  if (b->scope == StorageScope::kVar) {
    // In a vector body each lane has its own variable: one vector.
    llvm::Type* type = vector_lanes_
                           ? llvm::FixedVectorType::get(value_type(b->dtype), vector_lanes_)
                           : value_type(b->dtype);
    llvm::AllocaInst* slot =
        entry_alloca(type, nullptr, b->name, vector_lanes_ ? kTileAlignment : 8);
    buffers_[b.get()] = {slot, parallel_loops_.size(), vector_lanes_};
    if (op->init) {
      llvm::Value* init = cast_value(b->dtype, *op->init);
      builder_.CreateStore(vector_lanes_ ? splat(init, vector_lanes_) : init, slot);
    }
    emit_stmt(op->body);
    return;
  }
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  numel = transform::simplify(numel);
  llvm::Type* element = storage_type(b->dtype);
  int64_t elem_bytes = b->dtype.bytes();
  if (vector_lanes_) {
    // A tile allocated in a vector body: one vector of lanes per element (the vectorizer
    // allows only small ones of constant size).
    const int64_t* count = as_const_int(numel);
    if (!count) fail("tile '" + b->name + "' of symbolic size inside a vectorized loop");
    llvm::AllocaInst* tile =
        entry_alloca(llvm::ArrayType::get(llvm::FixedVectorType::get(element, vector_lanes_),
                                          std::max<int64_t>(*count, 1)),
                     nullptr, b->name, kTileAlignment);
    buffers_[b.get()] = {tile, parallel_loops_.size(), vector_lanes_};
    emit_stmt(op->body);
    return;
  }
  if (const int64_t* count = as_const_int(numel); count && *count * elem_bytes <= kMaxStackBytes) {
    // In the entry block: a tile allocated inside a loop reuses one stack slot.
    llvm::AllocaInst* tile =
        entry_alloca(llvm::ArrayType::get(element, std::max<int64_t>(*count, 1)), nullptr, b->name,
                     kTileAlignment);
    buffers_[b.get()] = {tile, parallel_loops_.size(), 0};
    emit_stmt(op->body);
    return;
  }
  // Large or symbolic tiles go to the heap: a pool thread's stack is small.
  llvm::Value* bytes = builder_.CreateMul(emit(numel), builder_.getInt64(elem_bytes));
  bytes = builder_.CreateMul(
      builder_.CreateUDiv(builder_.CreateAdd(bytes, builder_.getInt64(kTileAlignment - 1)),
                          builder_.getInt64(kTileAlignment)),
      builder_.getInt64(kTileAlignment));
  llvm::Value* tile = builder_.CreateCall(runtime_function("aligned_alloc", ptr(), {i64(), i64()}),
                                          {builder_.getInt64(kTileAlignment), bytes}, b->name);
  llvm::BasicBlock* no_memory = llvm::BasicBlock::Create(ctx_, "out_of_memory", fn_);
  llvm::BasicBlock* allocated = llvm::BasicBlock::Create(ctx_, "allocated", fn_);
  builder_.CreateCondBr(builder_.CreateICmpEQ(tile, llvm::ConstantPointerNull::get(ptr())),
                        no_memory, allocated);
  builder_.SetInsertPoint(no_memory);
  emit_return_status(kStatusOutOfMemory);
  builder_.CreateBr(allocated);
  builder_.SetInsertPoint(allocated);
  buffers_[b.get()] = {tile, parallel_loops_.size(), 0};
  heap_tiles_.push_back(tile);
  emit_stmt(op->body);
  heap_tiles_.pop_back();
  builder_.CreateCall(runtime_function("free", builder_.getVoidTy(), {ptr()}), {tile});
}

void IREmitter::emit_return_status(int status) {
  for (size_t i = heap_tiles_.size(); i-- > 0;)
    builder_.CreateCall(runtime_function("free", builder_.getVoidTy(), {ptr()}), {heap_tiles_[i]});
  builder_.CreateRet(builder_.getInt32(status));
  continue_in_new_block("after_return");
}

void IREmitter::emit_bounds_call(const BoundsCall& op) {
  if (!bounds_record_) {
    fail("a bounds check in a function without a bounds record (attr tilec.bounds_checked)");
  }
  if (op.stop) {
    auto* claimed = builder_.CreateAlignedLoad(i32(), bounds_record_, llvm::Align(4), "claimed");
    claimed->setAtomic(llvm::AtomicOrdering::Monotonic);
    llvm::BasicBlock* stop = llvm::BasicBlock::Create(ctx_, "bounds_stop", fn_);
    llvm::BasicBlock* go_on = llvm::BasicBlock::Create(ctx_, "bounds_go_on", fn_);
    builder_.CreateCondBr(builder_.CreateICmpNE(claimed, builder_.getInt32(0)), stop, go_on);
    builder_.SetInsertPoint(stop);
    emit_return_status(kStatusOutOfBounds);
    builder_.CreateBr(go_on);
    builder_.SetInsertPoint(go_on);
    return;
  }
  // The first violation of the launch claims the record and writes its message.
  auto* claim = builder_.CreateAtomicCmpXchg(
      bounds_record_, builder_.getInt32(0), builder_.getInt32(1), llvm::MaybeAlign(4),
      llvm::AtomicOrdering::AcquireRelease, llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* report = llvm::BasicBlock::Create(ctx_, "bounds_report", fn_);
  llvm::BasicBlock* leave = llvm::BasicBlock::Create(ctx_, "bounds_leave", fn_);
  builder_.CreateCondBr(builder_.CreateExtractValue(claim, 1), report, leave);
  builder_.SetInsertPoint(report);
  std::vector<llvm::Value*> args = {
      builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), bounds_record_,
                                          codegen::kBoundsRecordMessageOffset),
      builder_.getInt64(codegen::kBoundsRecordMessageBytes),
      c_string(codegen::bounds_violation_format(op))};
  for (const auto* list : {&op.indices, &op.shape})
    for (const auto& e : *list) args.push_back(cast_value(DataType::Int64(), e));
  builder_.CreateCall(runtime_function("snprintf", i32(), {ptr(), i64(), ptr()}, true), args);
  builder_.CreateBr(leave);
  builder_.SetInsertPoint(leave);
  emit_return_status(kStatusOutOfBounds);
}

void IREmitter::emit_launch(const LaunchNode* op) {
  fail("a launch of '" + op->callee + "' belongs to host code; emit it with the llvm host codegen");
}

void IREmitter::emit_division_by_zero_exit(const PrimFunc&, llvm::Value* flag) {
  return_if(flag, builder_.getInt32(kStatusDivisionByZero));
}

void IREmitter::emit_stmt(const Stmt& s) {
  if (!s) return;
  Dispatch(*this).dispatch_stmt(s);
}

void IREmitter::emit_body(const PrimFunc& func, llvm::Function* fn) {
  func_ = func;
  fn_ = fn;
  vars_.clear();
  buffers_.clear();
  param_buffers_.clear();
  parallel_loops_.clear();
  var_bounds_.clear();
  vector_lanes_ = 0;
  lane_strides_.clear();
  first_lanes_.clear();
  lane_mask_ = nullptr;
  division_flag_ = nullptr;
  bounds_record_ = nullptr;
  heap_tiles_.clear();
  for (const auto& v : symbolic_shape_vars(func)) var_bounds_[v.get()] = {0, std::nullopt};
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn);
  builder_.SetInsertPoint(entry_);
  emit_prologue(func, fn);
  emit_stmt(func->body);
  if (division_flag_)
    emit_division_by_zero_exit(func, builder_.CreateLoad(builder_.getInt1Ty(), division_flag_));
  builder_.CreateRet(builder_.getInt32(0));
}

}  // namespace tilec::cpu::llvm_codegen
