#include "tilec/webgpu/wgpu_backend.h"

#include "tilec/exec/device_build.h"
#include "tilec/exec/device_module.h"
#include "tilec/exec/device_timer.h"
#include "tilec/exec/embedded_files.h"
#include "tilec/exec/native_backend.h"
#include "tilec/runtime/kernel_library.h"
#include "tilec/webgpu/kernel_info.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#ifdef TILEC_HAVE_WGPU_HEADERS
#include "wgpu_runtime.h"
#endif

namespace tilec::webgpu {

namespace fs = std::filesystem;
using exec::ExecError;

#ifdef TILEC_HAVE_WGPU_HEADERS

namespace {

constexpr const char* kArtifactName = "kernel.so";
constexpr const char* kSourceSymbol = "tilec_wgsl_source";
constexpr const char* kSourceEndSymbol = "tilec_wgsl_source_end";
constexpr const char* kDeviceSymbol = "tilec_wgpu_device";  // the target's -device

uint64_t round4(int64_t n) {
  return uint64_t(std::max<int64_t>((n + 3) / 4 * 4, 4));
}

std::string c_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Compiles `source` on d and creates the pipeline of `entry` (cached per process), or
// throws ExecError with naga's message and the generated lines it points at.
wgpu::Device::Pipeline pipeline(wgpu::Device& d, const std::string& source, const KernelInfo& info,
                                const std::string& kept_at) {
  auto key = std::make_pair(source, info.entry);
  if (auto found = d.pipelines.find(key); found != d.pipelines.end()) return found->second;
  const wgpu::Api& a = *d.api;
  auto compile_error = [&](const std::string& what, const std::string& message) {
    std::vector<std::string> cited = wgsl_lines_cited(message, source);
    return ExecError(fmt::format(
        "WebGPU {} of the generated WGSL failed on {}; the source is kept at {}\n{}naga:\n{}", what,
        d.adapter.label, kept_at,
        cited.empty() ? std::string()
                      : fmt::format("generated WGSL lines the error points at:\n  {}\n",
                                    fmt::join(cited, "\n  ")),
        message));
  };
  WGPUShaderSourceWGSL wgsl{};
  wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
  wgsl.code = wgpu::view(source);
  WGPUShaderModuleDescriptor module_desc{};
  module_desc.nextInChain = &wgsl.chain;
  WGPUShaderModule module = nullptr;
  std::string error = wgpu::with_error_scope(
      d, [&] { module = a.wgpuDeviceCreateShaderModule(d.device, &module_desc); });
  if (!error.empty()) {
    if (module) a.wgpuShaderModuleRelease(module);
    throw compile_error("compilation", error);
  }
  // The layout the printer promises (kernel_info.h), so unused bindings still bind.
  std::vector<WGPUBindGroupLayoutEntry> entries;
  auto add = [&](WGPUBufferBindingType type) {
    WGPUBindGroupLayoutEntry e{};
    e.binding = uint32_t(entries.size());
    e.visibility = WGPUShaderStage_Compute;
    e.buffer.type = type;
    entries.push_back(e);
  };
  for (char c : info.buffers)
    add(c == 'w' ? WGPUBufferBindingType_Storage : WGPUBufferBindingType_ReadOnlyStorage);
  if (info.scalars > 0) add(WGPUBufferBindingType_Uniform);
  if (info.status) add(WGPUBufferBindingType_Storage);
  WGPUBindGroupLayoutDescriptor layout_desc{};
  layout_desc.entryCount = entries.size();
  layout_desc.entries = entries.data();
  WGPUBindGroupLayout layout = nullptr;
  WGPUPipelineLayout pipeline_layout = nullptr;
  WGPUComputePipeline compute = nullptr;
  std::string entry = info.entry;
  error = wgpu::with_error_scope(d, [&] {
    layout = a.wgpuDeviceCreateBindGroupLayout(d.device, &layout_desc);
    WGPUPipelineLayoutDescriptor pl{};
    pl.bindGroupLayoutCount = 1;
    pl.bindGroupLayouts = &layout;
    pipeline_layout = a.wgpuDeviceCreatePipelineLayout(d.device, &pl);
    WGPUComputePipelineDescriptor cp{};
    cp.layout = pipeline_layout;
    cp.compute.module = module;
    cp.compute.entryPoint = wgpu::view(entry);
    compute = a.wgpuDeviceCreateComputePipeline(d.device, &cp);
  });
  a.wgpuShaderModuleRelease(module);
  if (pipeline_layout) a.wgpuPipelineLayoutRelease(pipeline_layout);
  if (!error.empty()) {
    if (compute) a.wgpuComputePipelineRelease(compute);
    if (layout) a.wgpuBindGroupLayoutRelease(layout);
    throw compile_error(fmt::format("pipeline creation (entry point {})", info.entry), error);
  }
  wgpu::Device::Pipeline p{compute, layout};
  d.pipelines[key] = p;
  return p;
}

class WgpuModule final : public exec::DeviceModule, public exec::DeviceTimedModule {
 public:
  WgpuModule(std::shared_ptr<runtime::KernelLibrary> library, wgpu::Device& device,
             std::string source, std::string kept_at)
      : DeviceModule(std::move(library), &kApi),
        device_(device),
        source_(std::move(source)),
        kept_at_(std::move(kept_at)),
        kernels_(parse_kernel_infos(source_)) {}

  // The summed timestamp-query time of this module's launches since the last take.
  std::optional<double> take_device_time_ms() const override {
    if (!device_.timestamps) return std::nullopt;
    std::lock_guard<std::mutex> lock(device_.mutex);
    if (!timed_) return std::nullopt;
    double ms = device_ns_ * 1e-6;
    device_ns_ = 0;
    return ms;
  }
  std::string device_clock() const override {
    return device_.timestamps ? "WebGPU timestamp queries" : "";
  }

 private:
  static int32_t api_alloc(void* self, int64_t nbytes, void** out, char* err, int32_t len) {
    WgpuModule& m = of<WgpuModule>(self);
    wgpu::Device& d = m.device_;
    if (nbytes > int64_t(d.limits.maxStorageBufferBindingSize)) {
      return exec::fail_device_call(
          err, len,
          fmt::format("WebGPU: a tensor of {} bytes exceeds {}'s largest storage binding ({} "
                      "bytes, maxStorageBufferBindingSize); split the tensor or use smaller shapes",
                      nbytes, d.adapter.label, d.limits.maxStorageBufferBindingSize));
    }
    std::lock_guard<std::mutex> lock(d.mutex);
    WGPUBufferDescriptor desc{};
    desc.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc;
    desc.size = round4(nbytes);  // copies and bindings are whole 32-bit words
    WGPUBuffer buffer = nullptr;
    std::string error =
        wgpu::with_error_scope(d, [&] { buffer = d.api->wgpuDeviceCreateBuffer(d.device, &desc); });
    if (!error.empty() || !buffer) {
      return exec::fail_device_call(err, len,
                                    fmt::format("WebGPU: cannot allocate {} bytes on {}: {}",
                                                nbytes, d.adapter.label, error));
    }
    *out = buffer;
    return 0;
  }

  static int32_t api_free(void* self, void* buffer) {
    WgpuModule& m = of<WgpuModule>(self);
    std::lock_guard<std::mutex> lock(m.device_.mutex);
    m.device_.api->wgpuBufferDestroy(static_cast<WGPUBuffer>(buffer));
    m.device_.api->wgpuBufferRelease(static_cast<WGPUBuffer>(buffer));
    return 0;
  }

  static int32_t no_streams(char* err, int32_t len) {
    return exec::fail_device_call(
        err, len,
        "WebGPU: a stream was given, but the wgpu execution backend runs every kernel on its "
        "device's one queue; call it without a stream");
  }

  // Reads `nbytes` of `buffer` back through a mapped staging buffer.
  static std::string read_back(wgpu::Device& d, WGPUBuffer buffer, void* host, int64_t nbytes) {
    const wgpu::Api& a = *d.api;
    WGPUBufferDescriptor desc{};
    desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    desc.size = round4(nbytes);
    WGPUBuffer staging = a.wgpuDeviceCreateBuffer(d.device, &desc);
    WGPUCommandEncoder encoder = a.wgpuDeviceCreateCommandEncoder(d.device, nullptr);
    a.wgpuCommandEncoderCopyBufferToBuffer(encoder, buffer, 0, staging, 0, desc.size);
    WGPUCommandBuffer commands = a.wgpuCommandEncoderFinish(encoder, nullptr);
    a.wgpuQueueSubmitForIndex(d.queue, 1, &commands);
    a.wgpuCommandBufferRelease(commands);
    a.wgpuCommandEncoderRelease(encoder);
    struct Result {
      WGPUMapAsyncStatus status{};
      std::string message;
      bool done = false;
    } result;
    WGPUBufferMapCallbackInfo cb{};
    cb.mode = WGPUCallbackMode_AllowSpontaneous;
    cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* out, void*) {
      auto* r = static_cast<Result*>(out);
      r->status = status;
      r->message = wgpu::text(message);
      r->done = true;
    };
    cb.userdata1 = &result;
    a.wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, desc.size, cb);
    while (!result.done) a.wgpuDevicePoll(d.device, true, nullptr);
    std::string error;
    if (result.status == WGPUMapAsyncStatus_Success) {
      const void* data = a.wgpuBufferGetConstMappedRange(staging, 0, desc.size);
      std::memcpy(host, data, size_t(nbytes));
      a.wgpuBufferUnmap(staging);
    } else {
      error = result.message.empty() ? "the buffer could not be mapped" : result.message;
    }
    a.wgpuBufferDestroy(staging);
    a.wgpuBufferRelease(staging);
    return error;
  }

  static int32_t api_copy(void* self, void* buffer, void* host, int64_t nbytes, int32_t kind,
                          void* stream, char* err, int32_t len) {
    if (stream != nullptr) return no_streams(err, len);
    WgpuModule& m = of<WgpuModule>(self);
    wgpu::Device& d = m.device_;
    std::lock_guard<std::mutex> lock(d.mutex);
    auto* b = static_cast<WGPUBuffer>(buffer);
    if (nbytes == 0) return 0;
    if (kind == kTilecCopyHostToDevice) {
      std::string error = wgpu::with_error_scope(d, [&] {
        if (nbytes % 4 == 0) {
          d.api->wgpuQueueWriteBuffer(d.queue, b, 0, host, size_t(nbytes));
        } else {  // writes are whole words: pad the last one
          std::vector<char> padded(round4(nbytes), 0);
          std::memcpy(padded.data(), host, size_t(nbytes));
          d.api->wgpuQueueWriteBuffer(d.queue, b, 0, padded.data(), padded.size());
        }
      });
      if (!error.empty())
        return exec::fail_device_call(err, len, "WebGPU: copy to the device failed: " + error);
      return 0;
    }
    std::string error = read_back(d, b, host, nbytes);
    if (!error.empty())
      return exec::fail_device_call(err, len, "WebGPU: copy to the host failed: " + error);
    return 0;
  }

  static int32_t api_launch(void* self, const char* function, const int64_t grid[3],
                            const int64_t block[3], int64_t shared_bytes,
                            const TilecDeviceArg* args, int32_t num_args, void* stream, char* err,
                            int32_t len) {
    if (stream != nullptr) return no_streams(err, len);
    WgpuModule& m = of<WgpuModule>(self);
    wgpu::Device& d = m.device_;
    const wgpu::Api& a = *d.api;
    auto found = m.kernels_.find(function);
    if (found == m.kernels_.end()) {
      return exec::fail_device_call(err, len,
                                    fmt::format("WebGPU: the WGSL has no kernel '{}'", function));
    }
    const KernelInfo& info = found->second;
    if (shared_bytes != 0) {
      return exec::fail_device_call(err, len,
                                    "WebGPU: dynamic shared memory is not supported; kernels "
                                    "declare their var<workgroup> tiles statically");
    }
    for (int i = 0; i < 3; ++i) {
      if (block[i] != info.workgroup[size_t(i)]) {
        return exec::fail_device_call(
            err, len,
            fmt::format("WebGPU: kernel '{}' is compiled for workgroups of {}x{}x{} threads, but "
                        "the launch asks for {}x{}x{}",
                        function, info.workgroup[0], info.workgroup[1], info.workgroup[2], block[0],
                        block[1], block[2]));
      }
    }
    // The device's limits, checked before the driver would refuse the pipeline or dispatch.
    const WGPULimits& lim = d.limits;
    int64_t threads = block[0] * block[1] * block[2];
    if (threads > int64_t(lim.maxComputeInvocationsPerWorkgroup) ||
        block[0] > int64_t(lim.maxComputeWorkgroupSizeX) ||
        block[1] > int64_t(lim.maxComputeWorkgroupSizeY) ||
        block[2] > int64_t(lim.maxComputeWorkgroupSizeZ)) {
      return exec::fail_device_call(
          err, len,
          fmt::format("WebGPU: kernel '{}' uses {}x{}x{} threads per workgroup, but {} allows at "
                      "most {} in all ({}x{}x{} per axis); lower T.Kernel's threads=",
                      function, block[0], block[1], block[2], d.adapter.label,
                      lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupSizeX,
                      lim.maxComputeWorkgroupSizeY, lim.maxComputeWorkgroupSizeZ));
    }
    if (info.workgroup_bytes > int64_t(lim.maxComputeWorkgroupStorageSize)) {
      return exec::fail_device_call(
          err, len,
          fmt::format("WebGPU: kernel '{}' declares {} bytes of workgroup (shared) memory, but {} "
                      "allows at most {} (maxComputeWorkgroupStorageSize); use smaller shared "
                      "tiles or fewer T.Pipelined stages",
                      function, info.workgroup_bytes, d.adapter.label,
                      lim.maxComputeWorkgroupStorageSize));
    }
    for (int i = 0; i < 3; ++i) {
      if (grid[i] > int64_t(lim.maxComputeWorkgroupsPerDimension)) {
        return exec::fail_device_call(
            err, len,
            fmt::format("WebGPU: kernel '{}' launches {} workgroups along axis {}, but {} allows "
                        "at most {} (maxComputeWorkgroupsPerDimension); use larger blocks",
                        function, grid[i], i, d.adapter.label,
                        lim.maxComputeWorkgroupsPerDimension));
      }
    }
    // Arguments: the buffers in order, then the scalars (4 bytes each) as kernel_info.h says.
    std::vector<WGPUBuffer> buffers;
    std::vector<uint32_t> scalars;
    for (int32_t i = 0; i < num_args; ++i) {
      const TilecDeviceArg& arg = args[i];
      if (arg.kind == kTilecDeviceArgBuffer) {
        buffers.push_back(static_cast<WGPUBuffer>(arg.v.buffer));
        continue;
      }
      if (arg.bits == 64) {
        return exec::fail_device_call(
            err, len,
            fmt::format("WebGPU: argument #{} of kernel '{}' is a 64-bit scalar; WGSL has none", i,
                        function));
      }
      uint32_t word = 0;
      if (arg.kind == kTilecDeviceArgFloat) {
        float f = float(arg.v.f);
        std::memcpy(&word, &f, 4);
      } else {
        word = uint32_t(int32_t(arg.v.i));
      }
      scalars.push_back(word);
    }
    if (buffers.size() != info.buffers.size() || int(scalars.size()) != info.scalars) {
      return exec::fail_device_call(
          err, len,
          fmt::format("WebGPU: kernel '{}' takes {} tensors and {} scalars, but the launch "
                      "passes {} and {}",
                      function, info.buffers.size(), info.scalars, buffers.size(), scalars.size()));
    }
    std::lock_guard<std::mutex> lock(d.mutex);
    wgpu::Device::Pipeline p;
    try {
      p = pipeline(d, m.source_, info, m.kept_at_);
    } catch (const ExecError& e) {
      return exec::fail_device_call(err, len, e.what());
    }
    std::vector<WGPUBuffer> owned;
    auto make_buffer = [&](uint64_t size, WGPUBufferUsage usage, const void* data) {
      WGPUBufferDescriptor desc{};
      desc.usage = usage | WGPUBufferUsage_CopyDst;
      desc.size = size;
      WGPUBuffer b = a.wgpuDeviceCreateBuffer(d.device, &desc);
      std::vector<char> bytes(size, 0);
      if (data) std::memcpy(bytes.data(), data, size);
      a.wgpuQueueWriteBuffer(d.queue, b, 0, bytes.data(), size);
      owned.push_back(b);
      return b;
    };
    std::vector<WGPUBindGroupEntry> entries;
    auto bind = [&](WGPUBuffer b) {
      WGPUBindGroupEntry e{};
      e.binding = uint32_t(entries.size());
      e.buffer = b;
      e.size = WGPU_WHOLE_SIZE;
      entries.push_back(e);
    };
    WGPUBuffer status = nullptr;
    std::string error = wgpu::with_error_scope(d, [&] {
      for (WGPUBuffer b : buffers) bind(b);
      if (!scalars.empty()) {
        std::vector<uint32_t> words(scalars);
        words.resize((words.size() + 3) / 4 * 4, 0);  // uniform bindings of 16-byte rows
        bind(make_buffer(words.size() * 4, WGPUBufferUsage_Uniform, words.data()));
      }
      if (info.status) {
        status = make_buffer(4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, nullptr);
        bind(status);
      }
      WGPUBindGroupDescriptor bg{};
      bg.layout = p.layout;
      bg.entryCount = entries.size();
      bg.entries = entries.data();
      WGPUBindGroup group = a.wgpuDeviceCreateBindGroup(d.device, &bg);
      WGPUCommandEncoder encoder = a.wgpuDeviceCreateCommandEncoder(d.device, nullptr);
      // The pass's begin/end timestamps, where the device has timestamp-query.
      WGPUPassTimestampWrites writes{};
      writes.querySet = d.timestamps;
      writes.beginningOfPassWriteIndex = 0;
      writes.endOfPassWriteIndex = 1;
      WGPUComputePassDescriptor pass_desc{};
      if (d.timestamps) pass_desc.timestampWrites = &writes;
      WGPUComputePassEncoder pass = a.wgpuCommandEncoderBeginComputePass(encoder, &pass_desc);
      a.wgpuComputePassEncoderSetPipeline(pass, p.pipeline);
      a.wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
      a.wgpuComputePassEncoderDispatchWorkgroups(pass, uint32_t(grid[0]), uint32_t(grid[1]),
                                                 uint32_t(grid[2]));
      a.wgpuComputePassEncoderEnd(pass);
      a.wgpuComputePassEncoderRelease(pass);
      if (d.timestamps)
        a.wgpuCommandEncoderResolveQuerySet(encoder, d.timestamps, 0, 2, d.resolved, 0);
      WGPUCommandBuffer commands = a.wgpuCommandEncoderFinish(encoder, nullptr);
      WGPUSubmissionIndex index = a.wgpuQueueSubmitForIndex(d.queue, 1, &commands);
      a.wgpuCommandBufferRelease(commands);
      a.wgpuCommandEncoderRelease(encoder);
      a.wgpuBindGroupRelease(group);
      a.wgpuDevicePoll(d.device, true, &index);
    });
    int32_t word = 0;
    if (error.empty() && status) error = read_back(d, status, &word, 4);
    if (error.empty() && d.timestamps) {
      uint64_t ticks[2] = {0, 0};
      if (read_back(d, d.resolved, ticks, sizeof ticks).empty() && ticks[1] >= ticks[0]) {
        m.device_ns_ += double(ticks[1] - ticks[0]) * double(d.timestamp_period);
        m.timed_ = true;
      }
    }
    for (WGPUBuffer b : owned) {
      a.wgpuBufferDestroy(b);
      a.wgpuBufferRelease(b);
    }
    if (!error.empty()) {
      return exec::fail_device_call(
          err, len,
          fmt::format("WebGPU: launching kernel '{}' ({}x{}x{} workgroups of {}x{}x{} threads) "
                      "failed: {}",
                      function, grid[0], grid[1], grid[2], block[0], block[1], block[2], error));
    }
    if (word != 0) return exec::fail_device_status(err, len, word, function);
    return 0;
  }

  static constexpr TilecDeviceApi kApi{&api_alloc, &api_free, &api_copy, &api_launch};

  wgpu::Device& device_;
  std::string source_;
  std::string kept_at_;
  std::map<std::string, KernelInfo> kernels_;
  // Device time of the launches since the last take_device_time_ms (under device_.mutex).
  mutable double device_ns_ = 0;
  mutable bool timed_ = false;
};

class WgpuBackend final : public exec::ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }
  bool available() const override { return unavailable_reason().empty(); }

  std::string unavailable_reason() const override {
    std::string why;
    if (wgpu::adapters(&why).empty()) return why;
    return exec::native_execution_backend()->unavailable_reason();
  }

  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    wgpu::Adapter adapter = wgpu::select_adapter(target.get_string("device"));
    return fmt::format("wgpu-native {} | {} ({}) | host: {}", wgpu::library_path(), adapter.label,
                       target.get_string("device"),
                       exec::native_execution_backend()->cache_identity(target_host, target_host));
  }

  std::string artifact_file_name() const override { return kArtifactName; }

  exec::BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                          const target::Target& target, const target::Target& target_host,
                          const fs::path& output_dir) const override {
    exec::require_device_format(device, "wgsl", kWgpuBackendName, "WGSL");
    std::string selector = target.get_string("device");
    wgpu::Device& d = wgpu::device(selector);
    fs::path source_path = output_dir / "device.wgsl";
    exec::write_binary_file(source_path, device.source);
    {
      // Compiled now, so a WGSL error is reported when the kernel is built.
      std::lock_guard<std::mutex> lock(d.mutex);
      for (const auto& [entry, info] : parse_kernel_infos(device.source))
        pipeline(d, device.source, info, source_path.string());
    }
    std::string embedded =
        exec::embed_files_source("The WGSL of this kernel library (wgpu execution backend).",
                                 {{kSourceSymbol, kSourceEndSymbol, source_path}}) +
        fmt::format("const char {}[] = \"{}\";\n", kDeviceSymbol, c_escaped(selector));
    return exec::build_with_embedded_device_code(*this, host, std::move(embedded), target_host,
                                                 output_dir);
  }

  std::shared_ptr<const exec::LoadedModule> load(const fs::path& artifact) const override {
    auto library = runtime::KernelLibrary::open(artifact.string());
    void* handle = dlopen(artifact.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw ExecError(fmt::format("cannot reopen '{}': {}", artifact.string(), dlerror()));
    auto source = exec::embedded_bytes(handle, kSourceSymbol, kSourceEndSymbol);
    auto* selector = static_cast<const char*>(dlsym(handle, kDeviceSymbol));
    std::string device = selector ? selector : "";
    dlclose(handle);  // `library` keeps it loaded
    if (!source) {
      throw ExecError(
          fmt::format("kernel library '{}' embeds no WGSL ({} missing); it was not "
                      "built by the wgpu execution backend",
                      artifact.string(), kSourceSymbol));
    }
    return std::make_shared<WgpuModule>(std::move(library), wgpu::device(device),
                                        std::move(*source), artifact.string());
  }

 private:
  std::string name_ = kWgpuBackendName;
};

}  // namespace

std::vector<std::string> list_wgpu_adapters() {
  std::vector<std::string> out;
  for (const auto& a : wgpu::adapters(nullptr))
    out.push_back(fmt::format("{}: {}", a.index, a.label));
  return out;
}

std::optional<WgpuDeviceFacts> wgpu_device_facts(const std::string& selector) {
  try {
    std::string why;
    if (wgpu::adapters(&why).empty()) return std::nullopt;
    wgpu::Device& d = wgpu::device(selector);
    return WgpuDeviceFacts{d.shader_f16, d.subgroups,
                           int64_t(d.limits.maxComputeWorkgroupStorageSize),
                           int64_t(d.limits.maxComputeInvocationsPerWorkgroup),
                           int64_t(d.limits.maxStorageBufferBindingSize)};
  } catch (const ExecError&) {
    return std::nullopt;  // no adapter matches: the launch reports it, naming the adapters
  }
}

#else  // !TILEC_HAVE_WGPU_HEADERS

namespace {

// Built without wgpu-native's headers: the backend exists and says how to get it.
class WgpuBackend final : public exec::ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }
  bool available() const override { return false; }
  std::string unavailable_reason() const override {
    return "tilec was configured without wgpu-native's headers (webgpu.h, wgpu.h); run "
           "scripts/setup.sh, which unpacks them from the pinned PyPI wgpu wheel, and "
           "reconfigure (or set TILEC_WGPU_DIR to a folder with include/ and lib/)";
  }
  std::string cache_identity(const target::Target&, const target::Target&) const override {
    throw ExecError(unavailable_reason());
  }
  std::string artifact_file_name() const override { return "kernel.so"; }
  exec::BuiltModule build(const backend::CodeArtifact&, const backend::CodeArtifact&,
                          const target::Target&, const target::Target&,
                          const fs::path&) const override {
    throw ExecError(unavailable_reason());
  }
  std::shared_ptr<const exec::LoadedModule> load(const fs::path&) const override {
    throw ExecError(unavailable_reason());
  }

 private:
  std::string name_ = kWgpuBackendName;
};

}  // namespace

std::vector<std::string> list_wgpu_adapters() {
  return {};
}

std::optional<WgpuDeviceFacts> wgpu_device_facts(const std::string&) {
  return std::nullopt;
}

#endif  // TILEC_HAVE_WGPU_HEADERS

const exec::ExecutionBackendPtr& wgpu_execution_backend() {
  static const exec::ExecutionBackendPtr backend = std::make_shared<WgpuBackend>();
  return backend;
}

}  // namespace tilec::webgpu
