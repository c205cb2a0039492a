// IREmitter: emits lowered tile IR functions (loops, lets, ifs, allocations, flat loads
// and stores; no tile operations) into an llvm::Module with IRBuilder, with the
// interpreter's semantics, as CodeGenC prints them in C: floor division for signed
// integers (a zero divisor sets the function's flag and yields 0), float16/bfloat16
// stored as i16 and held in float, rounded to nearest-even after every operation,
// integers of their own width, short-circuit `and`/`or` and if_then_else. Buffer
// parameters are `noalias` (the IR's restrict). A kVectorized loop of constant extent
// whose body allows it is emitted with explicit vector types (ir_emitter_vector.cc):
// its variable is a vector of lanes, contiguous accesses are vector loads and stores,
// others gathers and scatters, uniform values stay scalar, tiles allocated inside it
// hold one vector per element, and ifs on lane-dependent conditions mask their loads
// and stores per lane (the edge-tile guard `if idx < N`), with an unmasked path for
// vectors whose lanes all agree; any other kVectorized loop keeps its loop
// and carries llvm.loop vectorize metadata with its accesses marked parallel, as the lowering
// proved them independent. kUnrolled loops of small constant extent are unrolled here.
// Subclasses (the device and host codegens) define the signature, the prologue and the
// launch. Internal to src/cpu/llvm: the only headers that include LLVM's.
#pragma once

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/codegen_c.h"
#include "tilec/cpu/transpose_tile.h"
#include "tilec/ir/bounds_call.h"
#include "tilec/ir/function.h"
#include "tilec/transform/simplify.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::cpu::llvm_codegen {

// The status a device function returns after an integer division met a zero divisor,
// after a heap tile could not be allocated, and after a bounds violation: runtime/abi.h's
// values, which the C preamble prints too.
inline constexpr int kStatusOutOfMemory = codegen::kStatusOutOfMemory;
inline constexpr int kStatusDivisionByZero = codegen::kStatusDivisionByZero;
inline constexpr int kStatusOutOfBounds = codegen::kStatusOutOfBounds;
// An allocation larger than this lives on the heap, as in the C codegen.
inline constexpr int64_t kMaxStackBytes = codegen::kMaxStackAllocationBytes;

// The module's textual IR after llvm::verifyModule; a broken module throws ir::IRError
// naming `what` and the verifier's message (a codegen bug, never a user error).
std::string verified_module_text(llvm::Module& module, const std::string& what);

// Whether math intrinsic `name` is emitted as a call of libm's scalar function (tanhf,
// erff, ...) rather than an LLVM intrinsic: such a call has no form on vector values.
bool is_libm_call(const std::string& name);

class IREmitter {
 public:
  IREmitter(llvm::LLVMContext& context, llvm::Module& module);
  virtual ~IREmitter();
  IREmitter(const IREmitter&) = delete;
  IREmitter& operator=(const IREmitter&) = delete;

  // Register-held type of a scalar dtype: i1, iN, float (float16/bfloat16/float32), double.
  llvm::Type* value_type(ir::DataType t);
  // In-memory type of one element: i8 for bool, i16 for 16-bit floats.
  llvm::Type* storage_type(ir::DataType t);

 protected:
  // Emits `func` as the llvm::Function `fn` (created by the subclass with its
  // signature): entry block, prologue, body, division-by-zero exit, `ret 0`.
  void emit_body(const ir::PrimFunc& func, llvm::Function* fn);
  // Binds the function's parameters (and anything else) before the body.
  virtual void emit_prologue(const ir::PrimFunc& func, llvm::Function* fn) = 0;
  // After the body of a function that divides integers by a non-constant; `flag` (i1)
  // is true when a divisor was zero. The default returns kStatusDivisionByZero then.
  virtual void emit_division_by_zero_exit(const ir::PrimFunc& func, llvm::Value* flag);
  virtual void emit_launch(const ir::LaunchNode* op);

  // ---- helpers for subclasses ----
  void bind_var(const ir::Var& var, llvm::Value* value);
  // A buffer parameter: the pointer to its first element.
  void bind_param_buffer(const ir::Buffer& buffer, llvm::Value* data);
  llvm::Value* emit(const ir::Expr& e);
  // `value` (held as from's value_type) converted to `to` as a C cast would.
  llvm::Value* convert(llvm::Value* value, ir::DataType from, ir::DataType to);
  llvm::Value* cast_value(ir::DataType to, const ir::Expr& e);
  // A private constant C string.
  llvm::Constant* c_string(const std::string& text);
  llvm::Type* i32() { return builder_.getInt32Ty(); }
  llvm::Type* i64() { return builder_.getInt64Ty(); }
  llvm::PointerType* ptr() { return builder_.getPtrTy(); }
  llvm::FunctionCallee runtime_function(const std::string& name, llvm::Type* ret,
                                        std::vector<llvm::Type*> params, bool var_arg = false);
  // Starts a fresh block after a terminator, so emission can go on (dead code).
  void continue_in_new_block(const char* name);
  // `ret status` when cond holds, then continues.
  void return_if(llvm::Value* cond, llvm::Value* status);
  const ir::PrimFunc& current_function() const { return func_; }
  // The TilecBoundsRecord* a bounds-checked device function reports into
  // (codegen/bounds_record.h); set by the subclass's prologue.
  void set_bounds_record(llvm::Value* record) { bounds_record_ = record; }
  // An alloca in the entry block (so mem2reg sees it and loops reuse one slot).
  llvm::AllocaInst* entry_alloca(llvm::Type* type, llvm::Value* count, const std::string& name,
                                 unsigned align);

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> builder_;
  llvm::Function* fn_ = nullptr;

 private:
  struct BufferSlot {
    llvm::Value* ptr = nullptr;  // the element array, or the scalar slot of a local.var
    size_t loop_depth = 0;       // parallel loops entered when it was allocated
    unsigned lanes = 0;          // > 0: allocated in a vector body, one vector per element
  };
  struct ParallelLoop {
    llvm::MDNode* access_group;
  };

  // The IR functor (ir/functor.h) that routes each node kind to its emitter.
  class Dispatch;
  void emit_stmt(const ir::Stmt& s);
  void emit_store(const ir::StoreNode* op);
  void emit_for(const ir::ForNode* op);
  void emit_if(const ir::IfNode* op);
  void emit_while(const ir::WhileNode* op);
  void emit_allocate(const ir::AllocateNode* op);
  void emit_let(const ir::LetNode* op);
  // ir::bounds_violation / bounds_stop_if_failed through bounds_record_.
  void emit_bounds_call(const ir::BoundsCall& op);
  // `ret status` after freeing the heap tiles in scope; continues in a new block.
  void emit_return_status(int status);
  // A counted loop over [begin, end) by step; body(var) emits one iteration.
  llvm::BranchInst* emit_counted_loop(llvm::Value* begin, llvm::Value* end, int64_t step,
                                      bool is_signed, const std::string& name,
                                      const std::function<void(llvm::Value*)>& body);
  bool try_unroll(const ir::ForNode* op);

  // ---- explicit vectorization (ir_emitter_vector.cc) ----
  bool try_vectorize(const ir::ForNode* op);
  // An if whose condition differs between lanes: both branches under lane masks.
  void emit_masked_if(const ir::IfNode* op, llvm::Value* cond);
  // The outermost such if (and one nested in its unmasked branches): a branch on whether
  // all lanes, no lane or some lanes take it; only the mixed case is masked.
  void emit_versioned_if(const ir::IfNode* op, llvm::Value* cond);
  // Both branches, each under the lanes its side selects (within lane_mask_).
  void emit_branches_under_masks(const ir::IfNode* op, llvm::Value* cond);
  // Lanes for a vectorized loop of this extent, 0 when its body cannot be vectorized.
  unsigned vector_lanes_for(const ir::ForNode* op, int64_t extent);
  // Stride of an index along the vector lanes: 0 uniform, 1 contiguous, nullopt unknown.
  std::optional<int64_t> lane_stride(const ir::Expr& e);
  // Lane 0's value of an integer expression of the vector body as a scalar, emitted from
  // the scalar first-lane values of its varying variables; null where that is not
  // possible (the caller then extracts lane 0). A contiguous access's address computed
  // this way stays in scalar registers and folds into the loop's induction variables.
  llvm::Value* first_lane(const ir::Expr& e);
  llvm::Value* splat(llvm::Value* v, unsigned lanes);
  // The vector-or-scalar version of a scalar type, shaped like v.
  llvm::Type* like(llvm::Value* v, llvm::Type* scalar);
  // Splats the scalar one of a and b when the other is a vector.
  void unify(llvm::Value*& a, llvm::Value*& b);
  // Where a vector body's access to `buffer` at index_expr (emitted as `index`) goes: a
  // per-lane tile's element, lanes contiguous from lane 0's element, or one address a lane.
  struct VectorAccess {
    llvm::Type* type = nullptr;  // the vector loaded or stored
    llvm::Value* address = nullptr;
    llvm::Align align;
    bool gather = false;  // address is a vector of pointers
  };
  VectorAccess vector_access(const ir::Buffer& buffer, const ir::Expr& index_expr,
                             const BufferSlot& slot, llvm::Value* index);
  llvm::Value* vector_load(const ir::LoadNode* op, const BufferSlot& slot, llvm::Value* index);
  void vector_store(const ir::StoreNode* op, const BufferSlot& slot, llvm::Value* index,
                    llvm::Value* stored);

  llvm::Value* emit_binary(const ir::BinaryNode* op);
  llvm::Value* emit_int_division(const ir::BinaryNode* op, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_logical(const ir::BinaryNode* op);
  llvm::Value* emit_select(const ir::SelectNode* op);
  llvm::Value* emit_load(const ir::LoadNode* op);
  llvm::Value* emit_atomic(const ir::CallNode* op);  // ir::atomic_update: one atomicrmw
  llvm::Value* emit_atomic16(ir::BinaryOp combine, llvm::Value* address, llvm::Value* value,
                             ir::DataType t);
  llvm::Value* emit_call(const ir::CallNode* op);
  llvm::Value* emit_intrinsic(const ir::CallNode* op);
  llvm::Value* emit_extern(const ir::CallNode* op);
  // cpu/transpose_tile.h: `lanes` vector loads, shuffle rounds, `lanes` vector stores.
  void emit_transpose_tile(const TransposeTile& tile);
  llvm::Value* emit_float_imm(const ir::FloatImmNode* op);

  // Rounds a float-held value to its narrow float dtype (identity for other dtypes).
  llvm::Value* round_to_dtype(llvm::Value* v, ir::DataType t);
  // float <-> the bits of a narrow float (float16, bfloat16: i16; float8: i8).
  llvm::Value* f32_to_narrow_bits(llvm::Value* v, ir::DataType t);
  llvm::Value* narrow_bits_to_f32(llvm::Value* bits, ir::DataType t);
  llvm::Value* f32_to_float8(llvm::Value* v, ir::DataType t);
  llvm::Value* float8_to_f32(llvm::Value* bits, ir::DataType t);
  llvm::Value* element_pointer(const ir::Buffer& b, const std::vector<ir::Expr>& indices,
                               const BufferSlot** slot);
  void tag_parallel_access(llvm::Instruction* access, const BufferSlot& slot);
  const BufferSlot& buffer_slot(const ir::Buffer& b);
  llvm::Value* var_value(const ir::Var& v);
  bool provably_non_negative(const ir::Expr& e);
  void set_loop_bounds(const ir::ForNode* op);
  [[noreturn]] void fail(const std::string& message) const;

  ir::PrimFunc func_;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::AllocaInst* division_flag_ = nullptr;  // created on the first checked division
  llvm::Value* bounds_record_ = nullptr;
  std::vector<llvm::Value*> heap_tiles_;  // heap-allocated tiles in scope, outermost first
  std::unordered_map<const ir::VarNode*, llvm::Value*> vars_;
  std::unordered_map<const ir::BufferNode*, BufferSlot> buffers_;
  std::map<std::string, BufferSlot> param_buffers_;  // global buffers by source name
  std::vector<ParallelLoop> parallel_loops_;
  transform::VarBounds var_bounds_;
  // In a vector body: its lane count (0 outside) and the lane strides of its variables.
  unsigned vector_lanes_ = 0;
  std::unordered_map<const ir::VarNode*, std::optional<int64_t>> lane_strides_;
  // Scalar lane-0 values of the vector body's varying variables, where known.
  std::unordered_map<const ir::VarNode*, llvm::Value*> first_lanes_;
  // Under lane-dependent conditions: the lanes that run (i1 vector); null for all.
  llvm::Value* lane_mask_ = nullptr;
  // Versioned ifs around the point of emission; each level doubles the code of its body.
  static constexpr int kMaxVersionedIfDepth = 2;
  int versioned_ifs_ = 0;
};

}  // namespace tilec::cpu::llvm_codegen
