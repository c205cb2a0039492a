// The host codegen registry of seed page 2 (tilelang.backend.host_codegen):
// host codegens keyed by host target kind (first registered match wins) and
// device-backend hooks keyed by device target kind (every match, in
// registration order). Lazy entries name an import path that module_loader
// loads on first use of the kind; a failed load throws and is retried later.
// Differences from the seed, forced by C++: HostCodegen::lower returns the
// generated CodeArtifact (the seed's TVM build returns a runtime module), and
// registrations return copies, which share the registered entry's callables (so they
// are the same entry, target/callable_identity.h). Thread-safe.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/backend/execution_backend.h"
#include "tilec/ir/function.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tilec::backend {

// Callables shared by copies and compared by identity (target/callable_identity.h).
using HostCodegenFunc =
    target::SharedFunction<CodeArtifact(const ir::IRModule&, const target::Target& target_host)>;
using HostCodegenHookFunc = target::SharedFunction<ir::IRModule(
    const ir::IRModule&, const target::Target& target_host, const target::Target* target)>;

// Host codegen entry point for one host target variant.
struct HostCodegen {
  std::string name{};
  HostCodegenFunc build{};
  std::optional<TargetPredicate> supports_target{};

  bool matches(const target::Target& target_host) const;
  CodeArtifact lower(const ir::IRModule& mod, const target::Target& target_host) const;
};

// Device-backend hook applied to the host module before host codegen.
struct HostCodegenHook {
  std::string name{};
  HostCodegenHookFunc apply{};
  std::optional<TargetPredicate> supports_target{};

  bool matches(const target::Target& target) const;
  ir::IRModule lower(const ir::IRModule& mod, const target::Target& target_host,
                     const target::Target& target) const;
};

// A HostCodegenFunc calling the named global function with (mod, target_host);
// looked up at call time; it must return a CodeArtifact.
HostCodegenFunc global_func_host_codegen(std::string global_func_name);

// Registers `codegen` for `target_host_kind`. An empty kind, unnamed codegen or
// missing build throws. A name already registered for the kind with the very same
// build and predicate objects (target/callable_identity.h: copies of one codegen, or
// the same plain function) is a no-op returning the registered codegen: that is how
// every backend declares the standard `c` host codegen (codegen::make_c_host_codegen()
// hands out copies of one object) in any order. The name with any other callable
// (another closure, even of the same lambda with equal captures) throws unless
// override, which always replaces it in place, keeping its position. Hooks follow the
// same rule.
HostCodegen register_host_codegen(const std::string& target_host_kind, HostCodegen codegen,
                                  bool override = false);
// The module at import_path is loaded before the kind's codegens are next used.
void register_lazy_host_codegen(const std::string& target_host_kind,
                                const std::string& import_path);

HostCodegenHook register_host_codegen_hook(const std::string& target_kind, HostCodegenHook hook,
                                           bool override = false);
void register_lazy_host_codegen_hooks(const std::string& target_kind,
                                      const std::string& import_path);

// Names of the codegens registered for target_host's kind that match it, in order.
std::vector<std::string> allowed_host_codegens_for_target(const target::Target& target_host);
// Every hook for target's kind that matches target, in registration order; a
// null target (host-only compilation) returns mod unchanged.
ir::IRModule apply_host_codegen_hooks(const ir::IRModule& mod, const target::Target& target_host,
                                      const target::Target* target);
// The first registered codegen matching target_host; BackendError listing the
// registered codegens (per kind) otherwise.
HostCodegen resolve_host_codegen(const target::Target& target_host);

// Introspection for the CLI: host kind -> codegen names, device kind -> hook
// names, and kinds that still have unloaded lazy import paths.
std::vector<std::pair<std::string, std::vector<std::string>>> list_host_codegens();
std::vector<std::pair<std::string, std::vector<std::string>>> list_host_codegen_hooks();
std::vector<std::pair<std::string, std::vector<std::string>>> list_lazy_host_codegen_imports();

}  // namespace tilec::backend
