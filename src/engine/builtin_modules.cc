// The built-in modules: one line per target backend compiled into tilec. A new target
// backend is its own folder (src/<name>/ with include/tilec/<name>/, tests/<name>/), its
// line here and its name in the layer list of the root CMakeLists.txt; nothing else that
// is shared. The order here is the load order only: detection order comes from detector
// priorities.
#include "tilec/cpu/backend.h"
#include "tilec/cuda/module.h"
#include "tilec/cute/backend.h"
#include "tilec/engine/initialize.h"
#include "tilec/opencl/backend.h"
#include "tilec/rocm/module.h"

namespace tilec {

const std::vector<BuiltinModule>& builtin_modules() {
  static const std::vector<BuiltinModule> modules = {
      {"tilec.cpu", &cpu::register_cpu_backend},
      {"tilec.cuda", &cuda::register_cuda_module},
      {"tilec.cute", &cute::register_cute_backend},
      {"tilec.opencl", &opencl::register_opencl_backend},
      {"tilec.rocm", &rocm::register_rocm_module},
  };
  return modules;
}

}  // namespace tilec
