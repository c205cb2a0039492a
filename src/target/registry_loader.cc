#include "tilec/target/registry_loader.h"

namespace tilec::target {

void RegistryLoader::set(std::function<void()> load) {
  std::lock_guard<std::mutex> lock(mutex_);
  load_ = std::move(load);
}

void RegistryLoader::run() {
  static thread_local bool loading = false;
  if (loading) return;
  std::function<void()> load;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    load = load_;
  }
  if (!load) return;
  loading = true;
  struct Reset {
    ~Reset() { loading = false; }
  } reset;
  load();
}

}  // namespace tilec::target
