#include "tilec/codegen/codegen_c.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/narrow_float.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/bounds_check.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace tilec::codegen {

using namespace ir;

namespace {

const std::set<std::string>& c_reserved_words() {
  static const std::set<std::string> words = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
      "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "main", "args",
      "env", "err", "err_len", "num_args", "closure", "begin", "end", "NULL",
      // Macros and library functions the generated code uses.
      "NAN", "INFINITY", "INT32_MIN", "INT64_MIN", "INT64_C", "UINT64_C", "UINT32_C", "TILEC_IVDEP",
      "TILEC_STATUS_OUT_OF_MEMORY", "TILEC_STATUS_DIVISION_BY_ZERO", "TILEC_STATUS_OUT_OF_BOUNDS",
      "tilec_bounds", "tilec_bounds_record", "fabs", "fabsf", "memcpy", "memset", "free",
      "aligned_alloc", "size_t"};
  return words;
}

bool is_small_int(DataType t) {
  return t.is_integer() && t.bits < 32;
}

std::string float_literal(double v, DataType t) {
  bool single = t.bits != 64;
  if (std::isnan(v)) return single ? "NAN" : "(double)NAN";
  if (std::isinf(v)) {
    std::string inf = single ? "INFINITY" : "(double)INFINITY";
    return v < 0 ? "-" + inf : inf;
  }
  char buf[64];
  auto res = single ? std::to_chars(buf, buf + sizeof buf, float(v))
                    : std::to_chars(buf, buf + sizeof buf, v);
  std::string text(buf, res.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return single ? text + "f" : text;
}

}  // namespace

CodeGenC::CodeGenC() = default;
CodeGenC::~CodeGenC() = default;

// ---------------------------------------------------------------- names

bool CodeGenC::is_reserved_word(const std::string& name) const {
  // The math functions the code may call, double and float: a variable named `sin` would
  // hide libm's (max and min are operators, never calls).
  auto called = [](const std::string& n) {
    return n != "max" && n != "min" && is_math_intrinsic(n);
  };
  if (called(name)) return true;
  if (name.size() > 1 && name.back() == 'f' && called(name.substr(0, name.size() - 1))) return true;
  return c_reserved_words().count(name) != 0;
}

std::string CodeGenC::declare_var(const Var& v) {
  std::string base;
  for (char c : v.name()) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  // tilec_ prefixes the preamble's helpers; C names may not collide with them.
  if (is_reserved_word(base) || base.rfind("tilec_", 0) == 0) base += "_";
  std::string name = base;
  for (int i = 1; used_names_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_names_.insert(name);
  var_names_[v.get()] = name;
  return name;
}

std::string CodeGenC::var_name(const Var& v) {
  auto it = var_names_.find(v.get());
  if (it != var_names_.end()) return it->second;
  throw IRError(fmt::format(
      "codegen: variable '{}' is used in function '{}' but never defined (not a parameter, "
      "loop variable, let or symbolic dimension); the lowering left it free",
      v.name(), function_ ? function_->name : "?"));
}

std::string CodeGenC::declare_buffer(const Buffer& b) {
  std::string name = declare_var(make_var(b->name));
  buffer_names_[b.get()] = name;
  return name;
}

std::string CodeGenC::buffer_name(const Buffer& b) {
  auto it = buffer_names_.find(b.get());
  if (it != buffer_names_.end()) return it->second;
  if (b->scope == StorageScope::kGlobal) {
    auto p = param_buffer_names_.find(b->name);
    if (p != param_buffer_names_.end()) return p->second;
  }
  throw IRError(
      fmt::format("codegen: buffer '{}' ({}) is used in function '{}' but is neither a "
                  "parameter nor allocated in scope",
                  b->name, to_string(b->scope), function_ ? function_->name : "?"));
}

void CodeGenC::require_helper(const std::string& helper) {
  helpers_.insert(helper);
}

// ---------------------------------------------------------------- types

std::string CodeGenC::type_name(DataType t) {
  if (t.lanes != 1) return vector_type_name(t);
  if (t.is_bool()) return "bool";
  if (t.is_float()) return t.bits == 64 ? "double" : "float";
  return fmt::format("{}int{}_t", t.is_uint() ? "u" : "", int(t.bits));
}

std::string CodeGenC::storage_type_name(DataType t) {
  if (t.lanes == 1 && t.is_narrow_float()) return t.bits == 8 ? "uint8_t" : "uint16_t";
  return type_name(t);
}

std::string CodeGenC::vector_type_name(DataType t) {
  throw IRError("codegen: vector type " + t.str() +
                " has no C spelling; C code uses scalar loops that the compiler vectorizes");
}

std::string CodeGenC::thread_index(const std::string& tag) {
  throw IRError("codegen: thread index '" + tag +
                "' has no meaning in C, where the threads of a block run as loops");
}

std::vector<std::string> CodeGenC::loop_pragmas(ForKind kind) {
  // ivdep: iterations were proven independent by the lowering (T.Parallel, tile ops).
  if (kind == ForKind::kVectorized) {
    require_helper("ivdep");
    return {"TILEC_IVDEP"};
  }
  if (kind == ForKind::kUnrolled) return {"#pragma GCC unroll 8"};
  return {};
}

std::string CodeGenC::math_function(const std::string& name, DataType t) {
  // 16-bit floats compute in float and are rounded by the caller.
  std::string suffix = t.bits == 64 ? "" : "f";
  return name + suffix;
}

// ---------------------------------------------------------------- expressions

std::string CodeGenC::wrap(const Printed& p, int max_precedence) {
  return p.precedence > max_precedence ? "(" + p.text + ")" : p.text;
}

CodeGenC::Printed CodeGenC::round_to_dtype(Printed value, DataType t) {
  if (t.lanes != 1) return value;
  if (t.is_narrow_float()) {
    std::string suffix = narrow_float_suffix(t);
    require_helper(suffix);
    return {fmt::format("tilec_round_{}({})", suffix, value.text), kPrimary};
  }
  if (is_small_int(t))
    return {fmt::format("({}){}", type_name(t), wrap(value, kPrimary)), kUnaryPrec};
  return value;
}

bool CodeGenC::provably_non_negative(const Expr& e) {
  return transform::bounds_of(e, var_bounds_).non_negative();
}

CodeGenC::Printed CodeGenC::print_int_imm(const IntImmNode* i) {
  DataType t = i->dtype;
  if (t.is_bool()) return {i->value ? "true" : "false", kPrimary};
  int64_t v = i->value;
  std::string text;
  if (t.bits == 64 && t.is_int()) {
    text = v == std::numeric_limits<int64_t>::min() ? "INT64_MIN" : fmt::format("INT64_C({})", v);
  } else if (t.bits == 64) {
    text = fmt::format("UINT64_C({})", static_cast<uint64_t>(v));
  } else if (t.is_uint() && t.bits == 32) {
    text = fmt::format("{}u", static_cast<uint32_t>(v));
  } else if (v == std::numeric_limits<int32_t>::min()) {
    text = "INT32_MIN";
  } else {
    text = std::to_string(v);
  }
  return {text, v < 0 && text[0] == '-' ? kUnaryPrec : kPrimary};
}

CodeGenC::Printed CodeGenC::print_float_imm(const FloatImmNode* f) {
  std::string text = float_literal(f->value, f->dtype);
  Printed p{text, text[0] == '-' ? kUnaryPrec : kPrimary};
  // Small integers are exact in every float type; anything else rounds like a cast.
  double v = f->value;
  bool exact = f->dtype.is_narrow_float() && std::floor(v) == v &&
               std::fabs(v) <= narrow_float_exact_integer_limit(f->dtype);
  return f->dtype.is_narrow_float() && !exact ? round_to_dtype(p, f->dtype) : p;
}

CodeGenC::Printed CodeGenC::cast_value(DataType to, const Expr& value) {
  DataType from = value.dtype();
  Printed v = print(value);
  if (from == to) return v;
  if (to.is_bool()) return {wrap(v, kEqPrec - 1) + " != 0", kEqPrec};
  if (to.is_narrow_float()) {
    Printed as_float = from.is_float() && from.bits != 64
                           ? v
                           : Printed{"(float)" + wrap(v, kUnaryPrec), kUnaryPrec};
    return round_to_dtype(as_float, to);
  }
  if (to.is_float() && to.bits == 32 && from.is_narrow_float()) return v;  // already a float
  return {fmt::format("({}){}", type_name(to), wrap(v, kUnaryPrec)), kUnaryPrec};
}

CodeGenC::Printed CodeGenC::print_binary(const BinaryNode* op) {
  DataType t = op->a.dtype();  // operands share a dtype; op->dtype is bool for comparisons
  Printed a = print(op->a);
  Printed b = print(op->b);
  auto infix = [&](const char* sym, int prec) -> Printed {
    return {fmt::format("{} {} {}", wrap(a, prec), sym, wrap(b, prec - 1)), prec};
  };
  auto helper_call = [&](const std::string& fn) -> Printed {
    return {fmt::format("{}({}, {})", fn, a.text, b.text), kPrimary};
  };
  switch (op->op) {
    case BinaryOp::kAdd:
      return round_to_dtype(infix("+", kAddPrec), op->dtype);
    case BinaryOp::kSub:
      return round_to_dtype(infix("-", kAddPrec), op->dtype);
    case BinaryOp::kMul:
      return round_to_dtype(infix("*", kMulPrec), op->dtype);
    case BinaryOp::kDiv:
      return round_to_dtype(infix("/", kMulPrec), op->dtype);
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      bool div = op->op == BinaryOp::kFloorDiv;
      if (t.is_float()) {
        std::string fn =
            fmt::format("tilec_floor{}_f{}", div ? "div" : "mod", t.bits == 64 ? 64 : 32);
        require_helper("floordiv");
        return round_to_dtype(helper_call(fn), op->dtype);
      }
      // Only a non-zero constant divisor may use C's / and %: a zero one traps.
      const int64_t* divisor = as_const_int(op->b);
      bool divisor_nonzero = divisor && *divisor != 0;
      // C truncates toward zero; that equals floor when both sides are non-negative.
      if (divisor_nonzero &&
          (t.is_uint() || (provably_non_negative(op->a) && provably_non_negative(op->b)))) {
        return round_to_dtype(infix(div ? "/" : "%", kMulPrec), op->dtype);
      }
      require_helper("floordiv");
      std::string fn =
          t.is_uint()
              ? fmt::format("tilec_{}_u{}", div ? "div" : "mod", t.bits == 64 ? 64 : 32)
              : fmt::format("tilec_floor{}_i{}", div ? "div" : "mod", t.bits == 64 ? 64 : 32);
      if (divisor_nonzero) return round_to_dtype(helper_call(fn), op->dtype);
      uses_division_flag_ = true;
      return round_to_dtype({zero_checked_division(fn, a.text, b.text), kPrimary}, op->dtype);
    }
    case BinaryOp::kMin:  // std::min's choice, so NaN behaves as in the interpreter
      return {fmt::format("{} < {} ? {} : {}", wrap(b, kRelPrec - 1), wrap(a, kRelPrec - 1),
                          wrap(b, kTernaryPrec), wrap(a, kTernaryPrec)),
              kTernaryPrec};
    case BinaryOp::kMax:
      return {fmt::format("{} < {} ? {} : {}", wrap(a, kRelPrec - 1), wrap(b, kRelPrec - 1),
                          wrap(b, kTernaryPrec), wrap(a, kTernaryPrec)),
              kTernaryPrec};
    case BinaryOp::kEQ:
      return infix("==", kEqPrec);
    case BinaryOp::kNE:
      return infix("!=", kEqPrec);
    case BinaryOp::kLT:
      return infix("<", kRelPrec);
    case BinaryOp::kLE:
      return infix("<=", kRelPrec);
    case BinaryOp::kGT:
      return infix(">", kRelPrec);
    case BinaryOp::kGE:
      return infix(">=", kRelPrec);
    case BinaryOp::kAnd:
      return infix("&&", kAndPrec);
    case BinaryOp::kOr:
      return infix("||", kOrPrec);
    case BinaryOp::kBitAnd:
      return t.is_bool() ? infix("&&", kAndPrec) : infix("&", kBitAndPrec);
    case BinaryOp::kBitOr:
      return t.is_bool() ? infix("||", kOrPrec) : infix("|", kBitOrPrec);
    case BinaryOp::kBitXor:
      return t.is_bool() ? infix("!=", kEqPrec) : infix("^", kBitXorPrec);
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      // Count modulo the width (the IR's rule); << through unsigned, so no C overflow.
      std::string count = fmt::format("({} & {})", wrap(b, kBitAndPrec - 1), t.bits - 1);
      if (op->op == BinaryOp::kShr)
        return {fmt::format("{} >> {}", wrap(a, kShiftPrec), count), kShiftPrec};
      std::string shifted =
          fmt::format("(({}){} << {})", type_name(DataType::UInt(t.bits < 32 ? 32 : t.bits)),
                      wrap(a, kUnaryPrec), count);
      return round_to_dtype({fmt::format("({}){}", type_name(t), shifted), kUnaryPrec}, op->dtype);
    }
  }
  throw IRError("codegen: unknown binary operator");
}

CodeGenC::Printed CodeGenC::print_call(const CallNode* op) {
  switch (op->call_kind) {
    case CallKind::kIntrinsic:
      return print_intrinsic_call(op);
    case CallKind::kExtern:
      return print_extern_call(op);
    case CallKind::kAtomic: {
      auto* element = op->args[0].as<LoadNode>();
      std::string name = buffer_name(element->buffer);
      std::string address =
          element->buffer->scope == StorageScope::kVar
              ? "&" + name
              : fmt::format("&{}[{}]", name, flat_index(element->buffer, element->indices));
      return {fmt::format("{}({}, {})", atomic_function(op, element->buffer), address,
                          print(op->args[1]).text),
              kPrimary};
    }
    case CallKind::kBarrier:
      break;
  }
  throw IRError(fmt::format(
      "codegen: a {} barrier is used as a value in function '{}'; a barrier is a statement: "
      "evaluate(barrier(scope)), printed as T.evaluate(T.tvm_storage_sync(\"{}\"))",
      op->name, function_ ? function_->name : "?", op->name));
}

std::string CodeGenC::atomic_function(const CallNode* op, const Buffer& buffer) {
  DataType t = op->dtype;
  if (t.is_float() && t.bits == 16) {
    const char* s = t.is_bfloat16() ? "bf16" : "f16";
    require_helper(s);
    require_helper(std::string(s) + "_atomic");
    return fmt::format("tilec_{}_{}", op->name, s);
  }
  require_helper("atomic");
  return fmt::format("tilec_{}_{}{}", op->name,
                     t.is_float()  ? "f"
                     : t.is_uint() ? "u"
                                   : "i",
                     int(t.bits));
}

CodeGenC::Printed CodeGenC::print_extern_call(const CallNode* op) {
  std::string args, arg_types;
  for (const auto& a : op->args) {
    args += (args.empty() ? "" : ", ") + print(a).text;
    arg_types += (arg_types.empty() ? "" : ", ") + type_name(a.dtype());
  }
  std::string prototype = fmt::format("{} {}({});", type_name(op->dtype), op->name,
                                      arg_types.empty() ? "void" : arg_types);
  auto [it, inserted] = extern_prototypes_.emplace(op->name, prototype);
  if (!inserted && it->second != prototype) {
    throw IRError(fmt::format(
        "codegen: extern function '{}' is called as '{}' and as '{}' in function '{}'; C needs "
        "one signature per function: cast the arguments to the same dtypes",
        op->name, it->second, prototype, function_ ? function_->name : "?"));
  }
  return {fmt::format("{}({})", op->name, args), kPrimary};
}

CodeGenC::Printed CodeGenC::print_intrinsic_call(const CallNode* op) {
  DataType t = op->dtype;
  std::vector<std::string> args;
  for (const auto& a : op->args) args.push_back(print(a).text);
  const std::string& n = op->name;
  auto call = [&](const std::string& fn) -> Printed {
    std::string joined;
    for (const auto& a : args) joined += (joined.empty() ? "" : ", ") + a;
    return {fmt::format("{}({})", fn, joined), kPrimary};
  };
  if (n == "abs" && !t.is_float()) {
    Printed x = print(op->args[0]);
    Printed r{fmt::format("{} < 0 ? -{} : {}", wrap(x, kRelPrec - 1), wrap(x, kUnaryPrec),
                          wrap(x, kTernaryPrec)),
              kTernaryPrec};
    return round_to_dtype(r, t);
  }
  Printed r;
  if (n == "abs") {
    r = call(math_function("fabs", t));
  } else if (n == "rsqrt") {
    r = {fmt::format("{} / {}({})", t.bits == 64 ? "1.0" : "1.0f", math_function("sqrt", t),
                     args[0]),
         kMulPrec};
  } else if (n == "exp10") {
    // pow's 10^x: exp10 is a GNU extension C headers declare only under _GNU_SOURCE.
    r = {fmt::format("{}({}, {})", math_function("pow", t), t.bits == 64 ? "10.0" : "10.0f",
                     args[0]),
         kPrimary};
  } else if (n == "sigmoid") {
    const char* one = t.bits == 64 ? "1.0" : "1.0f";
    r = {fmt::format("{} / ({} + {}(-{}))", one, one, math_function("exp", t),
                     wrap(print(op->args[0]), kUnaryPrec)),
         kMulPrec};
  } else {
    r = call(math_function(n, t));
  }
  return round_to_dtype(r, t);
}

// Each node kind goes to its overridable printer; tile-level statements must have been
// lowered before code generation.
class CodeGenC::Dispatch final : public ir::ExprFunctor<CodeGenC::Printed()>,
                                 public ir::StmtFunctor<void()> {
 public:
  explicit Dispatch(CodeGenC& cg) : cg_(cg) {}

 private:
  Printed visit_expr(const IntImmNode* op, const Expr&) override { return cg_.print_int_imm(op); }
  Printed visit_expr(const FloatImmNode* op, const Expr&) override {
    return cg_.print_float_imm(op);
  }
  Printed visit_expr(const VarNode*, const Expr& self) override {
    return cg_.print_var(Var(std::static_pointer_cast<const VarNode>(self.node())));
  }
  Printed visit_expr(const BinaryNode* op, const Expr&) override { return cg_.print_binary(op); }
  Printed visit_expr(const UnaryNode* op, const Expr&) override { return cg_.print_unary(op); }
  Printed visit_expr(const SelectNode* op, const Expr&) override { return cg_.print_select(op); }
  Printed visit_expr(const CastNode* op, const Expr&) override { return cg_.print_cast(op); }
  Printed visit_expr(const LoadNode* op, const Expr&) override { return cg_.print_load(op); }
  Printed visit_expr(const CallNode* op, const Expr&) override { return cg_.print_call(op); }

  void visit_stmt(const StoreNode* op, const Stmt&) override { cg_.print_store(op); }
  void visit_stmt(const LetNode* op, const Stmt&) override { cg_.print_let(op); }
  void visit_stmt(const ForNode* op, const Stmt&) override { cg_.print_for(op); }
  void visit_stmt(const IfNode* op, const Stmt&) override { cg_.print_if(op); }
  void visit_stmt(const WhileNode* op, const Stmt&) override { cg_.print_while(op); }
  void visit_stmt(const SeqNode* op, const Stmt&) override { cg_.print_seq(op); }
  void visit_stmt(const AllocateNode* op, const Stmt&) override { cg_.print_allocate(op); }
  void visit_stmt(const EvaluateNode* op, const Stmt&) override { cg_.print_evaluate(op); }
  void visit_stmt(const LaunchNode* op, const Stmt&) override { cg_.print_launch(op); }
  void visit_stmt(const KernelNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const CopyNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const FillNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const GemmNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const ReduceNode*, const Stmt&) override { tile_level(); }

  [[noreturn]] void tile_level() {
    throw IRError(
        fmt::format("codegen: function '{}' still contains a tile-level statement "
                    "(T.Kernel/copy/fill/gemm/reduce); run the backend's lowering "
                    "pipeline before code generation",
                    cg_.function_ ? cg_.function_->name : "?"));
  }

  CodeGenC& cg_;
};

CodeGenC::Printed CodeGenC::print(const Expr& e) {
  if (!e) throw IRError("codegen: undefined expression");
  return Dispatch(*this).dispatch_expr(e);
}

CodeGenC::Printed CodeGenC::print_var(const Var& var) {
  return {var_name(var), kPrimary};
}

CodeGenC::Printed CodeGenC::print_unary(const UnaryNode* op) {
  Printed a = print(op->a);
  if (op->op == UnaryOp::kNot) return {"!" + wrap(a, kUnaryPrec), kUnaryPrec};
  // "- -x" must not print as the decrement "--x".
  std::string operand = a.text[0] == '-' ? "(" + a.text + ")" : wrap(a, kUnaryPrec);
  return round_to_dtype({"-" + operand, kUnaryPrec}, op->dtype);
}

CodeGenC::Printed CodeGenC::print_select(const SelectNode* op) {
  return {fmt::format("{} ? {} : {}", wrap(print(op->cond), kTernaryPrec - 1),
                      wrap(print(op->true_value), kTernaryPrec),
                      wrap(print(op->false_value), kTernaryPrec)),
          kTernaryPrec};
}

CodeGenC::Printed CodeGenC::print_cast(const CastNode* op) {
  return cast_value(op->dtype, op->value);
}

CodeGenC::Printed CodeGenC::print_load(const LoadNode* op) {
  std::string name = buffer_name(op->buffer);
  if (!op->dtype.is_scalar()) {
    throw IRError(fmt::format(
        "codegen: a {}-lane vector load of '{}' outside a vector move; only gpu.vectorize_lanes "
        "creates them, as the whole value of a store",
        op->dtype.lanes, op->buffer->name));
  }
  if (op->buffer->scope == StorageScope::kVar) return {name, kPrimary};
  std::string access = fmt::format("{}[{}]", name, flat_index(op->buffer, op->indices));
  if (op->dtype.is_narrow_float()) {
    std::string suffix = narrow_float_suffix(op->dtype);
    require_helper(suffix);
    return {fmt::format("tilec_{}_to_f32({})", suffix, access), kPrimary};
  }
  return {access, kPrimary};
}

std::string CodeGenC::print_expr(const Expr& e) {
  return print(e).text;
}

std::string CodeGenC::flat_index(const Buffer& b, const std::vector<Expr>& indices) {
  if (indices.size() != 1) {
    throw IRError(
        fmt::format("codegen: buffer '{}' is accessed with {} indices; C code needs "
                    "flat 1-D accesses (run the flatten_buffers pass first)",
                    b->name, indices.size()));
  }
  return print(indices[0]).text;
}

// ---------------------------------------------------------------- statements

std::ostream& CodeGenC::line() {
  body_ << std::string(2 * indent_, ' ');
  return body_;
}
void CodeGenC::open_scope() {
  body_ << "{\n";
  ++indent_;
}
void CodeGenC::close_scope() {
  --indent_;
  line() << "}\n";
}

void CodeGenC::print_store(const StoreNode* op) {
  if (auto* v = op->value.as<LoadNode>(); v && !v->dtype.is_scalar())
    return print_vector_move(op, v);
  std::string name = buffer_name(op->buffer);
  std::string value = print(op->value).text;
  if (op->buffer->scope == StorageScope::kVar) {
    line() << name << " = " << value << ";\n";
    return;
  }
  DataType t = op->buffer->dtype;
  if (t.is_narrow_float()) {
    std::string suffix = narrow_float_suffix(t);
    auto* same_type_load = op->value.as<LoadNode>();
    if (same_type_load && same_type_load->dtype == t &&
        same_type_load->buffer->scope != StorageScope::kVar) {
      // A narrow float copied between buffers keeps its bits: no conversion round trip.
      value = fmt::format("{}[{}]", buffer_name(same_type_load->buffer),
                          flat_index(same_type_load->buffer, same_type_load->indices));
    } else {
      // The store rounds, so an outer rounding of the value itself is redundant.
      Expr v = op->value;
      auto* c = v.as<CastNode>();
      bool rounded_cast = c && c->value.dtype() == DataType::Float32();
      std::string text = rounded_cast ? print(c->value).text : value;
      require_helper(suffix);
      value = fmt::format("tilec_f32_to_{}({})", suffix, text);
    }
  }
  line() << name << "[" << flat_index(op->buffer, op->indices) << "] = " << value << ";\n";
}

void CodeGenC::print_vector_move(const StoreNode* op, const LoadNode* src) {
  line() << fmt::format(
      "for (int tilec_lane = 0; tilec_lane < {}; ++tilec_lane) {}[({}) + tilec_lane] = {}[({}) + "
      "tilec_lane];\n",
      src->dtype.lanes, buffer_name(op->buffer), flat_index(op->buffer, op->indices),
      buffer_name(src->buffer), flat_index(src->buffer, src->indices));
}

void CodeGenC::set_loop_bounds(const ForNode* op) {
  var_bounds_[op->var.get()] = transform::loop_var_bounds(*op, var_bounds_);
}

void CodeGenC::print_for(const ForNode* op) {
  if (op->for_kind == ForKind::kThreadBinding) {
    print_thread_binding_loop(op);
  } else {
    print_c_loop(op);
  }
}

void CodeGenC::print_thread_binding_loop(const ForNode* op) {
  // The CPU model: the threads of a block run one after another.
  print_c_loop(op);
}

void CodeGenC::bind_loop_to_thread(const ForNode* op) {
  if (op->step != 1) {
    throw IRError(
        fmt::format("codegen: thread-binding loop '{}' has step {}; a loop bound to {} "
                    "must have step 1",
                    op->var.name(), op->step, op->thread_tag));
  }
  // `begin + index`: a begin that binds looser than + (a select, a comparison) is wrapped.
  std::string begin = wrap(print(op->begin), kAddPrec);
  std::string index = thread_index(op->thread_tag);
  std::string v = declare_var(op->var);
  set_loop_bounds(op);
  line() << "const " << type_name(op->var.dtype()) << " " << v << " = "
         << (is_const_int(op->begin, 0) ? index : begin + " + " + index) << ";\n";
  line();
  open_scope();
  print_stmt(op->body);
  close_scope();
}

void CodeGenC::print_c_loop(const ForNode* op) {
  for (const auto& p : loop_pragmas(op->for_kind)) {
    (p[0] == '#' ? body_ : line()) << p << "\n";  // preprocessor lines start at column 0
  }
  std::string begin = print(op->begin).text;
  // `v < end`: an end that binds looser than the comparison (T.min's select) is wrapped,
  // else `i < a < b ? a : b` would compare (i < a) and never stop.
  std::string end = wrap(print(op->end), kShiftPrec);
  std::string v = declare_var(op->var);
  std::string cmp = op->step > 0 ? "<" : ">";
  std::string incr = op->step == 1    ? "++" + v
                     : op->step == -1 ? "--" + v
                                      : fmt::format("{} += {}", v, op->step);
  line() << fmt::format("for ({} {} = {}; {} {} {}; {}) ", type_name(op->var.dtype()), v, begin, v,
                        cmp, end, incr);
  set_loop_bounds(op);
  open_scope();
  print_stmt(op->body);
  close_scope();
}

void CodeGenC::print_allocate(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  std::string space = address_space(b->scope);
  std::string prefix = space.empty() ? "" : space + " ";
  if (b->scope == StorageScope::kVar) {
    std::string init = op->init ? " = " + print(*op->init).text : "";
    std::string name = declare_buffer(b);
    line() << prefix << type_name(b->dtype) << " " << name << init << ";\n";
    print_stmt(op->body);
    return;
  }
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  numel = transform::simplify(numel);
  std::string storage = storage_type_name(b->dtype);
  const int64_t* count = as_const_int(numel);
  int64_t elem_bytes = b->dtype.bytes();
  if (count && *count * elem_bytes <= kMaxStackAllocationBytes) {
    std::string name = declare_buffer(b);
    line() << fmt::format("{}{} {}[{}] __attribute__((aligned(64)));\n", prefix, storage, name,
                          std::max<int64_t>(*count, 1));
    print_stmt(op->body);
    return;
  }
  // Large or symbolic tiles go to the heap: a pool thread's stack is small.
  require_helper("alloc");
  std::string bytes = fmt::format("(size_t)({}) * {}", print(numel).text, elem_bytes);
  std::string name = declare_buffer(b);
  line() << fmt::format("{}{}* {} {} = ({}*)tilec_alloc({});\n", prefix, storage,
                        restrict_keyword(), name, storage, bytes);
  line() << fmt::format("if ({} == NULL) return TILEC_STATUS_OUT_OF_MEMORY;\n", name);
  print_stmt(op->body);
  line() << "tilec_free(" << name << ");\n";
}

void CodeGenC::print_launch(const LaunchNode* op) {
  throw IRError("codegen: a launch of '" + op->callee +
                "' belongs to host code; print it with a host codegen");
}

void CodeGenC::print_let(const LetNode* op) {
  std::string value = print(op->value).text;
  std::string name = declare_var(op->var);
  var_bounds_[op->var.get()] = transform::bounds_of(op->value, var_bounds_);
  line() << "const " << type_name(op->var.dtype()) << " " << name << " = " << value << ";\n";
  print_stmt(op->body);
}

void CodeGenC::print_if(const IfNode* op) {
  line() << "if (" << print(op->cond).text << ") ";
  open_scope();
  print_stmt(op->then_case);
  if (op->else_case) {
    --indent_;
    line() << "} else ";
    open_scope();
    print_stmt(op->else_case);
  }
  close_scope();
}

void CodeGenC::print_while(const WhileNode* op) {
  line() << "while (" << print(op->cond).text << ") ";
  open_scope();
  print_stmt(op->body);
  close_scope();
}

void CodeGenC::print_seq(const SeqNode* op) {
  for (const auto& child : op->stmts) print_stmt(child);
}

void CodeGenC::print_evaluate(const EvaluateNode* op) {
  if (auto* b = as_barrier(op->value)) return print_barrier(b);
  line() << "(void)(" << print(op->value).text << ");\n";
}

void CodeGenC::print_barrier(const CallNode* op) {
  line() << "/* barrier (" << op->name << "): the threads of a block run in order in C */\n";
}

void CodeGenC::print_stmt(const Stmt& s) {
  if (!s) return;
  Dispatch(*this).dispatch_stmt(s);
}

// ---------------------------------------------------------------- functions

std::string CodeGenC::param_declaration(const Param& param) {
  std::string name = declare_var(param.var);
  if (!param.is_buffer()) return type_name(param.var.dtype()) + " " + name;
  param_buffer_names_[param.buffer->name] = name;
  std::string space = address_space(StorageScope::kGlobal);
  return fmt::format("{}{}{}* {} {}", space.empty() ? "" : space + " ",
                     param.buffer->read_only ? "const " : "",
                     storage_type_name(param.buffer->dtype), restrict_keyword(), name);
}

void CodeGenC::begin_function(const PrimFunc& func) {
  function_ = func;
  var_names_.clear();
  buffer_names_.clear();
  param_buffer_names_.clear();
  used_names_.clear();
  var_bounds_.clear();
  uses_division_flag_ = false;
  body_.str("");
  indent_ = 0;
  for (const auto& v : symbolic_shape_vars(func)) var_bounds_[v.get()] = {0, std::nullopt};
}

void CodeGenC::print_function_signature(const PrimFunc& func) {
  std::string params;
  for (const auto& p : func->params) params += (params.empty() ? "" : ", ") + param_declaration(p);
  if (transform::is_bounds_checked(func)) {
    require_helper("bounds");
    params += std::string(params.empty() ? "" : ", ") + "TilecBoundsRecord* " + kBoundsRecordParam;
  }
  std::string quals = function_qualifiers(func);
  line() << (quals.empty() ? "" : quals + " ") << "int32_t " << function_name(func) << "("
         << (params.empty() ? "void" : params) << ") ";
}

void CodeGenC::print_function_epilogue(const PrimFunc& func) {
  line() << "return 0;\n";
}

std::string CodeGenC::zero_checked_division(const std::string& fn, const std::string& a,
                                            const std::string& b) {
  return fmt::format("{}({}, {})", fn, a, b);
}

bool CodeGenC::may_divide_by_zero(const Stmt& body) {
  // The same test print_binary makes: an integer // or % whose divisor is not a
  // non-zero constant.
  bool found = false;
  post_order_visit(body, [&](const Stmt*, const Expr* e) {
    if (found || !e) return;
    auto* b = e->as<BinaryNode>();
    if (!b || (b->op != BinaryOp::kFloorDiv && b->op != BinaryOp::kFloorMod)) return;
    if (b->dtype.is_float()) return;
    const int64_t* divisor = as_const_int(b->b);
    if (!divisor || *divisor == 0) found = true;
  });
  return found;
}

void CodeGenC::print_division_by_zero_exit(const PrimFunc& func) {
  line() << fmt::format("if ({}) return TILEC_STATUS_DIVISION_BY_ZERO;\n", kDivisionByZeroFlag);
}

void CodeGenC::add_function(const PrimFunc& func) {
  begin_function(func);
  print_function_signature(func);
  open_scope();
  // The flag is reset here only once the body shows it is needed.
  size_t flag_position = body_.str().size();
  print_function_prologue(func);
  print_stmt(func->body);
  if (uses_division_flag_) print_division_by_zero_exit(func);
  print_function_epilogue(func);
  close_scope();
  std::string text = body_.str();
  if (uses_division_flag_) {
    text.insert(flag_position, fmt::format("  {} = 0;\n", kDivisionByZeroFlag));
  }
  functions_.push_back(std::move(text));
  body_.str("");
}

std::string CodeGenC::add_device_function(const PrimFunc& func) {
  add_function(func);
  return function_name(func);
}

void CodeGenC::print_preamble(std::ostream& os) {
  os << c_preamble_includes();
  for (const auto& h : helpers_) os << c_preamble_helper(h);
}

void CodeGenC::print_extern_declarations(std::ostream& os) {
  if (extern_prototypes_.empty()) return;
  os << "\n/* Extern functions called by the kernels. */\n";
  for (const auto& [name, prototype] : extern_prototypes_) os << prototype << "\n";
}

std::string CodeGenC::preamble_text() {
  std::ostringstream os;
  print_preamble(os);
  print_extern_declarations(os);
  return os.str();
}

std::string CodeGenC::functions_text() {
  std::string out;
  for (const auto& f : functions_) out += "\n" + f;
  return out;
}

std::string CodeGenC::finish() {
  return preamble_text() + functions_text();
}

}  // namespace tilec::codegen
