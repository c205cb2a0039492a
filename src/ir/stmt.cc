#include "tilec/ir/stmt.h"

namespace tilec::ir {

const char* to_string(StorageScope scope) {
  switch (scope) {
    case StorageScope::kGlobal:
      return "global";
    case StorageScope::kShared:
      return "shared";
    case StorageScope::kFragment:
      return "local.fragment";
    case StorageScope::kLocal:
      return "local";
    case StorageScope::kVar:
      return "local.var";
  }
  return "?";
}

std::optional<StorageScope> parse_storage_scope(std::string_view text) {
  for (auto s : {StorageScope::kGlobal, StorageScope::kShared, StorageScope::kFragment,
                 StorageScope::kLocal, StorageScope::kVar}) {
    if (text == to_string(s)) return s;
  }
  if (text == "shared.dyn") return StorageScope::kShared;
  return std::nullopt;
}

const char* to_string(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kPipelined:
      return "pipelined";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "?";
}

const char* to_string(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
      return "sum";
    case ReduceKind::kMax:
      return "max";
    case ReduceKind::kMin:
      return "min";
    case ReduceKind::kAbsSum:
      return "abssum";
    case ReduceKind::kAbsMax:
      return "absmax";
  }
  return "?";
}

Buffer make_buffer(std::string name, std::vector<Expr> shape, DataType dtype, StorageScope scope,
                   Span span) {
  auto node = std::make_shared<BufferNode>();
  node->name = std::move(name);
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->scope = scope;
  node->span = span;
  return node;
}

bool TileRegion::is_point() const {
  if (dims.empty()) return false;
  for (const auto& d : dims)
    if (d.stop) return false;
  return true;
}

namespace {
template <class T>
std::shared_ptr<T> new_node(Span span) {
  auto n = std::make_shared<T>();
  n->span = span;
  return n;
}
}  // namespace

Stmt store(Buffer buffer, std::vector<Expr> indices, Expr value, Span span) {
  if (!buffer) throw IRError("store to an undefined buffer");
  if (int(indices.size()) != buffer->ndim()) {
    throw IRError("buffer '" + buffer->name + "' has " + std::to_string(buffer->ndim()) +
                  " dimensions but is indexed with " + std::to_string(indices.size()));
  }
  auto n = new_node<StoreNode>(span);
  // A vector of the buffer's dtype (a vector move, ir/vector_load.h) is stored whole.
  bool whole_vector =
      value && !value.dtype().is_scalar() && value.dtype().element_of() == buffer->dtype;
  if (value && value.dtype() != buffer->dtype && !whole_vector) value = cast(buffer->dtype, value);
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  n->value = std::move(value);
  return Stmt(n);
}

Stmt let(Var var, Expr value, Stmt body, Span span) {
  auto n = new_node<LetNode>(span);
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt for_loop(Var var, Expr begin, Expr end, Stmt body, ForKind kind, int64_t step, Span span) {
  if (step == 0) throw IRError("loop step must not be zero");
  auto n = new_node<ForNode>(span);
  n->var = std::move(var);
  n->begin = std::move(begin);
  n->end = std::move(end);
  n->step = step;
  n->for_kind = kind;
  n->body = std::move(body);
  return Stmt(n);
}

Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case, Span span) {
  auto n = new_node<IfNode>(span);
  if (cond && !cond.dtype().is_bool()) cond = cast(DataType::Bool(), cond);
  n->cond = std::move(cond);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  return Stmt(n);
}

Stmt while_loop(Expr cond, Stmt body, Span span) {
  if (!cond) throw IRError("while loop without a condition");
  auto n = new_node<WhileNode>(span);
  if (!cond.dtype().is_bool()) cond = cast(DataType::Bool(), cond);
  n->cond = std::move(cond);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt seq(std::vector<Stmt> stmts, Span span) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto* inner = s.as<SeqNode>()) {
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  auto n = new_node<SeqNode>(span);
  n->stmts = std::move(flat);
  return Stmt(n);
}

Stmt allocate(Buffer buffer, Stmt body, std::optional<Expr> init, Span span) {
  auto n = new_node<AllocateNode>(span);
  n->buffer = std::move(buffer);
  n->init = std::move(init);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt evaluate(Expr value, Span span) {
  auto n = new_node<EvaluateNode>(span);
  n->value = std::move(value);
  return Stmt(n);
}

Expr barrier(StorageScope scope, Span span) {
  if (scope != StorageScope::kShared && scope != StorageScope::kGlobal) {
    throw IRError(std::string("a barrier orders memory of scope 'shared' or 'global', not '") +
                  to_string(scope) + "'");
  }
  auto node = std::make_shared<CallNode>(DataType::Int32(), to_string(scope), std::vector<Expr>{},
                                         CallKind::kBarrier);
  node->span = span;
  return Expr(std::move(node));
}

const CallNode* as_barrier(const Expr& e) {
  auto* call = e.as<CallNode>();
  return call && call->call_kind == CallKind::kBarrier ? call : nullptr;
}

Expr atomic_update(const std::string& name, Expr element, Expr value, Span span) {
  bool bitwise = name == "atomic_and" || name == "atomic_or" || name == "atomic_xor";
  if (name != "atomic_add" && name != "atomic_max" && name != "atomic_min" && !bitwise)
    throw IRError("unknown atomic update '" + name +
                  "': atomic_add, atomic_max, atomic_min, atomic_and, atomic_or or atomic_xor");
  auto* load_node = element.as<LoadNode>();
  if (!load_node) throw IRError("T." + name + " updates one buffer element, e.g. A[i, j]");
  DataType t = element.dtype();
  if (bitwise && (!t.is_integer() || !t.is_scalar()))
    throw IRError("T." + name + " on a " + t.str() +
                  " element is not supported: bitwise atomics take integer elements");
  bool supported =
      t.is_integer() || (t.is_float() && (t.bits == 16 || t.bits == 32 || t.bits == 64));
  if (!supported || !t.is_scalar())
    throw IRError("T." + name + " on a " + t.str() +
                  " element is not supported: integer, float16, bfloat16, float32 and float64 "
                  "elements are; accumulate narrower floats in a float32 buffer");
  if (!value) throw IRError("T." + name + " needs a value");
  auto node = std::make_shared<CallNode>(t, name, std::vector<Expr>{element, cast(t, value)},
                                         CallKind::kAtomic);
  node->span = span;
  return Expr(std::move(node));
}

const CallNode* as_atomic(const Expr& e) {
  auto* call = e.as<CallNode>();
  return call && call->call_kind == CallKind::kAtomic ? call : nullptr;
}

BinaryOp atomic_op(const CallNode& atomic) {
  if (atomic.name == "atomic_max") return BinaryOp::kMax;
  if (atomic.name == "atomic_min") return BinaryOp::kMin;
  if (atomic.name == "atomic_and") return BinaryOp::kBitAnd;
  if (atomic.name == "atomic_or") return BinaryOp::kBitOr;
  if (atomic.name == "atomic_xor") return BinaryOp::kBitXor;
  return BinaryOp::kAdd;
}

Stmt copy(TileRegion src, TileRegion dst, Span span) {
  auto n = new_node<CopyNode>(span);
  n->src = std::move(src);
  n->dst = std::move(dst);
  return Stmt(n);
}

Stmt fill(TileRegion dst, Expr value, Span span) {
  auto n = new_node<FillNode>(span);
  n->dst = std::move(dst);
  n->value = std::move(value);
  return Stmt(n);
}

}  // namespace tilec::ir
