#include "tilec/transform/warp_shuffles.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/warp_shuffle.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

namespace tilec::transform {

using namespace ir;

namespace {

std::string where(const std::string& function, const Span& span) {
  return span.known() ? fmt::format("line {}:{}: kernel '{}'", span.line, span.col, function)
                      : fmt::format("kernel '{}'", function);
}

bool has_shuffle(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || as_warp_shuffle(x); });
  return found;
}

class ShuffleLowering : public StmtMutator {
 public:
  ShuffleLowering(Expr tid, int64_t num_threads, std::string function)
      : tid_(std::move(tid)), num_threads_(num_threads), function_(std::move(function)) {}

  LoweredShuffles out;

 protected:
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    std::vector<Expr> exprs = op->indices;
    exprs.push_back(op->value);
    if (!any(exprs)) return self;
    Prologue p = prologue(exprs, op->span);
    std::vector<Expr> indices;
    for (const auto& i : op->indices) indices.push_back(p.replace(i));
    Stmt s = store(op->buffer, indices, p.replace(op->value), op->span);
    return seq({p.writes, s, p.after});
  }
  Stmt mutate_evaluate(const EvaluateNode* op, const Stmt& self) override {
    if (!any({op->value})) return self;
    Prologue p = prologue({op->value}, op->span);
    return seq({p.writes, evaluate(p.replace(op->value), op->span), p.after});
  }
  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    if (!any({op->value})) return StmtMutator::mutate_let(op, self);
    Prologue p = prologue({op->value}, op->span);
    Stmt body = mutate(op->body);
    return seq({p.writes, let(op->var, p.replace(op->value), seq({p.after, body}), op->span)});
  }
  Stmt mutate_if(const IfNode* op, const Stmt& self) override {
    if (has_shuffle(op->cond)) unsupported(op->cond, "an if condition");
    return StmtMutator::mutate_if(op, self);
  }
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    if (has_shuffle(op->begin) || has_shuffle(op->end)) unsupported(op->end, "a loop bound");
    return StmtMutator::mutate_for(op, self);
  }

 private:
  struct Prologue {
    Stmt writes;                                          // every X[tid] = value, then a barrier
    Stmt after;                                           // the barrier after the reads
    std::vector<std::pair<const ExprNode*, Expr>> reads;  // shuffle -> X[source]
    Expr replace(const Expr& e) const {
      class Replace : public ExprMutator {
       public:
        explicit Replace(const Prologue& p) : p_(p) {}
        Expr mutate_call(const CallNode* op, const Expr& self) override {
          for (const auto& [node, read] : p_.reads)
            if (node == op) return read;
          return ExprMutator::mutate_call(op, self);
        }

       private:
        const Prologue& p_;
      };
      return Replace(*this).mutate(e);
    }
  };

  bool any(const std::vector<Expr>& exprs) const {
    for (const auto& e : exprs)
      if (has_shuffle(e)) return true;
    return false;
  }

  [[noreturn]] void unsupported(const Expr& e, const std::string& what) const {
    const CallNode* c = nullptr;
    post_order_visit(e, [&](const Expr& x) {
      if (!c) c = as_warp_shuffle(x);
    });
    throw IRError(
        fmt::format("{}: T.{} in {} is not supported; shuffle into a name first "
                    "(v = T.{}(...)) and use the name there",
                    where(function_, c->span), c->name, what, c->name));
  }

  Prologue prologue(const std::vector<Expr>& exprs, const Span& span) {
    Prologue p;
    std::vector<Stmt> writes;
    for (const auto& e : exprs) {
      post_order_visit(e, [&](const Expr& x) {
        const CallNode* c = as_warp_shuffle(x);
        if (!c) return;
        if (has_shuffle(c->args[0]) || has_shuffle(c->args[1])) {
          throw IRError(fmt::format(
              "{}: T.{} of a value that itself shuffles is not supported; shuffle into a name "
              "first (v = T.shfl_...(...)) and shuffle the name",
              where(function_, c->span), c->name));
        }
        for (const auto& [node, read] : p.reads)
          if (node == c) return;
        Buffer x_tile =
            make_buffer(fmt::format("{}_exchange{}", c->name, out.exchange.size()),
                        {make_int(num_threads_)}, c->dtype, StorageScope::kShared, c->span);
        out.exchange.push_back(x_tile);
        writes.push_back(store(x_tile, {tid_}, c->args[0], c->span));
        p.reads.emplace_back(c, load(x_tile, {source(*c)}, c->span));
      });
    }
    auto* first = static_cast<const CallNode*>(p.reads.front().first);
    std::string what =
        fmt::format("T.{} (a warp shuffle: every thread of the block takes part)", first->name);
    Expr before = barrier(StorageScope::kShared, first->span);
    Expr after = barrier(StorageScope::kShared, first->span);
    out.origins[before.get()] = what;
    out.origins[after.get()] = what;
    writes.push_back(evaluate(before, first->span));
    p.writes = seq(writes, span);
    p.after = evaluate(after, first->span);
    return p;
  }

  // The flat index of the thread whose value the caller receives (its own when the
  // source lane is outside its group or the block).
  Expr source(const CallNode& c) const {
    Expr width = c.args[2];
    Expr lane = floormod(tid_, width);
    Expr base = tid_ - lane;
    Expr arg = c.args[1];
    Expr src_lane = c.name == "shfl_xor"    ? binary(BinaryOp::kBitXor, lane, arg)
                    : c.name == "shfl_down" ? lane + arg
                    : c.name == "shfl_up"   ? lane - arg
                                            : floormod(arg, width);
    Expr valid = logical_and(logical_and(src_lane >= make_int(0), src_lane < width),
                             base + src_lane < make_int(num_threads_));
    return simplify(select(valid, base + src_lane, tid_));
  }

  Expr tid_;
  int64_t num_threads_;
  std::string function_;
};

}  // namespace

LoweredShuffles lower_warp_shuffles(const Stmt& body, const std::vector<Var>& thread_vars,
                                    const std::vector<int64_t>& threads,
                                    const std::string& function) {
  Expr tid = make_int(0);
  int64_t stride = 1;
  for (size_t d = 0; d < thread_vars.size(); ++d) {
    tid = tid + thread_vars[d] * make_int(stride);
    stride *= threads[d];
  }
  ShuffleLowering lowering(simplify(tid), stride, function);
  lowering.out.body = lowering.mutate(body);
  return std::move(lowering.out);
}

void reject_shuffles_without_threads(const KernelNode& kernel, const std::string& function) {
  post_order_visit(kernel.body, [&](const Stmt*, const Expr* e) {
    if (const CallNode* c = e ? as_warp_shuffle(*e) : nullptr) {
      throw IRError(fmt::format(
          "{}: T.{} in a kernel without thread indices; a shuffle exchanges values between "
          "threads, so bind them first (tx = T.get_thread_binding(0))",
          where(function, c->span), c->name));
    }
  });
}

}  // namespace tilec::transform
