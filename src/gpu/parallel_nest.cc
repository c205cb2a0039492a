#include "tilec/gpu/parallel_nest.h"

namespace tilec::gpu {

using namespace ir;

namespace {

bool zero_based_parallel(const ForNode* f) {
  return f && f->for_kind == ForKind::kParallel && f->step == 1 && is_const_int(f->begin, 0);
}

}  // namespace

ParallelNest parallel_nest(const ForNode* outer) {
  ParallelNest nest;
  const ForNode* f = outer;
  Stmt body;
  while (true) {
    nest.vars.push_back(f->var);
    nest.extents.push_back(f->end);
    body = f->body;
    auto* inner = body.as<ForNode>();
    if (!zero_based_parallel(inner)) break;
    f = inner;
  }
  nest.body = body;
  return nest;
}

bool follows_nest(const ParallelNest& nest, const Buffer& fragment,
                  const std::vector<Expr>& indices) {
  if (indices.size() != fragment->shape.size()) return false;
  auto unit_loop = [&](const Expr& e) {
    auto* v = e.as<VarNode>();
    if (!v) return false;
    for (size_t k = 0; k < nest.vars.size(); ++k)
      if (nest.vars[k].get() == v) return is_const_int(nest.extents[k], 1);
    return false;
  };
  std::vector<const VarNode*> used;
  std::vector<int64_t> shape;
  for (size_t d = 0; d < indices.size(); ++d) {
    auto* extent = as_const_int(fragment->shape[d]);
    if (!extent) return false;
    if (*extent == 1 && (is_const_int(indices[d], 0) || unit_loop(indices[d]))) continue;
    auto* v = indices[d].as<VarNode>();
    if (!v) return false;
    used.push_back(v);
    shape.push_back(*extent);
  }
  size_t k = 0;
  for (size_t n = 0; n < nest.vars.size(); ++n) {
    if (is_const_int(nest.extents[n], 1) && (k >= used.size() || used[k] != nest.vars[n].get()))
      continue;
    if (k >= used.size() || used[k] != nest.vars[n].get()) return false;
    auto* extent = as_const_int(nest.extents[n]);
    if (!extent || *extent != shape[k]) return false;
    ++k;
  }
  return k == used.size();
}

}  // namespace tilec::gpu
