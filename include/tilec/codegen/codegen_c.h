// CodeGenC: prints lowered tile IR (loops, lets, ifs, allocations, flat loads and
// stores; no tile operations) as C with the interpreter's semantics: floor division
// for signed integers, float16/bfloat16 stored as uint16_t and rounded after every
// operation, sub-int32 integers wrapped to their width. CUDA/OpenCL/Metal printers
// subclass it and override only the virtual hooks (qualifiers, types, pragmas, ...).
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

 protected:
  // ---- hooks for subclasses ----
  virtual void print_preamble(std::ostream& os);
  virtual std::string function_qualifiers(const ir::PrimFunc& func) { return ""; }
  virtual std::string function_name(const ir::PrimFunc& func) { return func->name; }
  // "" for C; "__global" / "threadgroup" / ... for device dialects.
  virtual std::string address_space(ir::StorageScope scope) { return ""; }
  virtual std::string restrict_keyword() { return "restrict"; }
  // Name of the C type holding a scalar value of t (float16 values live in float).
  virtual std::string type_name(ir::DataType t);
  // Name of the C type storing one element of t in memory (float16 -> uint16_t).
  virtual std::string storage_type_name(ir::DataType t);
  virtual std::string vector_type_name(ir::DataType t);
  // Expression of a hardware thread index ("threadIdx.x"); C has none.
  virtual std::string thread_index(const std::string& tag);
  // Lines printed before a loop of this kind (e.g. "#pragma GCC ivdep").
  virtual std::vector<std::string> loop_pragmas(ir::ForKind kind);
  virtual std::string math_function(const std::string& name, ir::DataType t);
  virtual void print_allocate(const ir::AllocateNode* op);
  virtual void print_launch(const ir::LaunchNode* op);
  virtual void print_function_signature(const ir::PrimFunc& func);
  // Statements printed at the top of the body, before func->body (host codegens
  // check and unpack their arguments here).
  virtual void print_function_prologue(const ir::PrimFunc& func) {}
  virtual void print_function_epilogue(const ir::PrimFunc& func);
  // Printed after the body of a function that divides integers by a non-constant,
  // for when the division flag is set: returns TILEC_STATUS_DIVISION_BY_ZERO.
  virtual void print_division_by_zero_exit(const ir::PrimFunc& func);
  // The parameter list, e.g. "const float* restrict A, int32_t n".
  virtual std::string param_declaration(const ir::Param& param);

  // ---- printing machinery available to subclasses ----
  void print_stmt(const ir::Stmt& s);
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

  std::ostringstream body_;
  int indent_ = 0;

 private:
  struct Printed {
    std::string text;
    int precedence;  // C precedence level; 0 = primary, larger binds looser
  };
  Printed print(const ir::Expr& e);
  Printed print_binary(const ir::BinaryNode* op);
  Printed print_call(const ir::CallNode* op);
  Printed print_cast(ir::DataType to, const ir::Expr& value);
  Printed print_literal(const ir::Expr& e);
  std::string wrap(const Printed& p, int max_precedence);
  // Rounds a float-held value to its 16-bit float dtype, wraps small integers.
  Printed round_to_dtype(Printed value, ir::DataType t);
  std::string flat_index(const ir::Buffer& b, const std::vector<ir::Expr>& indices);
  bool provably_non_negative(const ir::Expr& e);
  void set_loop_bounds(const ir::ForNode* op);
  void print_for(const ir::ForNode* op);
  void print_store(const ir::StoreNode* op);
  void begin_function(const ir::PrimFunc& func);

  ir::PrimFunc function_;
  std::unordered_map<const ir::VarNode*, std::string> var_names_;
  std::unordered_map<const ir::BufferNode*, std::string> buffer_names_;
  std::map<std::string, std::string> param_buffer_names_;  // global buffers by source name
  std::set<std::string> used_names_;
  std::set<std::string> helpers_;
  transform::VarBounds var_bounds_;
  bool uses_division_flag_ = false;  // the current function divides by a non-constant
  std::vector<std::string> functions_;
};

}  // namespace tilec::codegen
