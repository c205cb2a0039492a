#include "tilec/target/llvm_support.h"

#include "tilec/target/target_error.h"

#include <mutex>

namespace tilec::target {
namespace {

struct LlvmState {
  std::mutex mutex;
  std::function<std::string()> host_cpu_name;
};

LlvmState& state() {
  static LlvmState instance;
  return instance;
}

}  // namespace

bool llvm_enabled() {
  std::lock_guard lock(state().mutex);
  return static_cast<bool>(state().host_cpu_name);
}

std::string llvm_host_cpu() {
  std::function<std::string()> query;
  {
    std::lock_guard lock(state().mutex);
    query = state().host_cpu_name;
  }
  if (!query) {
    throw TargetError(
        "the LLVM backend is not enabled in this build, so there is no LLVM host CPU; use the "
        "'c' target instead");
  }
  return query();
}

void enable_llvm_host_cpu(std::function<std::string()> host_cpu_name) {
  std::lock_guard lock(state().mutex);
  state().host_cpu_name = std::move(host_cpu_name);
}

}  // namespace tilec::target
