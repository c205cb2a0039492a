// A registry's hook to the layers above it: a lookup that misses runs the installed
// loader (the engine's: load the built-in modules and plugins), so code that asks a lower
// layer directly sees what backend modules register. Used by the target kind registry
// and the execution backend registry. Thread-safe; the loader never re-enters itself on a
// thread (a module init that looks something up while loading must not load again).
#pragma once

#include <functional>
#include <mutex>

namespace tilec::target {

class RegistryLoader {
 public:
  void set(std::function<void()> load);
  // Runs the installed loader, unless none is installed or this thread is inside a loader.
  void run();

 private:
  std::mutex mutex_;
  std::function<void()> load_;
};

}  // namespace tilec::target
