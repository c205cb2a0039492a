#include "tilec/gpu/subgroup.h"

#include "tilec/ir/visitor.h"

namespace tilec::gpu {

using namespace ir;

std::string subgroup_combination(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum:
      return "sum";
    case ReduceKind::kMax:
    case ReduceKind::kAbsMax:
      return "max";
    case ReduceKind::kMin:
      return "min";
  }
  return "sum";
}

bool is_subgroup_call(const std::string& name) {
  return name == kSubgroupId || name == kSubgroupLocalId || name == kSubgroupSize ||
         name == kNumSubgroups || name.rfind(kSubgroupReducePrefix, 0) == 0;
}

bool calls_subgroup_op(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* c = x.as<CallNode>(); c && c->call_kind == CallKind::kExtern)
      found = found || is_subgroup_call(c->name);
  });
  return found;
}

}  // namespace tilec::gpu
