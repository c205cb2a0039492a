#include "tilec/runtime/runtime_env.h"

#include "tilec/runtime/thread_pool.h"

namespace tilec::runtime {
namespace {

// The C entry point generated code calls; nothing may unwind through it.
int32_t env_parallel_for(int64_t num_tasks, TilecTaskFn fn, void* closure) {
  try {
    return global_thread_pool().parallel_for(
        num_tasks, [fn, closure](int64_t begin, int64_t end) { return fn(begin, end, closure); });
  } catch (...) {
    return -1;
  }
}

}  // namespace

const TilecRuntimeEnv* default_runtime_env() {
  static const TilecRuntimeEnv env{&env_parallel_for,
                                   int32_t(global_thread_pool().num_threads()),
                                   nullptr,
                                   nullptr,
                                   0,
                                   0,
                                   nullptr};
  return &env;
}

}  // namespace tilec::runtime
