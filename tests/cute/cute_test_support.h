// What the CuTe tests share:
// - the PTX NVRTC produced for a compiled CUDA kernel, with the arch it was built for (the
//   device.arch the execution backend writes next to the cubin: the target's, or sm_90a
//   for code using wgmma), and ptxas's verdict on it for that arch;
// - host programs on the CUTLASS headers, built with nvcc and run, which ask CuTe itself
//   what a layout or a partition is.
#pragma once

#include "../engine/test_support.h"

#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/engine/kernel.h"
#include "tilec/exec/process.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tilec::testing {

struct BuiltPtx {
  std::string arch;
  std::filesystem::path ptx;
  std::string text;
};

inline std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline BuiltPtx built_ptx(const Kernel& kernel) {
  std::filesystem::path dir = kernel.library_path().parent_path();
  return {read_file_text(dir / "device.arch"), dir / "device.ptx",
          read_file_text(dir / "device.ptx")};
}

// ptxas's result for the PTX at its arch; nullopt when the toolkit has no ptxas.
inline std::optional<exec::ProcessResult> ptxas_check(const BuiltPtx& built) {
  std::filesystem::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  if (!std::filesystem::exists(ptxas)) return std::nullopt;
  return exec::run_process(
      {ptxas.string(), "-arch=" + built.arch, built.ptx.string(), "-o", built.ptx.string() + ".o"});
}

inline std::filesystem::path host_nvcc() {
  return cuda::cuda_toolkit_root() / "bin" / "nvcc";
}

// Why a host CuTe program cannot be built here: the headers or nvcc missing ("" when it can).
inline std::string host_cute_unavailable_reason() {
  if (!cute::cutlass_include_dir()) return cute::cutlass_unavailable_reason();
  if (!std::filesystem::exists(host_nvcc())) return "no nvcc at " + host_nvcc().string();
  return "";
}

// Builds `program` with nvcc against the CUTLASS headers in a fresh directory named `name`
// and runs it: the run's result, or the build's when that failed.
inline exec::ProcessResult run_host_cute_program(const std::string& name,
                                                 const std::string& program) {
  std::filesystem::path dir = test_temp_dir(name);
  { std::ofstream(dir / "program.cu") << program; }
  exec::ProcessResult built = exec::run_process(
      {host_nvcc().string(), "-std=c++17", "-I" + cute::cutlass_include_dir()->string(),
       (dir / "program.cu").string(), "-o", (dir / "program").string()});
  if (built.exit_code != 0) return built;
  return exec::run_process({(dir / "program").string()});
}

}  // namespace tilec::testing
