// CodeGenC: prints lowered tile IR (loops, lets, ifs, allocations, flat loads and
// stores; no tile operations) as C with the interpreter's semantics: floor division
// for signed integers, float16/bfloat16 stored as uint16_t and rounded after every
// operation, sub-int32 integers wrapped to their width. CUDA/OpenCL/Metal printers
// subclass it and override only what differs: the hooks (qualifiers, types,
// pragmas, thread indices, barriers, ...) or any expression or statement printer,
// whose base implementation an override may still call. build_device_source
// (device_source.h) turns a lowered module into device source with any instance.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/simplify.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::codegen {

// An allocation larger than this many bytes lives on the heap, not the stack.
inline constexpr int64_t kMaxStackAllocationBytes = 256 * 1024;
// The thread-local flag of the C preamble's "floordiv" section that an integer
// division sets when its divisor is zero.
inline constexpr const char* kDivisionByZeroFlag = "tilec_division_by_zero";
// The last parameter of a device kernel that may divide by zero: a pointer to the
// launch's status word (runtime/abi.h, TilecDeviceApi::launch), which the kernel sets
// to TILEC_STATUS_DIVISION_BY_ZERO.
inline constexpr const char* kDeviceStatusParam = "tilec_status";

class CodeGenC {
 public:
  CodeGenC();
  virtual ~CodeGenC();
  CodeGenC(const CodeGenC&) = delete;
  CodeGenC& operator=(const CodeGenC&) = delete;

  // Appends the definition of one lowered function; throws ir::IRError naming the
  // function when it contains a construct the printer cannot express (e.g. an
  // unlowered tile operation or a multi-dimensional access).
  void add_function(const ir::PrimFunc& func);
  // Preamble (only the helpers the added functions use) followed by the functions.
  std::string finish();
  std::string preamble_text();   // the first part of finish()
  std::string functions_text();  // the second part of finish()

  // One expression in the scope of the function being printed (for tests and
  // subclasses); variables print by their uniquified names.
  std::string print_expr(const ir::Expr& e);

  // ---- device module hooks, called by build_device_source (device_source.h) ----
  // Adds one device function of a lowered module and returns the name of its entry
  // point in the artifact; the default adds it as is, entry point function_name().
  virtual std::string add_device_function(const ir::PrimFunc& func);
  // Text between the preamble and the functions of a device source, e.g. the
  // declarations device code shares with the host code; none for C.
  virtual std::string device_declarations() { return ""; }
  // CodeArtifact::format of the device source: "c", "opencl", "cuda", ...
  virtual std::string source_format() const { return "c"; }
  // The file extension a source of that format is written with (the `source` execution
  // backend's listing, build directories): "c", "cl", "cu", ...
  virtual std::string source_file_extension() const { return "c"; }

 protected:
  // ---- hooks for subclasses ----
  virtual void print_preamble(std::ostream& os);
  // Prototypes of the extern functions the added functions call, printed after the
  // preamble: "float my_fn(float, int32_t);" (C has no implicit declarations).
  virtual void print_extern_declarations(std::ostream& os);
  virtual std::string function_qualifiers(const ir::PrimFunc& func) { return ""; }
  virtual std::string function_name(const ir::PrimFunc& func) { return func->name; }
  // "" for C; "__global" / "threadgroup" / ... for device dialects.
  virtual std::string address_space(ir::StorageScope scope) { return ""; }
  virtual std::string restrict_keyword() { return "restrict"; }
  // Names a variable may not print as (it gets a "_" suffix): C's keywords and the
  // macros and functions the generated code uses. A dialect adds its own keywords,
  // types and built-ins and calls this for the rest.
  virtual bool is_reserved_word(const std::string& name) const;
  // Name of the C type holding a scalar value of t (float16 values live in float).
  virtual std::string type_name(ir::DataType t);
  // Name of the C type storing one element of t in memory (float16 -> uint16_t).
  virtual std::string storage_type_name(ir::DataType t);
  virtual std::string vector_type_name(ir::DataType t);
  // Expression of a hardware thread index ("threadIdx.x" -> "get_local_id(0)"); C
  // has none and throws. Reached through bind_loop_to_thread.
  virtual std::string thread_index(const std::string& tag);
  // Lines printed before a loop of this kind (e.g. "#pragma GCC ivdep").
  virtual std::vector<std::string> loop_pragmas(ir::ForKind kind);
  virtual std::string math_function(const std::string& name, ir::DataType t);
  // The helper an atomic update (ir::atomic_update) of an element of `buffer` calls
  // with the element's address and the value; it also requires the helper's preamble.
  virtual std::string atomic_function(const ir::CallNode* op, const ir::Buffer& buffer);
  virtual void print_function_signature(const ir::PrimFunc& func);
  // Statements printed at the top of the body, before func->body (host codegens
  // check and unpack their arguments here).
  virtual void print_function_prologue(const ir::PrimFunc& func) {}
  virtual void print_function_epilogue(const ir::PrimFunc& func);
  // Printed after the body of a function that divides integers by a non-constant,
  // for when the division flag is set: returns TILEC_STATUS_DIVISION_BY_ZERO.
  virtual void print_division_by_zero_exit(const ir::PrimFunc& func);
  // The call of `fn` (an integer // or % helper of the preamble) on `a` and `b` when
  // the divisor may be zero. The C helpers set the thread-local flag themselves;
  // device codegens, without thread-local storage, pass their kernel's own flag.
  virtual std::string zero_checked_division(const std::string& fn, const std::string& a,
                                            const std::string& b);
  // Whether `body` divides integers by anything but a non-zero constant, i.e. whether
  // a function printed from it uses the division flag (device codegens decide from
  // this, before the body is printed, whether a kernel takes a status word).
  static bool may_divide_by_zero(const ir::Stmt& body);
  // The parameter list, e.g. "const float* restrict A, int32_t n".
  virtual std::string param_declaration(const ir::Param& param);

  // ---- expression printers ----
  // A printed expression and its C precedence level: 0 = primary, larger binds
  // looser; wrap() parenthesizes an operand only where C needs it.
  struct Printed {
    std::string text;
    int precedence;
  };
  static constexpr int kPrimary = 0;
  static constexpr int kUnaryPrec = 2;
  static constexpr int kMulPrec = 3;
  static constexpr int kAddPrec = 4;
  static constexpr int kShiftPrec = 5;
  static constexpr int kRelPrec = 6;
  static constexpr int kEqPrec = 7;
  static constexpr int kBitAndPrec = 8;
  static constexpr int kBitXorPrec = 9;
  static constexpr int kBitOrPrec = 10;
  static constexpr int kAndPrec = 11;
  static constexpr int kOrPrec = 12;
  static constexpr int kTernaryPrec = 13;
  // Dispatches on the expression kind to one printer below. Every printer may be
  // overridden; an override can call the base (CodeGenC::print_binary(op)) for the
  // cases it does not change.
  Printed print(const ir::Expr& e);
  // The IR functor (ir/functor.h) that routes each node kind to its printer below.
  class Dispatch;
  virtual Printed print_int_imm(const ir::IntImmNode* op);
  virtual Printed print_float_imm(const ir::FloatImmNode* op);
  virtual Printed print_var(const ir::Var& var);
  virtual Printed print_binary(const ir::BinaryNode* op);
  virtual Printed print_unary(const ir::UnaryNode* op);
  virtual Printed print_select(const ir::SelectNode* op);
  virtual Printed print_cast(const ir::CastNode* op);
  virtual Printed print_load(const ir::LoadNode* op);
  // Dispatches on the call kind: print_intrinsic_call, print_extern_call; a barrier
  // is a statement (print_barrier) and throws here.
  virtual Printed print_call(const ir::CallNode* op);
  virtual Printed print_intrinsic_call(const ir::CallNode* op);  // exp -> expf(...)
  virtual Printed print_extern_call(const ir::CallNode* op);     // name(args...)

  // ---- statement printers ----
  // Dispatches on the statement kind; tile-level statements throw.
  void print_stmt(const ir::Stmt& s);
  virtual void print_store(const ir::StoreNode* op);
  // A vector move (print_store of a value that is an ir::vector_load): `lanes`
  // consecutive elements of one dtype from src to dst, both first elements aligned to
  // lanes * element bytes (gpu.vectorize_lanes proves or checks it). C prints an element
  // loop; SIMT dialects override it with one wide load and one wide store.
  virtual void print_vector_move(const ir::StoreNode* op, const ir::LoadNode* src);
  virtual void print_let(const ir::LetNode* op);
  // Thread-binding loops go to print_thread_binding_loop, the others to print_c_loop.
  virtual void print_for(const ir::ForNode* op);
  // C runs the threads of a block as a serial loop; SIMT dialects override this to
  // call bind_loop_to_thread.
  virtual void print_thread_binding_loop(const ir::ForNode* op);
  virtual void print_if(const ir::IfNode* op);
  virtual void print_while(const ir::WhileNode* op);
  virtual void print_seq(const ir::SeqNode* op);
  virtual void print_allocate(const ir::AllocateNode* op);
  // evaluate(barrier(...)) goes to print_barrier; any other value is printed as a
  // discarded C expression.
  virtual void print_evaluate(const ir::EvaluateNode* op);
  // A barrier of the threads of a block (op->name is the scope). C runs them in
  // order, so it prints only a comment; SIMT dialects print their barrier
  // ("barrier(CLK_LOCAL_MEM_FENCE);", "__syncthreads();").
  virtual void print_barrier(const ir::CallNode* op);
  virtual void print_launch(const ir::LaunchNode* op);

  // ---- printing machinery available to subclasses ----
  std::ostream& line();                          // indented start of a new line in the body stream
  void open_scope();                             // "{" + indent
  void close_scope();                            // dedent + "}"
  std::string var_name(const ir::Var& v);        // declares on first use
  std::string declare_var(const ir::Var& v);     // fresh, uniquified name
  std::string buffer_name(const ir::Buffer& b);  // params resolved by name
  std::string declare_buffer(const ir::Buffer& b);
  void require_helper(const std::string& helper);  // preamble section to emit
  bool uses_helper(const std::string& helper) const { return helpers_.count(helper) > 0; }
  const ir::PrimFunc& current_function() const { return function_; }
  void append_definition(std::string text) { functions_.push_back(std::move(text)); }
  std::string wrap(const Printed& p, int max_precedence);
  // Rounds a float-held value to its 16-bit float dtype, wraps small integers.
  Printed round_to_dtype(Printed value, ir::DataType t);
  // `value` converted to `to` with the interpreter's semantics.
  Printed cast_value(ir::DataType to, const ir::Expr& value);
  // The index of a flat (1-D) access; throws for multi-dimensional ones.
  std::string flat_index(const ir::Buffer& b, const std::vector<ir::Expr>& indices);
  bool provably_non_negative(const ir::Expr& e);
  // Records the range of op's loop variable for provably_non_negative.
  void set_loop_bounds(const ir::ForNode* op);
  // op as a C for loop, after the loop_pragmas of its kind.
  void print_c_loop(const ir::ForNode* op);
  // op's variable bound to the hardware thread of its tag: "const int32_t v = begin
  // + thread_index(tag);" and the body, once per thread. The launch supplies
  // exactly end - begin threads along that axis, so there is no loop and no guard.
  void bind_loop_to_thread(const ir::ForNode* op);

  std::ostringstream body_;
  int indent_ = 0;

 private:
  void begin_function(const ir::PrimFunc& func);

  ir::PrimFunc function_;
  std::unordered_map<const ir::VarNode*, std::string> var_names_;
  std::unordered_map<const ir::BufferNode*, std::string> buffer_names_;
  std::map<std::string, std::string> param_buffer_names_;  // global buffers by source name
  std::set<std::string> used_names_;
  std::set<std::string> helpers_;
  std::map<std::string, std::string> extern_prototypes_;  // by function name
  transform::VarBounds var_bounds_;
  bool uses_division_flag_ = false;  // the current function divides by a non-constant
  std::vector<std::string> functions_;
};

}  // namespace tilec::codegen
