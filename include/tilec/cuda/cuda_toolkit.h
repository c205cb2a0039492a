// The CUDA toolkit as tilec finds it at run time, without linking against it: the
// toolkit root (CUDA_HOME, else /usr/local/cuda), NVRTC (libnvrtc loaded with dlopen:
// TILEC_NVRTC_LIBRARY when set, else CUDA_HOME/lib64, /usr/local/cuda/lib64, then the
// loader path) and nvcc (CUDA_HOME/bin/nvcc, else PATH). A CUDA device compile turns
// CUDA C++ into a cubin for one arch ("sm_90") and also returns its PTX, so callers can
// hand the PTX to ptxas or show it. Nothing here needs a GPU or the CUDA driver.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tilec::cuda {

// CUDA_HOME, else /usr/local/cuda (whether or not it exists).
std::filesystem::path cuda_toolkit_root();
// <root>/include when it holds cuda_fp16.h; empty otherwise.
std::optional<std::filesystem::path> cuda_include_dir();

struct CudaCompileResult {
  std::string cubin;  // the ELF image cuModuleLoadData takes
  std::string ptx;    // the PTX it came from (NVRTC only; empty from nvcc)
  std::string log;    // the compiler's warnings
};

// NVRTC loaded; empty when it is, else why not (the paths tried).
std::string nvrtc_unavailable_reason();
// "NVRTC 13.0 (/usr/local/cuda/lib64/libnvrtc.so.13)"; throws ExecError when unavailable.
std::string nvrtc_identity();
// Compiles `source` (named `name` in messages) for `arch`, with `options` added to
// tilec's own (-arch=<arch>, -std=c++17, --fmad=false, -default-device, the toolkit
// include dir). Throws ExecError with the log when NVRTC rejects it.
CudaCompileResult nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch,
                                const std::vector<std::string>& options = {});

// The nvcc to run: CUDA_HOME/bin/nvcc when it exists, else "nvcc" from PATH; empty
// when neither runs. unavailable_reason says which were tried.
std::string nvcc_program();
std::string nvcc_unavailable_reason();
std::string nvcc_identity();  // the last line of `nvcc --version`
// nvcc -cubin for arch of source_file into cubin_file; throws ExecError with nvcc's output.
CudaCompileResult nvcc_compile(const std::filesystem::path& source_file,
                               const std::filesystem::path& cubin_file, const std::string& arch,
                               const std::vector<std::string>& options = {});

// The arch a cuda target compiles for: its -arch, else sm_80. Throws ExecError for a
// value that is not sm_<digits>[a|f].
std::string cuda_target_arch(const std::string& arch_attr);

// Device code metadata naming the arch-specific variant of the target's arch that the
// code needs ("sm_90a" for sm_90 code using wgmma); the CUDA execution backends compile
// for it instead of the target's arch.
inline constexpr const char* kCudaArchMetadata = "cuda_arch";
// The arch device code of `target_arch` compiles for: `requested` (the metadata above)
// when given, which must be target_arch itself or its arch-specific variant (target_arch
// + "a", or target_arch when that already ends in "a"); else target_arch. Throws
// ExecError otherwise.
std::string cuda_device_arch(const std::string& target_arch, const std::string& requested);

}  // namespace tilec::cuda
