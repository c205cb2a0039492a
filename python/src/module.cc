// tilec._core: the C++ libraries seen from Python. The Python package (python/tilec)
// arranges these names under the seeds' module names (tilec.backend.module, ...).
#include "bindings.h"

#include "tilec/engine/compile.h"

NB_MODULE(_core, m) {
  m.doc() = "tilec's C++ layers (target, IR, backend layer, engine) for the tilec package";
  m.attr("__version__") = tilec::version();
  // The registries live as long as the process and keep the Python callables registered
  // into them; they are released, not leaked, only when the interpreter is already gone.
  nanobind::set_leak_warnings(false);
  tilec::python::bind_errors(m);
  tilec::python::bind_target(m);
  tilec::python::bind_ir(m);
  tilec::python::bind_components(m);
  tilec::python::bind_backend(m);
  tilec::python::bind_host_codegen(m);
  tilec::python::bind_kernel(m);
}
