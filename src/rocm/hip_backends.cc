#include "tilec/rocm/hip_backends.h"

#include "hip_runtime.h"
#include "tilec/exec/device_build.h"
#include "tilec/exec/device_module.h"
#include "tilec/exec/device_symbols.h"
#include "tilec/exec/embedded_files.h"
#include "tilec/exec/native_backend.h"
#include "tilec/rocm/hip_compile.h"
#include "tilec/rocm/hip_target.h"
#include "tilec/runtime/kernel_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

namespace tilec::rocm {
namespace {

namespace fs = std::filesystem;
using namespace detail;

constexpr const char* kArtifactName = "kernel.so";
constexpr const char* kCodeSymbol = "tilec_hip_code_object";
constexpr const char* kCodeEndSymbol = "tilec_hip_code_object_end";
constexpr const char* kArchSymbol = "tilec_hip_arch";
constexpr const char* kArchEndSymbol = "tilec_hip_arch_end";
constexpr int32_t kDLROCM = 10;  // DLPack's device type of AMD GPU memory

// One loaded kernel library whose host entries launch through the HIP runtime; the first
// device call loads the runtime and the embedded code object.
class HipModule final : public exec::DeviceModule {
 public:
  HipModule(std::shared_ptr<runtime::KernelLibrary> library, std::string code, std::string arch)
      : DeviceModule(std::move(library), &kApi, kDLROCM, 0),
        code_(std::move(code)),
        arch_(std::move(arch)) {}
  ~HipModule() override {
    if (module_ && rt_) rt_->module_unload(module_);
  }

 private:
  int32_t ready(char* err, int32_t len) {
    std::string reason;
    const HipRuntime* rt = hip_device_runtime(&reason);
    if (!rt) {
      return exec::fail_device_call(
          err, len,
          reason +
              "; the kernel compiled, but running it needs an AMD GPU -- run it on the "
              "CPU with `--execution-backend emulator`");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (module_) return 0;
    if (hipError_t s = rt->module_load_data(&module_, code_.data()); s != kHipSuccess) {
      module_ = nullptr;
      return exec::fail_device_call(
          err, len,
          fmt::format("HIP: the kernel's code object (built for {}) does not load on HIP device "
                      "0: {}; compile for the device's architecture (`tilec targets` shows it)",
                      arch_, rt->error_name(s)));
    }
    rt_ = rt;
    return 0;
  }

  static int32_t api_alloc(void* device, int64_t nbytes, void** out, char* err, int32_t len) {
    HipModule& m = of<HipModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    if (hipError_t s = m.rt_->malloc(out, size_t(std::max<int64_t>(nbytes, 1))); s != kHipSuccess)
      return exec::fail_device_call(
          err, len,
          fmt::format("HIP: cannot allocate {} bytes of device memory: {}", nbytes,
                      m.rt_->error_name(s)));
    return 0;
  }

  static int32_t api_free(void* device, void* buffer) {
    HipModule& m = of<HipModule>(device);
    if (!m.rt_) return 1;
    return m.rt_->free(buffer) == kHipSuccess ? 0 : 1;
  }

  static int32_t api_copy(void* device, void* buffer, void* host, int64_t nbytes, int32_t kind,
                          void* stream, char* err, int32_t len) {
    if (nbytes <= 0) return 0;
    HipModule& m = of<HipModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    const HipRuntime& rt = *m.rt_;
    hipError_t s = kHipSuccess;
    bool to_device = kind == kTilecCopyHostToDevice;
    if (stream == nullptr) {
      s = to_device ? rt.memcpy_htod(buffer, host, size_t(nbytes))
                    : rt.memcpy_dtoh(host, buffer, size_t(nbytes));
    } else if (to_device) {
      s = rt.memcpy_htod_async(buffer, host, size_t(nbytes), stream);
    } else {
      s = rt.memcpy_dtoh_async(host, buffer, size_t(nbytes), stream);
      if (s == kHipSuccess) s = rt.stream_synchronize(stream);
    }
    if (s != kHipSuccess)
      return exec::fail_device_call(
          err, len,
          fmt::format("HIP: copying {} bytes {} the device failed: {}", nbytes,
                      to_device ? "to" : "from", rt.error_name(s)));
    return 0;
  }

  struct Function {
    hipFunction_t fn = nullptr;
    hipDeviceptr_t status = nullptr;  // tilec_status_<name>, null when undefined
  };

  int32_t lookup(const char* function, Function* out, char* err, int32_t len) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = functions_.find(function); found != functions_.end()) {
      *out = found->second;
      return 0;
    }
    Function f;
    if (hipError_t s = rt_->module_get_function(&f.fn, module_, function); s != kHipSuccess)
      return exec::fail_device_call(
          err, len,
          fmt::format("HIP: the code object has no kernel '{}': {}", function, rt_->error_name(s)));
    std::string status_symbol = std::string(exec::kDeviceStatusPrefix) + function;
    hipDeviceptr_t global = nullptr;
    size_t size = 0;
    if (rt_->module_get_global(&global, &size, module_, status_symbol.c_str()) == kHipSuccess &&
        size == sizeof(int32_t))
      f.status = global;
    functions_.emplace(function, f);
    *out = f;
    return 0;
  }

  static int32_t api_launch(void* device, const char* function, const int64_t grid[3],
                            const int64_t block[3], int64_t shared_bytes,
                            const TilecDeviceArg* args, int32_t num_args, void* stream, char* err,
                            int32_t len) {
    HipModule& m = of<HipModule>(device);
    if (int32_t s = m.ready(err, len)) return s;
    Function f;
    if (int32_t s = m.lookup(function, &f, err, len)) return s;
    // Parameter values by width, each addressed by one kernelParams entry.
    std::vector<uint64_t> storage(size_t(std::max(num_args, 1)));
    std::vector<void*> params(size_t(std::max(num_args, 1)));
    for (int32_t i = 0; i < num_args; ++i) {
      const TilecDeviceArg& a = args[i];
      void* slot = &storage[size_t(i)];
      if (a.kind == kTilecDeviceArgBuffer) {
        std::memcpy(slot, &a.v.buffer, sizeof(void*));
      } else if (a.kind == kTilecDeviceArgFloat) {
        if (a.bits == 64) {
          std::memcpy(slot, &a.v.f, sizeof(double));
        } else {
          float v = float(a.v.f);
          std::memcpy(slot, &v, sizeof v);
        }
      } else {
        // Little endian: the low bytes of the 64-bit value are the narrower integer.
        std::memcpy(slot, &a.v.i, size_t(std::max<int32_t>(a.bits, 8) / 8));
      }
      params[size_t(i)] = slot;
    }
    const HipRuntime& rt = *m.rt_;
    std::unique_lock<std::mutex> lock(m.launch_mutex_, std::defer_lock);
    if (stream == nullptr || f.status) lock.lock();
    int32_t word = 0;
    hipError_t s = kHipSuccess;
    if (f.status) {
      s = stream == nullptr ? rt.memcpy_htod(f.status, &word, sizeof word)
                            : rt.memcpy_htod_async(f.status, &word, sizeof word, stream);
    }
    if (s == kHipSuccess) {
      s = rt.module_launch_kernel(f.fn, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                                  unsigned(block[0]), unsigned(block[1]), unsigned(block[2]),
                                  unsigned(shared_bytes), stream, params.data(), nullptr);
    }
    if (s == kHipSuccess && stream == nullptr) s = rt.device_synchronize();
    if (s == kHipSuccess && f.status) {
      if (stream == nullptr) {
        s = rt.memcpy_dtoh(&word, f.status, sizeof word);
      } else {
        s = rt.memcpy_dtoh_async(&word, f.status, sizeof word, stream);
        if (s == kHipSuccess) s = rt.stream_synchronize(stream);
      }
    }
    if (s != kHipSuccess)
      return exec::fail_device_call(
          err, len,
          fmt::format("HIP: launching kernel '{}' ({}x{}x{} blocks of {}x{}x{} threads) failed: {}",
                      function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                      rt.error_name(s)));
    if (word != 0) return exec::fail_device_status(err, len, word, function);
    return 0;
  }

  static constexpr TilecDeviceApi kApi{&api_alloc, &api_free, &api_copy, &api_launch};

  std::string code_;
  std::string arch_;
  std::mutex mutex_;
  std::mutex launch_mutex_;
  const HipRuntime* rt_ = nullptr;
  hipModule_t module_ = nullptr;
  std::map<std::string, Function, std::less<>> functions_;
};

// hiprtc and hipcc differ only in the compiler that makes the code object.
class HipBackend final : public exec::ExecutionBackend {
 public:
  using Compile = std::string (*)(const std::string& source, const fs::path& source_file,
                                  const fs::path& code_file, const std::string& arch);
  HipBackend(std::string name, std::string (*reason)(), std::string (*identity)(), Compile compile)
      : name_(std::move(name)), reason_(reason), identity_(identity), compile_(compile) {}

  const std::string& name() const override { return name_; }
  bool available() const override { return unavailable_reason().empty(); }
  std::string unavailable_reason() const override {
    std::string reason = reason_();
    return reason.empty() ? exec::native_execution_backend()->unavailable_reason() : reason;
  }
  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    return fmt::format("{} | {} | host: {}", identity_(), hip_arch(target),
                       exec::native_execution_backend()->cache_identity(target_host, target_host));
  }
  std::string artifact_file_name() const override { return kArtifactName; }

  exec::BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                          const target::Target& target, const target::Target& target_host,
                          const fs::path& output_dir) const override {
    exec::require_device_format(device, "hip", name_, "HIP C++");
    std::string arch = hip_arch(target);
    fs::path source_path = output_dir / "device.hip";
    exec::write_binary_file(source_path, device.source);
    fs::path code_path = output_dir / kCodeObjectFileName;
    std::string code = compile_(device.source, source_path, code_path, arch);
    exec::write_binary_file(code_path, code);
    fs::path arch_path = output_dir / "device.arch";
    exec::write_binary_file(arch_path, arch);
    return exec::build_with_embedded_device_code(
        *this, host,
        exec::embed_files_source(
            "The HIP code object of this kernel library (" + name_ + " execution backend).",
            {{kCodeSymbol, kCodeEndSymbol, code_path}, {kArchSymbol, kArchEndSymbol, arch_path}}),
        target_host, output_dir);
  }

  std::shared_ptr<const exec::LoadedModule> load(const fs::path& artifact) const override {
    auto library = runtime::KernelLibrary::open(artifact.string());
    void* handle = dlopen(artifact.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw exec::ExecError(fmt::format("cannot reopen '{}': {}", artifact.string(), dlerror()));
    auto code = exec::embedded_bytes(handle, kCodeSymbol, kCodeEndSymbol);
    auto arch = exec::embedded_bytes(handle, kArchSymbol, kArchEndSymbol);
    dlclose(handle);  // `library` keeps it loaded
    if (!code || code->empty() || !arch) {
      throw exec::ExecError(fmt::format(
          "kernel library '{}' embeds no HIP code object ({} missing); it was not built by a "
          "HIP execution backend",
          artifact.string(), kCodeSymbol));
    }
    return std::make_shared<HipModule>(std::move(library), std::move(*code), std::move(*arch));
  }

 private:
  std::string name_;
  std::string (*reason_)();
  std::string (*identity_)();
  Compile compile_;
};

std::string compile_with_hiprtc(const std::string& source, const fs::path& source_file,
                                const fs::path&, const std::string& arch) {
  return hiprtc_compile(source, source_file.filename().string(), arch);
}

std::string compile_with_hipcc(const std::string&, const fs::path& source_file,
                               const fs::path& code_file, const std::string& arch) {
  return hipcc_compile(source_file, code_file, arch);
}

}  // namespace

const exec::ExecutionBackendPtr& hiprtc_execution_backend() {
  static const exec::ExecutionBackendPtr backend = std::make_shared<HipBackend>(
      kHiprtcBackendName, &hiprtc_unavailable_reason, &hiprtc_identity, &compile_with_hiprtc);
  return backend;
}

const exec::ExecutionBackendPtr& hipcc_execution_backend() {
  static const exec::ExecutionBackendPtr backend = std::make_shared<HipBackend>(
      kHipccBackendName, &hipcc_unavailable_reason, &hipcc_identity, &compile_with_hipcc);
  return backend;
}

}  // namespace tilec::rocm
