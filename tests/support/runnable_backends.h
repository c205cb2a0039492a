// The (target, execution backend) pairs the end-to-end tests run kernels on. Each target
// backend declares its own in its folder (tilec_runs_kernels in src/<name>/CMakeLists.txt);
// the build generates them into tilec_runnable_backends.inc, so a backend that runs kernels
// adds no line here. runnable_backends() is every declared pair of this build, in module
// order (today: `c`/native, `llvm`/llvm_jit and native, cuda at sm_80, metal and hip at
// gfx90a on the device emulator with race checking, opencl on PoCL, webgpu on wgpu-native);
// cpu_backends() is the cpu module's pairs. TILEC_SKIP_UNLESS_RUNNABLE skips a pair whose
// target is not built or whose execution backend is unavailable, saying why. compile_on()
// compiles a module for a pair with its target attributes and pass config.
#pragma once

#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/target_kind.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace tilec::testing {

struct CpuBackend {
  std::string target;  // the kind
  std::string execution_backend;
  std::string attributes = "";  // of the target string: "-arch=sm_80"
  std::string module = "";      // the backend module that declared the pair
  // Texts of the compile errors the target documents as refusals by design.
  std::vector<std::string> refusals = {};
  std::string name() const {
    std::string arch = attributes.empty() ? "" : "_" + attributes.substr(attributes.find('=') + 1);
    return target + arch + "_" + execution_backend;
  }
  std::string target_string() const {
    return attributes.empty() ? target : target + " " + attributes;
  }
  // The emulator runs with race checking, so every construct also proves its barriers.
  PassConfig pass_config() const {
    if (execution_backend == exec::kEmulatorBackendName)
      return {{exec::kEmulatorRaceCheckConfigKey, true}};
    return {};
  }
};

// Every pair the built backend modules declared (tilec_runs_kernels), in module order.
inline const std::vector<CpuBackend>& runnable_backends() {
  static const std::vector<CpuBackend> declared = {
#include "tilec_runnable_backends.inc"
  };
  return declared;
}

// The cpu module's pairs.
inline std::vector<CpuBackend> cpu_backends() {
  std::vector<CpuBackend> out;
  for (const CpuBackend& backend : runnable_backends())
    if (backend.module == "cpu") out.push_back(backend);
  return out;
}

// Empty when the pair can run in this build, else why not.
inline std::string cpu_backend_missing(const CpuBackend& backend) {
#ifdef TILEC_HAVE_LLVM
  return "";
#else
  return backend.target == "llvm"
             ? "this build has no LLVM (-DTILEC_LLVM=OFF), so the llvm target is unavailable"
             : "";
#endif
}

inline Kernel compile_on(const ir::IRModule& mod, const CpuBackend& backend) {
  return compile(mod, backend.target_string(), std::nullopt, backend.execution_backend,
                 backend.pass_config());
}

// `what` when it is an error the backend's target documents as a refusal by design (one of
// the pair's declared refusals, e.g. webgpu's "WGSL has no bfloat16"), else "": the kernel is
// then skipped there, with the refusal, not failed.
inline std::string refused_by_design(const CpuBackend& backend, const std::string& what) {
  for (const std::string& refusal : backend.refusals)
    if (what.find(refusal) != std::string::npos) return what;
  return "";
}

}  // namespace tilec::testing

#define TILEC_SKIP_UNLESS_BUILT(backend)                                                   \
  do {                                                                                     \
    std::string tilec_missing = ::tilec::testing::cpu_backend_missing(backend);            \
    if (!tilec_missing.empty()) GTEST_SKIP() << (backend).name() << ": " << tilec_missing; \
  } while (0)

// opencl's, cuda's and hip's host code is C, so they need what `c` needs; then the execution
// backend must load.
#define TILEC_SKIP_UNLESS_RUNNABLE(backend)                                                 \
  do {                                                                                      \
    TILEC_SKIP_UNLESS_BUILT((::tilec::testing::CpuBackend{                                  \
        (backend).target == "llvm" ? "llvm" : "c", (backend).execution_backend}));          \
    ::tilec::initialize(); /* execution backends that target modules register (wgpu) */     \
    if (!::tilec::target::find_target_kind((backend).target))                               \
      GTEST_SKIP() << "this build has no backend for target kind '" << (backend).target     \
                   << "' (configured off, e.g. -DTILEC_OPENCL=OFF)";                        \
    auto tilec_builder = ::tilec::exec::get_execution_backend((backend).execution_backend); \
    if (!tilec_builder->available()) GTEST_SKIP() << tilec_builder->unavailable_reason();   \
  } while (0)

// `Kernel kernel = compile_on(mod, backend);`, skipping the test where the backend refuses the
// kernel by design (refused_by_design).
#define TILEC_COMPILE_ON_OR_SKIP(kernel, mod, backend)                                        \
  std::optional<::tilec::Kernel> kernel##_or_refused;                                         \
  try {                                                                                       \
    kernel##_or_refused.emplace(::tilec::testing::compile_on(mod, backend));                  \
  } catch (const std::exception& tilec_error) {                                               \
    std::string tilec_why = ::tilec::testing::refused_by_design(backend, tilec_error.what()); \
    if (!tilec_why.empty()) GTEST_SKIP() << (backend).name() << " refuses it: " << tilec_why; \
    throw;                                                                                    \
  }                                                                                           \
  ::tilec::Kernel& kernel = *kernel##_or_refused

namespace tilec::testing {
inline void PrintTo(const CpuBackend& backend, std::ostream* out) {
  *out << backend.name();
}
}  // namespace tilec::testing
