#include "tilec/transform/grid_limits.h"

#include "tilec/target/kind_schema.h"

#include "tilec/ir/index_type.h"
#include "tilec/ir/source_error.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

namespace tilec::transform {

using namespace ir;

static_assert(target::kMaxGridAxis == kMaxGridExtent,
              "a kind may declare up to the int32 block index's extent, no more");

void check_grid_limits(const IRModule& mod, const target::Target& target) {
  static const char* const kAttrs[] = {"max_grid_x", "max_grid_y", "max_grid_z"};
  for (const auto& f : mod.functions()) {
    post_order_visit(f->body, [&](const Stmt* s, const Expr*) {
      auto* k = s ? s->as<KernelNode>() : nullptr;
      if (!k) return;
      for (size_t d = 0; d < k->grid.size() && d < 3; ++d) {
        const int64_t* extent = as_const_int(k->grid[d]);
        int64_t limit = target.get_int(kAttrs[d], kMaxGridExtent);
        if (limit <= 0 || limit > kMaxGridExtent) limit = kMaxGridExtent;
        if (!extent || *extent <= limit) continue;
        std::string text = fmt::format(
            "kernel '{}': the grid has {} blocks along {}, but target '{}' runs at most {} "
            "({})",
            f->name, *extent, "xyz"[d], target.str(), limit, kAttrs[d]);
        std::string hint =
            "give each block more work (a larger tile), or put the blocks on an axis with a "
            "larger limit";
        if (k->span.known()) throw LocatedError(k->span, text, hint);
        throw IRError(text + "; " + hint);
      }
    });
  }
}

}  // namespace tilec::transform
