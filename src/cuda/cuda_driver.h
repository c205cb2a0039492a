// The CUDA driver API entry points the CUDA execution backends use, loaded with dlopen
// (libcuda.so.1, or TILEC_CUDA_DRIVER_LIBRARY) on first use and kept for the life of the
// process, with the primary context of device 0. Nothing here links against CUDA.
#pragma once

#include <cstdint>
#include <string>

namespace tilec::cuda::detail {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUdeviceptr = unsigned long long;
inline constexpr CUresult kCudaSuccess = 0;
inline constexpr int kFuncAttributeMaxDynamicSharedBytes = 8;

struct CudaDriver {
  std::string path;
  CUcontext context = nullptr;  // device 0's primary context
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
  CUresult (*module_unload)(CUmodule) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*module_get_global)(CUdeviceptr*, size_t*, CUmodule, const char*) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpy_htod_async)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*memcpy_dtoh_async)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*stream_synchronize)(CUstream) = nullptr;
  CUresult (*func_set_attribute)(CUfunction, int, int) = nullptr;
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void**, void**) = nullptr;

  // "CUDA_ERROR_OUT_OF_MEMORY" for a status.
  std::string error_name(CUresult status) const;
};

// The loaded driver with a current-able context; nullptr with *reason set when there is
// no driver or no device ("no CUDA driver: libcuda.so.1 could not be loaded (...)").
const CudaDriver* cuda_driver(std::string* reason);

}  // namespace tilec::cuda::detail
