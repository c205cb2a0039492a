#include "tilec/cuda/cuda_execution_backends.h"

#include "cuda_driver.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/exec/device_build.h"
#include "tilec/exec/device_module.h"
#include "tilec/exec/device_symbols.h"
#include "tilec/exec/embedded_files.h"
#include "tilec/exec/native_backend.h"
#include "tilec/runtime/kernel_library.h"
#include "tilec/runtime/runtime_env.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace tilec::cuda {
// This execution backend implements the exec layer's interfaces throughout.
using namespace ::tilec::exec;
namespace {

namespace fs = std::filesystem;
using namespace detail;

constexpr const char* kArtifactName = "kernel.so";
constexpr const char* kCubinSymbol = "tilec_cuda_cubin";
constexpr const char* kCubinEndSymbol = "tilec_cuda_cubin_end";
constexpr const char* kArchSymbol = "tilec_cuda_arch";
constexpr const char* kArchEndSymbol = "tilec_cuda_arch_end";
constexpr int64_t kStaticSharedLimit = 48 * 1024;

// One loaded kernel library: its host entries run on the tilec runtime with a
// TilecDeviceApi whose first call loads the CUDA driver and the embedded cubin.
class CudaModule final : public DeviceModule {
 public:
  // Device 0's memory: kDLCUDA tensors there are passed to the kernel as they are.
  CudaModule(std::shared_ptr<runtime::KernelLibrary> library, std::string cubin, std::string arch)
      : DeviceModule(std::move(library), &kApi, kDLCUDA, 0),
        cubin_(std::move(cubin)),
        arch_(std::move(arch)) {}
  ~CudaModule() override {
    if (module_ && driver_) driver_->module_unload(module_);
  }

 private:
  // Loads the driver and the cubin once; 0, or non-zero with the reason in err.
  int32_t ready(char* err, int32_t len) {
    std::string reason;
    const CudaDriver* driver = cuda_driver(&reason);
    if (!driver) return fail_device_call(err, len, reason);
    std::lock_guard<std::mutex> lock(mutex_);
    driver->ctx_set_current(driver->context);
    if (module_) return 0;
    if (CUresult s = driver->module_load_data(&module_, cubin_.data()); s != kCudaSuccess) {
      module_ = nullptr;
      return fail_device_call(
          err, len,
          fmt::format("CUDA: the kernel's cubin (built for {}) does not load on CUDA "
                      "device 0: {}; compile for the device's architecture (`tilec "
                      "targets` shows it)",
                      arch_, driver->error_name(s)));
    }
    driver_ = driver;
    return 0;
  }

  static int32_t api_alloc(void* device, int64_t nbytes, void** out, char* err, int32_t len) {
    CudaModule& m = of<CudaModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    CUdeviceptr ptr = 0;
    if (CUresult s = m.driver_->mem_alloc(&ptr, size_t(std::max<int64_t>(nbytes, 1)));
        s != kCudaSuccess) {
      return fail_device_call(err, len,
                              fmt::format("CUDA: cannot allocate {} bytes of device memory: {}",
                                          nbytes, m.driver_->error_name(s)));
    }
    *out = reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
    return 0;
  }

  static int32_t api_free(void* device, void* buffer) {
    CudaModule& m = of<CudaModule>(device);
    if (!m.driver_) return 1;
    return m.driver_->mem_free(CUdeviceptr(reinterpret_cast<uintptr_t>(buffer))) == kCudaSuccess
               ? 0
               : 1;
  }

  // On a stream the copy is queued behind the stream's work; one to the host then waits
  // for the stream, so the data is there when the call returns.
  static int32_t api_copy(void* device, void* buffer, void* host, int64_t nbytes, int32_t kind,
                          void* stream, char* err, int32_t len) {
    if (nbytes <= 0) return 0;
    CudaModule& m = of<CudaModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    CUdeviceptr ptr = CUdeviceptr(reinterpret_cast<uintptr_t>(buffer));
    const CudaDriver& d = *m.driver_;
    CUresult s = kCudaSuccess;
    if (stream == nullptr) {
      s = kind == kTilecCopyHostToDevice ? d.memcpy_htod(ptr, host, size_t(nbytes))
                                         : d.memcpy_dtoh(host, ptr, size_t(nbytes));
    } else if (kind == kTilecCopyHostToDevice) {
      s = d.memcpy_htod_async(ptr, host, size_t(nbytes), stream);
    } else {
      s = d.memcpy_dtoh_async(host, ptr, size_t(nbytes), stream);
      if (s == kCudaSuccess) s = d.stream_synchronize(stream);
    }
    if (s != kCudaSuccess) {
      return fail_device_call(
          err, len,
          fmt::format("CUDA: copying {} bytes {} the device failed: {}", nbytes,
                      kind == kTilecCopyHostToDevice ? "to" : "from", m.driver_->error_name(s)));
    }
    return 0;
  }

  struct Function {
    CUfunction fn = nullptr;
    int64_t dynamic_shared = 0;  // tilec_dynamic_shared_bytes_<name>, 0 when undefined
    CUdeviceptr status = 0;      // tilec_status_<name>, 0 when undefined
  };

  // The function, its dynamic shared memory and its status word.
  int32_t lookup(const char* function, Function* out, char* err, int32_t len) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = functions_.find(function); found != functions_.end()) {
      *out = found->second;
      return 0;
    }
    CUfunction fn = nullptr;
    if (CUresult s = driver_->module_get_function(&fn, module_, function); s != kCudaSuccess) {
      return fail_device_call(
          err, len,
          fmt::format("CUDA: the cubin has no kernel '{}': {}", function, driver_->error_name(s)));
    }
    int64_t bytes = 0;
    CUdeviceptr global = 0;
    size_t size = 0;
    std::string symbol = std::string(kDynamicSharedBytesPrefix) + function;
    if (driver_->module_get_global(&global, &size, module_, symbol.c_str()) == kCudaSuccess &&
        size == sizeof bytes) {
      driver_->memcpy_dtoh(&bytes, global, sizeof bytes);
    }
    if (bytes > kStaticSharedLimit) {
      if (CUresult s =
              driver_->func_set_attribute(fn, kFuncAttributeMaxDynamicSharedBytes, int(bytes));
          s != kCudaSuccess) {
        return fail_device_call(
            err, len,
            fmt::format("CUDA: kernel '{}' needs {} bytes of shared memory, more than "
                        "device 0 allows ({}); use smaller tiles",
                        function, bytes, driver_->error_name(s)));
      }
    }
    Function f{fn, bytes, 0};
    std::string status_symbol = std::string(kDeviceStatusPrefix) + function;
    if (driver_->module_get_global(&global, &size, module_, status_symbol.c_str()) ==
            kCudaSuccess &&
        size == sizeof(int32_t)) {
      f.status = global;
    }
    functions_.emplace(function, f);
    *out = f;
    return 0;
  }

  static int32_t api_launch(void* device, const char* function, const int64_t grid[3],
                            const int64_t block[3], int64_t shared_bytes,
                            const TilecDeviceArg* args, int32_t num_args, void* stream, char* err,
                            int32_t len) {
    CudaModule& m = of<CudaModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    Function f;
    if (int32_t s = m.lookup(function, &f, err, len)) return s;
    CUfunction fn = f.fn;
    int64_t dynamic_shared = f.dynamic_shared;
    // Parameter values by width, each addressed by one kernelParams entry.
    std::vector<uint64_t> storage(size_t(std::max(num_args, 1)));
    std::vector<void*> params(size_t(std::max(num_args, 1)));
    for (int32_t i = 0; i < num_args; ++i) {
      const TilecDeviceArg& a = args[i];
      void* slot = &storage[size_t(i)];
      if (a.kind == kTilecDeviceArgBuffer) {
        CUdeviceptr ptr = CUdeviceptr(reinterpret_cast<uintptr_t>(a.v.buffer));
        std::memcpy(slot, &ptr, sizeof ptr);
      } else if (a.kind == kTilecDeviceArgFloat) {
        if (a.bits == 64) {
          std::memcpy(slot, &a.v.f, sizeof(double));
        } else {
          float f = float(a.v.f);
          std::memcpy(slot, &f, sizeof f);
        }
      } else if (a.bits == 64) {
        std::memcpy(slot, &a.v.i, sizeof(int64_t));
      } else if (a.bits == 16) {
        int16_t v = int16_t(a.v.i);
        std::memcpy(slot, &v, sizeof v);
      } else if (a.bits == 8) {
        int8_t v = int8_t(a.v.i);
        std::memcpy(slot, &v, sizeof v);
      } else {
        int32_t v = int32_t(a.v.i);
        std::memcpy(slot, &v, sizeof v);
      }
      params[size_t(i)] = slot;
    }
    // On the default stream the call waits for the kernel (its errors surface here); on a
    // caller's stream it returns once the launch is queued. A kernel with a status word
    // always waits: the word is zeroed before it and read after it on its stream, so such
    // launches also take the lock (they share the word).
    std::unique_lock<std::mutex> lock(m.launch_mutex_, std::defer_lock);
    if (stream == nullptr || f.status) lock.lock();
    int32_t word = 0;
    CUresult s = kCudaSuccess;
    if (f.status) {
      s = stream == nullptr ? m.driver_->memcpy_htod(f.status, &word, sizeof word)
                            : m.driver_->memcpy_htod_async(f.status, &word, sizeof word, stream);
    }
    if (s == kCudaSuccess) {
      s = m.driver_->launch_kernel(fn, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                                   unsigned(block[0]), unsigned(block[1]), unsigned(block[2]),
                                   unsigned(shared_bytes + dynamic_shared), stream, params.data(),
                                   nullptr);
    }
    if (s == kCudaSuccess && stream == nullptr) s = m.driver_->ctx_synchronize();
    if (s == kCudaSuccess && f.status) {
      if (stream == nullptr) {
        s = m.driver_->memcpy_dtoh(&word, f.status, sizeof word);
      } else {
        s = m.driver_->memcpy_dtoh_async(&word, f.status, sizeof word, stream);
        if (s == kCudaSuccess) s = m.driver_->stream_synchronize(stream);
      }
    }
    if (s != kCudaSuccess) {
      return fail_device_call(
          err, len,
          fmt::format("CUDA: launching kernel '{}' ({}x{}x{} blocks of {}x{}x{} threads, "
                      "{} bytes of dynamic shared memory) failed: {}",
                      function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                      shared_bytes + dynamic_shared, m.driver_->error_name(s)));
    }
    if (word != 0) return fail_device_status(err, len, word, function);
    return 0;
  }

  static constexpr TilecDeviceApi kApi{&api_alloc, &api_free, &api_copy, &api_launch};

  std::string cubin_;
  std::string arch_;
  std::mutex mutex_;         // module_ and functions_
  std::mutex launch_mutex_;  // one launch at a time on the default stream
  const CudaDriver* driver_ = nullptr;
  CUmodule module_ = nullptr;
  std::map<std::string, Function, std::less<>> functions_;
};

std::vector<std::string> split_options(const backend::CodeArtifact& device) {
  std::vector<std::string> out;
  auto it = device.metadata.find("cuda_options");
  if (it == device.metadata.end()) return out;
  std::istringstream words(it->second);
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

// The two backends differ only in the compiler that turns CUDA C++ into a cubin.
class CudaBackend final : public ExecutionBackend {
 public:
  using Compile = CudaCompileResult (*)(const std::string& source, const fs::path& source_file,
                                        const fs::path& cubin_file, const std::string& arch,
                                        const std::vector<std::string>& options);
  CudaBackend(std::string name, std::string (*reason)(), std::string (*identity)(), Compile compile)
      : name_(std::move(name)), reason_(reason), identity_(identity), compile_(compile) {}

  const std::string& name() const override { return name_; }
  bool available() const override { return unavailable_reason().empty(); }
  std::string unavailable_reason() const override {
    std::string reason = reason_();
    return reason.empty() ? native_execution_backend()->unavailable_reason() : reason;
  }
  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    return fmt::format("{} | {} | host: {}", identity_(),
                       cuda_target_arch(target.get_string("arch")),
                       native_execution_backend()->cache_identity(target_host, target_host));
  }
  std::string artifact_file_name() const override { return kArtifactName; }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target& target, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    require_device_format(device, "cuda", name_, "CUDA C++");
    auto requested = device.metadata.find(kCudaArchMetadata);
    std::string arch =
        cuda_device_arch(cuda_target_arch(target.get_string("arch")),
                         requested == device.metadata.end() ? std::string() : requested->second);
    fs::path source_path = output_dir / "device.cu";
    write_binary_file(source_path, device.source);
    fs::path cubin_path = output_dir / "device.cubin";
    CudaCompileResult compiled =
        compile_(device.source, source_path, cubin_path, arch, split_options(device));
    write_binary_file(cubin_path, compiled.cubin);
    if (!compiled.ptx.empty()) write_binary_file(output_dir / "device.ptx", compiled.ptx);
    fs::path arch_path = output_dir / "device.arch";
    write_binary_file(arch_path, arch);
    return build_with_embedded_device_code(
        *this, host,
        embed_files_source(
            "The CUDA cubin of this kernel library (" + name_ + " execution backend).",
            {{kCubinSymbol, kCubinEndSymbol, cubin_path},
             {kArchSymbol, kArchEndSymbol, arch_path}}),
        target_host, output_dir);
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    auto library = runtime::KernelLibrary::open(artifact.string());
    void* handle = dlopen(artifact.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw ExecError(fmt::format("cannot reopen '{}': {}", artifact.string(), dlerror()));
    auto cubin = embedded_bytes(handle, kCubinSymbol, kCubinEndSymbol);
    auto arch = embedded_bytes(handle, kArchSymbol, kArchEndSymbol);
    dlclose(handle);  // `library` keeps it loaded
    if (!cubin || cubin->empty() || !arch) {
      throw ExecError(
          fmt::format("kernel library '{}' embeds no CUDA cubin ({} missing); it was "
                      "not built by a CUDA execution backend",
                      artifact.string(), kCubinSymbol));
    }
    return std::make_shared<CudaModule>(std::move(library), std::move(*cubin), std::move(*arch));
  }

 private:
  std::string name_;
  std::string (*reason_)();
  std::string (*identity_)();
  Compile compile_;
};

CudaCompileResult compile_with_nvrtc(const std::string& source, const fs::path& source_file,
                                     const fs::path&, const std::string& arch,
                                     const std::vector<std::string>& options) {
  return nvrtc_compile(source, source_file.filename().string(), arch, options);
}

CudaCompileResult compile_with_nvcc(const std::string&, const fs::path& source_file,
                                    const fs::path& cubin_file, const std::string& arch,
                                    const std::vector<std::string>& options) {
  return nvcc_compile(source_file, cubin_file, arch, options);
}

}  // namespace

std::string cuda_driver_unavailable_reason() {
  std::string reason;
  cuda_driver(&reason);
  return reason;
}

const ExecutionBackendPtr& nvrtc_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<CudaBackend>(
      kNvrtcBackendName, &nvrtc_unavailable_reason, &nvrtc_identity, &compile_with_nvrtc);
  return backend;
}

const ExecutionBackendPtr& nvcc_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<CudaBackend>(
      kNvccBackendName, &nvcc_unavailable_reason, &nvcc_identity, &compile_with_nvcc);
  return backend;
}

}  // namespace tilec::cuda
