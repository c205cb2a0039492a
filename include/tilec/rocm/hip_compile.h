// The two compilers of HIP C++ into an AMD GPU code object (an ELF for one gfx arch):
// hiprtc in process (ROCm 5's libamdhip64, loaded with dlopen) and hipcc
// (`hipcc --offload-arch=<arch> --cuda-device-only --no-gpu-bundle-output`, Debian's
// package). Both compile with -O3 -ffp-contract=off (the interpreter rounds every
// operation, see the source's banner). Errors are exec::ExecError with the compiler's log.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tilec::rocm {

// Empty when available, else why not.
std::string hiprtc_unavailable_reason();
std::string hipcc_unavailable_reason();
// What identifies the compiler in a kernel-cache key (library and version; hipcc's
// --version).
std::string hiprtc_identity();
std::string hipcc_identity();

std::string hiprtc_compile(const std::string& source, const std::string& name,
                           const std::string& arch);
std::string hipcc_compile(const std::filesystem::path& source_file,
                          const std::filesystem::path& code_object, const std::string& arch);

}  // namespace tilec::rocm
