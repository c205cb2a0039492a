#include "host_entry_function.h"

#include "tilec/exec/execution_backend.h"

#include <fmt/format.h>

#include <string>

namespace tilec::exec::detail {

HostFunction host_entry_function(const runtime::KernelLibrary& library,
                                 std::string_view global_symbol,
                                 std::shared_ptr<const void> keep_alive,
                                 const TilecRuntimeEnv* env) {
  if (!library.has_entry(global_symbol)) {
    throw ExecError(fmt::format("kernel library '{}' exports no host entry '{}'", library.path(),
                                global_symbol));
  }
  TilecHostEntry entry = library.entry(global_symbol);
  return [keep_alive = std::move(keep_alive), entry, env, name = std::string(global_symbol)](
             std::span<const TilecArg> args) { runtime::call_host_entry(entry, name, args, env); };
}

}  // namespace tilec::exec::detail
