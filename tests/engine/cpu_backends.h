// The CPU (target, execution backend) pairs the end-to-end tests run every kernel on:
// `c` with native, and (built with LLVM) `llvm` with llvm_jit and with native. Tests
// parametrized over them skip, saying why, when this build has no LLVM.
// runnable_backends() adds opencl (PoCL here), cuda on the device emulator (sm_80,
// with race checking), hip on it (gfx90a: wavefronts of 64, MFMA), metal on the device
// emulator (race checking too) and webgpu on wgpu-native (lavapipe here) to them, for
// tests of constructs every backend that can run on this machine must execute;
// TILEC_SKIP_UNLESS_RUNNABLE skips a pair whose target is not built or whose execution
// backend is unavailable, saying why. compile_on() compiles a module for a pair with its
// target attributes and pass config.
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

inline std::vector<CpuBackend> cpu_backends() {
  return {{"c", "native"}, {"llvm", "llvm_jit"}, {"llvm", "native"}};
}

// The CPU pairs, then opencl with its own execution backend.
inline std::vector<CpuBackend> runnable_backends() {
  std::vector<CpuBackend> out = cpu_backends();
  out.push_back({"opencl", "opencl"});
  out.push_back({"cuda", exec::kEmulatorBackendName, "-arch=sm_80"});
  // rocm on the emulator: gfx90a, wavefront 64 and the MFMA gemm.
  out.push_back({"hip", exec::kEmulatorBackendName, "-mcpu=gfx90a"});
  out.push_back({"metal", exec::kEmulatorBackendName});
  out.push_back({"webgpu", "wgpu"});
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

// `what` when it is an error the backend's target documents as a refusal by design (webgpu:
// WGSL has no bfloat16 or 64-bit types, 8-bit tensors cannot be written, atomics are
// statements), else "": the kernel is then skipped there, with the refusal, not failed.
inline std::string refused_by_design(const CpuBackend& backend, const std::string& what) {
  if (backend.target != "webgpu") return "";
  for (const char* refusal : {"WGSL has no bfloat16", "WGSL has no 64-bit",
                              "would race with its neighbours", "atomic updates as statements"})
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
