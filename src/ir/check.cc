// The semantic check. T.Parallel dependence rule (what is tractable without an integer
// solver): inside a T.Parallel loop over v, for each buffer X stored to in the body,
//  - a store whose indices do not depend on v (directly or through lets) while the
//    body also reads X, or while the stored value depends on v, is a conflict: every
//    iteration writes the same element;
//  - a load X[l] beside a store X[s] is a conflict unless some dimension d has
//    s[d] and l[d] identical and depending on v, which pins the load to the element
//    its own iteration writes.
// A loop of one iteration is exempt: it has no other iteration to conflict with.
// Everything else is accepted; the interpreter and backends give the same result for
// accepted loops only when their iterations really are independent.
#include "tilec/ir/check.h"

#include "tilec/ir/index_type.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/source_error.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/writes.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

namespace tilec::ir {
namespace {

// Constant extent of start:stop when it is evident: two constants, or stop = start + c.
std::optional<int64_t> const_extent(const Expr& start, const Expr& stop) {
  auto *s = as_const_int(start), *e = as_const_int(stop);
  if (s && e) return *e - *s;
  if (auto* add = stop.as<BinaryNode>(); add && add->op == BinaryOp::kAdd) {
    if (same_expr(add->a, start))
      if (auto* c = as_const_int(add->b)) return *c;
    if (same_expr(add->b, start))
      if (auto* c = as_const_int(add->a)) return *c;
  }
  return std::nullopt;
}

std::string extents_str(const std::vector<std::optional<int64_t>>& ext) {
  std::vector<std::string> parts;
  for (const auto& e : ext) parts.push_back(e ? std::to_string(*e) : "?");
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

struct Access {
  const BufferNode* buffer;
  std::vector<Expr> indices;
  Expr value;  // stores only
  Span span;
};

// Loads, stores and let bindings inside a T.Parallel body.
class AccessCollector : public StmtVisitor {
 public:
  std::vector<Access> loads, stores;
  std::unordered_map<const VarNode*, Expr> lets;

 protected:
  void visit_load(const LoadNode* op) override {
    loads.push_back({op->buffer.get(), op->indices, Expr(), op->span});
    StmtVisitor::visit_load(op);
  }
  void visit_store(const StoreNode* op) override {
    stores.push_back({op->buffer.get(), op->indices, op->value, op->span});
    StmtVisitor::visit_store(op);
  }
  void visit_let(const LetNode* op) override {
    lets[op->var.get()] = op->value;
    StmtVisitor::visit_let(op);
  }
};

class Checker : public StmtVisitor {
 public:
  Checker(const PrimFunc& func, std::vector<Diagnostic>& out) : func_(func), out_(out) {}

  void run() {
    span_ = func_->span;
    for (const auto& p : func_->params) bind(p.var.get());
    for (const auto& v : symbolic_shape_vars(func_)) bind(v.get());
    for (const auto& p : func_->params) {
      if (!p.is_buffer()) continue;
      buffers_[p.buffer.get()]++;
      for (const auto& d : p.buffer->shape) {
        if (d && !d.dtype().is_integer()) {
          error(p.buffer->span,
                fmt::format("parameter '{}' has a dimension of dtype {}", p.buffer->name,
                            d.dtype().str()),
                "tensor dimensions are integer constants or symbolic names");
        }
      }
    }
    visit(func_->body);
  }

  void visit(const Stmt& s) override {
    Span saved = span_;
    if (s && s->span.known()) span_ = s->span;
    StmtVisitor::visit(s);
    span_ = saved;
  }
  void visit(const Expr& e) override {
    Span saved = span_;
    // A variable's span is where it was defined, not where this use is.
    if (e && e->span.known() && e.kind() != ExprKind::kVar) span_ = e->span;
    ExprVisitor::visit(e);
    span_ = saved;
  }

 protected:
  void visit_var(const VarNode* op) override {
    auto it = vars_.find(op);
    if ((it == vars_.end() || it->second == 0) && reported_vars_.insert(op).second) {
      error(span_, fmt::format("'{}' is used outside the scope that binds it", op->name),
            "define it before this use (a parameter, a loop variable, a kernel block index or "
            "an assignment in an enclosing block)");
    }
  }
  void visit_buffer_use(const Buffer& b) override {
    if (!b) return error(span_, "reference to an undefined buffer", "");
    auto it = buffers_.find(b.get());
    if ((it == buffers_.end() || it->second == 0) && reported_buffers_.insert(b.get()).second) {
      error(span_, fmt::format("buffer '{}' is used outside its scope", b->name),
            "use a buffer only inside the block that allocates it (T.alloc_shared, "
            "T.alloc_fragment, ...) or pass it as a parameter");
    }
  }
  void visit_binary(const BinaryNode* op) override {
    if (op->a && op->b) {
      if (is_logical(op->op) && (!op->a.dtype().is_bool() || !op->b.dtype().is_bool())) {
        error(span_,
              fmt::format("operands of '{}' have dtypes {} and {}", to_string(op->op),
                          op->a.dtype().str(), op->b.dtype().str()),
              "'and'/'or' take bool operands: compare first (x > 0)");
      } else if (op->a.dtype() != op->b.dtype()) {
        error(span_,
              fmt::format("operands of '{}' have different dtypes {} and {}", to_string(op->op),
                          op->a.dtype().str(), op->b.dtype().str()),
              "convert one side with T.cast so both have the same dtype");
      } else if (op->op == BinaryOp::kDiv && !op->a.dtype().is_float()) {
        error(span_, "'/' on integer operands (" + op->a.dtype().str() + ")",
              "use '//' for floor division");
      }
    }
    StmtVisitor::visit_binary(op);
  }
  void visit_select(const SelectNode* op) override {
    expect_bool(op->cond, "the condition of T.if_then_else");
    StmtVisitor::visit_select(op);
  }
  void visit_load(const LoadNode* op) override {
    check_indices(op->buffer, op->indices, "load from");
    StmtVisitor::visit_load(op);
  }

  void visit_store(const StoreNode* op) override {
    check_indices(op->buffer, op->indices, "store to");
    check_writes(op);
    StmtVisitor::visit_store(op);
  }
  void visit_let(const LetNode* op) override {
    if (op->value && op->var.get() && op->value.dtype() != op->var->dtype) {
      error(span_,
            fmt::format("'{}' is declared {} but bound to a {} value", op->var.name(),
                        op->var->dtype.str(), op->value.dtype().str()),
            "bind a value of the variable's dtype (use T.cast)");
    }
    visit(op->value);
    bind(op->var.get());
    visit(op->body);
    unbind(op->var.get());
  }
  void visit_for(const ForNode* op) override {
    expect_integer(op->begin, "loop start");
    expect_integer(op->end, "loop bound");
    if (op->var.get() && !op->var->dtype.is_integer()) {
      error(span_,
            fmt::format("loop variable '{}' has dtype {}", op->var.name(), op->var->dtype.str()),
            "loop variables are integers");
    } else if (op->var.get() && !loop_var_holds(op->var->dtype, op->begin, op->end, op->step)) {
      // docs/semantics.md "Integer widths": a loop variable never wraps.
      error(span_,
            fmt::format("loop variable '{}' is {} but the loop runs from {} to {}, past what {} "
                        "holds",
                        op->var.name(), op->var->dtype.str(), print(op->begin), print(op->end),
                        op->var->dtype.str()),
            "declare the loop variable int64");
    }
    visit(op->begin);
    visit(op->end);
    if (op->for_kind == ForKind::kParallel && op->var.get()) check_parallel(op);
    bind(op->var.get());
    visit(op->body);
    unbind(op->var.get());
  }
  void visit_if(const IfNode* op) override {
    expect_bool(op->cond, "the condition of 'if'");
    StmtVisitor::visit_if(op);
  }
  void visit_allocate(const AllocateNode* op) override {
    if (!op->buffer) return error(span_, "allocation of an undefined buffer", "");
    const Buffer& b = op->buffer;
    if (!in_kernel_ && (b->scope == StorageScope::kShared || b->scope == StorageScope::kFragment)) {
      error(span_,
            fmt::format("{} buffer '{}' is allocated outside a T.Kernel", to_string(b->scope),
                        b->name),
            "shared and fragment tiles belong to a block: allocate them inside "
            "'with T.Kernel(...)'");
    }
    for (const auto& d : b->shape) {
      expect_integer(d, "allocation extent of '" + b->name + "'");
      visit(d);
    }
    if (op->init) {
      visit(*op->init);
    }
    buffers_[b.get()]++;
    visit(op->body);
    buffers_[b.get()]--;
  }
  void visit_kernel(const KernelNode* op) override {
    if (in_kernel_) {
      error(span_, "T.Kernel is nested inside another T.Kernel",
            "a kernel body cannot launch kernels: move the inner T.Kernel out");
    }
    if (op->grid.empty() || op->grid.size() > 3 || op->grid.size() != op->block_vars.size()) {
      error(span_,
            fmt::format("T.Kernel has {} grid extent(s) and {} block variable(s)", op->grid.size(),
                        op->block_vars.size()),
            "give 1 to 3 grid extents and bind one block index per extent");
    }
    for (size_t d = 0; d < op->grid.size(); ++d) {
      const Expr& g = op->grid[d];
      expect_integer(g, "grid extent");
      // docs/semantics.md "Integer widths": block indices are int32 on every target.
      if (const int64_t* c = as_const_int(g); c && *c > kMaxGridExtent) {
        error(span_,
              fmt::format("T.Kernel grid extent {} along {} is more blocks than any target runs "
                          "(at most {} = 2^31 - 1 per axis)",
                          *c, "xyz"[d < 3 ? d : 0], kMaxGridExtent),
              "give each block more work (a larger tile) or split the grid over more axes");
      }
      visit(g);
    }
    for (auto t : op->threads) {
      if (t <= 0) error(span_, fmt::format("threads={} is not positive", t), "threads >= 1");
    }
    for (const auto& v : op->block_vars) bind(v.get());
    bool was = in_kernel_;
    in_kernel_ = true;
    visit(op->body);
    in_kernel_ = was;
    for (const auto& v : op->block_vars) unbind(v.get());
  }
  void visit_copy(const CopyNode* op) override {
    StmtVisitor::visit_copy(op);
    check_writes(op);
    auto src = region(op->src, "T.copy"), dst = region(op->dst, "T.copy");
    if (!src || !dst || src->point || dst->point) return;
    auto non_unit = [](const std::vector<std::optional<int64_t>>& ext) {
      std::vector<int64_t> out;
      for (const auto& e : ext) {
        if (!e) return std::optional<std::vector<int64_t>>();
        if (*e != 1) out.push_back(*e);
      }
      return std::optional<std::vector<int64_t>>(out);
    };
    auto s = non_unit(src->extent), d = non_unit(dst->extent);
    if (s && d && *s != *d) {
      error(span_,
            fmt::format("T.copy extents do not agree: source '{}' is {} and destination "
                        "'{}' is {}",
                        op->src.buffer->name, extents_str(src->extent), op->dst.buffer->name,
                        extents_str(dst->extent)),
            "both sides must have the same extents once dimensions of extent 1 are dropped");
    }
  }
  void visit_fill(const FillNode* op) override {
    StmtVisitor::visit_fill(op);
    check_writes(op);
    region(op->dst, "T.fill");
  }
  void visit_gemm(const GemmNode* op) override {
    StmtVisitor::visit_gemm(op);
    check_writes(op);
    auto a = matrix(op->a, "A"), b = matrix(op->b, "B"), c = matrix(op->c, "C");
    if (!a || !b || !c) return;
    auto pick = [](const Matrix& m, bool t) {
      return t ? std::pair(m.cols, m.rows) : std::pair(m.rows, m.cols);
    };
    auto [am, ak] = pick(*a, op->transpose_a);
    auto [bk, bn] = pick(*b, op->transpose_b);
    auto differs = [](std::optional<int64_t> x, std::optional<int64_t> y) {
      return x && y && *x != *y;
    };
    if (differs(am, c->rows) || differs(bn, c->cols) || differs(ak, bk)) {
      error(span_,
            fmt::format("T.gemm shapes do not agree: A is {} (transpose_A={}), B is {} "
                        "(transpose_B={}), C is {}",
                        extents_str({a->rows, a->cols}), op->transpose_a ? "True" : "False",
                        extents_str({b->rows, b->cols}), op->transpose_b ? "True" : "False",
                        extents_str({c->rows, c->cols})),
            "expected A as M x K (K x M when transpose_A), B as K x N (N x K when transpose_B) "
            "and C as M x N");
    }
  }
  void visit_reduce(const ReduceNode* op) override {
    StmtVisitor::visit_reduce(op);
    if (!op->src || !op->dst) return;
    check_writes(op);
    int nd = op->src->ndim();
    std::string name = std::string("T.reduce_") + to_string(op->reduce_kind);
    if (op->dim < -nd || op->dim >= nd) {
      return error(span_,
                   fmt::format("{}: dim={} is out of range for '{}' with {} dimension(s)", name,
                               op->dim, op->src->name, nd),
                   fmt::format("use a dim in [0, {})", nd));
    }
    int dim = op->dim < 0 ? op->dim + nd : op->dim;
    // With constant dims both sides must agree; symbolic dims are checked at run time.
    std::vector<Expr> expected = op->src->shape;
    const auto& got = op->dst->shape;
    bool keep_dim = int(got.size()) == nd;
    if (keep_dim) {
      expected[size_t(dim)] = Expr(1);
    } else {
      expected.erase(expected.begin() + dim);
    }
    bool ok = got.size() == expected.size();
    for (size_t i = 0; ok && i < got.size(); ++i) {
      auto *x = as_const_int(got[i]), *y = as_const_int(expected[i]);
      ok = !(x && y && *x != *y);
    }
    if (!ok) {
      std::vector<std::optional<int64_t>> src_ext, dst_ext;
      for (const auto& d : op->src->shape) src_ext.push_back(opt(d));
      for (const auto& d : got) dst_ext.push_back(opt(d));
      error(span_,
            fmt::format("{}: '{}' has shape {} but reducing '{}' {} over dim {} removes "
                        "that dimension",
                        name, op->dst->name, extents_str(dst_ext), op->src->name,
                        extents_str(src_ext), dim),
            "the destination's shape is the source's without dimension dim");
    }
  }

 private:
  struct Tile {
    std::vector<std::optional<int64_t>> extent;
    bool point = false;
  };
  struct Matrix {
    std::optional<int64_t> rows, cols;
  };

  static std::optional<int64_t> opt(const Expr& e) {
    auto* c = as_const_int(e);
    return c ? std::optional<int64_t>(*c) : std::nullopt;
  }

  std::optional<Tile> region(const TileRegion& r, const char* op) {
    if (!r.buffer) return std::nullopt;
    Tile t;
    if (r.is_whole()) {
      for (const auto& d : r.buffer->shape) t.extent.push_back(opt(d));
      return t;
    }
    if (int(r.dims.size()) != r.buffer->ndim()) {
      error(span_,
            fmt::format("{} operand '{}' has {} dimension(s) but {} subscript(s)", op,
                        r.buffer->name, r.buffer->ndim(), r.dims.size()),
            "give one index or slice per dimension, or the whole buffer");
      return std::nullopt;
    }
    t.point = r.is_point();
    for (const auto& d : r.dims) {
      expect_integer(d.start, std::string(op) + " index");
      if (!d.stop) {
        t.extent.push_back(1);
        continue;
      }
      expect_integer(*d.stop, std::string(op) + " slice bound");
      auto e = const_extent(d.start, *d.stop);
      if (e && *e < 0) {
        error(span_, fmt::format("{} slice of '{}' has negative extent {}", op, r.buffer->name, *e),
              "write slices as start:stop with stop >= start");
      }
      t.extent.push_back(e);
    }
    return t;
  }

  std::optional<Matrix> matrix(const TileRegion& r, const char* role) {
    auto t = region(r, "T.gemm");
    if (!t) return std::nullopt;
    size_t nd = t->extent.size();
    bool leading_unit = true;
    for (size_t d = 0; d + 2 < nd; ++d) leading_unit &= !t->extent[d] || *t->extent[d] == 1;
    if (t->point || nd < 2 || !leading_unit) {
      error(span_,
            fmt::format("T.gemm operand {} ('{}') is not a 2-d tile: extents {}", role,
                        r.buffer->name, extents_str(t->extent)),
            "pass a 2-d buffer or 2-d slices (leading dimensions of extent 1 are allowed)");
      return std::nullopt;
    }
    return Matrix{t->extent[nd - 2], t->extent[nd - 1]};
  }

  void check_indices(const Buffer& b, const std::vector<Expr>& idx, const char* what) {
    if (!b) return;
    if (int(idx.size()) != b->ndim()) {
      error(span_,
            fmt::format("{} '{}' uses {} index(es) but it has {} dimension(s)", what, b->name,
                        idx.size(), b->ndim()),
            "give one index per dimension");
    }
    for (const auto& i : idx) expect_integer(i, std::string("index of '") + b->name + "'");
  }

  // Every buffer the node writes (ir/writes.h) must be writable.
  template <class Node>
  void check_writes(const Node* op) {
    for_each_write(op, [&](const Write& w) { check_writable(w.buffer, w.what); });
  }

  void check_writable(const Buffer& b, const char* what) {
    if (b && b->read_only && reported_read_only_.insert(b.get()).second) {
      error(span_, fmt::format("{} writes '{}', which is declared read-only", what, b->name),
            "write to an output parameter, or drop the read-only declaration");
    }
  }

  void expect_integer(const Expr& e, const std::string& what) {
    if (e && !e.dtype().is_integer()) {
      error(e->span.known() ? e->span : span_,
            fmt::format("{} has dtype {}", what, e.dtype().str()),
            "expected an integer expression (use T.cast(x, \"int32\") or '//')");
    }
  }
  void expect_bool(const Expr& e, const std::string& what) {
    if (e && !e.dtype().is_bool()) {
      error(e->span.known() ? e->span : span_,
            fmt::format("{} has dtype {}", what, e.dtype().str()),
            "expected a bool: a comparison such as x > 0");
    }
  }

  // See the rule at the top of this file.
  void check_parallel(const ForNode* loop) {
    // A single iteration cannot race with another (T.Parallel(1, D) rows are common).
    auto *b = as_const_int(loop->begin), *e = as_const_int(loop->end);
    if (b && e && *e - *b <= loop->step) return;
    AccessCollector acc;
    acc.visit(loop->body);
    const VarNode* v = loop->var.get();
    std::unordered_map<const VarNode*, bool> memo;
    std::function<bool(const Expr&)> depends = [&](const Expr& e) {
      bool found = false;
      post_order_visit(e, [&](const Expr& sub) {
        auto* var = sub.as<VarNode>();
        if (!var || found) return;
        if (var == v) {
          found = true;
        } else if (auto it = acc.lets.find(var); it != acc.lets.end()) {
          auto [m, inserted] = memo.try_emplace(var, false);
          if (inserted) m->second = depends(it->second);
          found = memo[var];
        }
      });
      return found;
    };
    std::unordered_set<const BufferNode*> reported;
    for (const auto& st : acc.stores) {
      if (reported.count(st.buffer)) continue;
      bool location_varies = false;
      for (const auto& i : st.indices) location_varies |= depends(i);
      const Access* conflict = nullptr;
      for (const auto& ld : acc.loads) {
        if (ld.buffer != st.buffer) continue;
        bool pinned = false;
        for (size_t d = 0; d < st.indices.size() && d < ld.indices.size(); ++d)
          pinned |= depends(st.indices[d]) && same_expr(st.indices[d], ld.indices[d]);
        if (!pinned) {
          conflict = &ld;
          break;
        }
      }
      if (conflict || (!location_varies && st.value && depends(st.value))) {
        reported.insert(st.buffer);
        Span where = st.span.known() ? st.span : (loop->span.known() ? loop->span : span_);
        std::string what =
            !location_varies
                ? fmt::format(
                      "every iteration of T.Parallel over '{}' writes the same element "
                      "of '{}'{}",
                      v->name, st.buffer->name, conflict ? " and reads it" : "")
                : fmt::format(
                      "iterations of T.Parallel over '{}' read elements of '{}' that "
                      "other iterations write",
                      v->name, st.buffer->name);
        error(where, what,
              "T.Parallel iterations must be independent: accumulate with T.serial or "
              "T.reduce_*, or give each iteration its own element");
      }
    }
  }

  void bind(const VarNode* v) {
    if (v) vars_[v]++;
  }
  void unbind(const VarNode* v) {
    if (v) vars_[v]--;
  }

  void error(Span span, std::string message, std::string hint) {
    out_.push_back(Diagnostic{span.known() ? span : func_->span, std::move(message),
                              std::move(hint), func_->name});
  }

  const PrimFunc& func_;
  std::vector<Diagnostic>& out_;
  Span span_;
  bool in_kernel_ = false;
  std::unordered_map<const VarNode*, int> vars_;
  std::unordered_map<const BufferNode*, int> buffers_;
  std::unordered_set<const VarNode*> reported_vars_;
  std::unordered_set<const BufferNode*> reported_buffers_, reported_read_only_;
};

}  // namespace

std::vector<Diagnostic> check_function(const PrimFunc& func) {
  std::vector<Diagnostic> out;
  if (!func) {
    out.push_back({Span{}, "undefined function", "", ""});
    return out;
  }
  Checker(func, out).run();
  return out;
}

std::vector<Diagnostic> check_module(const IRModule& module) {
  std::vector<Diagnostic> out;
  for (const auto& f : module.functions()) {
    auto d = check_function(f);
    out.insert(out.end(), std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
  }
  return out;
}

std::string format_diagnostics(const std::vector<Diagnostic>& diagnostics,
                               const std::string& filename, std::string_view source) {
  std::string out;
  for (const auto& d : diagnostics) {
    std::string message = d.message;
    if (!d.function.empty()) message += " (in function '" + d.function + "')";
    if (!out.empty()) out += "\n";
    out +=
        make_source_error(filename.empty() ? "<input>" : filename, source, d.span, message, d.hint)
            .what();
  }
  return out;
}

void check_module_or_throw(const IRModule& module, const std::string& filename,
                           std::string_view source) {
  auto diagnostics = check_module(module);
  if (!diagnostics.empty()) throw IRError(format_diagnostics(diagnostics, filename, source));
}

}  // namespace tilec::ir
