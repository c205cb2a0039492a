// Tile-op implementations chosen per target (TileLang's GemmImpl entries, for every tile
// op): lower_tile_ops asks, for each T.copy / T.fill / T.gemm / T.reduce_* and each
// scheduled loop (T.Pipelined, thread binding), the implementations of that op kind whose
// target predicate accepts the target, highest priority first (equal priorities: in
// registration order); the first that returns a statement wins, one that returns
// nullopt declines this instance (e.g. shapes it does not handle) and the next is asked.
// The shared generic implementations (priority kGenericTileOpPriority, every target) are
// registered with the registry itself, so every target lowers; a backend adds or
// overrides implementations from its own module (backend::register_module_tile_op_impl,
// undone when the module's init fails). When nothing lowers an op, the IRError names the
// op, the target and every registered implementation of that kind with why it was passed
// over. Thread-safe; implementations run unlocked.
#pragma once

#include "tilec/ir/stmt.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::transform {

enum class TileOpKind : uint8_t {
  kCopy,    // T.copy
  kFill,    // T.fill / T.clear
  kGemm,    // T.gemm
  kReduce,  // T.reduce_*
  // A For loop with a scheduling annotation (ForKind::kPipelined or kThreadBinding), its
  // body already lowered. The generic implementation keeps it for the codegen.
  kScheduledLoop,
};
const char* to_string(TileOpKind kind);  // "copy", "fill", "gemm", "reduce", "scheduled_loop"

// The op kind a statement is lowered as, if any (scheduled loops included).
std::optional<TileOpKind> tile_op_kind_of(const ir::Stmt& stmt);

// Callables shared by copies and compared by identity (target/callable_identity.h).
using TileOpTargetPredicate = target::SharedFunction<bool(const target::Target&)>;
// Lowers one op statement for target; nullopt declines this instance.
using TileOpLowerFunc = target::SharedFunction<std::optional<ir::Stmt>(
    const ir::Stmt& op, const target::Target& target)>;

inline constexpr int kGenericTileOpPriority = 0;
inline constexpr int kBackendTileOpPriority = 100;  // a backend's own implementations

struct TileOpImpl {
  std::string name;  // unique across op kinds, e.g. "cpu.gemm_register_blocked"
  TileOpKind op = TileOpKind::kCopy;
  TileOpTargetPredicate supports_target{};  // empty: every target
  int priority = kGenericTileOpPriority;
  TileOpLowerFunc lower{};
};
using TileOpImplPtr = std::shared_ptr<const TileOpImpl>;

// Registers impl and returns what the name held before (nullptr when it was free), so a
// caller can undo the registration. An empty name or lower function throws IRError; a
// taken name throws unless the registration is identical (same op, priority and the
// very same lower and supports_target objects, target/callable_identity.h: copies of
// one implementation, or the same plain functions; nothing changes) or `override`
// (replaces it).
TileOpImplPtr register_tile_op_impl(TileOpImpl impl, bool override = false);
// Puts back what register_tile_op_impl returned for name (nullptr: removes name).
void restore_tile_op_impl(const std::string& name, TileOpImplPtr previous);
bool unregister_tile_op_impl(std::string_view name);  // false when no such name

// Every registered implementation, by op kind then in the order they are asked.
std::vector<TileOpImplPtr> list_tile_op_impls();
// Those of one op kind that accept target, in the order they are asked.
std::vector<TileOpImplPtr> tile_op_impls_for(TileOpKind op, const target::Target& target);

// Lowers one op statement (tile_op_kind_of(stmt) must hold) with the first accepting
// implementation that does not decline; throws IRError naming the op, the target and the
// implementations registered for that kind when none lowers it.
ir::Stmt lower_tile_op(const ir::Stmt& stmt, const target::Target& target);

}  // namespace tilec::transform
