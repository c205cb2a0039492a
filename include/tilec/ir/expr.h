// Expressions of the tile IR. Nodes are immutable and shared (shared_ptr<const>);
// `Expr` is a nullable handle. Variables have identity: two VarNodes with the same
// name are different variables. Factories apply docs/semantics.md's typing rules
// (literal adoption, promotion, `/` rejected on integers) and throw IRError on
// ill-typed input; the front end re-throws with a source location.
#pragma once

#include "tilec/ir/dtype.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::ir {

// A position in kernel source, 1-based; line 0 means "not from source".
struct Span {
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
};

struct IRError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ExprKind : uint8_t { kIntImm, kFloatImm, kVar, kBinary, kUnary, kSelect, kCast, kLoad, kCall };

enum class BinaryOp : uint8_t {
  kAdd, kSub, kMul,
  kDiv,       // true division; floats only
  kFloorDiv,  // Python `//`: rounds toward -inf (floats: floor(a / b))
  kFloorMod,  // Python `%`: sign of the divisor
  kMin, kMax,
  kEQ, kNE, kLT, kLE, kGT, kGE,  // result bool
  kAnd, kOr,                     // bool operands, result bool
  // Bitwise, on integer (or bool) operands of one dtype. Shift counts are taken modulo
  // the bit width; >> is arithmetic for signed dtypes, logical for unsigned ones.
  kBitAnd, kBitOr, kBitXor, kShl, kShr,
};
enum class UnaryOp : uint8_t { kNeg, kNot };

const char* to_string(BinaryOp op);  // "+", "//", "min", "==", "and", ...
const char* to_string(UnaryOp op);   // "-", "not"
bool is_comparison(BinaryOp op);
bool is_logical(BinaryOp op);
bool is_bitwise(BinaryOp op);  // & | ^ << >>

struct ExprNode {
  ExprKind kind;
  DataType dtype;
  Span span;
  ExprNode(ExprKind k, DataType t) : kind(k), dtype(t) {}
  virtual ~ExprNode() = default;
};

struct VarNode;
struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

// Nullable handle to an immutable expression node.
class Expr {
 public:
  Expr() = default;
  Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}  // NOLINT
  Expr(int value);      // NOLINT: int32 literal
  Expr(int64_t value);  // NOLINT: int64 constant
  Expr(double value);   // NOLINT: float32 literal

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  const std::shared_ptr<const ExprNode>& node() const { return node_; }
  explicit operator bool() const { return node_ != nullptr; }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Expr& other) const { return node_ == other.node_; }
  DataType dtype() const { return node_->dtype; }
  ExprKind kind() const { return node_->kind; }
  // Downcast; nullptr when the node is of another kind.
  template <class T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kIntImm;
  int64_t value;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
};
struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kFloatImm;
  double value;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
};
struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kVar;
  std::string name;
  VarNode(std::string n, DataType t) : ExprNode(kKind, t), name(std::move(n)) {}
};
// A variable handle: an Expr whose node is a VarNode.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::shared_ptr<const VarNode> node) : Expr(std::move(node)) {}
  const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};
struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kBinary;
  BinaryOp op;
  Expr a, b;
  BinaryNode(DataType t, BinaryOp o, Expr x, Expr y)
      : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
};
struct UnaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kUnary;
  UnaryOp op;
  Expr a;
  UnaryNode(DataType t, UnaryOp o, Expr x) : ExprNode(kKind, t), op(o), a(std::move(x)) {}
};
struct SelectNode : ExprNode {  // T.if_then_else(cond, t, f): only the chosen side is evaluated
  static constexpr ExprKind kKind = ExprKind::kSelect;
  Expr cond, true_value, false_value;
  SelectNode(DataType t, Expr c, Expr x, Expr y)
      : ExprNode(kKind, t), cond(std::move(c)), true_value(std::move(x)), false_value(std::move(y)) {}
};
struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCast;
  Expr value;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};
struct LoadNode : ExprNode {  // buffer[indices...]; dtype is the buffer's
  static constexpr ExprKind kKind = ExprKind::kLoad;
  Buffer buffer;
  std::vector<Expr> indices;
  LoadNode(DataType t, Buffer buf, std::vector<Expr> idx)
      : ExprNode(kKind, t), buffer(std::move(buf)), indices(std::move(idx)) {}
};
// What a CallNode calls. Passes that look at `name` must check the kind first: an
// extern function may be called "exp" too.
enum class CallKind : uint8_t {
  kIntrinsic,  // a math intrinsic by name ("exp", "sqrt", "fma", ...): call()
  kExtern,     // a C function the device code links against: call_extern()
  kBarrier,    // a barrier of the threads of a block; name is the scope: barrier()
  kAtomic,     // an atomic read-modify-write of one buffer element: atomic_update()
};
const char* to_string(CallKind kind);  // "intrinsic", "extern", "barrier"

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCall;
  std::string name;
  std::vector<Expr> args;
  CallKind call_kind = CallKind::kIntrinsic;
  CallNode(DataType t, std::string n, std::vector<Expr> a, CallKind k = CallKind::kIntrinsic)
      : ExprNode(kKind, t), name(std::move(n)), args(std::move(a)), call_kind(k) {}
};

// ---- factories (typing rules of docs/semantics.md) ----
Expr make_int(int64_t value, DataType dtype = DataType::Int32());
Expr make_float(double value, DataType dtype = DataType::Float32());
Expr make_bool(bool value);
Expr make_const(DataType dtype, double value);  // int/float/bool constant of dtype
Expr make_zero(DataType dtype);
Var make_var(std::string name, DataType dtype = DataType::Int32(), Span span = {});
// Binary op with promotion: a constant operand adopts the other operand's dtype
// (an int constant next to a float becomes that float); otherwise same class ->
// wider, int with float -> the float type, float16 with bfloat16 -> float32.
Expr binary(BinaryOp op, Expr a, Expr b, Span span = {});
Expr unary(UnaryOp op, Expr a, Span span = {});
Expr select(Expr cond, Expr true_value, Expr false_value, Span span = {});
Expr cast(DataType dtype, Expr value, Span span = {});  // folds casts of constants
Expr load(Buffer buffer, std::vector<Expr> indices, Span span = {});
// Math intrinsics (math_intrinsic_names(): exp, log, sin, erf, round, pow, atan2, fma,
// ...; docs/semantics.md "Math functions" says what each computes), and min/max, which
// become BinaryOps. Integer arguments of float-only functions
// are converted to float32. Unknown names throw IRError listing the known ones.
Expr call(const std::string& name, std::vector<Expr> args, Span span = {});
bool is_math_intrinsic(const std::string& name);
// A call of the C function `name` (a C identifier) returning dtype; arguments keep
// their dtypes. TileLang's T.call_extern("float32", "name", args...). The
// interpreter cannot run it (it does not know the function); codegens print it as
// a plain call. barrier(scope) is in stmt.h, next to the storage scopes it names.
Expr call_extern(DataType dtype, const std::string& name, std::vector<Expr> args, Span span = {});
const std::vector<std::string>& math_intrinsic_names();
Expr with_span(Expr e, Span span);  // copy of e's node carrying span

// Constant inspection.
const int64_t* as_const_int(const Expr& e);  // nullptr unless an IntImm
bool is_const_int(const Expr& e, int64_t value);

// Operators for the C++ builder: same rules as binary().
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator-(Expr a);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr ceildiv(Expr a, Expr b);  // (a + b - 1) // b
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr logical_not(Expr a);

}  // namespace tilec::ir
