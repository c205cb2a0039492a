#include "tilec/cpu/fuse_row_loops.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/pass_context.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tilec::cpu {

using namespace ir;

namespace {

struct Access {
  bool written = false;
  bool row_only = true;  // every access indexes dimension 0 by the loop's variable
};

// What a candidate row loop touches: buffers allocated outside it, by buffer node.
struct RowLoop {
  const ForNode* loop = nullptr;
  int64_t extent = 0;
  std::map<const BufferNode*, Access> buffers;
};

std::optional<RowLoop> as_row_loop(const Stmt& s) {
  const auto* f = s.as<ForNode>();
  if (f == nullptr || f->step != 1 || f->num_stages != 0 || !f->thread_tag.empty()) return {};
  if (f->for_kind != ForKind::kSerial && f->for_kind != ForKind::kParallel) return {};
  const int64_t* begin = as_const_int(f->begin);
  const int64_t* end = as_const_int(f->end);
  if (begin == nullptr || *begin != 0 || end == nullptr || *end < 2) return {};
  RowLoop row{f, *end, {}};
  std::set<const BufferNode*> local;
  bool ok = true;
  auto use = [&](const Buffer& b, const std::vector<Expr>& idx, bool write) {
    Access& a = row.buffers[b.get()];
    a.written = a.written || write;
    bool by_row = !idx.empty() && idx[0].as<VarNode>() == f->var.get();
    a.row_only = a.row_only && by_row;
  };
  post_order_visit(f->body, [&](const Stmt* st, const Expr* e) {
    if (st != nullptr) {
      if (auto* a = st->as<AllocateNode>())
        local.insert(a->buffer.get());
      else if (auto* w = st->as<StoreNode>())
        use(w->buffer, w->indices, true);
      else if (st->as<EvaluateNode>() || st->as<CopyNode>() || st->as<FillNode>() ||
               st->as<GemmNode>() || st->as<ReduceNode>() || st->as<KernelNode>() ||
               st->as<LaunchNode>())
        ok = false;
    } else if (auto* l = e->as<LoadNode>()) {
      use(l->buffer, l->indices, false);
    } else if (auto* c = e->as<CallNode>(); c && c->call_kind != CallKind::kIntrinsic) {
      ok = false;  // an extern call may have effects
    }
  });
  if (!ok) return {};
  for (const BufferNode* b : local) row.buffers.erase(b);
  return row;
}

// Whether the loops may run row by row together, and whether that reuses a tile.
bool fusable(const std::vector<RowLoop>& group, bool* reuses) {
  std::map<const BufferNode*, std::vector<std::pair<size_t, Access>>> uses;
  for (size_t i = 0; i < group.size(); ++i)
    for (const auto& [b, a] : group[i].buffers) uses[b].push_back({i, a});
  *reuses = false;
  for (const auto& [b, list] : uses) {
    bool written = false, row_only = true;
    for (const auto& [i, a] : list) {
      written = written || a.written;
      row_only = row_only && a.row_only;
    }
    if (!written || list.size() == 1) continue;
    if (!row_only) return false;
    if (b->scope != StorageScope::kGlobal) *reuses = true;
  }
  return true;
}

Stmt fuse(const std::vector<RowLoop>& group) {
  const ForNode* first = group.front().loop;
  std::vector<Stmt> bodies;
  for (const RowLoop& r : group) {
    if (r.loop == first) {
      bodies.push_back(r.loop->body);
    } else {
      VarMap map{{r.loop->var.get(), first->var}};
      bodies.push_back(substitute(r.loop->body, map));
    }
  }
  return for_loop(first->var, first->begin, first->end, seq(bodies), ForKind::kSerial);
}

class FuseRowLoops : public StmtMutator {
 protected:
  Stmt mutate_seq(const SeqNode* op, const Stmt& self) override {
    Stmt mutated = StmtMutator::mutate_seq(op, self);
    const auto* s = mutated.as<SeqNode>();
    if (s == nullptr) return mutated;
    std::vector<Stmt> out;
    std::vector<RowLoop> group;
    std::vector<Stmt> group_stmts;
    auto flush = [&] {
      bool reuses = false;
      if (group.size() > 1 && fusable(group, &reuses) && reuses)
        out.push_back(fuse(group));
      else
        out.insert(out.end(), group_stmts.begin(), group_stmts.end());
      group.clear();
      group_stmts.clear();
    };
    for (const Stmt& st : s->stmts) {
      std::optional<RowLoop> row = as_row_loop(st);
      if (row && !group.empty() && row->extent == group.front().extent) {
        group.push_back(*row);
        bool reuses = false;
        if (fusable(group, &reuses)) {
          group_stmts.push_back(st);
          continue;
        }
        group.pop_back();
      }
      flush();
      if (row) {
        group.push_back(*row);
        group_stmts.push_back(st);
      } else {
        out.push_back(st);
      }
    }
    flush();
    if (out.size() == s->stmts.size()) return mutated;
    return seq(out);
  }
};

}  // namespace

Stmt fuse_row_loops(const Stmt& body) {
  return FuseRowLoops().mutate(body);
}

transform::Pass fuse_row_loops_pass() {
  return transform::Pass{"cpu.fuse_row_loops", [](const IRModule& mod, const transform::PassInfo&) {
                           if (!transform::PassContext::current().get_bool(kFuseRowLoopsConfigKey))
                             return mod;
                           return transform::map_function_bodies(
                               mod, [](const PrimFunc& f) { return fuse_row_loops(f->body); });
                         }};
}

}  // namespace tilec::cpu
