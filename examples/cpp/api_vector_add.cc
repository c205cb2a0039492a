// The C++ API end to end: parse a kernel file, compile it for target "auto", call it on
// host buffers and check the result. Built with the project and run as a CTest test
// (examples/cpp/CMakeLists.txt); README's "C++ API" section shows this program.
#include "tilec/frontend/parser.h"
#include "tilec/tilec.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "examples/vector_add.py";
  try {
    // -D overrides a module constant of the kernel file, like `tilec run -D N=1000`.
    tilec::ir::IRModule mod = tilec::ir::parse_kernel_file(path, {{"N", "1000"}});
    tilec::Kernel kernel = tilec::compile(mod);  // target="auto": the CPU here

    std::vector<float> a(1000), b(1000), c(1000, 0.0f);
    for (int i = 0; i < 1000; ++i) {
      a[i] = float(i);
      b[i] = 0.5f * float(i);
    }
    // Raw pointers + shapes; the dtype comes from each parameter's declaration.
    kernel.call_raw({tilec::RawTensor{a.data(), {1000}}, tilec::RawTensor{b.data(), {1000}},
                     tilec::RawTensor{c.data(), {1000}}});

    for (int i = 0; i < 1000; ++i) {
      if (std::fabs(c[i] - 1.5f * float(i)) > 1e-4f) {
        std::fprintf(stderr, "mismatch at %d: %g\n", i, double(c[i]));
        return 1;
      }
    }
    std::printf("vector_add on %s via %s (%s): ok\n", kernel.context().name().c_str(),
                kernel.execution_backend().c_str(), kernel.context().target().str().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
