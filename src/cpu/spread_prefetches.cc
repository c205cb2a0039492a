// spread_prefetches (cpu/prefetch.h): the prefetch block of a pipelined iteration moved
// into the loops of the compute that follows it, a slice of its rows per iteration.
#include "tilec/cpu/prefetch.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/stmt.h"
#include "tilec/transform/simplify.h"

#include <algorithm>

namespace tilec::cpu {

using namespace ir;

namespace {

// A symbolic trip count is weighed as this many iterations.
constexpr double kSymbolicTrips = 16;

bool prefetch_only(const Stmt& s) {
  if (auto* e = s.as<EvaluateNode>()) return as_prefetch(e->value) != nullptr;
  if (auto* i = s.as<IfNode>())
    return prefetch_only(i->then_case) && (!i->else_case || prefetch_only(i->else_case));
  if (auto* f = s.as<ForNode>()) return prefetch_only(f->body);
  if (auto* l = s.as<LetNode>()) return prefetch_only(l->body);
  if (auto* q = s.as<SeqNode>())
    return !q->stmts.empty() && std::all_of(q->stmts.begin(), q->stmts.end(), prefetch_only);
  return false;
}

std::optional<int64_t> trips(const ForNode& f) {
  const int64_t *b = as_const_int(f.begin), *e = as_const_int(f.end);
  if (!b || !e || f.step != 1) return std::nullopt;
  return std::max<int64_t>(0, *e - *b);
}

// `if (cond) { for ...; for ... }` whose loops run from 0 to a constant (a copy's rows,
// or a 1-D copy's lines) and only prefetch: the form prefetch_pipelined_copies emits.
struct PrefetchBlock {
  Expr cond;
  std::vector<const ForNode*> loops;
};
std::optional<PrefetchBlock> as_prefetch_block(const Stmt& s) {
  auto* guard = s.as<IfNode>();
  if (!guard || guard->else_case) return std::nullopt;
  PrefetchBlock block{guard->cond, {}};
  std::vector<Stmt> stmts{guard->then_case};
  if (auto* q = guard->then_case.as<SeqNode>()) stmts = q->stmts;
  for (const Stmt& x : stmts) {
    auto* f = x.as<ForNode>();
    const int64_t* b = f ? as_const_int(f->begin) : nullptr;
    if (!f || f->for_kind != ForKind::kSerial || !b || *b != 0 || !trips(*f) ||
        !prefetch_only(f->body))
      return std::nullopt;
    block.loops.push_back(f);
  }
  return block.loops.empty() ? std::nullopt : std::optional(block);
}

// Statements executed, loops counted by their trips: where the work is.
double weight(const Stmt& s) {
  if (!s) return 0;
  if (auto* f = s.as<ForNode>()) {
    auto n = trips(*f);
    return (n ? double(*n) : kSymbolicTrips) * weight(f->body);
  }
  if (auto* i = s.as<IfNode>()) return std::max(weight(i->then_case), weight(i->else_case));
  if (auto* q = s.as<SeqNode>()) {
    double w = 0;
    for (const auto& x : q->stmts) w += weight(x);
    return w;
  }
  if (auto* l = s.as<LetNode>()) return weight(l->body);
  if (auto* a = s.as<AllocateNode>()) return weight(a->body);
  return 1;
}

// The outermost loop of the heaviest path through `s` (sequences, lets, allocations):
// a serial loop of constant bounds and more than one iteration, else nullptr.
const ForNode* slot_loop(const Stmt& s) {
  if (auto* f = s.as<ForNode>()) {
    auto n = trips(*f);
    return f->for_kind == ForKind::kSerial && n && *n > 1 ? f : nullptr;
  }
  if (auto* q = s.as<SeqNode>()) {
    const Stmt* heaviest = nullptr;
    for (const auto& x : q->stmts)
      if (!heaviest || weight(x) > weight(*heaviest)) heaviest = &x;
    return heaviest ? slot_loop(*heaviest) : nullptr;
  }
  if (auto* l = s.as<LetNode>()) return slot_loop(l->body);
  if (auto* a = s.as<AllocateNode>()) return slot_loop(a->body);
  return nullptr;
}

// `pre` put at the top of loop `target`'s body.
class InsertAtTop : public StmtMutator {
 public:
  InsertAtTop(const ForNode* target, Stmt pre) : target_(target), pre_(std::move(pre)) {}

 protected:
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt out = StmtMutator::mutate_for(op, self);
    if (op != target_) return out;
    auto n = copy_node(out.as<ForNode>());
    n->body = seq({pre_, n->body});
    return Stmt(n);
  }

 private:
  const ForNode* target_;
  Stmt pre_;
};

// `host` with `block`'s rows dealt out over its slot loops (an outer one and the
// first inside it), or nullopt when it has none.
std::optional<Stmt> spread_into(const PrefetchBlock& block, const Stmt& host) {
  const ForNode* outer = slot_loop(host);
  if (!outer) return std::nullopt;
  const ForNode* inner = slot_loop(outer->body);
  DataType it = outer->var.dtype();
  int64_t slots = *trips(*outer);
  Expr slot = outer->var - outer->begin;
  const ForNode* at = outer;
  if (inner && inner->var.dtype() == it) {
    slot = slot * make_int(*trips(*inner), it) + (inner->var - inner->begin);
    slots *= *trips(*inner);
    at = inner;
  }
  std::vector<Stmt> slices;
  for (const ForNode* loop : block.loops) {
    const int64_t items = *trips(*loop);
    const int64_t per_slot = (items + slots - 1) / slots;
    DataType lt = loop->var.dtype();
    Expr s = lt == it ? slot : cast(lt, slot);
    Expr begin = transform::simplify(s * make_int(per_slot, lt));
    Expr end = transform::simplify(min(begin + make_int(per_slot, lt), make_int(items, lt)));
    // The end as a let, not a T.min in the loop header: the C printer writes a min as a
    // ternary there without parentheses around it.
    Var slice_end = make_var("pf_end", lt);
    slices.push_back(let(slice_end, end, for_loop(loop->var, begin, slice_end, loop->body)));
  }
  return InsertAtTop(at, if_then_else(block.cond, seq(slices))).mutate(host);
}

class SpreadPrefetches : public StmtMutator {
 protected:
  Stmt mutate_seq(const SeqNode* op, const Stmt& self) override {
    Stmt out = StmtMutator::mutate_seq(op, self);
    auto* q = out.as<SeqNode>();
    if (!q) return out;
    std::vector<Stmt> stmts = q->stmts;
    bool changed = false;
    for (size_t i = 0; i < stmts.size(); ++i) {
      auto block = as_prefetch_block(stmts[i]);
      if (!block) continue;
      size_t host = i + 1;
      for (size_t j = i + 1; j < stmts.size(); ++j)
        if (weight(stmts[j]) > weight(stmts[host])) host = j;
      if (host >= stmts.size()) continue;
      auto spread = spread_into(*block, stmts[host]);
      if (!spread) continue;
      stmts[host] = *spread;
      stmts.erase(stmts.begin() + long(i));
      --i;
      changed = true;
    }
    return changed ? seq(stmts) : out;
  }
};

}  // namespace

Stmt spread_prefetches(const Stmt& body) {
  return SpreadPrefetches().mutate(body);
}

transform::Pass spread_prefetches_pass() {
  return transform::Pass{"cpu.spread_prefetches",
                         [](const IRModule& mod, const transform::PassInfo&) {
                           return transform::map_function_bodies(
                               mod, [](const PrimFunc& f) { return spread_prefetches(f->body); });
                         }};
}

}  // namespace tilec::cpu
