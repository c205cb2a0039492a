#include "tilec/transform/tile_op_impl.h"

#include "generic_tile_ops.h"
#include "tilec/ir/expr.h"
#include "tilec/ir/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>

namespace tilec::transform {
namespace {

using target::detail::same_callable;

bool same_impl(const TileOpImpl& a, const TileOpImpl& b) {
  return a.op == b.op && a.priority == b.priority && same_callable(a.lower, b.lower) &&
         same_callable(a.supports_target, b.supports_target);
}

// Kept ordered as implementations are asked: by op kind, then priority (higher first),
// then registration order.
struct Registry {
  std::mutex mutex;
  std::vector<TileOpImplPtr> impls;

  auto find(std::string_view name) {
    return std::find_if(impls.begin(), impls.end(),
                        [&](const TileOpImplPtr& impl) { return impl->name == name; });
  }
  void insert_ordered(TileOpImplPtr impl) {
    auto position = std::find_if(impls.begin(), impls.end(), [&](const TileOpImplPtr& other) {
      return other->op > impl->op || (other->op == impl->op && other->priority < impl->priority);
    });
    impls.insert(position, std::move(impl));
  }
  void put(TileOpImplPtr impl) {
    auto found = find(impl->name);
    if (found != impls.end()) impls.erase(found);
    insert_ordered(std::move(impl));
  }
};

Registry& registry() {
  static Registry& instance = []() -> Registry& {
    static Registry r;
    for (auto& impl : detail::generic_tile_op_impls()) {
      r.insert_ordered(std::make_shared<const TileOpImpl>(std::move(impl)));
    }
    return r;
  }();
  return instance;
}

std::vector<TileOpImplPtr> snapshot() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.impls;
}

bool accepts(const TileOpImpl& impl, const target::Target& target) {
  return !impl.supports_target || impl.supports_target(target);
}

std::string op_text(TileOpKind kind, const ir::Stmt& stmt) {
  if (kind != TileOpKind::kScheduledLoop) {
    std::string text = ir::print(stmt);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  const auto* loop = stmt.as<ir::ForNode>();
  return fmt::format("{} loop over '{}'", ir::to_string(loop->for_kind), loop->var.name());
}

}  // namespace

const char* to_string(TileOpKind kind) {
  switch (kind) {
    case TileOpKind::kCopy:
      return "copy";
    case TileOpKind::kFill:
      return "fill";
    case TileOpKind::kGemm:
      return "gemm";
    case TileOpKind::kReduce:
      return "reduce";
    case TileOpKind::kScheduledLoop:
      return "scheduled_loop";
  }
  return "unknown";
}

std::optional<TileOpKind> tile_op_kind_of(const ir::Stmt& stmt) {
  switch (stmt.kind()) {
    case ir::StmtKind::kCopy:
      return TileOpKind::kCopy;
    case ir::StmtKind::kFill:
      return TileOpKind::kFill;
    case ir::StmtKind::kGemm:
      return TileOpKind::kGemm;
    case ir::StmtKind::kReduce:
      return TileOpKind::kReduce;
    case ir::StmtKind::kFor: {
      ir::ForKind kind = stmt.as<ir::ForNode>()->for_kind;
      if (kind == ir::ForKind::kPipelined || kind == ir::ForKind::kThreadBinding) {
        return TileOpKind::kScheduledLoop;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

TileOpImplPtr register_tile_op_impl(TileOpImpl impl, bool override) {
  if (impl.name.empty()) {
    throw ir::IRError(fmt::format(
        "cannot register a {} implementation with an empty name; name it after its backend "
        "and method, e.g. \"cpu.gemm_register_blocked\"",
        to_string(impl.op)));
  }
  if (!impl.lower) {
    throw ir::IRError(fmt::format(
        "cannot register tile-op implementation '{}': its lower function is empty", impl.name));
  }
  auto published = std::make_shared<const TileOpImpl>(std::move(impl));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto found = r.find(published->name);
  if (found == r.impls.end()) {
    r.insert_ordered(std::move(published));
    return nullptr;
  }
  TileOpImplPtr previous = *found;
  if (!override && same_impl(*previous, *published)) return previous;
  if (!override) {
    std::vector<std::string> taken;
    for (const auto& existing : r.impls) taken.push_back(existing->name);
    throw ir::IRError(fmt::format(
        "tile-op implementation '{}' is already registered (for {}; registered: {}); pass "
        "override=true to replace it, or choose another name",
        published->name, to_string(previous->op), fmt::join(taken, ", ")));
  }
  r.put(std::move(published));
  return previous;
}

void restore_tile_op_impl(const std::string& name, TileOpImplPtr previous) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto found = r.find(name);
  if (previous) {
    if (found == r.impls.end() || *found != previous) r.put(std::move(previous));
    return;
  }
  if (found != r.impls.end()) r.impls.erase(found);
}

bool unregister_tile_op_impl(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto found = r.find(name);
  if (found == r.impls.end()) return false;
  r.impls.erase(found);
  return true;
}

std::vector<TileOpImplPtr> list_tile_op_impls() {
  return snapshot();
}

std::vector<TileOpImplPtr> tile_op_impls_for(TileOpKind op, const target::Target& target) {
  std::vector<TileOpImplPtr> matching;
  for (auto& impl : snapshot()) {
    if (impl->op == op && accepts(*impl, target)) matching.push_back(std::move(impl));
  }
  return matching;
}

ir::Stmt lower_tile_op(const ir::Stmt& stmt, const target::Target& target) {
  std::optional<TileOpKind> kind = tile_op_kind_of(stmt);
  if (!kind) {
    throw ir::IRError(
        fmt::format("lower_tile_op: '{}' is not a tile op or a scheduled loop", ir::print(stmt)));
  }
  std::vector<std::string> passed_over;
  for (const auto& impl : snapshot()) {
    if (impl->op != *kind) continue;
    if (!accepts(*impl, target)) {
      passed_over.push_back(
          fmt::format("{} (priority {}): does not accept this target", impl->name, impl->priority));
      continue;
    }
    if (std::optional<ir::Stmt> lowered = impl->lower(stmt, target)) return *std::move(lowered);
    passed_over.push_back(
        fmt::format("{} (priority {}): declined this instance", impl->name, impl->priority));
  }
  throw ir::IRError(fmt::format(
      "no implementation of tile op '{}' lowers `{}` for target '{}'; registered {} "
      "implementations: {}; register one whose target predicate accepts '{}' (a backend does "
      "so from its module with backend::register_module_tile_op_impl)",
      to_string(*kind), op_text(*kind, stmt), target.str(), to_string(*kind),
      passed_over.empty() ? std::string("none") : fmt::format("{}", fmt::join(passed_over, "; ")),
      target.kind()));
}

}  // namespace tilec::transform
