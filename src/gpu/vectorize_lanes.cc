#include "tilec/gpu/vectorize_lanes.h"

#include "tilec/gpu/lane_affine.h"
#include "tilec/ir/mentions.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/vector_load.h"
#include "tilec/transform/simplify.h"

namespace tilec::gpu {

using namespace ir;

namespace {

bool vector_memory(const Buffer& b) {
  return b->scope == StorageScope::kGlobal || b->scope == StorageScope::kShared;
}

// One contiguous run of `lanes` elements of a buffer that the lane loop touches.
struct Stage {
  Buffer buffer;
  Expr base;  // flat index of lane 0
  Buffer reg;
  bool read = false, written = false;
};

// Rewrites one lane loop's body to work on register arrays; `ok` false when it cannot.
class LaneRewriter : public StmtMutator {
 public:
  LaneRewriter(const Var& lane, int64_t lanes) : lane_(lane), lanes_(lanes) {}
  bool ok = true;
  std::vector<Stage> stages;

 protected:
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    if (own_register(op->buffer, op->indices))
      return store(op->buffer, op->indices, value, op->span);
    Buffer reg = staged(op->buffer, op->indices, true);
    if (!reg) {
      ok = false;
      return self;
    }
    return store(reg, {lane_}, value, op->span);
  }
  Expr mutate_load(const LoadNode* op, const Expr& self) override {
    if (!op->dtype.is_scalar()) {
      ok = false;
      return self;
    }
    if (op->indices.size() == 1 && !mentions(inlined(op->indices[0]), lane_.get())) return self;
    if (own_register(op->buffer, op->indices)) return self;
    Buffer reg = staged(op->buffer, op->indices, false);
    if (!reg) {
      ok = false;
      return self;
    }
    return load(reg, {lane_}, op->span);
  }
  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    lets_[op->var.get()] = inlined(op->value);
    return StmtMutator::mutate_let(op, self);
  }
  Stmt mutate_for(const ForNode*, const Stmt& self) override { return fail(self); }
  Stmt mutate_if(const IfNode*, const Stmt& self) override { return fail(self); }
  Stmt mutate_allocate(const AllocateNode*, const Stmt& self) override { return fail(self); }
  Stmt mutate_evaluate(const EvaluateNode*, const Stmt& self) override { return fail(self); }
  Expr mutate_call(const CallNode* op, const Expr& self) override {
    if (op->call_kind != CallKind::kIntrinsic) ok = false;
    return StmtMutator::mutate_call(op, self);
  }

 private:
  Stmt fail(const Stmt& self) {
    ok = false;
    return self;
  }
  Expr inlined(const Expr& e) { return substitute(e, lets_); }

  // A fragment's register that each lane addresses as its own (a layout split gives a
  // thread consecutive registers for consecutive elements): the unrolled lanes move it
  // as it is, beside the vector of the memory side.
  bool own_register(const Buffer& b, const std::vector<Expr>& indices) {
    if (b->scope != StorageScope::kLocal || indices.size() != 1) return false;
    auto c = affine_coefficient(inlined(indices[0]), lane_.get());
    return c && is_const_int(*c, 1);
  }

  Buffer staged(const Buffer& b, const std::vector<Expr>& indices, bool write) {
    if (!vector_memory(b) || indices.size() != 1 || !b->dtype.is_scalar()) return nullptr;
    Expr index = inlined(indices[0]);
    auto c = affine_coefficient(index, lane_.get());
    if (!c || !is_const_int(*c, 1)) return nullptr;
    Expr base =
        transform::simplify(substitute(index, VarMap{{lane_.get(), make_zero(lane_.dtype())}}));
    for (auto& s : stages) {
      if (s.buffer != b) continue;
      if (same_expr(s.base, base)) {
        (write ? s.written : s.read) = true;
        return s.reg;
      }
      // Another run of the same buffer: lanes could overlap a run written here.
      if (write || s.written) return nullptr;
    }
    Buffer reg = make_buffer(b->name + "_v", {make_int(lanes_)}, b->dtype, StorageScope::kLocal);
    Stage s{b, base, reg};
    (write ? s.written : s.read) = true;
    stages.push_back(s);
    return reg;
  }

  Var lane_;
  int64_t lanes_;
  VarMap lets_;
};

std::optional<Stmt> plain_copy(const ForNode* op, int64_t lanes) {
  auto* st = op->body.as<StoreNode>();
  if (!st || st->indices.size() != 1 || !vector_memory(st->buffer)) return std::nullopt;
  auto* ld = st->value.as<LoadNode>();
  if (!ld || ld->indices.size() != 1 || !vector_memory(ld->buffer) ||
      ld->buffer->dtype != st->buffer->dtype || ld->buffer == st->buffer)
    return std::nullopt;
  const VarNode* l = op->var.get();
  auto cd = affine_coefficient(st->indices[0], l), cs = affine_coefficient(ld->indices[0], l);
  if (!cd || !cs || !is_const_int(*cd, 1) || !is_const_int(*cs, 1)) return std::nullopt;
  VarMap first{{l, make_zero(op->var.dtype())}};
  Expr d = transform::simplify(substitute(st->indices[0], first));
  Expr s = transform::simplify(substitute(ld->indices[0], first));
  return store(st->buffer, {d}, vector_load(ld->buffer, s, int(lanes), ld->span), st->span);
}

Stmt vectorize_loop(const ForNode* op, const Stmt& body) {
  const int64_t* lanes = as_const_int(op->end);
  auto scalar = [&] {
    auto n = copy_node(op);
    n->for_kind = ForKind::kUnrolled;
    n->body = body;
    return Stmt(n);
  };
  if (!lanes || !is_const_int(op->begin, 0) || op->step != 1 || *lanes < 2) return scalar();
  auto n = copy_node(op);
  n->body = body;
  if (auto move = plain_copy(n.get(), *lanes)) return *move;
  LaneRewriter rewriter(op->var, *lanes);
  Stmt lane_body = rewriter.mutate(body);
  if (!rewriter.ok || rewriter.stages.empty()) return scalar();
  std::vector<Stmt> steps;
  for (const auto& s : rewriter.stages)
    if (s.read)
      steps.push_back(store(s.reg, {make_zero(s.base.dtype())},
                            vector_load(s.buffer, s.base, int(*lanes)), op->span));
  steps.push_back(
      for_loop(op->var, op->begin, op->end, lane_body, ForKind::kUnrolled, 1, op->span));
  for (const auto& s : rewriter.stages)
    if (s.written)
      steps.push_back(store(s.buffer, {s.base},
                            vector_load(s.reg, make_zero(s.base.dtype()), int(*lanes)), op->span));
  Stmt out = seq(steps);
  for (size_t i = rewriter.stages.size(); i-- > 0;) out = allocate(rewriter.stages[i].reg, out);
  return out;
}

class LaneLoops : public StmtMutator {
 protected:
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    if (op->for_kind != ForKind::kVectorized) return StmtMutator::mutate_for(op, self);
    return vectorize_loop(op, mutate(op->body));
  }
};

}  // namespace

Stmt vectorize_lanes(const Stmt& body) {
  return LaneLoops().mutate(body);
}

IRModule vectorize_lanes(const IRModule& mod) {
  std::vector<PrimFunc> functions;
  for (const auto& f : mod.functions()) functions.push_back(with_body(f, vectorize_lanes(f->body)));
  return IRModule(std::move(functions), mod.attrs());
}

transform::Pass vectorize_lanes_pass() {
  return transform::Pass{
      "gpu.vectorize_lanes",
      [](const IRModule& mod, const transform::PassInfo&) { return vectorize_lanes(mod); }};
}

}  // namespace tilec::gpu
