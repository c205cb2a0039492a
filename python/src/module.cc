// tilec._core: the C++ libraries seen from Python. The Python package (python/tilec)
// arranges these names under the seeds' module names (tilec.backend.module, ...).
#include "bindings.h"

#include "tilec/engine/compile.h"
#include "tilec/runtime/host_arg_checks.h"

#include <dlfcn.h>

namespace {

// Kernel libraries built by the execution backends resolve the runtime's tilec_rt_*
// functions from the process's global scope, where a program linking
// libtilec_runtime has them. Python loads an extension module and the libraries it
// needs with RTLD_LOCAL, so the runtime library is promoted to the global scope here.
void make_runtime_symbols_global() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&tilec_rt_check_dim), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "tilec's C++ layers (target, IR, backend layer, engine) for the tilec package";
  m.attr("__version__") = tilec::version();
  // The registries live as long as the process and keep the Python callables registered
  // into them; they are released, not leaked, only when the interpreter is already gone.
  nanobind::set_leak_warnings(false);
  make_runtime_symbols_global();
  tilec::python::bind_errors(m);
  tilec::python::bind_target(m);
  tilec::python::bind_ir(m);
  tilec::python::bind_callables(m);
  tilec::python::bind_components(m);
  tilec::python::bind_backend(m);
  tilec::python::bind_host_codegen(m);
  tilec::python::bind_kernel(m);
  tilec::python::bind_autotune(m);
}
