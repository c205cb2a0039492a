// Buffers, regions and statements of the tile IR, including the tile operations
// of TileLang (copy, fill, gemm, reduce) and T.Kernel. Same node/handle scheme as
// expr.h. Scoped constructs (let, allocate) own the rest of their block as `body`,
// TVM-style; the printer flattens them back into statement lists.
#pragma once

#include "tilec/ir/expr.h"

#include <optional>

namespace tilec::ir {

enum class StorageScope : uint8_t { kGlobal, kShared, kFragment, kLocal, kVar };
const char* to_string(StorageScope scope);  // "global", "shared", "local.fragment", "local", "local.var"
std::optional<StorageScope> parse_storage_scope(std::string_view text);

struct BufferNode {
  std::string name;
  DataType dtype;
  std::vector<Expr> shape;    // constants or symbolic Vars (int32)
  std::vector<Expr> strides;  // empty: contiguous row-major
  StorageScope scope = StorageScope::kGlobal;
  bool read_only = false;     // a parameter the kernel promises not to write
  Span span;
  int ndim() const { return int(shape.size()); }
};
Buffer make_buffer(std::string name, std::vector<Expr> shape, DataType dtype,
                   StorageScope scope = StorageScope::kGlobal, Span span = {});

// One dimension of a tile reference: `start` alone is an index (a unit dimension),
// `start:stop` a slice.
struct RegionDim {
  Expr start;
  std::optional<Expr> stop;
};
// A tile operand: `A` (dims empty: the whole buffer), `A[i, j]` (all indices: the
// region starting there, extent taken from the other operand) or `A[i:i+4, j]`.
struct TileRegion {
  Buffer buffer;
  std::vector<RegionDim> dims;
  bool is_whole() const { return dims.empty(); }
  bool is_point() const;  // every dim an index
};

enum class StmtKind : uint8_t {
  kStore, kLet, kFor, kIf, kSeq, kAllocate, kEvaluate, kKernel, kCopy, kFill, kGemm, kReduce,
  kLaunch, kWhile
};
enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kPipelined, kThreadBinding };
const char* to_string(ForKind kind);
enum class ReduceKind : uint8_t { kSum, kMax, kMin, kAbsSum, kAbsMax };
const char* to_string(ReduceKind kind);  // "sum", "max", "min", "abssum", "absmax"

struct StmtNode {
  StmtKind kind;
  Span span;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}  // NOLINT
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  const std::shared_ptr<const StmtNode>& node() const { return node_; }
  explicit operator bool() const { return node_ != nullptr; }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Stmt& other) const { return node_ == other.node_; }
  StmtKind kind() const { return node_->kind; }
  template <class T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct StoreNode : StmtNode {  // buffer[indices] = value (value converted to buffer dtype)
  static constexpr StmtKind kKind = StmtKind::kStore;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  StoreNode() : StmtNode(kKind) {}
};
struct LetNode : StmtNode {  // `var = value` then body; var is immutable
  static constexpr StmtKind kKind = StmtKind::kLet;
  Var var;
  Expr value;
  Stmt body;
  LetNode() : StmtNode(kKind) {}
};
// for var in [begin, end) by step (step > 0), or (end, begin] downward (step < 0).
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kFor;
  Var var;
  Expr begin, end;
  int64_t step = 1;
  ForKind for_kind = ForKind::kSerial;
  int num_stages = 0;       // T.Pipelined hint; 0 otherwise
  std::string thread_tag;   // kThreadBinding: "threadIdx.x", ...
  Stmt body;
  ForNode() : StmtNode(kKind) {}
};
struct IfNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kIf;
  Expr cond;
  Stmt then_case;
  Stmt else_case;  // may be undefined
  IfNode() : StmtNode(kKind) {}
};
// `while cond: body`: cond is evaluated before each iteration (docs/semantics.md, "While
// loops"); it reads state the body changes (T.alloc_var, local buffers).
struct WhileNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kWhile;
  Expr cond;  // bool
  Stmt body;
  WhileNode() : StmtNode(kKind) {}
};
struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kSeq;
  std::vector<Stmt> stmts;
  SeqNode() : StmtNode(kKind) {}
};
// Allocates buffer (scope shared/fragment/local/var) for the duration of body.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  Buffer buffer;
  std::optional<Expr> init;  // T.alloc_var(dtype, init=...)
  Stmt body;
  AllocateNode() : StmtNode(kKind) {}
};
struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  Expr value;
  EvaluateNode() : StmtNode(kKind) {}
};
// with T.Kernel(grid..., threads=...) as (block_vars...): body runs once per block.
struct KernelNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kKernel;
  std::vector<Expr> grid;          // 1 to 3 extents
  std::vector<Var> block_vars;     // same length as grid
  std::vector<int64_t> threads;    // 1 to 3 extents; threads per block
  Stmt body;
  KernelNode() : StmtNode(kKind) {}
};
struct CopyNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kCopy;
  TileRegion src, dst;
  CopyNode() : StmtNode(kKind) {}
};
struct FillNode : StmtNode {  // T.fill / T.clear (value zero)
  static constexpr StmtKind kKind = StmtKind::kFill;
  TileRegion dst;
  Expr value;
  FillNode() : StmtNode(kKind) {}
};
struct GemmNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kGemm;
  TileRegion a, b, c;
  bool transpose_a = false, transpose_b = false, clear_accum = false;
  GemmNode() : StmtNode(kKind) {}
};
struct ReduceNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kReduce;
  ReduceKind reduce_kind = ReduceKind::kSum;
  Buffer src, dst;
  int dim = 0;
  bool clear = true;
  ReduceNode() : StmtNode(kKind) {}
};

// Host side of the host/device split: run device function `callee` over `grid`
// blocks of `threads`, passing `args` (the host function's buffer handle vars and
// scalars, in the callee's parameter order). Produced by lowering, never parsed.
struct LaunchNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kLaunch;
  std::string callee;
  std::vector<Expr> grid;
  std::vector<int64_t> threads;
  std::vector<Expr> args;
  LaunchNode() : StmtNode(kKind) {}
};

// ---- factories ----
Stmt store(Buffer buffer, std::vector<Expr> indices, Expr value, Span span = {});
Stmt let(Var var, Expr value, Stmt body, Span span = {});
Stmt for_loop(Var var, Expr begin, Expr end, Stmt body, ForKind kind = ForKind::kSerial,
              int64_t step = 1, Span span = {});
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case = {}, Span span = {});
Stmt while_loop(Expr cond, Stmt body, Span span = {});  // cond converted to bool
Stmt seq(std::vector<Stmt> stmts, Span span = {});  // flattens nested seqs; one stmt -> itself
Stmt allocate(Buffer buffer, Stmt body, std::optional<Expr> init = std::nullopt, Span span = {});
Stmt evaluate(Expr value, Span span = {});
// A barrier of the threads of one block over memory of `scope` (kShared or
// kGlobal; others throw IRError), TVM's T.tvm_storage_sync("shared"): an int32
// CallNode of kind kBarrier with no arguments whose name is the scope. It belongs
// as the whole value of an Evaluate statement, evaluate(barrier(scope)), as in TVM:
// no statement kind is added, so every pass that walks statements keeps working,
// and the barrier keeps its place among the statements it orders. On the CPU model
// (no threads inside a block) it is a no-op; codegens print it through
// CodeGenC::print_barrier.
Expr barrier(StorageScope scope, Span span = {});
// The barrier call that is `e`, else nullptr.
const CallNode* as_barrier(const Expr& e);
// TileLang's T.atomic_add / atomic_max / atomic_min(A[i, j], value): a CallNode of kind
// kAtomic named "atomic_add", "atomic_max" or "atomic_min" with args {element, value},
// where element is the LoadNode of the updated element and value is converted to its
// dtype. It replaces the element by element + value (max, min: the rule of BinaryOp
// kMax/kMin) in one indivisible step with respect to every other atomic update of that
// element, from any block or thread, and yields the element's previous value. Used as
// a statement it is the whole value of an Evaluate, like a barrier. Integer, float16, bfloat16
// (combined in float32, rounded to the dtype), float32, float64 elements; others throw IRError.
Expr atomic_update(const std::string& name, Expr element, Expr value, Span span = {});
// The atomic update that is `e`, else nullptr.
const CallNode* as_atomic(const Expr& e);
// The BinaryOp an atomic update combines with (kAdd, kMax or kMin).
BinaryOp atomic_op(const CallNode& atomic);
Stmt copy(TileRegion src, TileRegion dst, Span span = {});
Stmt fill(TileRegion dst, Expr value, Span span = {});

// Shallow copy of a node, for mutators: auto n = copy_node(op); n->body = ...; return Stmt(n);
template <class T>
std::shared_ptr<T> copy_node(const T* node) {
  return std::make_shared<T>(*node);
}

}  // namespace tilec::ir
