// cuda.lower_cp_async: see cp_async.h.
#include "tilec/cuda/cp_async.h"

#include "tilec/ir/mutator.h"

#include <mutex>
#include <set>

namespace tilec::cuda {

using namespace ir;

namespace {

struct AsyncTileCopies {
  std::mutex mutex;
  std::set<std::string> names;
};

AsyncTileCopies& async_tile_copies() {
  static AsyncTileCopies registry;
  return registry;
}

}  // namespace

void register_async_tile_copy(const std::string& call_name) {
  AsyncTileCopies& r = async_tile_copies();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.names.insert(call_name);
}

bool is_async_tile_copy(const std::string& call_name) {
  AsyncTileCopies& r = async_tile_copies();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.names.count(call_name) != 0;
}

namespace {

// The global load a shared store copies, and the condition under which it reads it (the
// select of a masked edge element), when the store is such a copy.
struct CopiedLoad {
  const LoadNode* load = nullptr;
  std::optional<Expr> in_bounds;
};

std::optional<CopiedLoad> copied_load(const Expr& value) {
  if (auto* l = value.as<LoadNode>())
    if (l->buffer->scope == StorageScope::kGlobal) return CopiedLoad{l, std::nullopt};
  if (auto* s = value.as<SelectNode>()) {
    auto* l = s->true_value.as<LoadNode>();
    auto* f = s->false_value.as<FloatImmNode>();
    bool zero_value = is_const_int(s->false_value, 0) || (f && f->value == 0.0);
    if (l && l->buffer->scope == StorageScope::kGlobal && zero_value && s->cond.dtype().lanes == 1)
      return CopiedLoad{l, s->cond};
  }
  return std::nullopt;
}

// Shared stores of a commit group's statements whose value a global load gives become
// cp.async calls of their width; registered tile copies take their asynchronous form.
class AsyncStores : public StmtMutator {
 protected:
  Expr mutate_call(const CallNode* op, const Expr& self) override {
    Expr e = StmtMutator::mutate_call(op, self);
    const auto* c = e.as<CallNode>();
    if (c->call_kind != CallKind::kExtern || c->args.empty() || !is_const_int(c->args.back(), 0) ||
        !is_async_tile_copy(c->name)) {
      return e;
    }
    std::vector<Expr> args = c->args;
    args.back() = make_int(1);
    return call_extern(e.dtype(), c->name, std::move(args), c->span);
  }
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    if (op->buffer->scope != StorageScope::kShared) return self;
    std::optional<CopiedLoad> copied = copied_load(op->value);
    if (!copied || copied->load->buffer->dtype != op->buffer->dtype) return self;
    int64_t element = op->buffer->dtype.is_bool() ? 1 : op->buffer->dtype.bytes();
    int64_t bytes = element * op->value.dtype().lanes;
    const char* name = bytes == 16  ? kCpAsyncCg16
                       : bytes == 8 ? kCpAsyncCa8
                       : bytes == 4 ? kCpAsyncCa4
                                    : nullptr;
    if (!name) return self;
    Expr size = make_int(bytes);
    if (copied->in_bounds) size = select(*copied->in_bounds, size, make_int(0));
    // Scalar loads at the first elements: the codegen passes their addresses.
    Expr dst = load(op->buffer, op->indices, op->span);
    Expr src = load(copied->load->buffer, copied->load->indices, op->span);
    return evaluate(call_extern(DataType::Int32(), name, {dst, src, size}, op->span), op->span);
  }
};

bool is_barrier(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  return e && as_barrier(e->value);
}

bool is_group_boundary(const Stmt& s) {
  if (is_cp_async_call(s, kCpAsyncCommit) || is_cp_async_call(s, kCpAsyncWait)) return true;
  return is_barrier(s);
}

// `s` without the barrier it starts with (under the lets and allocations that open it; an
// undefined Stmt when the barrier is all of it), or nullopt when it starts otherwise.
std::optional<Stmt> without_leading_barrier(const Stmt& s) {
  if (is_barrier(s)) return Stmt();
  if (auto* q = s.as<SeqNode>()) {
    if (q->stmts.empty() || !is_barrier(q->stmts[0])) return std::nullopt;
    return seq(std::vector<Stmt>(q->stmts.begin() + 1, q->stmts.end()), q->span);
  }
  Stmt body = s.as<LetNode>()        ? s.as<LetNode>()->body
              : s.as<AllocateNode>() ? s.as<AllocateNode>()->body
                                     : Stmt();
  if (!body.defined()) return std::nullopt;
  std::optional<Stmt> rest = without_leading_barrier(body);
  if (!rest) return std::nullopt;
  Stmt inner = rest->defined() ? *rest : seq({});
  if (auto* l = s.as<LetNode>()) {
    auto n = copy_node(l);
    n->body = inner;
    return Stmt(n);
  }
  auto n = copy_node(s.as<AllocateNode>());
  n->body = inner;
  return Stmt(n);
}

class GroupFinder : public StmtMutator {
 protected:
  Stmt mutate_seq(const SeqNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::mutate_seq(op, self);
    const auto* q = s.as<SeqNode>();
    std::vector<Stmt> out;
    size_t group_start = 0;
    bool changed = false;
    for (size_t i = 0; i < q->stmts.size(); ++i) {
      const Stmt& item = q->stmts[i];
      if (is_cp_async_call(item, kCpAsyncCommit)) {
        for (size_t j = group_start; j < out.size(); ++j) {
          Stmt async = AsyncStores().mutate(out[j]);
          changed |= !async.same_as(out[j]);
          out[j] = async;
        }
      }
      // The group's writes are asynchronous: a barrier right after its commit orders nothing.
      if (i > 0 && is_cp_async_call(q->stmts[i - 1], kCpAsyncCommit)) {
        if (std::optional<Stmt> rest = without_leading_barrier(item)) {
          changed = true;
          if (rest->defined()) out.push_back(*rest);
          continue;
        }
      }
      out.push_back(item);
      if (is_group_boundary(item)) group_start = out.size();
    }
    return changed ? seq(out, op->span) : s;
  }
};

}  // namespace

IRModule lower_cp_async(const IRModule& mod) {
  return transform::map_function_bodies(
      mod, [](const PrimFunc& f) { return GroupFinder().mutate(f->body); });
}

transform::Pass lower_cp_async_pass() {
  return transform::Pass{
      "cuda.lower_cp_async",
      [](const IRModule& mod, const transform::PassInfo&) { return lower_cp_async(mod); }};
}

}  // namespace tilec::cuda
