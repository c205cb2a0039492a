#include "tilec/gpu/register_budget.h"

#include "simt_error.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilec::gpu {

using namespace ir;

int64_t register_budget_bytes(const target::Target& target) {
  return std::max<int64_t>(0, target.get_int(kPrivateBytesAttr, 0));
}

int64_t register_bytes(const Buffer& fragment, const FragmentLayout& layout) {
  return layout.registers * fragment->dtype.bytes();
}

void check_register_budget(const KernelNode& kernel, const FragmentLayouts& layouts,
                           const std::string& function_name, const target::Target& target) {
  int64_t budget = register_budget_bytes(target);
  if (budget == 0) return;
  struct Use {
    Buffer fragment;
    const FragmentLayout* layout;
    int64_t bytes;
  };
  std::vector<Use> uses;
  int64_t total = 0;
  post_order_visit(kernel.body, [&](const Stmt* s, const Expr*) {
    auto* a = s ? s->as<AllocateNode>() : nullptr;
    if (!a || a->buffer->scope != StorageScope::kFragment) return;
    auto it = layouts.find(a->buffer.get());
    if (it == layouts.end()) return;
    int64_t bytes = register_bytes(a->buffer, it->second);
    uses.push_back({a->buffer, &it->second, bytes});
    total += bytes;
  });
  if (total <= budget) return;
  std::stable_sort(uses.begin(), uses.end(),
                   [](const Use& x, const Use& y) { return x.bytes > y.bytes; });
  std::string list;
  bool any_replicated = false;
  for (const auto& u : uses) {
    any_replicated = any_replicated || u.layout->replicated;
    list += fmt::format("\n  '{}': {} bytes per thread, {}", u.fragment->name, u.bytes,
                        u.layout->describe(u.fragment));
  }
  std::string advice =
      any_replicated
          ? "a replicated fragment is held whole by every thread, so use it so that its layout "
            "partitions it over the threads (index it in T.Parallel with the loop's own "
            "variables over its whole shape, T.copy whole tiles) or make it a T.alloc_shared "
            "tile; for partitioned fragments use more threads or smaller tiles"
          : "use more threads (threads= in T.Kernel) or smaller tiles";
  simt_error(
      function_name, uses.front().fragment->span,
      fmt::format("the fragments need {} bytes of private memory (registers) per thread, "
                  "above the {} bytes target '{}' allows ({}):{}\n{}, or raise "
                  "-{}",
                  total, budget, target.str(), kPrivateBytesAttr, list, advice, kPrivateBytesAttr));
}

}  // namespace tilec::gpu
