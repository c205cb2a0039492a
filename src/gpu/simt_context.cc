#include "tilec/gpu/simt_context.h"

#include "simt_error.h"

#include <fmt/format.h>

namespace tilec::gpu {

using namespace ir;

namespace {

thread_local SimtContext* current = nullptr;

}  // namespace

bool SimtContext::claim_shared_layouts(const std::vector<std::pair<Buffer, std::string>>& claims) {
  for (const auto& [tile, key] : claims) {
    auto it = shared_layouts_.find(tile.get());
    if (it != shared_layouts_.end() && it->second != key) return false;
  }
  for (const auto& [tile, key] : claims) shared_layouts_.emplace(tile.get(), key);
  return true;
}

Buffer SimtContext::registers(const Buffer& fragment, const FragmentLayout& layout,
                              const std::string& use) {
  if (planning()) {
    auto [it, inserted] = required_.emplace(fragment.get(), LayoutRequirement{layout, use});
    if (!inserted && !it->second.layout.same_mapping(layout)) {
      simt_error(function_, fragment->span,
                 fmt::format("fragment '{}' is laid out as {} for {}, but {} needs {}; give "
                             "each T.gemm its own accumulator fragment, or use the same tile "
                             "shapes and thread count",
                             fragment->name, it->second.layout.mapping(), it->second.use, use,
                             layout.mapping()));
    }
    return register_buffer(fragment);
  }
  const FragmentLayout* inferred = layout_of(fragment);
  if (!inferred || !inferred->same_mapping(layout)) {
    throw IRError(fmt::format(
        "kernel '{}': {} addresses fragment '{}' as {}, but its layout is {} (an internal "
        "inconsistency of the SIMT lowering; please report it with the kernel)",
        function_, use, fragment->name, layout.mapping(),
        inferred ? inferred->mapping() : std::string("unknown")));
  }
  return register_buffer(fragment);
}

const FragmentLayout* SimtContext::layout_of(const Buffer& fragment) const {
  if (!layouts_) return nullptr;
  auto it = layouts_->find(fragment.get());
  return it == layouts_->end() ? nullptr : &it->second;
}

Buffer SimtContext::register_buffer(const Buffer& fragment) {
  auto it = registers_.find(fragment.get());
  if (it != registers_.end()) return it->second;
  int64_t count = 1;
  if (const FragmentLayout* l = layout_of(fragment)) {
    count = l->registers;
  } else if (auto req = required_.find(fragment.get()); req != required_.end()) {
    count = req->second.layout.registers;
  }
  Buffer regs = make_buffer(fragment->name, {make_int(count)}, fragment->dtype,
                            StorageScope::kLocal, fragment->span);
  // While planning the size may still change with the inferred layout: keep nothing.
  if (!planning()) registers_.emplace(fragment.get(), regs);
  return regs;
}

SimtContext* current_simt_context() {
  return current;
}

ScopedSimtContext::ScopedSimtContext(SimtContext& context) : previous_(current) {
  current = &context;
}

ScopedSimtContext::~ScopedSimtContext() {
  current = previous_;
}

}  // namespace tilec::gpu
